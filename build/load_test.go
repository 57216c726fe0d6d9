package build

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

const testConfig = catalogtest.Config

// loadDiags loads a catalog and returns its diagnostics as text lines with
// the temporary folder removed from the paths.
func loadDiags(t *testing.T, files map[string]string) (*Catalog, []string) {
	t.Helper()
	dir := catalogtest.Write(t, files)
	cat, diags := Load(context.Background(), dir)
	var lines []string
	for _, d := range diags {
		line := strings.ReplaceAll(d.String(), filepath.ToSlash(dir)+"/", "")
		lines = append(lines, strings.ReplaceAll(line, filepath.ToSlash(dir), "DIR"))
	}
	return cat, lines
}

// toolDecl is a valid tool declaration with fields replaced or added.
func toolDecl(fields ...string) string {
	base := map[string]string{
		"toolId": "get_forecast", "description": "Seven-day forecast.", "source": "host-extension",
		"safetyTier": "read", "replayPolicy": "deterministic", "egress": "internet",
	}
	order := []string{"toolId", "description", "source", "safetyTier", "replayPolicy", "egress"}
	for i := 0; i+1 < len(fields); i += 2 {
		if _, ok := base[fields[i]]; !ok {
			order = append(order, fields[i])
		}
		base[fields[i]] = fields[i+1]
	}
	var b strings.Builder
	for i, k := range order {
		if base[k] == "-" {
			continue
		}
		if i == 0 {
			b.WriteString("  - ")
		} else {
			b.WriteString("    ")
		}
		b.WriteString(k + ": " + base[k] + "\n")
	}
	return b.String()
}

func checkDiags(t *testing.T, files map[string]string, want ...string) *Catalog {
	t.Helper()
	cat, got := loadDiags(t, files)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	return cat
}

func TestLoadValid(t *testing.T) {
	cat := checkDiags(t, map[string]string{
		"signpost.yaml":     testConfig,
		"tools/a.yaml":      "tools:\n" + toolDecl() + toolDecl("toolId", "get_alerts", "status", "planned"),
		"tools/in.json":     `{"type": "object", "properties": {"city": {"type": "string"}}}`,
		"tools/b.yml":       "tools:\n" + toolDecl("toolId", "lookup", "inputSchema", "{file: in.json}"),
		".git/ignored.yaml": "not: [valid",
	})
	var ids []string
	for _, tl := range cat.Tools {
		ids = append(ids, tl.ToolID+":"+tl.Status)
	}
	if diff := cmp.Diff([]string{"get_alerts:planned", "get_forecast:active", "lookup:active"}, ids); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := decodeSchema(t, withSchemas(t, cat.Tools[2]).InputSchema).(map[string]any)["properties"]; got == nil {
		t.Errorf("schema from file not loaded: %s", withSchemas(t, cat.Tools[2]).InputSchema)
	}
}

func TestRuleToolIDFormat(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("toolId", "../x") + toolDecl("toolId", "a/b") + toolDecl("toolId", "GetX") + toolDecl("toolId", strings.Repeat("x", 49)),
	},
		`t.yaml:2:13: toolId "../x" looks like a path: a toolId is one URL path segment in ASCII snake case, for example "x"`,
		`t.yaml:8:13: toolId "a/b" looks like a path: a toolId is one URL path segment in ASCII snake case, for example "a_b"`,
		`t.yaml:14:13: toolId "GetX" is not ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter), for example "get_x"`,
		`t.yaml:20:13: toolId "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" is 49 characters; the limit is 48`,
	)
}

func TestRuleToolIDUnique(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"a.yaml":        "tools:\n" + toolDecl(),
		"b.yaml":        "tools:\n" + toolDecl(),
	}, `b.yaml:2:13: toolId "get_forecast" is already used by the tool at `+"a.yaml:2:5"+`: toolIds must be unique`)
}

func TestRuleExecNeedsHostExtension(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("safetyTier", "exec", "source", "openapi") + toolDecl("toolId", "ok", "safetyTier", "exec"),
	}, `t.yaml:5:17: safetyTier exec is only for source: host-extension (this tool's source is openapi): use write, or declare the tool as a host extension`)
}

