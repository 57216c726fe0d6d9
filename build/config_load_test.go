package build

import (
	"strings"
	"testing"
)

// TestConfigOriginWithoutScheme: an origin written as a bare host says a
// scheme is missing, instead of the schema's "must be a valid uri".
func TestConfigOriginWithoutScheme(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": "site: {origin: discovery.example.com, publisher: example.com}\ntenants:\n  - {id: acme, origin: acme.example.com}\n",
	},
		`signpost.yaml:1:16: origin "discovery.example.com" must be an absolute https origin such as https://discovery.example.com (a scheme is missing)`,
		`signpost.yaml:3:24: tenant acme: origin "acme.example.com" must be an absolute https origin such as https://acme.example.com (a scheme is missing)`,
	)
}

// TestConfigDisplayNameNotIJSON: the AI catalog names the display name,
// so a character JCS cannot take is an error at the setting, unless the
// AI catalog is off.
func TestConfigDisplayNameNotIJSON(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com, displayName: \"Example \\uFFFE\"}\n",
	},
		`signpost.yaml:1:74: site.displayName has the noncharacter U+FFFE at byte 8, which I-JSON forbids: the AI catalog names it, and an AI catalog must be valid input to JSON canonicalization (RFC 8785), which takes I-JSON only; remove the character`,
	)
	checkDiags(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com, displayName: \"Example \\uFFFE\"}\ndiscovery: {aiCatalog: false}\n",
	})
}

// TestConfigSchemaErrorKeepsChecking: a schema violation in one setting of
// signpost.yaml does not hide the problems of the others.
func TestConfigSchemaErrorKeepsChecking(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": `site: {origin: example.com, publisher: example.com}
toolCatalog: {compactView: "yes"}
tenants:
  - {id: acme, publicDiscovery: true}
  - {id: globex, gate: tokens}
limits: {value: 4 parsecs}
targets:
  broken: {s3: {bucket: 7}}
  production: {s3: {bucket: example-bucket, region: us-east-1, prefix: "a/../b"}}
`,
		"tools.yaml": "tools:\n" + toolDecl("tenants", "[acme, globex, initech]"),
	},
		`signpost.yaml:1:16: origin "example.com" must be an absolute https origin such as https://example.com (a scheme is missing)`,
		`signpost.yaml:2:28: must be a boolean, got string`,
		`signpost.yaml:4:33: tenant acme: publicDiscovery keeps /.well-known/ public on a gated site, but the site has no gate: add gate: token, or drop publicDiscovery`,
		`signpost.yaml:5:24: must be token; got "tokens"`,
		`signpost.yaml:6:17: must be a size: a number of bytes, or a number with a unit (B, kB, MB, GB, KiB, MiB or GiB), such as 64MiB; got "4 parsecs"`,
		`signpost.yaml:8:25: must be a string, got number`,
		`signpost.yaml:9:15: target production: s3.prefix "a/../b" must not have "." or ".." segments: the site's objects would land outside the prefix`,
		// globex is known although its entry is invalid: only initech is not.
		`tools.yaml:8:29: unknown tenant "initech": signpost.yaml declares acme, globex`,
	)
}

// TestDeclarationSchemaErrorKeepsChecking: a schema violation in one tool
// does not hide the problems of the other tools, in its file or others.
func TestDeclarationSchemaErrorKeepsChecking(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"a.yaml":        "tools:\n" + toolDecl("safetyTier", "reed") + toolDecl("toolId", "a/b"),
		"b.yaml":        "tools:\n" + toolDecl("toolId", "run_it", "source", "mcp", "safetyTier", "exec"),
	},
		`a.yaml:5:17: must be one of pure, read, write, exec; got "reed"`,
		`a.yaml:8:13: toolId "a/b" looks like a path: a toolId is one URL path segment in ASCII snake case, for example "a_b"`,
		"b.yaml:5:17: safetyTier exec is only for source: host-extension (this tool's source is mcp): use write, or declare the tool as a host extension",
	)
}

// TestConfigMissingSite: without a site, the schema says so, and the
// origin's check adds nothing.
func TestConfigMissingSite(t *testing.T) {
	checkDiags(t, map[string]string{"signpost.yaml": "tenants: [acme]\n"},
		`signpost.yaml:1:1: missing required field "site"`)
}

// TestConfigInlineKeyNotRepeated: a private key pasted into signing.key,
// its members in alphabetical order ("d" second), is refused without any
// message repeating more of it than a redaction keeps, though the schema's
// message quotes only the start of a long value, cut inside the key.
func TestConfigInlineKeyNotRepeated(t *testing.T) {
	d := "vvNrIbrXE48TQk2fa9Xp0Lm3ZqR7sT1uV5wX8yA2bC4"
	jwk := `{"crv":"P-256","d":"` + d + `","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`
	_, got := loadDiags(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\nsigning:\n  key: '" + jwk + "'\n",
	})
	if len(got) == 0 {
		t.Fatal("a key pasted into signing.key was accepted")
	}
	for _, m := range got {
		if strings.Contains(m, d[4:]) || strings.Contains(m, d[4:12]) {
			t.Errorf("a message repeats the private key: %s", m)
		}
	}
}
