package build

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

const exampleDir = "../catalogs/example"

// compiled loads and compiles the catalog dir, failing the test on any
// diagnostic of severity error.
func compiled(t testing.TB, dir string) *output.Build {
	t.Helper()
	ctx := context.Background()
	cat, diags := Load(ctx, dir)
	if diags.HasErrors() {
		var b strings.Builder
		_ = diags.Write(&b, FormatText)
		t.Fatalf("load %s:\n%s", dir, b.String())
	}
	b, err := Compile(ctx, cat)
	if err != nil {
		t.Fatalf("compile %s: %v", dir, err)
	}
	if len(b.Sites) == 0 {
		t.Fatalf("%s builds no site", dir)
	}
	return b
}

// buildTo loads, compiles and writes the catalog dir into a new folder.
func buildTo(t testing.TB, dir string) (string, *output.Build) {
	t.Helper()
	ctx := context.Background()
	b := compiled(t, dir)
	out := filepath.Join(t.TempDir(), "site")
	if err := b.Write(ctx, out); err != nil {
		t.Fatal(err)
	}
	return out, b
}

// TestExampleGolden compares every byte of the example site with the golden
// copy in testdata/golden/example (go test ./build -update rewrites it).
func TestExampleGolden(t *testing.T) {
	out, _ := buildTo(t, exampleDir)
	got := catalogtest.ReadTree(t, out)
	golden := filepath.Join("testdata", "golden", "example")
	if *update {
		if err := os.RemoveAll(golden); err != nil {
			t.Fatal(err)
		}
		for name, body := range got {
			p := filepath.Join(golden, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := catalogtest.ReadTree(t, golden)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("example site differs from %s (-want +got); run go test ./build -update if the change is intended:\n%s", golden, diff)
	}
}

// TestDeterministic builds the example twice, in different folders, and
// compares every byte; the output names no machine path and no time.
func TestDeterministic(t *testing.T) {
	out1, _ := buildTo(t, exampleDir)
	out2, _ := buildTo(t, exampleDir)
	a, b := catalogtest.ReadTree(t, out1), catalogtest.ReadTree(t, out2)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two builds differ:\n%s", diff)
	}
	abs, _ := filepath.Abs(exampleDir)
	for name, body := range a {
		for _, leak := range []string{abs, out1, os.TempDir(), "2026-", "\\u003c"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s contains %q", name, leak)
			}
		}
	}
}

// TestCompileKeepsCatalog compiles one loaded catalog twice: Compile reads
// each tool's schemas into a copy of it that it lets go once encoded, and
// never changes the catalog it is given, so that serve, diff and publish
// may go on using it, and a second Compile gives the same site.
func TestCompileKeepsCatalog(t *testing.T) {
	ctx := context.Background()
	cat, diags := Load(ctx, exampleDir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	before := make([]string, len(cat.Tools))
	hadInput := make([]bool, len(cat.Tools)) // a hidden tool has none
	for i, tl := range cat.Tools {
		before[i], hadInput[i] = descriptorString(tl), withSchemas(t, tl).InputSchema != nil
	}
	first, err := Compile(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	for i, tl := range cat.Tools {
		if (withSchemas(t, tl).InputSchema != nil) != hadInput[i] || descriptorString(tl) != before[i] {
			t.Errorf("tool %s changed by Compile", tl.ToolID)
		}
	}
	second, err := Compile(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.RouteTable(), second.RouteTable()); diff != "" {
		t.Errorf("a second Compile of the same catalog differs (-first +second):\n%s", diff)
	}
}

// TestDocumentsMatchSchemas validates every document of the example site,
// and the route table, against the schemas `signpost schema` prints.
func TestDocumentsMatchSchemas(t *testing.T) {
	out, b := buildTo(t, exampleDir)
	v, err := schemas.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	check := func(name, file string) {
		t.Helper()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, vi := range v.Validate(name, doc) {
			t.Errorf("%s does not match schema %s: %s: %s", file, name, vi.Pointer, vi.Message)
		}
	}
	check("route-table", filepath.Join(out, output.RouteTableFile))
	n := map[string]int{}
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			file := filepath.Join(out, s.Dir, d.Key)
			var schema string
			switch {
			case d.ContentType == spec.ContentTypeServerCardV1:
				// v1 cards are held to the official schema, which is not
				// the project's to ship: the corpus suite does
				// (TestCorpusOfficialCards).
				continue
			case d.ContentType == spec.ContentTypeServerCardDraft:
				schema = "mcp-server-card-draft"
			case d.Route.Route == spec.RouteMCPCatalog:
				schema = "mcp-catalog"
			case d.Route.Route == spec.RouteAICatalog:
				schema = "ai-catalog"
			case d.Route.Route == spec.RouteRegistry || strings.HasSuffix(d.Route.Route, "/versions"):
				schema = "registry-server-list"
			case spec.IsRegistryRoute(d.Route.Route):
				schema = "registry-server-response"
			case d.Route.Route == spec.RouteToolCatalogue:
				schema = "tool-catalogue"
			case strings.HasPrefix(d.Route.Route, spec.RouteGroups):
				schema = "tool-catalogue"
				n["group document"]++
			default:
				schema = map[[2]bool]string{
					{false, false}: "tool-descriptor", {true, false}: "tool-list",
					{false, true}: "compact-tool-descriptor", {true, true}: "compact-tool-list",
				}[[2]bool{d.Route.Route == "/tools", d.View == spec.ViewCompact}]
			}
			check(schema, file)
			n[schema]++
		}
	}
	for _, schema := range []string{"tool-descriptor", "tool-list", "compact-tool-descriptor", "compact-tool-list",
		"mcp-server-card-draft", "mcp-catalog", "ai-catalog", "tool-catalogue", "group document",
		"registry-server-list", "registry-server-response"} {
		if n[schema] == 0 {
			t.Errorf("no document checked against %s", schema)
		}
	}
}

func TestTenantSites(t *testing.T) {
	_, b := buildTo(t, exampleDir)
	if len(b.Sites) != 2 || b.Sites[0].Tenant != "acme" || b.Sites[1].Tenant != "globex" {
		t.Fatalf("sites = %+v", b.Sites)
	}
	has := func(s *output.Site, id string) bool {
		for _, d := range s.Documents {
			if d.Route.Route == "/tools/"+id {
				return true
			}
		}
		return false
	}
	acme, globex := b.Sites[0], b.Sites[1]
	for _, tc := range []struct {
		id           string
		acme, globex bool
	}{
		{"get_forecast", true, true},
		{"run_runbook", true, false},
		{"restart_service", false, true},
		{"issue_refund", false, false},          // planned
		{"tickets_delete_ticket", false, false}, // hidden
	} {
		if has(acme, tc.id) != tc.acme || has(globex, tc.id) != tc.globex {
			t.Errorf("%s: acme %v globex %v, want %v %v", tc.id, has(acme, tc.id), has(globex, tc.id), tc.acme, tc.globex)
		}
	}
}

// descriptorString is the tool's standard descriptor.
func descriptorString(t *tool.Tool) string {
	b, _, _ := tool.AppendDescriptor(nil, t)
	return string(b)
}

// decodeSchema decodes an encoded schema as source decodes a file; nil
// stays nil.
func decodeSchema(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if raw == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return v
}
