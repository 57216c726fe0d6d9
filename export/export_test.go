package export

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

// load loads the catalog in dir, failing the test on any error.
func load(t *testing.T, dir string) *build.Catalog {
	t.Helper()
	cat, diags := build.Load(context.Background(), dir)
	if diags.HasErrors() {
		var b strings.Builder
		_ = diags.Write(&b, build.FormatText)
		t.Fatalf("load %s:\n%s", dir, b.String())
	}
	return cat
}

// exports are the two exports, by the name of their golden file.
var exports = []struct {
	file string
	fn   func(*build.Catalog, string) (*Document, error)
}{
	{"managed-settings.json", ManagedSettings},
	{"cline.json", Cline},
}

// TestExampleGolden holds both exports of each of the example's tenants to
// testdata/golden/TENANT, byte for byte.
func TestExampleGolden(t *testing.T) {
	cat := load(t, catalogtest.ExampleDir(t))
	for _, tenant := range cat.Config.Tenants {
		for _, e := range exports {
			doc, err := e.fn(cat, tenant)
			if err != nil {
				t.Fatalf("%s of %s: %v", e.file, tenant, err)
			}
			golden := filepath.Join("testdata", "golden", tenant, e.file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, doc.JSON, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(doc.JSON)); diff != "" {
				t.Errorf("%s differs (-want +got); run go test ./export -update if the change is intended:\n%s", golden, diff)
			}
		}
	}
}

// TestExampleNotes holds what each export says of the example beside its
// document.
func TestExampleNotes(t *testing.T) {
	cat := load(t, catalogtest.ExampleDir(t))
	doc, err := ManagedSettings(cat, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Notes) != 0 {
		t.Errorf("managed-settings notes: %q, want none (every variable of the example has choices)", doc.Notes)
	}
	wantBy := map[string][]string{
		"com.example/billing": {"serverUrl https://eu.mcp.example.com/billing", "serverUrl https://us.mcp.example.com/billing"},
		"com.example/docs":    {"serverUrl https://mcp.example.com/docs"},
		"com.example/ops":     {"serverCommand npx @example-corp/ops-mcp@0.9.4 --read-only", "serverUrl https://mcp.example.com/ops", "serverUrl https://mcp.example.com/ops/sse"},
		"com.example/tickets": {"serverUrl https://mcp.example.com/tickets"},
		"com.example/weather": {"serverUrl https://mcp.example.com/weather"},
	}
	got := map[string][]string{}
	for _, a := range doc.Servers {
		got[a.Name] = a.By
	}
	if diff := cmp.Diff(wantBy, got); diff != "" {
		t.Errorf("managed-settings servers (-want +got):\n%s", diff)
	}

	doc, err = Cline(cat, "globex")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"com.example/billing: its remote takes the header Authorization (required, secret), which its remoteMCPServers entry leaves out: a value the same for every user can be added to the entry's headers by hand"}
	if diff := cmp.Diff(want, doc.Notes); diff != "" {
		t.Errorf("cline notes (-want +got):\n%s", diff)
	}
}

// TestErrors holds the exports' errors: a tenant the catalog does not
// have, none for a catalog with tenants or one for a catalog without, a
// site without servers of its own, and a remote neither format can take.
func TestErrors(t *testing.T) {
	example := load(t, catalogtest.ExampleDir(t))
	noServers := load(t, catalogtest.Write(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\n",
		// A server whose card another host serves is not the site's own.
		"servers.yaml": "servers:\n  - name: com.example/vendor\n    cardUrl: https://vendor.example.net/card.json\n",
	}))
	for _, e := range exports {
		var te *output.TenantError
		if _, err := e.fn(example, "initech"); !errors.As(err, &te) || err.Error() != `no tenant "initech" in the build: it has acme, globex` {
			t.Errorf("%s of an unknown tenant: %v", e.file, err)
		}
		if _, err := e.fn(example, ""); !errors.As(err, &te) || te.Tenant != "" {
			t.Errorf("%s of no tenant, with tenants: %v", e.file, err)
		}
		if _, err := e.fn(noServers, "acme"); !errors.As(err, &te) || err.Error() != "the build has no tenants" {
			t.Errorf("%s of a tenant, without tenants: %v", e.file, err)
		}
		var ne *NoServersError
		_, err := e.fn(noServers, "")
		if !errors.As(err, &ne) || !strings.HasPrefix(err.Error(), "the site without tenants publishes no MCP server of its own") {
			t.Errorf("%s without servers: %v", e.file, err)
		}
	}

	bad := load(t, catalogtest.Write(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\n",
		"servers.yaml": `servers:
  - name: com.example/ported
    version: 1.0.0
    description: A port of the user's choosing.
    remotes:
      - type: streamable-http
        url: "https://mcp.example.com:{port}/mcp"
        variables:
          port: {description: Port}
`,
	}))
	var se *ServerError
	_, err := ManagedSettings(bad, "")
	if !errors.As(err, &se) || err.Error() != "server com.example/ported: remote https://mcp.example.com:{port}/mcp has a variable in its port: GitHub's serverUrl matches a host by its subdomains only; declare the port as it is" {
		t.Errorf("managed-settings of a port variable: %v", err)
	}
	_, err = Cline(bad, "")
	if !errors.As(err, &se) || err.Error() != "server com.example/ported: remote https://mcp.example.com:{port}/mcp needs {port}, which has no value or default: Cline's remoteMCPServers takes a URL as it is; give the variable a default" {
		t.Errorf("cline of a variable without default: %v", err)
	}
}

