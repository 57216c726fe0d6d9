package compact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/schemas"
)

// forbiddenKeywords returns the JSON pointers of the forbidden keywords in
// schema, found by walking schema positions only: a property named "not" or
// the string "anyOf" in an enum is data, not a keyword.
func forbiddenKeywords(schema any) []string {
	var out []string
	var walk func(v any, at string, depth int)
	walk = func(v any, at string, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth > 1000 {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			kv := m[k]
			p := at + "/" + source.EscapePointer(k)
			if slices.Contains(spec.CompactForbidden(), k) {
				out = append(out, p)
			}
			switch refs.KeywordKind(k) {
			case refs.Schema:
				walk(kv, p, depth+1)
			case refs.Items, refs.SchemaList:
				if l, ok := kv.([]any); ok {
					for i, e := range l {
						walk(e, p+"/"+strconv.Itoa(i), depth+1)
					}
				} else {
					walk(kv, p, depth+1)
				}
			case refs.SchemaMap, refs.Dependencies:
				if mm, ok := kv.(map[string]any); ok {
					for _, name := range slices.Sorted(maps.Keys(mm)) {
						walk(mm[name], p+"/"+source.EscapePointer(name), depth+1)
					}
				}
			}
		}
	}
	walk(schema, "", 0)
	return out
}

func TestForbiddenKeywords(t *testing.T) {
	in := decodeSchema(t, `{"properties": {"not": {"enum": ["anyOf", {"$ref": "#"}]}, "a": {"items": [{"oneOf": []}], "not": {}}},
		"default": {"allOf": []}, "$defs": {"x": {"$ref": "#"}}, "dependencies": {"a": ["b"], "c": {"anyOf": []}}}`)
	want := []string{"/$defs/x/$ref", "/dependencies/c/anyOf", "/properties/a/items/0/oneOf", "/properties/a/not"}
	if diff := cmp.Diff(want, forbiddenKeywords(in)); diff != "" {
		t.Errorf("forbiddenKeywords (-want +got):\n%s", diff)
	}
}

// decodeSchema decodes JSON the way the build does: numbers as json.Number.
func decodeSchema(t testing.TB, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}