func TestRuleTenants(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("tenants", "[acme]"),
	}, `t.yaml:8:15: tool is scoped to tenant "acme" but signpost.yaml declares no tenants: add tenants: [acme] there, or drop the scope`)
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + "tenants: [acme, globex]\n",
		"t.yaml":        "tools:\n" + toolDecl("tenants", "[acme, initech]"),
	}, `t.yaml:8:21: unknown tenant "initech": signpost.yaml declares acme, globex`)
}

func TestRuleSchemaFile(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"outside.json":  `{"type": "object"}`,
		"t/t.yaml": "tools:\n" +
			toolDecl("toolId", "a", "inputSchema", "{file: ../../etc/passwd.json}") +
			toolDecl("toolId", "b", "inputSchema", "{file: /etc/x.json}") +
			toolDecl("toolId", "c", "inputSchema", "{file: missing.json}") +
			toolDecl("toolId", "d", "inputSchema", "{file: s.yaml}") +
			toolDecl("toolId", "e", "inputSchema", "{file: ../outside.json}"),
	},
		`t/t.yaml:8:25: file "../../etc/passwd.json" is outside the catalog folder: keep schemas and recordings inside it`,
		`t/t.yaml:15:25: file "/etc/x.json" is an absolute path: name it relative to t.yaml`,
		`t/t.yaml:22:25: cannot read missing.json: no such file or directory`,
		`t/t.yaml:29:25: file "s.yaml" is not a .json file`,
	)
}

func TestRuleSchemaRoot(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("inputSchema", "{type: string}"),
	}, `t.yaml:8:18: inputSchema must be a JSON Schema with "type": "object" at its root (tool arguments and results are objects)`)
}

func TestRuleSchemaRefs(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"s.json":        "{\"type\": \"object\",\n \"properties\": {\"a\": {\"$ref\": \"https://example.com/a.json\"}, \"b\": {\"$ref\": \"#/$defs/nope\"}}}",
		"t.yaml":        "tools:\n" + toolDecl("inputSchema", "{file: s.json}"),
	},
		`s.json:2:31: external $ref "https://example.com/a.json": a tool schema must be self-contained; copy the definition under $defs and point at it with #/$defs/…`,
		`s.json:2:76: $ref "#/$defs/nope" does not resolve: the schema has no member "$defs"`,
	)
}

func TestRuleNoCredentials(t *testing.T) {
	cat, got := loadDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml": "tools:\n" + toolDecl("description", `"Uses key AKIA`+"IOSFODNN7EXAMPLE"+` to call S3."`,
			"inputSchema", `{type: object, properties: {password: {type: string, default: hunter2hunter2}}}`),
	})
	_ = cat
	if len(got) != 2 {
		t.Fatalf("want 2 credential diagnostics, got %q", got)
	}
	for _, want := range []string{"t.yaml:3:18: ", "t.yaml:8:"} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("no diagnostic at %s in %q", want, got)
		}
	}
	for _, g := range got {
		if strings.Contains(g, "IOSFODNN7EXAMPLE") || strings.Contains(g, "hunter2") {
			t.Errorf("diagnostic repeats the secret: %s", g)
		}
	}
}

func TestRuleSchemaValidation(t *testing.T) {
	cat, got := loadDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("safetyTier", "readonly", "colour", "blue"),
	})
	if cat == nil {
		t.Fatal("no catalog")
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "t.yaml:5:17: ") || !strings.Contains(got[0], "readonly") ||
		!strings.HasPrefix(got[1], "t.yaml:8:13: ") || !strings.Contains(got[1], "colour") {
		t.Errorf("diagnostics = %q", got)
	}
}

func TestMissingConfig(t *testing.T) {
	checkDiags(t, map[string]string{"t.yaml": "tools:\n" + toolDecl()},
		"signpost.yaml: no signpost.yaml in "+"DIR"+": a catalog folder starts with one (see `signpost schema config`)")
}

