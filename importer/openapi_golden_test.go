package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/openapi/golden from the current output")

// TestOpenAPIGoldens imports the documents written for these tests
// (testdata/openapi: API keys in a header, a query and a cookie, OAuth 2,
// OpenID Connect and bearer tokens, security for the document and per
// operation, security: [], every method, x-signpost, $refs into
// components; OpenAPI 3.0 and 3.1) and holds the declarations written to
// their golden files; then the declarations load and build, and their
// compact view keeps each operation's summary.
func TestOpenAPIGoldens(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("testdata", "openapi", "*.yaml"))
	if err != nil || len(docs) < 2 {
		t.Fatalf("documents: %v, %v", docs, err)
	}
	files := map[string]string{"signpost.yaml": catalogtest.Config}
	for _, doc := range docs {
		name := filepath.Base(doc)
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		imp, err := OpenAPI(context.Background(), OpenAPIDocument{Label: name, Data: data}, OpenAPIOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.Errors) > 0 {
			t.Fatalf("%s: %q", name, imp.Errors)
		}
		checkOpenAPIImport(t, name, data, imp)
		got, err := OpenAPIToolsYAML(imp, OpenAPIOptions{})
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "openapi", "golden", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./importer -run TestOpenAPIGoldens -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the declarations differ from %s (-update rewrites it):\n%s", name, golden, got)
		}
		files[name] = string(got)
	}
	b := buildDeclarations(t, files)
	checkCompactSummaries(t, files, b)
}

// buildDeclarations loads and compiles a catalog of the files, failing on
// any error.
func buildDeclarations(t *testing.T, files map[string]string) *output.Build {
	t.Helper()
	cat, diags := build.Load(context.Background(), catalogtest.Write(t, files))
	if diags.HasErrors() {
		t.Fatalf("the imported declarations do not load:\n%s", diags)
	}
	b, err := build.Compile(context.Background(), cat)
	if err != nil {
		t.Fatalf("the imported declarations do not build: %v", err)
	}
	return b
}

// checkCompactSummaries holds the compact view of every tool of the files
// with a title (an operation's summary) to a description that starts with
// it.
func checkCompactSummaries(t *testing.T, files map[string]string, b *output.Build) {
	t.Helper()
	compactDesc := map[string]string{}
	for _, d := range b.Sites[0].Documents {
		id, ok := strings.CutPrefix(d.Route.Route, "/tools/")
		if !ok || d.View != spec.ViewCompact {
			continue
		}
		var c struct{ Description string }
		if err := json.Unmarshal(buildtest.Body(t, d), &c); err != nil {
			t.Fatal(err)
		}
		compactDesc[id] = c.Description
	}
	titled := 0
	for name, text := range files {
		if name == "signpost.yaml" {
			continue
		}
		var f struct {
			Tools []struct {
				ToolID string `yaml:"toolId"`
				Title  string `yaml:"title"`
			} `yaml:"tools"`
		}
		if err := yaml.Unmarshal([]byte(text), &f); err != nil {
			t.Fatal(err)
		}
		for _, tl := range f.Tools {
			desc, ok := compactDesc[tl.ToolID]
			if !ok {
				t.Errorf("%s: %s has no compact descriptor", name, tl.ToolID)
				continue
			}
			if tl.Title == "" {
				continue
			}
			titled++
			if lead := compact.Text(tl.Title, 160); !strings.HasPrefix(desc, strings.TrimRight(lead, ".!?…")) {
				t.Errorf("%s: %s: the compact description %q drops the summary %q", name, tl.ToolID, desc, tl.Title)
			}
		}
	}
	if titled == 0 && len(files) > 2 {
		t.Error("no tool has a title: the compact view's summary is not tested")
	}
}

// checkOpenAPIImport holds an import of an OpenAPI document to what it
// promises, read from the document itself: every operation is a tool or
// left out with a reason; no parameter that carries a security scheme's
// credential (an apiKey's parameter, the Authorization header, a bearer
// token's access_token) is an argument; a GET, HEAD or OPTIONS operation
// without x-signpost is read, a PUT idempotent, a DELETE write.
func checkOpenAPIImport(t *testing.T, label string, data []byte, imp *ToolImport) {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	components, _ := doc["components"].(map[string]any)
	schemes, _ := components["securitySchemes"].(map[string]any)
	for _, tl := range imp.Tools {
		ptr, _ := strings.CutPrefix(tl.Source, label+"#")
		if tl.Status != Imported {
			if tl.Reason == "" {
				t.Errorf("%s: left out without a reason", tl.Source)
			}
			continue
		}
		segs := source.SplitPointer(ptr)
		if len(segs) != 3 || segs[0] != "paths" {
			t.Errorf("%s: not an operation's pointer", tl.Source)
			continue
		}
		paths, _ := doc["paths"].(map[string]any)
		item, _ := paths[segs[1]].(map[string]any)
		op, _ := item[segs[2]].(map[string]any)
		props, _ := tl.Declaration["inputSchema"].(map[string]any)["properties"].(map[string]any)
		params := append(list(item["parameters"]), list(op["parameters"])...)
		for _, p := range params {
			pm, _ := p.(map[string]any)
			in, _ := pm["in"].(string)
			name, _ := pm["name"].(string)
			if credentialParameter(schemes, in, name) {
				if _, ok := props[name]; ok {
					t.Errorf("%s: the %s parameter %s, a credential, is an argument", tl.Source, in, name)
				}
			}
		}
		tier, replay := tl.Declaration["safetyTier"], tl.Declaration["replayPolicy"]
		if _, declared := op["x-signpost"]; declared {
			continue
		}
		switch segs[2] {
		case "get", "head", "options":
			if tier != spec.TierRead || replay != spec.ReplayIdempotent {
				t.Errorf("%s: a %s is %s and %s, not read and idempotent", tl.Source, segs[2], tier, replay)
			}
		case "put":
			if tier != spec.TierWrite || replay != spec.ReplayIdempotent {
				t.Errorf("%s: a put is %s and %s, not write and idempotent", tl.Source, tier, replay)
			}
		default:
			if tier != spec.TierWrite || replay != spec.ReplayUnsafe {
				t.Errorf("%s: a %s is %s and %s, not write and unsafe", tl.Source, segs[2], tier, replay)
			}
		}
	}
}

// credentialParameter reports whether a parameter carries the credential
// of one of the schemes, as OpenAPI and RFC 6750 define them.
func credentialParameter(schemes map[string]any, in, name string) bool {
	for _, v := range schemes {
		s, _ := v.(map[string]any)
		typ, _ := s["type"].(string)
		scheme, _ := s["scheme"].(string)
		sIn, _ := s["in"].(string)
		sName, _ := s["name"].(string)
		bearer := typ == "oauth2" || typ == "openIdConnect" || typ == "http" && strings.EqualFold(scheme, "bearer")
		switch {
		case typ == "apiKey" && sIn == in && (sName == name || in == "header" && strings.EqualFold(sName, name)):
			return true
		case (bearer || typ == "http") && in == "header" && strings.EqualFold(name, "Authorization"):
			return true
		case bearer && in == "query" && name == "access_token":
			return true
		}
	}
	return false
}

func list(v any) []any {
	l, _ := v.([]any)
	return slices.Clone(l)
}
