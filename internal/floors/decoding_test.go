package floors

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// openJSON are the files outside tests that may assert a value to
// map[string]any, with why: a decode function, the one place of its
// package that reads a document by member name into typed values, or code
// that reads JSON open by nature (a JSON Schema, an OpenAPI document, any
// decoded value walked whole). Everywhere else a rule reads the fields of
// a typed declaration.
var openJSON = map[string]string{
	// Decode functions.
	"build/declarations/declarations.go": "decodes a declaration file",
	"build/configfile/configfile.go":     "decodes signpost.yaml",
	"build/discovery/decl.go":            "decodes a server declaration or a v1 card",
	"build/recorded/recorded.go":         "decodes a recorded tools/list, and reads a tool's schema as JSON Schema",
	"importer/decode.go":                 "decodes a server.json document",

	// JSON Schema: a tool's schemas, and what is made of them.
	"build/catalogue_rules.go":   "reads a tool's input and output schemas",
	"build/check.go":             "reads a tool's schema",
	"build/compact/compact.go":   "projects a JSON Schema",
	"build/compact/object.go":    "projects a JSON Schema",
	"build/compact/values.go":    "projects a JSON Schema",
	"build/refs/refs.go":         "walks a JSON Schema",
	"build/reserved/reserved.go": "adds the reserved arguments to a tool's input schema",
	"build/refs/resolve.go":      "resolves a JSON Schema's $ref",
	"build/secrets/schema.go":    "finds credentials in a JSON Schema",
	"importer/repair/repair.go":  "repairs an imported tool's JSON Schema",

	// OpenAPI documents and their schemas.
	"build/openapi/mark.go":    "reads an OpenAPI document",
	"build/openapi/openapi.go": "reads an OpenAPI document",
	"build/openapi/schema.go":  "reads an OpenAPI document's schemas",

	// Any decoded value, walked whole.
	"build/size/size.go":      "measures a declared value",
	"build/source/covered.go": "finds the values a schema error covers",
	"build/source/split.go":   "parses a part of a YAML file",
	"build/signing/sign.go":   "signs an AI catalog as it is built, a decoded document walked whole",

	// Documents check fetches and conformance reads, each decoded once
	// into typed views; what stays a map is a JSON Schema inside them.
	"conformance/documents.go":       "decodes a built document",
	"check/compact.go":               "walks a compact tool's JSON Schema",
	"check/jsonval/jsonval.go":       "compares two JSON values whole; Object, with which check/documents decodes a fetched document",
	"drift/run.go":                   "takes the catalogue's reserved arguments out of a JSON Schema",
	"diff/schema.go":                 "compares two JSON Schemas, whether one accepts all the other does",
	"internal/benchtokens/losses.go": "holds a compact tool's JSON Schema to its standard one",

	// The validator, which takes any JSON value and any JSON Schema.
	"schemas/fastpath.go": "validates any JSON value",
	"schemas/messages.go": "reads a JSON Schema to word its errors",
	"schemas/schemas.go":  "checks a JSON Schema",
}

// TestDecodingInOnePlace fails when a file that is not in openJSON asserts
// a value to map[string]any, or when a file in it no longer does.
func TestDecodingInOnePlace(t *testing.T) {
	root := catalogtest.ModuleRoot(t)
	found := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// What the go command leaves out.
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		n, err := mapAssertions(path)
		if err != nil {
			return err
		}
		if n > 0 {
			found[filepath.ToSlash(rel)] = n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range slices.Sorted(maps.Keys(found)) {
		if _, ok := openJSON[file]; !ok {
			t.Errorf("%s asserts a value to map[string]any %d times: decode the value once, where its package decodes (build/declarations for a declaration file, build/configfile for signpost.yaml, build/discovery/decl.go for a server, importer/decode.go for server.json), and let the rule read the typed fields; only JSON that is open by nature (a JSON Schema, an OpenAPI document) is read as a map, listed in openJSON with why", file, found[file])
		}
	}
	for _, file := range slices.Sorted(maps.Keys(openJSON)) {
		if found[file] == 0 {
			t.Errorf("%s is in openJSON but asserts nothing to map[string]any: take it off the list", file)
		}
	}
}

// mapAssertions counts the type assertions to map[string]any (or
// map[string]interface{}) in a Go file.
func mapAssertions(path string) (int, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return 0, err
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		if a, ok := node.(*ast.TypeAssertExpr); ok && isMapStringAny(a.Type) {
			n++
		}
		return true
	})
	return n, nil
}

func isMapStringAny(e ast.Expr) bool {
	m, ok := e.(*ast.MapType)
	if !ok {
		return false
	}
	if k, ok := m.Key.(*ast.Ident); !ok || k.Name != "string" {
		return false
	}
	switch v := m.Value.(type) {
	case *ast.Ident:
		return v.Name == "any"
	case *ast.InterfaceType:
		return v.Methods == nil || len(v.Methods.List) == 0
	}
	return false
}