func TestWildcard(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{in: "https://{region}.mcp.example.com/billing", want: "https://*.mcp.example.com/billing"},
		{in: "https://mcp-{region}.example.com/billing", want: "https://*.example.com/billing"},
		{in: "https://{a}.{b}.example.com/", want: "https://*.example.com/"},
		{in: "https://{region}.example.com:8443/mcp", want: "https://*.example.com:8443/mcp"},
		{in: "https://mcp.example.com/t/{tenant}/mcp", want: "https://mcp.example.com/t/*"},
		{in: "https://mcp.example.com/t-{tenant}", want: "https://mcp.example.com/t-*"},
		{in: "https://mcp.example.com/mcp?tenant={tenant}", want: "https://mcp.example.com/mcp?tenant=*"},
		{in: "https://{r}.example.com/{t}", want: "https://*.example.com/*"},
		{in: "https://{host}/mcp", err: "domain itself"},
		{in: "https://{sub}.com/mcp", err: "domain itself"},
		{in: "https://mcp.{tld}/mcp", err: "domain itself"},
		{in: "https://mcp.example.com:{port}/mcp", err: "port"},
		{in: "http://[::{x}]:8080/mcp", err: "IP address"},
	} {
		got, err := wildcard(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("wildcard(%s) = %q, %v; want an error about %s", tt.in, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("wildcard(%s) = %q, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

// FuzzURLPatterns holds urlPatterns to any template: no panic, and every
// pattern it returns uses only the forms GitHub documents, a "*" as the
// leftmost label of the host or at the end.
func FuzzURLPatterns(f *testing.F) {
	for _, s := range []string{
		"https://{region}.mcp.example.com/billing", "https://mcp.example.com/t/{tenant}/mcp",
		"https://{a}.{b}.example.com/{c}", "http://[::{x}]:8080/mcp", "https://{host}", "https://",
		"https://mcp.example.com:{port}/", "https://x.example.com/?q={q}#{f}", "{", "}{", "https://{",
	} {
		f.Add(s, "eu")
	}
	f.Fuzz(func(t *testing.T, template, value string) {
		// The loader holds a remote's URL to CheckRemoteURL; a "*" of the
		// declaration itself is not one of the export's.
		if discovery.CheckRemoteURL(template) != "" || strings.Contains(template+value, "*") {
			return
		}
		vars := []discovery.Var{{Name: "region", Input: &discovery.Input{HasChoices: true, Choices: []discovery.Str{{Value: value, Set: true}}}}}
		for _, n := range templateVars(template) {
			vars = append(vars, discovery.Var{Name: n})
		}
		patterns, free, err := urlPatterns(template, vars)
		if err != nil || len(free) == 0 {
			return
		}
		for _, p := range patterns {
			scheme, rest, _ := strings.Cut(p, "://")
			if scheme != "https" && scheme != "http" && !strings.EqualFold(scheme, "https") && !strings.EqualFold(scheme, "http") {
				t.Fatalf("%s: pattern %s has another scheme", template, p)
			}
			rest = strings.TrimPrefix(rest, "*.")
			if i := strings.IndexByte(rest, '*'); i >= 0 && i != len(rest)-1 {
				t.Fatalf("%s: pattern %s has a wildcard GitHub does not document", template, p)
			}
		}
	})
}