// decodeJSON decodes data as decodeSchema does; fuzz tests skip what it
// refuses.
func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func marshalSchema(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// compactCases are the constructs a compact schema must handle, with their
// exact compact forms. invalid marks inputs a validator rejects, which the
// soundness test skips.
var compactCases = []struct {
	name, in, want string
	invalid        bool
}{
	{
		name: "kept and dropped keywords",
		in: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/t", "title": "T", "$comment": "c",
			"type": "object", "description": "Create an issue.  Then   assign it.",
			"properties": {
				"owner": {"type": "string", "minLength": 1, "maxLength": 39, "pattern": "^[a-z]+$", "examples": ["a"], "title": "Owner"},
				"count": {"type": "integer", "minimum": 1, "maximum": 100, "exclusiveMaximum": 101, "multipleOf": 1, "default": 10},
				"tags": {"type": "array", "items": {"type": "string", "const": "x"}, "minItems": 1, "maxItems": 9, "uniqueItems": true, "contains": {"const": "x"}},
				"when": {"type": "string", "format": "date-time", "readOnly": true, "deprecated": true},
				"meta": {"type": "object", "minProperties": 1, "maxProperties": 3, "propertyNames": {"pattern": "^m"}}},
			"required": ["owner"], "additionalProperties": false, "unevaluatedProperties": false}`,
		want: `{"type": "object", "description": "Create an issue.",
			"properties": {
				"owner": {"type": "string", "minLength": 1, "maxLength": 39, "pattern": "^[a-z]+$"},
				"count": {"type": "integer", "minimum": 1, "maximum": 100, "exclusiveMaximum": 101, "multipleOf": 1, "default": 10},
				"tags": {"type": "array", "items": {"type": "string", "const": "x"}, "minItems": 1, "maxItems": 9, "uniqueItems": true},
				"when": {"type": "string", "format": "date-time"},
				"meta": {"type": "object", "minProperties": 1, "maxProperties": 3}},
			"required": ["owner"], "additionalProperties": false}`,
	},
	{
		name: "booleans stay booleans",
		in:   `{"type": "object", "properties": {"a": true, "b": false}, "additionalProperties": true}`,
		want: `{"type": "object", "properties": {"a": true, "b": false}}`,
	},
	{name: "true", in: `true`, want: `true`},
	{name: "false", in: `false`, want: `false`},
	{name: "empty", in: `{}`, want: `{}`},
	{name: "not a schema", in: `"hello"`, want: `{}`, invalid: true},
	{
		name: "$ref to $defs, merged with its siblings",
		in: `{"type": "object", "properties": {"item": {"$ref": "#/$defs/item", "description": "The item."}},
			"$defs": {"item": {"type": "object", "description": "An item.", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}}`,
		want: `{"type": "object", "properties": {"item": {"type": "object", "description": "The item.", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}}`,
	},
	{
		name: "$ref to definitions and to an anchor",
		in: `{"type": "object", "properties": {"a": {"$ref": "#/definitions/a"}, "b": {"$ref": "#bee"}},
			"definitions": {"a": {"type": "string"}}, "$defs": {"b": {"$anchor": "bee", "type": "integer"}}}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}`,
	},
	{
		name: "$ref at the root",
		in:   `{"$ref": "#/$defs/args", "$defs": {"args": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}`,
		want: `{"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}`,
	},
	{
		name: "recursive $ref to the root",
		in:   `{"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}, "required": ["name"]}`,
		want: `{"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"description": "recursive: see the standard view"}}}, "required": ["name"]}`,
	},
	{
		name: "recursive $ref to a definition",
		in: `{"type": "object", "properties": {"tree": {"$ref": "#/$defs/node"}},
			"$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}, "required": ["value"]}}}`,
		want: `{"type": "object", "properties": {"tree": {"type": "object",
			"properties": {"value": {"type": "integer"}, "next": {"description": "recursive: see the standard view"}}, "required": ["value"]}}}`,
	},
	{
		name: "zod-style $ref into properties, recursive and not",
		in: `{"type": "object", "properties": {
				"filter": {"type": "object", "properties": {"field": {"type": "string"}, "and": {"type": "array", "items": {"$ref": "#/properties/filter"}}}},
				"backup": {"$ref": "#/properties/filter"}}}`,
		want: `{"type": "object", "properties": {
				"filter": {"type": "object", "properties": {"field": {"type": "string"}, "and": {"type": "array", "items": {"description": "recursive: see the standard view"}}}},
				"backup": {"type": "object", "properties": {"field": {"type": "string"}, "and": {"type": "array", "items": {"description": "recursive: see the standard view"}}}}}}`,
	},
	{
		name: "$ref cycle that never reaches a value",
		in:   `{"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`,
		want: `{"type": "object", "properties": {"x": {"description": "recursive: see the standard view"}}}`,
	},
	{
		name:    "$refs that do not resolve accept anything",
		in:      `{"type": "object", "properties": {"a": {"$ref": "https://example.com/x"}, "b": {"$ref": "#/$defs/missing", "type": "string"}, "c": {"$ref": 5}}}`,
		want:    `{"type": "object", "properties": {"a": {}, "b": {"type": "string"}, "c": {}}}`,
		invalid: true,
	},
	{
		name: "allOf merges",
		in: `{"allOf": [
				{"type": "object", "properties": {"a": {"type": "string", "description": "First."}}, "required": ["a"]},
				{"properties": {"a": {"maxLength": 5, "description": "Second."}, "b": {"type": "integer", "minimum": 0}}, "required": ["b", "a"]},
				{"properties": {"b": {"minimum": 3, "maximum": 9, "exclusiveMaximum": 8}}}]}`,
		want: `{"type": "object", "properties": {"a": {"type": "string", "maxLength": 5, "description": "First."},
			"b": {"type": "integer", "minimum": 3, "maximum": 9, "exclusiveMaximum": 8}}, "required": ["a", "b"]}`,
	},
	{
		name: "allOf with additionalProperties false in one branch keeps the union of properties",
		in: `{"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}, "additionalProperties": false},
			{"properties": {"b": {"type": "string"}}, "additionalProperties": {"type": "string"}}]}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "additionalProperties": false}`,
	},
	{
		name: "allOf intersects types, enums and items",
		in: `{"allOf": [{"type": ["number", "string", "array"], "items": {"enum": ["a", "b", "c"]}, "prefixItems": [{"type": "string"}]},
			{"type": ["integer", "null", "array"], "items": {"enum": ["c", "b", "z"]}, "prefixItems": [{"maxLength": 3}, {"type": "boolean"}]}]}`,
		want: `{"type": ["integer", "array"], "prefixItems": [{"type": "string", "maxLength": 3}, {"type": "boolean"}]}`,
	},
	{
		name: "allOf that nothing satisfies is false",
		in:   `{"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"type": "integer"}]}, "y": {"allOf": [{"const": 1}, {"const": 2}]}, "z": {"allOf": [{"enum": [1]}, {"enum": [2]}]}}}`,
		want: `{"type": "object", "properties": {"x": false, "y": false, "z": false}}`,
	},
	{
		name: "anyOf of objects",
		in: `{"type": "object", "anyOf": [
				{"properties": {"kind": {"const": "file"}, "path": {"type": "string"}}, "required": ["kind", "path"], "additionalProperties": false},
				{"properties": {"kind": {"const": "url"}, "url": {"type": "string", "format": "uri"}}, "required": ["kind", "url"], "additionalProperties": false}]}`,
		want: `{"type": "object", "properties": {"kind": {"type": "string", "enum": ["file", "url"]}, "path": {"type": "string"},
			"url": {"type": "string", "format": "uri"}}, "required": ["kind"], "additionalProperties": false}`,
	},
	{
		name: "oneOf of open objects widens what a branch lacks",
		in: `{"type": "object", "oneOf": [{"properties": {"a": {"type": "string", "description": "An a."}}, "required": ["a"]},
			{"properties": {"b": {"type": "integer"}}, "required": ["b"], "additionalProperties": {"type": "string"}}]}`,
		want: `{"type": "object", "properties": {"a": {"type": "string", "description": "An a."}, "b": {}}}`,
	},
	{
		name: "anyOf of primitives keeps each type's keywords",
		in: `{"anyOf": [{"type": "string", "minLength": 2, "pattern": "^x", "format": "email"},
			{"type": "integer", "minimum": 0, "maximum": 10}, {"type": "number", "minimum": -5, "maximum": 5.5}]}`,
		want: `{"type": ["string", "number"], "minLength": 2, "pattern": "^x", "format": "email", "minimum": -5, "maximum": 10}`,
	},
	{
		name: "anyOf with null",
		in: `{"type": "object", "properties": {
				"a": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}], "description": "Name, or null."},
				"b": {"anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]},
				"c": {"anyOf": [{"$ref": "#/$defs/d"}, {"type": "null"}], "default": null},
				"e": {"type": ["integer", "null"], "anyOf": [{"minimum": 1}, {"type": "null"}]}},
			"$defs": {"d": {"type": "object", "properties": {"q": {"type": "boolean"}}, "required": ["q"]}}}`,
		want: `{"type": "object", "properties": {
				"a": {"type": ["string", "null"], "minLength": 1, "description": "Name, or null."},
				"b": {"type": ["string", "null"], "enum": ["x", "y", null]},
				"c": {"type": ["object", "null"], "properties": {"q": {"type": "boolean"}}, "required": ["q"], "default": null},
				"e": {"type": ["integer", "null"], "minimum": 1}}}`,
	},
	{
		name: "anyOf of enums and consts",
		in:   `{"anyOf": [{"const": "a"}, {"enum": ["b", "a", 1.0]}, {"type": "boolean"}, {"const": 1}]}`,
		want: `{"type": ["string", "integer", "boolean"], "enum": ["a", "b", 1.0, false, true]}`,
	},
	{
		name: "anyOf where a branch has no enum drops the enum",
		in:   `{"anyOf": [{"enum": ["a", "b"]}, {"type": "string", "maxLength": 3}]}`,
		want: `{"type": "string"}`,
	},
	{
		name: "anyOf with a branch that accepts anything",
		in:   `{"anyOf": [{"type": "string"}, {"description": "Anything."}]}`,
		want: `{"description": "Anything."}`,
	},
	{
		name: "anyOf of arrays",
		in: `{"anyOf": [{"type": "array", "items": {"type": "string"}, "maxItems": 3, "uniqueItems": true},
			{"type": "array", "items": {"type": "integer"}, "maxItems": 5, "minItems": 1, "uniqueItems": true}]}`,
		want: `{"type": "array", "items": {"type": ["string", "integer"]}, "maxItems": 5, "uniqueItems": true}`,
	},
	{
		name: "anyOf of tuples",
		in: `{"anyOf": [{"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}]},
			{"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "boolean"}}]}`,
		want: `{"type": "array", "prefixItems": [{"type": ["string", "integer"]}, {"type": ["string", "boolean"]}]}`,
	},
	{
		name: "anyOf of maps",
		in: `{"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}, "dependentRequired": {"a": ["b", "c"]}},
			{"type": "object", "additionalProperties": {"type": "string"}, "dependentRequired": {"a": ["c"], "b": ["a"]}}]}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": ["string", "integer"]}, "dependentRequired": {"a": ["c"]}}`,
	},
	{
		name: "anyOf of integer and number",
		in:   `{"anyOf": [{"type": "integer", "multipleOf": 2}, {"type": "number", "multipleOf": 0.5}, {"type": "integer", "multipleOf": 2}]}`,
		want: `{"type": "number"}`,
	},
	{
		name: "anyOf keeps a description the branches agree on",
		in: `{"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "description": "A name."}, {"type": "integer", "description": "An id."}]},
			"b": {"anyOf": [{"type": "string", "description": "A name."}, {"type": "null"}, {"type": "integer", "description": "A name."}]}}}`,
		want: `{"type": "object", "properties": {"a": {"type": ["string", "integer"]}, "b": {"type": ["string", "integer", "null"], "description": "A name."}}}`,
	},
	{
		name: "anyOf keeps an agreed default",
		in:   `{"anyOf": [{"type": "string", "default": "x"}, {"type": "null"}, {"type": "integer", "default": "x"}]}`,
		want: `{"type": ["string", "integer", "null"], "default": "x"}`,
	},
	{
		name: "allOf and anyOf together",
		in: `{"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"required": ["a"]}],
			"anyOf": [{"required": ["b"]}, {"required": ["c"]}], "oneOf": [{"required": ["a", "d"]}, {"required": ["a", "e"]}]}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}`,
	},
	{
		name: "not is dropped, a property named not is kept",
		in:   `{"type": "object", "properties": {"not": {"type": "string", "not": {"enum": ["x"]}}, "$ref": {"enum": ["anyOf", "oneOf"]}}, "not": {"required": ["a"]}}`,
		want: `{"type": "object", "properties": {"not": {"type": "string"}, "$ref": {"enum": ["anyOf", "oneOf"]}}}`,
	},
	{
		name: "not of everything is false",
		in:   `{"type": "object", "properties": {"a": {"anyOf": [{"not": {}}, {"type": "string"}]}, "b": {"not": true, "type": "string"}, "c": {"not": {"description": "x"}}}}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"}, "b": false, "c": false}}`,
	},
	{
		name: "patternProperties widens additionalProperties",
		in: `{"type": "object", "properties": {"name": {"type": "string"}},
			"patternProperties": {"^x-": {"type": "string"}, "^n-": {"type": "integer"}}, "additionalProperties": false}`,
		want: `{"type": "object", "properties": {"name": {"type": "string"}}, "additionalProperties": {"type": ["string", "integer"]}}`,
	},
	{
		name: "patternProperties alone is dropped",
		in:   `{"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {}}`,
		want: `{"type": "object"}`,
	},
	{
		name: "conditional keywords are dropped, dependentRequired kept",
		in: `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
			"dependentSchemas": {"a": {"required": ["b"]}}, "if": {"required": ["a"]}, "then": {"required": ["b"]},
			"else": {"properties": {"b": {"const": "x"}}}, "dependentRequired": {"b": ["a"]}, "dependencies": {"a": ["b"]}}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "dependentRequired": {"b": ["a"]}}`,
	},
	{
		name: "nested combinations",
		in: `{"type": "object", "properties": {"target": {"oneOf": [
				{"allOf": [{"$ref": "#/$defs/named"}, {"properties": {"kind": {"const": "user"}}, "required": ["kind"]}]},
				{"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]}]}},
			"$defs": {"named": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}`,
		want: `{"type": "object", "properties": {"target": {"type": ["string", "object", "null"], "format": "email",
			"properties": {"name": {"type": "string"}, "kind": {"const": "user"}}, "required": ["name", "kind"]}}}`,
	},
	{
		name: "draft-07: $ref overrides its siblings, tuples, dependencies",
		in: `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {
				"a": {"$ref": "#/definitions/s", "maxLength": 2},
				"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
				"list": {"type": "array", "items": {"type": "string"}, "additionalItems": false, "prefixItems": [{"type": "integer"}]}},
			"dependencies": {"a": ["pair"], "pair": {"required": ["a"]}}, "dependentRequired": {"list": ["a"]},
			"definitions": {"s": {"type": "string"}}}`,
		want: `{"type": "object", "properties": {"a": {"type": "string"},
				"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
				"list": {"type": "array", "items": {"type": "string"}}},
			"dependentRequired": {"a": ["pair"]}}`,
	},
	{
		name: "draft-04: boolean exclusive bounds",
		in:   `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 10, "exclusiveMaximum": false}`,
		want: `{"type": "number", "exclusiveMinimum": 0, "maximum": 10}`,
	},
	{
		name: "2020-12: items is left out next to prefixItems",
		in:   `{"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}, "minItems": 1}`,
		want: `{"type": "array", "prefixItems": [{"type": "string"}], "minItems": 1}`,
	},
	{
		name: "descriptions are shortened",
		in: `{"type": "object", "description": "Lists   pull requests\nin a repository. Use filters to narrow the results, e.g. by state.",
			"properties": {"a": {"type": "string", "description": "Optional. The resource ID (e.g. 42). It varies with the method."}, "b": {"description": " \n "}}}`,
		want: `{"type": "object", "description": "Lists pull requests in a repository.",
			"properties": {"a": {"type": "string", "description": "Optional. The resource ID"}, "b": {}}}`,
	},
}

func TestCompactSchema(t *testing.T) {
	for _, tc := range compactCases {
		t.Run(tc.name, func(t *testing.T) {
			in := decodeSchema(t, tc.in)
			before := marshalSchema(t, in)
			got := projection(in)
			if diff := cmp.Diff(decodeSchema(t, tc.want), decodeSchema(t, marshalSchema(t, got))); diff != "" {
				t.Errorf("Schema(%s) (-want +got):\n%s", tc.in, diff)
			}
			if bad := forbiddenKeywords(got); len(bad) > 0 {
				t.Errorf("forbidden keywords at %v", bad)
			}
			if after := marshalSchema(t, in); after != before {
				t.Errorf("Schema modified its input:\n%s\n%s", before, after)
			}
		})
	}
}

// Schema may run on many goroutines at once (the build projects tools
// in parallel) and gives the same results.
func TestCompactSchemaConcurrent(t *testing.T) {
	var inputs []any
	var want []string
	for _, tc := range compactCases {
		in := decodeSchema(t, tc.in)
		inputs = append(inputs, in)
		want = append(want, marshalSchema(t, Schema(in)))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 * len(inputs) {
				j := (i + g) % len(inputs)
				if got := marshalSchema(t, Schema(inputs[j])); got != want[j] {
					errs <- fmt.Sprintf("%s: got %s, want %s", compactCases[j].name, got, want[j])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A description longer than compactDescMax is cut at a word.
func TestCompactSchemaLongDescription(t *testing.T) {
	for in, want := range map[string]string{
		strings.Repeat("The unique identifier of the resource, which varies with the method provided; ", 4): "The unique identifier of the resource",
		"Page number for pagination (min 1)":                                     "Page number for pagination",
		"Optional: the namespace to list pods from. Defaults to all namespaces.": "Optional: the namespace to list pods from.",
		"Lifecycle action to perform: 'restart' creates a new pod":               "Lifecycle action to perform",
		"Repository owner": "Repository owner",
		strings.Repeat("averyveryverylongwordwithoutanybreaks ", 5):    "averyveryverylongwordwithoutanybreaks…",
		"Interface name in the VM (optional, defaults to networkName)": "Interface name in the VM",
	} {
		got := projection(map[string]any{"type": "object", "description": in})
		desc, _ := got.(map[string]any)["description"].(string)
		if desc != want || len(desc) > compactDescMax {
			t.Errorf("description of %q: %q; want %q, at most %d bytes", in, desc, want, compactDescMax)
		}
	}
}

// A chain of $refs is inlined 8 deep, then cut.
func TestCompactSchemaRefDepth(t *testing.T) {
	defs := map[string]any{"d12": map[string]any{"type": "string"}}
	for i := range 12 {
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}}}
	}
	in := map[string]any{"$ref": "#/$defs/d0", "$defs": defs}
	var want any = map[string]any{"description": compactNoteDeep}
	for range compactMaxRefDepth {
		want = map[string]any{"type": "object", "properties": map[string]any{"n": want}}
	}
	if diff := cmp.Diff(want, Schema(in)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Deeply nested schemas are cut too.
func TestCompactSchemaDepth(t *testing.T) {
	var in any = map[string]any{"type": "string"}
	for range 1000 {
		in = map[string]any{"type": "array", "items": in}
	}
	got := Schema(in)
	n := 0
	for v := got; ; n++ {
		m := v.(map[string]any)
		if m["items"] == nil {
			if m["description"] != compactNoteDeep {
				t.Errorf("innermost schema %v; want the note %q", m, compactNoteDeep)
			}
			break
		}
		v = m["items"]
	}
	if n != compactMaxDepth {
		t.Errorf("kept %d levels; want %d", n, compactMaxDepth)
	}
}

// A small schema whose definitions fan out exponentially still gives a small
// compact schema, fast.
func TestCompactSchemaBounded(t *testing.T) {
	for _, tc := range []struct{ levels, fanout int }{{30, 2}, {20, 3}, {8, 4}, {12, 16}, {8, 60}, {3, 1000}} {
		defs := map[string]any{fmt.Sprintf("d%d", tc.levels): map[string]any{"type": "string", "enum": []any{"alpha", "beta", "gamma"}, "description": "A leaf."}}
		for i := range tc.levels {
			props := map[string]any{}
			for j := range tc.fanout {
				props[fmt.Sprintf("p%d", j)] = map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
			}
			defs[fmt.Sprintf("d%d", i)] = map[string]any{"type": "object", "properties": props, "required": []any{"p0"}}
		}
		in := map[string]any{"type": "object", "properties": map[string]any{"root": map[string]any{"$ref": "#/$defs/d0"}}, "$defs": defs}
		inBytes := len(marshalSchema(t, in))
		start := time.Now()
		got := Schema(in)
		elapsed := time.Since(start)
		out := marshalSchema(t, got)
		t.Logf("%d levels × %d refs: %d bytes in, %d bytes out, %v", tc.levels, tc.fanout, inBytes, len(out), elapsed)
		if limit := 4*inBytes + 4*compactRefSlack; len(out) > limit {
			t.Errorf("%d levels × %d refs: %d bytes out for %d in; want at most %d", tc.levels, tc.fanout, len(out), inBytes, limit)
		}
		if elapsed > time.Second {
			t.Errorf("%d levels × %d refs: took %v", tc.levels, tc.fanout, elapsed)
		}
		if !strings.Contains(out, compactNoteLarge) && tc.fanout > 2 {
			t.Errorf("%d levels × %d refs: no %q in the result", tc.levels, tc.fanout, compactNoteLarge)
		}
		if bad := forbiddenKeywords(got); len(bad) > 0 {
			t.Errorf("forbidden keywords at %v", bad)
		}
	}
}

// The result depends neither on map iteration order nor on earlier calls.
func TestCompactSchemaDeterministic(t *testing.T) {
	inputs := []string{}
	for _, tc := range compactCases {
		inputs = append(inputs, tc.in)
	}
	inputs = append(inputs, compactBenchSchema)
	for _, s := range inputs {
		want := marshalSchema(t, Schema(decodeSchema(t, s)))
		for range 20 {
			if got := marshalSchema(t, Schema(decodeSchema(t, s))); got != want {
				t.Fatalf("Schema(%s) differs between calls:\n%s\n%s", s, want, got)
			}
		}
	}
}

func TestCompactText(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"", 120, ""},
		{"   ", 120, ""},
		{"Repository owner", 120, "Repository owner"},
		{"  Repository\n\towner  ", 120, "Repository owner"},
		{"Get a file. Then more.", 120, "Get a file."},
		{"Get a file! Then more.", 120, "Get a file!"},
		{"Is it a file? Then more.", 120, "Is it a file?"},
		{"Optional. The name of the pod. More.", 120, "Optional. The name of the pod."},
		{"Use a file (e.g. ci.yaml) here. More.", 120, "Use a file (e.g. ci.yaml) here."},
		{"Use a file, e.g. ci.yaml. More.", 120, "Use a file, e.g. ci.yaml."},
		{"Version 1.2 is out. More.", 120, "Version 1.2 is out."},
		{"Says \"hi.\" Then more.", 120, "Says \"hi.\""},
		{"Lists things (see docs. Really.) Then more.", 120, "Lists things (see docs. Really.)"},
		{"Ends with a name. like this one.", 120, "Ends with a name. like this one."},
		{"Max size. ", 120, "Max size."},
		{long, 20, "word word word…"},
		{long, 22, "word word word word…"},
		{"one two three four five six seven.", 19, "one two three…"},
		{"one, two, three: four five six seven.", 20, "one, two, three…"},
		{strings.Repeat("x", 50), 10, "xxxxxxx…"},
		{"ab cdefghijklmnopqrstuvwxyz", 12, "ab cdefgh…"},
		{"héllo wörld ünïcode ñ and more words here", 16, "héllo wörld…"},
		{"ééééééééé", 8, "éé…"},
		{"ééééééééé", 2, "é"},
		{"ééééééééé", 1, ""},
		{"abc", 0, ""},
		{"bad \xff byte", 120, "bad \uFFFD byte"},
		{"no\u00a0break\u2003space", 120, "no break space"},
		{"Short. ", 3, "…"},
	} {
		got := Text(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("Text(%q, %d) = %q; want %q", tc.in, tc.max, got, tc.want)
		}
		if len(got) > max(tc.max, 0) || !utf8.ValidString(got) {
			t.Errorf("Text(%q, %d) = %q: %d bytes or invalid UTF-8", tc.in, tc.max, got, len(got))
		}
	}
}

// compactValidator compiles a schema the way the soundness tests validate
// with: the draft $schema names, else draft (2020-12 unless a test reads a
// compact schema as an older client would), formats asserted, nothing loaded
// from anywhere.
func compactValidator(schema any, draft *jsonschema.Draft) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	const url = "mem:///schema.json"
	if err := c.AddResource(url, schema); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// compactSchemaChecker validates a compact schema against the definition of
// one in the published compact-tool-descriptor schema.
var compactSchemaChecker = sync.OnceValues(func() (*jsonschema.Schema, error) {
	src, ok := schemas.Source("compact-tool-descriptor")
	if !ok {
		return nil, errors.New("no compact-tool-descriptor schema")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	id, _ := doc.(map[string]any)["$id"].(string)
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id + "#/$defs/compactSchema")
})

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: not loaded in tests", url)
}

// soundness counts what checkSound saw.
type soundness struct {
	instances, accepted, rejected, rejectedByBoth int
}

func (s *soundness) add(o soundness) {
	s.instances += o.instances
	s.accepted += o.accepted
	s.rejected += o.rejected
	s.rejectedByBoth += o.rejectedByBoth
}

// checkSound generates n instances guided by schema and checks that its
// compact form accepts every one the original accepts, read as JSON Schema
// 2020-12 and also as draft-07 (by a client that does not know prefixItems
// or dependentRequired).
func checkSound(t *testing.T, name string, schema any, n int, seed uint64) soundness {
	t.Helper()
	orig, err := compactValidator(schema, jsonschema.Draft2020)
	if err != nil {
		t.Fatalf("%s: the original does not compile: %v", name, err)
	}
	compact := Schema(schema)
	if bad := forbiddenKeywords(compact); len(bad) > 0 {
		t.Errorf("%s: forbidden keywords at %v", name, bad)
	}
	checker, err := compactSchemaChecker()
	if err != nil {
		t.Fatal(err)
	}
	if err := checker.Validate(compact); err != nil {
		t.Errorf("%s: not a compact schema by compact-tool-descriptor.schema.json: %v", name, err)
	}
	comp, err := compactValidator(compact, jsonschema.Draft2020)
	if err != nil {
		t.Fatalf("%s: the compact schema does not compile: %v\n%s", name, err, marshalSchema(t, compact))
	}
	comp7, err := compactValidator(compact, jsonschema.Draft7)
	if err != nil {
		t.Fatalf("%s: the compact schema does not compile as draft-07: %v\n%s", name, err, marshalSchema(t, compact))
	}
	g := newCSGen(seed, schema)
	var s soundness
	failures := 0
	for range n {
		inst := g.instance()
		s.instances++
		if orig.Validate(inst) != nil {
			s.rejected++
			if comp.Validate(inst) != nil {
				s.rejectedByBoth++
			}
			continue
		}
		s.accepted++
		for _, c := range []struct {
			draft  string
			schema *jsonschema.Schema
		}{{"2020-12", comp}, {"draft-07", comp7}} {
			if err := c.schema.Validate(inst); err != nil && failures < 3 {
				failures++
				t.Errorf("%s: the original accepts %s, the compact schema read as %s rejects it: %v\ncompact: %s",
					name, marshalSchema(t, inst), c.draft, err, marshalSchema(t, compact))
			}
		}
	}
	return s
}

// The compact schema accepts every instance the original does, on schemas
// covering every construct.
func TestCompactSchemaSound(t *testing.T) {
	var total soundness
	for i, tc := range compactCases {
		if tc.invalid {
			continue
		}
		const n = 400
		s := checkSound(t, tc.name, decodeSchema(t, tc.in), n, uint64(i))
		total.add(s)
		if tc.want != "false" && s.accepted < n/20 {
			t.Errorf("%s: the original accepted only %d of %d generated instances", tc.name, s.accepted, n)
		}
	}
	for i, src := range compactSoundOnly {
		const n = 400
		s := checkSound(t, fmt.Sprintf("compactSoundOnly[%d]", i), decodeSchema(t, src), n, uint64(1000+i))
		total.add(s)
		if s.accepted < n/20 {
			t.Errorf("compactSoundOnly[%d]: the original accepted only %d of %d generated instances", i, s.accepted, n)
		}
	}
	t.Logf("hand-written schemas: %d instances, %d accepted by the original (all by the compact schema), %d of its %d rejections shared by the compact schema",
		total.instances, total.accepted, total.rejectedByBoth, total.rejected)
}

// compactSoundOnly are more schemas for the soundness test: combinations
// whose exact compact form matters less than that it is sound.
var compactSoundOnly = []string{
	compactBenchSchema,
	`{"type": "object", "properties": {"n": {"type": "number", "anyOf": [{"minimum": 10}, {"maximum": -10}, {"multipleOf": 3}]},
		"s": {"anyOf": [{"type": "string", "pattern": "^[a-c]+$"}, {"type": "string", "maxLength": 2}, {"enum": [1, 2, null]}]},
		"o": {"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false},
			{"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}, {"type": "array", "items": {"type": "integer"}, "maxItems": 2}]}},
		"required": ["n"]}`,
	`{"type": "object", "properties": {"x": {"allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"anyOf": [{"type": "string", "minLength": 1}, {"minimum": 0}]}],
		"not": {"const": 3}}, "y": {"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}}},
		"dependentSchemas": {"x": {"required": ["y"]}}, "additionalProperties": false}`,
	`{"type": "object", "patternProperties": {"^[a-z]$": {"type": "integer"}, "^[a-z][0-9]$": {"type": "string"}}, "additionalProperties": {"type": "boolean"},
		"properties": {"a": {"type": "number"}}, "minProperties": 1}`,
	`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {
		"t": {"type": "array", "items": [{"type": "string"}, {"$ref": "#/definitions/n"}], "additionalItems": {"type": "boolean"}},
		"r": {"$ref": "#/definitions/n", "minimum": 100}, "e": {"type": "number", "exclusiveMinimum": 0}},
		"dependencies": {"t": ["r"], "r": {"properties": {"e": {"maximum": 1}}}},
		"definitions": {"n": {"type": "integer", "maximum": 50}}}`,
	`{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {
		"a": {"type": "number", "minimum": 1, "exclusiveMinimum": true, "maximum": 3, "exclusiveMaximum": true}, "b": {"enum": ["x", 1]}}}`,
	`{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object", "properties": {
		"a": {"$ref": "#/$defs/s", "maxLength": 3}, "t": {"items": [{"type": "integer"}], "additionalItems": false}},
		"dependentRequired": {"a": ["t"]}, "$defs": {"s": {"type": "string", "minLength": 1}}}`,
	`{"type": "object", "properties": {"tree": {"$ref": "#/$defs/node"}, "list": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 3}},
		"$defs": {"node": {"type": "object", "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
			"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["v"], "additionalProperties": false}}}`,
	`{"type": "object", "properties": {"p": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false},
		"q": {"anyOf": [{"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "string"}}, {"type": "array", "items": {"type": "boolean"}, "minItems": 2}]},
		"u": {"allOf": [{"type": "array", "prefixItems": [{"minimum": 0}]}, {"type": "array", "items": {"type": "integer"}}]}}}`,
	`{"type": "object", "properties": {"jobs": {"type": "array", "minItems": 1, "items": {"anyOf": [
			{"type": "object", "properties": {"run": {"type": "string", "minLength": 1}, "env": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["run"], "additionalProperties": false},
			{"type": "object", "properties": {"uses": {"type": "string", "pattern": "^[a-z]+/[a-z]+@v[0-9]+$"}, "with": {"type": "object"}}, "required": ["uses"], "additionalProperties": false},
			{"type": "string", "enum": ["checkout", "setup"]}]}},
		"mixed": {"anyOf": [{"type": ["string", "integer"], "minimum": 5, "maxLength": 3}, {"enum": ["abcdef", 2, null]}, {"type": "array", "prefixItems": [{"const": 1}], "minItems": 1}]}}}`,
	`{"type": "object", "properties": {"q": {"allOf": [{"$ref": "#/$defs/expr"}, {"anyOf": [{"required": ["op"]}, {"required": ["value"]}]}]}},
		"$defs": {"expr": {"type": "object", "properties": {"op": {"enum": ["and", "or", "not"]}, "args": {"type": "array", "items": {"$ref": "#/$defs/expr"}},
			"value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]}}, "additionalProperties": false}}}`,
	`{"type": "object", "properties": {
		"limit": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 100, "default": 10}, {"type": "null"}], "default": 10, "description": "Page size."},
		"tags": {"anyOf": [{"type": "array", "items": {"type": "string", "maxLength": 5}, "uniqueItems": true}, {"type": "null"}]},
		"when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "string", "format": "date"}]},
		"mode": {"oneOf": [{"const": "fast"}, {"const": "safe", "description": "Slow."}, {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}]}},
		"required": ["mode"], "additionalProperties": false}`,
	`{"type": "object", "required": ["kind"], "properties": {"kind": {"enum": ["a", "b"]}},
		"oneOf": [{"properties": {"kind": {"const": "a"}, "x": {"type": "string", "format": "date"}}, "required": ["x"]},
			{"properties": {"kind": {"const": "b"}, "y": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["y"], "additionalProperties": false}]}`,
}

func FuzzCompactSchema(f *testing.F) {
	for _, tc := range compactCases {
		f.Add([]byte(tc.in))
	}
	for _, s := range compactSoundOnly {
		f.Add([]byte(s))
	}
	for _, s := range []string{`null`, `[]`, `1e400`, `{"$ref": "#"}`, `{"anyOf": []}`, `{"allOf": [{"$ref": "#"}]}`,
		`{"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}`,
		`{"enum": [1, 1.0, 1e0, "1"], "anyOf": [{"const": 10e-1}, {"type": "integer", "minimum": 1e308}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeJSON(data)
		if err != nil {
			return
		}
		start := time.Now()
		got := Schema(v)
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Fatalf("took %v", elapsed)
		}
		if bad := forbiddenKeywords(got); len(bad) > 0 {
			t.Fatalf("forbidden keywords at %v in %s", bad, marshalSchema(t, got))
		}
		out := marshalSchema(t, got)
		if len(out) > 8*len(data)+4*compactRefSlack {
			t.Fatalf("%d bytes in, %d bytes out", len(data), len(out))
		}
		if again := marshalSchema(t, Schema(v)); again != out {
			t.Fatalf("not deterministic:\n%s\n%s", out, again)
		}
		orig, err := compactValidator(v, jsonschema.Draft2020)
		if err != nil {
			return // not a valid schema: nothing to be sound about
		}
		comp, err := compactValidator(got, jsonschema.Draft2020)
		if err != nil {
			t.Fatalf("the compact form of a valid schema does not compile: %v\n%s", err, out)
		}
		h := fnv.New64a()
		h.Write(data)
		g := newCSGen(h.Sum64(), v)
		for range 16 {
			inst := g.instance()
			if orig.Validate(inst) == nil {
				if err := comp.Validate(inst); err != nil {
					t.Fatalf("the original accepts %s, the compact schema rejects it: %v\ncompact: %s", marshalSchema(t, inst), err, out)
				}
			}
		}
	})
}

// compactBenchSchema is a realistic tool input schema of 41 schema objects,
// with two $refs and two anyOfs.
const compactBenchSchema = `{
	"type": "object",
	"description": "Create an issue in a repository. The issue is assigned and labelled in the same call.",
	"properties": {
		"owner": {"type": "string", "description": "Repository owner (user or organization).", "minLength": 1, "maxLength": 39, "pattern": "^[A-Za-z0-9-]+$"},
		"repo": {"type": "string", "description": "Repository name.", "minLength": 1, "maxLength": 100},
		"title": {"type": "string", "description": "Issue title.", "minLength": 1, "maxLength": 256},
		"body": {"type": "string", "description": "Issue body, in Markdown. Mention users with @login."},
		"assignees": {"type": "array", "description": "Logins of the users to assign.", "items": {"type": "string"}, "maxItems": 10, "uniqueItems": true},
		"labels": {"type": "array", "description": "Labels to apply.", "items": {"$ref": "#/$defs/label"}},
		"milestone": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "description": "Milestone number, or null for none.", "default": null},
		"priority": {"type": "string", "enum": ["low", "medium", "high", "urgent"], "default": "medium", "description": "How urgent the issue is."},
		"due": {"type": "string", "format": "date", "description": "Due date, as YYYY-MM-DD."},
		"estimate": {"type": "number", "minimum": 0, "maximum": 1000, "description": "Estimated hours of work."},
		"draft": {"type": "boolean", "default": false, "description": "Create the issue as a draft."},
		"links": {"type": "array", "items": {"type": "object", "properties": {
			"url": {"type": "string", "format": "uri", "description": "Where the link points."},
			"title": {"type": "string", "description": "Text of the link."},
			"kind": {"type": "string", "enum": ["docs", "design", "ticket"]}}, "required": ["url"], "additionalProperties": false}},
		"notify": {"type": "object", "description": "Who to notify.", "properties": {
			"watchers": {"type": "boolean"}, "team": {"type": "string", "description": "Team slug."},
			"channels": {"type": "array", "items": {"type": "string", "enum": ["email", "slack", "web"]}}}},
		"parent": {"anyOf": [{"$ref": "#/$defs/issue"}, {"type": "null"}], "description": "The parent issue, if any."},
		"reactions": {"type": "object", "properties": {"up": {"type": "integer", "minimum": 0}, "down": {"type": "integer", "minimum": 0}}},
		"metadata": {"type": "object", "description": "Free-form key/value pairs.", "additionalProperties": {"type": "string", "maxLength": 200}}
	},
	"required": ["owner", "repo", "title"],
	"additionalProperties": false,
	"$defs": {
		"label": {"type": "object", "description": "A label, by name, with an optional colour.", "properties": {
			"name": {"type": "string", "minLength": 1, "maxLength": 50, "description": "Label name."},
			"color": {"type": "string", "pattern": "^[0-9a-f]{6}$", "description": "Hex colour without #."}},
			"required": ["name"], "additionalProperties": false},
		"issue": {"type": "object", "properties": {
			"owner": {"type": "string"}, "repo": {"type": "string"}, "number": {"type": "integer", "minimum": 1}}, "required": ["number"]}
	}
}`

func BenchmarkCompactSchema(b *testing.B) {
	schema := decodeSchema(b, compactBenchSchema)
	for b.Loop() {
		Schema(schema)
	}
}

// BenchmarkCompactManyAnchors projects a schema of 50,000 properties, each a
// $ref to a different $anchor: each target is resolved once.
func BenchmarkCompactManyAnchors(b *testing.B) {
	schema := decodeSchema(b, catalogtest.AnchorSchema(50_000))
	b.ReportAllocs()
	for b.Loop() {
		Schema(schema)
	}
}

// Lists of names are read and merged in time linear in their length:
// required, dependentRequired, and the required lists allOf unites and
// anyOf intersects. Each name was looked for in the names before it: this
// schema took more than 10 s, and a catalog with one tool requiring 40,000
// names took 3.8 s of CPU to validate.
func TestCompactSchemaLongLists(t *testing.T) {
	const n = 50000
	names := make([]any, n)
	for i := range names {
		names[i] = fmt.Sprintf("p%d", i)
	}
	half := names[:n/2]
	in := map[string]any{
		"type":              "object",
		"required":          append(slices.Clone(names), names...), // each name twice
		"dependentRequired": map[string]any{"a": names},
		"allOf":             []any{map[string]any{"required": half}, map[string]any{"required": names[n/4:]}},
		"anyOf":             []any{map[string]any{"required": names}, map[string]any{"required": half}},
	}
	var got any
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		got = Schema(in)
	}()
	select {
	case <-done:
		t.Logf("took %v", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("not done after 10 s")
	}
	m, _ := got.(map[string]any)
	if req, _ := m["required"].([]any); !slices.Equal(req, names) {
		t.Errorf("required: %d names, want the %d once each, in order", len(req), n)
	}
}