func TestTargets(t *testing.T) {
	cat := checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + `targets:
  production: {s3: {bucket: example-discovery, region: us-east-1}, cloudfront: {distributionId: E2EXAMPLE, functionName: example-discovery}}
  local: {s3: {bucket: test-bucket, endpoint: "http://127.0.0.1:7070"}}
  pages: {githubPages: {}}
  cf: {cloudflare: {}}
  workers: {cloudflare: {name: discovery}}
  nl: {netlify: {}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	})
	want := map[string]target.Target{
		"production": {S3: &target.S3{Bucket: "example-discovery", Region: "us-east-1"}, CloudFront: &target.CloudFront{Distributions: map[string]target.Distribution{"": {ID: "E2EXAMPLE", FunctionName: "example-discovery"}}}},
		"local":      {S3: &target.S3{Bucket: "test-bucket", Endpoint: "http://127.0.0.1:7070"}},
		"pages":      {GitHubPages: true},
		"cf":         {Cloudflare: &target.Cloudflare{}},
		"workers":    {Cloudflare: &target.Cloudflare{Name: "discovery"}},
		"nl":         {Netlify: true},
	}
	if diff := cmp.Diff(want, cat.Config.Targets); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + `targets:
  both: {s3: {bucket: abc}, githubPages: {}}
  cdn: {cloudfront: {distributionId: E2EXAMPLE}}
  plain: {s3: {bucket: abc, endpoint: "http://s3.example.net"}}
  up: {s3: {bucket: abc, prefix: "../other"}}
  dot: {s3: {bucket: abc, prefix: "a/./b"}}
  manifest: {s3: {bucket: abc, prefix: ".signpost-manifest.json"}}
  shadow: {s3: {bucket: abc, prefix: "sites/.Signpost-x"}}
  fine: {s3: {bucket: abc, prefix: "sites/.well-known-ish/v1"}}
  cfboth: {cloudflare: {}, githubPages: {}}
  none: {cloudflare: {}, s3: {bucket: abc}}
  cfnl: {cloudflare: {}, netlify: {}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	},
		"signpost.yaml:3:9: target both: choose one of s3, githubPages, cloudflare or netlify: declare a target for each host to publish to several",
		"signpost.yaml:4:8: target cdn: cloudfront fronts an S3 bucket: add s3",
		"signpost.yaml:5:10: target plain: endpoint \"http://s3.example.net\" must use https: plain http is only for loopback hosts",
		"signpost.yaml:6:7: target up: s3.prefix \"../other\" must not have \".\" or \"..\" segments: the site's objects would land outside the prefix",
		"signpost.yaml:7:8: target dot: s3.prefix \"a/./b\" must not have \".\" or \"..\" segments: the site's objects would land outside the prefix",
		"signpost.yaml:8:13: target manifest: s3.prefix \".signpost-manifest.json\" must not have a segment starting with .signpost-: publish keeps its own objects under such names",
		"signpost.yaml:9:11: target shadow: s3.prefix \"sites/.Signpost-x\" must not have a segment starting with .signpost-: publish keeps its own objects under such names",
		"signpost.yaml:11:11: target cfboth: choose one of s3, githubPages, cloudflare or netlify: declare a target for each host to publish to several",
		"signpost.yaml:12:9: target none: choose one of s3, githubPages, cloudflare or netlify: declare a target for each host to publish to several",
		"signpost.yaml:13:9: target cfnl: choose one of s3, githubPages, cloudflare or netlify: declare a target for each host to publish to several",
	)
}

// TestCloudFrontTenants checks that a catalog with tenants names one
// distribution per tenant, and one without names exactly one.
func TestCloudFrontTenants(t *testing.T) {
	withTenants := testConfig + "tenants: [acme, globex]\ntargets:\n"
	cat := checkDiags(t, map[string]string{
		"signpost.yaml": withTenants + `  production:
    s3: {bucket: example-discovery}
    cloudfront:
      tenants:
        acme: {distributionId: E1ACME, functionName: example-acme}
        globex: {distributionId: E1GLOBEX}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	})
	want := &target.CloudFront{Distributions: map[string]target.Distribution{
		"acme":   {ID: "E1ACME", FunctionName: "example-acme"},
		"globex": {ID: "E1GLOBEX"},
	}}
	if diff := cmp.Diff(want, cat.Config.Targets["production"].CloudFront); diff != "" {
		t.Errorf("cloudfront (-want +got):\n%s", diff)
	}
	checkDiags(t, map[string]string{
		"signpost.yaml": withTenants + `  one: {s3: {bucket: abc}, cloudfront: {distributionId: E1}}
  partial: {s3: {bucket: abc}, cloudfront: {tenants: {acme: {distributionId: E1}}}}
  stranger: {s3: {bucket: abc}, cloudfront: {tenants: {acme: {distributionId: E1}, globex: {distributionId: E2}, initech: {distributionId: E3}}}}
  shared: {s3: {bucket: abc}, cloudfront: {tenants: {acme: {distributionId: E1, functionName: f}, globex: {distributionId: E2, functionName: f}}}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	},
		"signpost.yaml:4:8: target one: the catalog has tenants, and each tenant's site needs its own distribution: write cloudfront: {tenants: {acme: {distributionId: ...}, ...}} instead of distributionId, functionName and keyValueStoreArn",
		"signpost.yaml:5:12: target partial: cloudfront.tenants has no distribution for globex: every tenant's site needs its own",
		"signpost.yaml:6:13: target stranger: cloudfront.tenants names initech, which is not a tenant of the catalog",
		"signpost.yaml:7:11: target shared: tenants acme and globex share the functionName f, but their sites need different functions: give each its own",
	)
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + `targets:
  many: {s3: {bucket: abc}, cloudfront: {tenants: {acme: {distributionId: E1}}}}
  none: {s3: {bucket: abc}, cloudfront: {functionName: f}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	},
		"signpost.yaml:3:9: target many: cloudfront lists tenants, but the catalog declares none: name the one distribution with distributionId",
		"signpost.yaml:4:9: target none: cloudfront needs the distributionId of the distribution in front of the bucket",
	)
}

// TestDeclaredToolName checks that a declared tool keeps its name at its
// source, which an MCP client calls it by, and that a host extension
// cannot have one.
func TestDeclaredToolName(t *testing.T) {
	cat := checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("source", "mcp", "name", "getForecast", "safetyTier", "read"),
	})
	if len(cat.Tools) != 1 || cat.Tools[0].Name != "getForecast" {
		t.Fatalf("tools %+v, want one named getForecast", cat.Tools)
	}
	b, err := Compile(context.Background(), cat)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range b.Sites[0].Documents {
		if d.Route.Route == "/tools/get_forecast" && d.Route.View == spec.ViewStandard {
			found = true
			if !strings.Contains(string(bodyOf(t, d)), `"name":"getForecast"`) {
				t.Errorf("descriptor lacks the name: %s", bodyOf(t, d))
			}
		}
	}
	if !found {
		t.Error("no descriptor of get_forecast")
	}
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("name", "getForecast"),
	}, "t.yaml:8:11: name is the tool's name at its source, and a host-extension tool has none: remove it, or declare the source (mcp or openapi)")
}

// TestSiteSettingsScanned: the site's settings are published in the AI
// catalog, so a credential in them is refused, and a password in the
// origin is never repeated.
func TestSiteSettingsScanned(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2c3D4e5", 3) + "f6G7h8"
	checkDiags(t, map[string]string{
		"signpost.yaml": "site: {origin: \"https://admin:hunter2secret@example.com\", publisher: example.com, displayName: \"Example " + token + "\"}\n",
		"t.yaml":        "tools:\n" + toolDecl(),
	},
		`signpost.yaml:1:16: origin "https://…@example.com" must be scheme and host only, like https://example.com`,
		"signpost.yaml:1:96: contains a GitHub token (ghp_…): remove it; signpost.yaml is public with the catalog, and signpost publish takes credentials from its environment",
	)
}

// TestKeyValueStore checks the key value store of a distribution: decoded
// beside its functionName, for the one distribution and for each tenant's,
// and refused with its position when it is no store's ARN or has no
// function to be associated with.
func TestKeyValueStore(t *testing.T) {
	const arn = "arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"
	cat := checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + `targets:
  production: {s3: {bucket: abc}, cloudfront: {distributionId: E1, functionName: site, keyValueStoreArn: "` + arn + `"}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	})
	want := &target.CloudFront{Distributions: map[string]target.Distribution{"": {ID: "E1", FunctionName: "site", KeyValueStoreARN: arn}}}
	if diff := cmp.Diff(want, cat.Config.Targets["production"].CloudFront); diff != "" {
		t.Errorf("cloudfront (-want +got):\n%s", diff)
	}
	withTenants := testConfig + "tenants: [acme, globex]\ntargets:\n"
	cat = checkDiags(t, map[string]string{
		"signpost.yaml": withTenants + `  production:
    s3: {bucket: abc}
    cloudfront:
      tenants:
        acme: {distributionId: E1ACME, functionName: acme, keyValueStoreArn: "` + arn + `"}
        globex: {distributionId: E1GLOBEX, functionName: globex}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	})
	want = &target.CloudFront{Distributions: map[string]target.Distribution{
		"acme":   {ID: "E1ACME", FunctionName: "acme", KeyValueStoreARN: arn},
		"globex": {ID: "E1GLOBEX", FunctionName: "globex"},
	}}
	if diff := cmp.Diff(want, cat.Config.Targets["production"].CloudFront); diff != "" {
		t.Errorf("tenants' cloudfront (-want +got):\n%s", diff)
	}

	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + `targets:
  region: {s3: {bucket: abc}, cloudfront: {distributionId: E1, functionName: f, keyValueStoreArn: "arn:aws:cloudfront:us-east-1:123456789012:key-value-store/a1b2"}}
  short: {s3: {bucket: abc}, cloudfront: {distributionId: E1, functionName: f, keyValueStoreArn: "arn:aws:cloudfront::1234:key-value-store/a1b2"}}
  kind: {s3: {bucket: abc}, cloudfront: {distributionId: E1, functionName: f, keyValueStoreArn: "arn:aws:cloudfront::123456789012:function/a1b2"}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	},
		`signpost.yaml:3:99: must be the ARN of a CloudFront KeyValueStore: arn:aws:cloudfront::ACCOUNT:key-value-store/ID, with a 12-digit account, such as arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111; got "arn:aws:cloudfront:us-east-1:123456789012:key-value-store/a1b2"`,
		`signpost.yaml:4:98: must be the ARN of a CloudFront KeyValueStore: arn:aws:cloudfront::ACCOUNT:key-value-store/ID, with a 12-digit account, such as arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111; got "arn:aws:cloudfront::1234:key-value-store/a1b2"`,
		`signpost.yaml:5:97: must be the ARN of a CloudFront KeyValueStore: arn:aws:cloudfront::ACCOUNT:key-value-store/ID, with a 12-digit account, such as arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111; got "arn:aws:cloudfront::123456789012:function/a1b2"`,
	)
	checkDiags(t, map[string]string{
		"signpost.yaml": withTenants + `  alone: {s3: {bucket: abc}, cloudfront: {tenants: {acme: {distributionId: E1, functionName: a}, globex: {distributionId: E2, keyValueStoreArn: "` + arn + `"}}}}
  top: {s3: {bucket: abc}, cloudfront: {keyValueStoreArn: "` + arn + `", tenants: {acme: {distributionId: E1}, globex: {distributionId: E2}}}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	},
		"signpost.yaml:4:10: target alone: cloudfront.tenants.globex.keyValueStoreArn is associated with the viewer-request function that publish keeps up to date: add functionName beside it, or remove keyValueStoreArn",
		"signpost.yaml:5:8: target top: the catalog has tenants, and each tenant's site needs its own distribution: write cloudfront: {tenants: {acme: {distributionId: ...}, ...}} instead of distributionId, functionName and keyValueStoreArn",
	)
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig + `targets:
  nofn: {s3: {bucket: abc}, cloudfront: {distributionId: E1, keyValueStoreArn: "` + arn + `"}}
`,
		"t.yaml": "tools:\n" + toolDecl(),
	},
		"signpost.yaml:3:9: target nofn: cloudfront.keyValueStoreArn is associated with the viewer-request function that publish keeps up to date: add functionName beside it, or remove keyValueStoreArn",
	)
}
