package refs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// decodeSchema decodes a JSON document the way declarations are decoded.
func decodeSchema(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// ext is the message for an external $ref.
func ext(ref string) string {
	return fmt.Sprintf("external $ref %q: a tool schema must be self-contained; copy the definition under $defs and point at it with #/$defs/…", ref)
}

// acceptedSchemas have no problems.
var acceptedSchemas = []struct{ name, schema string }{
	{"no refs", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
	{"boolean root", `true`},
	{"non-object root", `[{"$ref":"http://example.com"}]`},
	{"plain def", `{"type":"object","properties":{"price":{"$ref":"#/$defs/money"}},"$defs":{"money":{"type":"number"}}}`},
	{"draft-07 definitions", `{"type":"object","properties":{"price":{"$ref":"#/definitions/money"}},"definitions":{"money":{"type":"number"}}}`},
	{"tree through items", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},
			"$defs":{"node":{"type":"object","properties":{"value":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`},
	{"linked list through anyOf and a property", `{"type":"object","properties":{"list":{"$ref":"#/$defs/list"}},
			"$defs":{"list":{"anyOf":[{"type":"null"},{"type":"object","properties":{"head":{},"tail":{"$ref":"#/$defs/list"}}}]}}}`},
	{"root under properties", `{"type":"object","properties":{"name":{"type":"string"},"parent":{"$ref":"#"}}}`},
	{"root under additionalProperties", `{"type":"object","additionalProperties":{"$ref":"#"}}`},
	{"root under items, prefixItems, contains, propertyNames", `{"type":"object","properties":{
			"a":{"type":"array","items":{"$ref":"#"}},"b":{"prefixItems":[{"$ref":"#"}]},"c":{"contains":{"$ref":"#"}}},
			"propertyNames":{"$ref":"#/$defs/name"},"$defs":{"name":{"type":"string"}},"unevaluatedProperties":{"$ref":"#"}}`},
	{"zod sibling property", `{"type":"object","properties":{
			"filter":{"type":"object","properties":{"state":{"type":"string","enum":["open","closed"]}},"additionalProperties":false},
			"exclude":{"$ref":"#/properties/filter"}},"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`},
	{"zod recursion through items", `{"type":"object","properties":{
			"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/properties/node"}}},"required":["name"]}},
			"required":["node"],"$schema":"http://json-schema.org/draft-07/schema#"}`},
	{"anchor", `{"type":"object","properties":{"a":{"$ref":"#money"}},"$defs":{"m":{"$anchor":"money","type":"number"}}}`},
	{"escaped pointer", `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b~0c"},"b":{"$ref":"#/$defs/with%20space"},"c":{"$ref":"#/$defs/a%7E1b~0c"}},
			"$defs":{"a/b~c":{"type":"string"},"with space":{"type":"number"}}}`},
	{"boolean targets", `{"type":"object","properties":{"a":{"$ref":"#/$defs/yes"},"b":{"$ref":"#/$defs/no"}},"$defs":{"yes":true,"no":false}}`},
	{"draft-07 items array and dependencies", `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"$ref":"#/properties/t/items/0"}],"additionalItems":false}},
			"dependencies":{"a":["b"],"b":{"properties":{"c":{"$ref":"#/dependencies/b"}}}}}`},
	{"root $id", `{"$id":"https://example.com/tool.json","type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`},
	{"$ref keys in data", `{"type":"object","enum":[{"$ref":"http://example.com"}],"const":{"$ref":"#/nope","$id":"x"},
			"default":{"$ref":5,"$dynamicRef":"#x"},"examples":[{"$ref":"other.json"}],
			"properties":{"a":{"default":{"allOf":[{"$ref":"#"}]}}}}`},
	{"property named $ref", `{"type":"object","properties":{"$ref":{"type":"string"},"$id":{"type":"string"},"$anchor":{"$ref":"#/properties/$ref"}}}`},
	{"non-schema value under properties is ignored", `{"type":"object","properties":{"$ref":"http://example.com/x.json"}}`},
	{"unknown keywords are not walked", `{"type":"object","x-extension":{"$ref":"http://example.com/x.json","$id":"x","allOf":[{"$ref":"#"}]}}`},
	{"acyclic chain through applicators", `{"$ref":"#/$defs/a","$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/c"},{"not":{"$ref":"#/$defs/c"}}]},"c":{"type":"object"}}}`},
	{"diamond", `{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/c"}],"$defs":{"b":{"$ref":"#/$defs/d"},"c":{"$ref":"#/$defs/d"},"d":{"type":"object"}}}`},
	{"ref to an in-place child", `{"$ref":"#/allOf/0","allOf":[{"type":"object"}]}`},
	{"empty pointer token", `{"type":"object","properties":{"":{"type":"string"},"a":{"$ref":"#/properties/"}}}`},
}

func TestCheckSchemaRefsAccepts(t *testing.T) {
	for _, tc := range acceptedSchemas {
		t.Run(tc.name, func(t *testing.T) {
			if got := Check(decodeSchema(t, tc.schema)); len(got) != 0 {
				t.Errorf("Check(%s) = %#v, want no problems", tc.schema, got)
			}
		})
	}
}

type p = Problem

// rejectedSchemas have the problems listed.
var rejectedSchemas = []struct {
	name, schema string
	want         []Problem
}{
	// $ref must be a local string.
	{"not a string", `{"$ref":5}`, []p{{"/$ref", `$ref must be a string such as "#/$defs/name", not a number`}}},
	{"null", `{"properties":{"a":{"$ref":null}}}`, []p{{"/properties/a/$ref", `$ref must be a string such as "#/$defs/name", not null`}}},
	{"empty", `{"properties":{"a":{"$ref":""}}}`, []p{{"/properties/a/$ref", `$ref is empty; write "#" to refer to the root schema`}}},
	{"external", `{"properties":{
			"a":{"$ref":"other.json#/x"},"b":{"$ref":"https://example.com/s.json"},"c":{"$ref":"urn:example:money"},
			"d":{"$ref":"./money.json"},"e":{"$ref":"http://json-schema.org/draft-07/schema#"},"f":{"$ref":"/nope"}}}`, []p{
		{"/properties/a/$ref", ext("other.json#/x")},
		{"/properties/b/$ref", ext("https://example.com/s.json")},
		{"/properties/c/$ref", ext("urn:example:money")},
		{"/properties/d/$ref", ext("./money.json")},
		{"/properties/e/$ref", ext("http://json-schema.org/draft-07/schema#")},
		{"/properties/f/$ref", ext("/nope")},
	}},
	{"missing #", `{"properties":{"a":{"$ref":"/$defs/a"}},"$defs":{"a":{}}}`,
		[]p{{"/properties/a/$ref", `$ref "/$defs/a" is a relative URI, not a local reference; write "#/$defs/a"`}}},
	{"bad %-escape", `{"properties":{"a":{"$ref":"#/$defs/%zz"},"b":{"$ref":"#/$defs/a%2"},"c":{"$ref":"#%"},"d":{"$ref":"#%%"}}}`, []p{
		{"/properties/a/$ref", `$ref "#/$defs/%zz" has a malformed %-escape; write "%25" for a literal "%"`},
		{"/properties/b/$ref", `$ref "#/$defs/a%2" has a malformed %-escape; write "%25" for a literal "%"`},
		{"/properties/c/$ref", `$ref "#%" has a malformed %-escape; write "%25" for a literal "%"`},
		{"/properties/d/$ref", `$ref "#%%" has a malformed %-escape; write "%25" for a literal "%"`},
	}},
	{"neither pointer nor anchor", `{"properties":{"a":{"$ref":"#1st"},"b":{"$ref":"#a b"}}}`, []p{
		{"/properties/a/$ref", `$ref "#1st" is neither a JSON pointer fragment ("#/…") nor an anchor name ("#name"); write one of those`},
		{"/properties/b/$ref", `$ref "#a b" is neither a JSON pointer fragment ("#/…") nor an anchor name ("#name"); write one of those`},
	}},
	{"unknown anchor", `{"properties":{"a":{"$ref":"#money"}},"$defs":{"m":{"default":{"$anchor":"money"}}}}`,
		[]p{{"/properties/a/$ref", `$ref "#money" does not resolve: no $anchor "money" in this schema`}}},

	// Pointers must resolve, and to a schema.
	{"dangling def", `{"type":"object","properties":{"price":{"$ref":"#/$defs/money"}},"$defs":{"cost":{"type":"number"}}}`,
		[]p{{"/properties/price/$ref", `$ref "#/$defs/money" does not resolve: /$defs has no member "money"`}}},
	{"dangling at the root", `{"properties":{"a":{"$ref":"#/definitions/a"}}}`,
		[]p{{"/properties/a/$ref", `$ref "#/definitions/a" does not resolve: the schema has no member "definitions"`}}},
	{"dangling array steps", `{"allOf":[{}],"properties":{"a":{"$ref":"#/allOf/3"},"b":{"$ref":"#/allOf/x"},"c":{"$ref":"#/allOf/01"},"d":{"$ref":"#/allOf/-"}}}`, []p{
		{"/properties/a/$ref", `$ref "#/allOf/3" does not resolve: /allOf has no element 3 (it has 1)`},
		{"/properties/b/$ref", `$ref "#/allOf/x" does not resolve: /allOf is an array and "x" is not an index`},
		{"/properties/c/$ref", `$ref "#/allOf/01" does not resolve: /allOf is an array and "01" is not an index`},
		{"/properties/d/$ref", `$ref "#/allOf/-" does not resolve: /allOf is an array and "-" is not an index`},
	}},
	{"dangling through a scalar", `{"properties":{"a":{"type":"string","$ref":"#/properties/a/type/x"}}}`,
		[]p{{"/properties/a/$ref", `$ref "#/properties/a/type/x" does not resolve: /properties/a/type is a string, so it has no member "x"`}}},
	{"dangling after unescaping", `{"properties":{"a/b":{},"a":{"$ref":"#/properties/a~1c"}}}`,
		[]p{{"/properties/a/$ref", `$ref "#/properties/a~1c" does not resolve: /properties has no member "a/c"`}}},
	{"bad ~ escape", `{"properties":{"a":{"$ref":"#/properties/a~2"}}}`,
		[]p{{"/properties/a/$ref", `$ref "#/properties/a~2" does not resolve: "a~2" is not a valid JSON pointer token: "~" must be followed by 0 or 1`}}},
	{"not an object or boolean", `{"required":["a"],"properties":{"a":{"type":"string","minLength":1},
			"b":{"$ref":"#/properties/a/type"},"c":{"$ref":"#/required"},"d":{"$ref":"#/properties/a/minLength"},"e":{"$ref":"#/properties/a/nothing"}}}`, []p{
		{"/properties/b/$ref", `$ref "#/properties/a/type" resolves to a string, not to a schema (an object or a boolean)`},
		{"/properties/c/$ref", `$ref "#/required" resolves to an array, not to a schema (an object or a boolean)`},
		{"/properties/d/$ref", `$ref "#/properties/a/minLength" resolves to a number, not to a schema (an object or a boolean)`},
		{"/properties/e/$ref", `$ref "#/properties/a/nothing" does not resolve: /properties/a has no member "nothing"`},
	}},
	{"whole keyword", `{"$defs":{"a":{}},"allOf":[{}],"properties":{"a":{"$ref":"#/$defs"},"b":{"$ref":"#/properties"},"c":{"$ref":"#/dependentSchemas"}},"dependentSchemas":{}}`, []p{
		{"/properties/a/$ref", `$ref "#/$defs" names the whole "$defs" keyword, not a schema; point at one of its entries, such as "#/$defs/…"`},
		{"/properties/b/$ref", `$ref "#/properties" names the whole "properties" keyword, not a schema; point at one of its entries, such as "#/properties/…"`},
		{"/properties/c/$ref", `$ref "#/dependentSchemas" names the whole "dependentSchemas" keyword, not a schema; point at one of its entries, such as "#/dependentSchemas/…"`},
	}},
	{"into data", `{"properties":{"a":{"default":{"type":"string"},"enum":[{"type":"number"}]},
			"b":{"$ref":"#/properties/a/default"},"c":{"$ref":"#/properties/a/enum/0"}}}`, []p{
		{"/properties/b/$ref", `$ref "#/properties/a/default" points into the "default" value, which is data, not a schema; define the schema under $defs and point at it with #/$defs/…`},
		{"/properties/c/$ref", `$ref "#/properties/a/enum/0" points into the "enum" value, which is data, not a schema; define the schema under $defs and point at it with #/$defs/…`},
	}},
	{"under an unknown keyword", `{"x-defs":{"a":{"type":"string"}},"components":{"schemas":{"b":{}}},"properties":{
			"a":{"$ref":"#/x-defs/a"},"b":{"$ref":"#/components/schemas/b"}}}`, []p{
		{"/properties/a/$ref", `$ref "#/x-defs/a" points under "x-defs", which is not a keyword that holds schemas; move the definition under $defs and point at it with #/$defs/…`},
		{"/properties/b/$ref", `$ref "#/components/schemas/b" points under "components", which is not a keyword that holds schemas; move the definition under $defs and point at it with #/$defs/…`},
	}},
	{"keyword of the wrong type", `{"allOf":{"a":{}},"not":[{}],"$defs":{"a":[{}]},"properties":{
			"a":{"$ref":"#/allOf/a"},"b":{"$ref":"#/not/0"},"c":{"$ref":"#/$defs/a/0"}}}`, []p{
		{"/properties/a/$ref", `$ref "#/allOf/a" points inside "allOf" but not at one of its subschemas, because the value there has the wrong type; point at a schema under $defs instead`},
		{"/properties/b/$ref", `$ref "#/not/0" points inside "not" but not at one of its subschemas, because the value there has the wrong type; point at a schema under $defs instead`},
		{"/properties/c/$ref", `$ref "#/$defs/a/0" points inside "$defs" but not at one of its subschemas, because the value there has the wrong type; point at a schema under $defs instead`},
	}},
	{"data and unknown keywords below schemas", `{"$defs":{"a":{"x-meta":{"k":{}},"examples":[{"a":{}}],"dependentRequired":{"p":["q"]}}},"properties":{
			"a":{"$ref":"#/$defs/a/x-meta/k"},"b":{"$ref":"#/$defs/a/examples/0/a"},"c":{"$ref":"#/$defs/a/dependentRequired"}}}`, []p{
		{"/properties/a/$ref", `$ref "#/$defs/a/x-meta/k" points under "x-meta", which is not a keyword that holds schemas; move the definition under $defs and point at it with #/$defs/…`},
		{"/properties/b/$ref", `$ref "#/$defs/a/examples/0/a" points into the "examples" value, which is data, not a schema; define the schema under $defs and point at it with #/$defs/…`},
		{"/properties/c/$ref", `$ref "#/$defs/a/dependentRequired" points under "dependentRequired", which is not a keyword that holds schemas; move the definition under $defs and point at it with #/$defs/…`},
	}},

	// Dynamic scope and embedded resources.
	{"dynamic keywords", `{"$defs":{"a":{"$dynamicRef":"#node","$recursiveRef":"#","$recursiveAnchor":true}}}`, []p{
		{"/$defs/a/$dynamicRef", `$dynamicRef is not supported: tool schemas resolve statically; use $ref with a local pointer such as "#/$defs/…"`},
		{"/$defs/a/$recursiveAnchor", `$recursiveAnchor (draft 2019-09) is not supported: tool schemas resolve statically; remove it`},
		{"/$defs/a/$recursiveRef", `$recursiveRef (draft 2019-09) is not supported: tool schemas resolve statically; use $ref with a local pointer such as "#"`},
	}},
	{"dynamic anchor still resolves", `{"properties":{"a":{"$ref":"#node"},"b":{"$dynamicAnchor":"bad name"}},"$defs":{"n":{"$dynamicAnchor":"node"}}}`, []p{
		{"/$defs/n/$dynamicAnchor", `$dynamicAnchor is not supported: tool schemas resolve statically; write "$anchor": "node" instead`},
		{"/properties/b/$dynamicAnchor", `$dynamicAnchor is not supported: tool schemas resolve statically; name the schema with $anchor instead`},
	}},
	{"embedded $id", `{"$id":"https://example.com/root.json","properties":{"a":{"$id":"https://example.com/a.json","type":"string"},"b":{"$id":5}}}`, []p{
		{"/properties/a/$id", `$id is only allowed at the root: an embedded $id starts a new schema resource and changes what the $refs inside it resolve against; remove it and name the schema with $anchor if a $ref needs it`},
		{"/properties/b/$id", `$id is only allowed at the root: an embedded $id starts a new schema resource and changes what the $refs inside it resolve against; remove it and name the schema with $anchor if a $ref needs it`},
	}},
	{"draft-07 anchor $id", `{"definitions":{"a":{"$id":"#money","type":"number"}},"properties":{"a":{"$ref":"#money"}}}`, []p{
		{"/definitions/a/$id", `$id "#money" is a draft-07 anchor; write "$anchor": "money" instead`},
	}},

	// Anchors.
	{"anchor names", `{"$defs":{"a":{"$anchor":"1x"},"b":{"$anchor":"a b"},"c":{"$anchor":7},"d":{"$anchor":"ok_1.x-y"}}}`, []p{
		{"/$defs/a/$anchor", `$anchor "1x" is not a plain name: start with a letter or "_", then use only letters, digits, ".", "_" and "-"`},
		{"/$defs/b/$anchor", `$anchor "a b" is not a plain name: start with a letter or "_", then use only letters, digits, ".", "_" and "-"`},
		{"/$defs/c/$anchor", `$anchor must be a string, not a number`},
	}},
	{"duplicate anchors", `{"$defs":{"b":{"$anchor":"node"},"a":{"$anchor":"node"},"c":{"items":{"$anchor":"node"}}},"properties":{"x":{"$ref":"#node"}}}`, []p{
		{"/$defs/b/$anchor", `anchor "node" is already defined at /$defs/a/$anchor; anchors must be unique within a schema`},
		{"/$defs/c/items/$anchor", `anchor "node" is already defined at /$defs/a/$anchor; anchors must be unique within a schema`},
	}},

	// Cycles that never consume anything.
	{"cycle through allOf", `{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
		[]p{{"/$defs/b/allOf/0/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/b → #/$defs/a"}}},
	{"root refers to itself", `{"$ref":"#","type":"object"}`,
		[]p{{"/$ref", "$ref cycle that never reaches a value: # → #"}}},
	{"root anyOf refers to the root", `{"type":"object","anyOf":[{"type":"object"},{"$ref":"#"}]}`,
		[]p{{"/anyOf/1/$ref", "$ref cycle that never reaches a value: # → #"}}},
	{"def refers to itself", `{"$defs":{"a":{"$ref":"#/$defs/a"}}}`,
		[]p{{"/$defs/a/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/a"}}},
	{"cycle in an unused def", `{"type":"object","$defs":{"a":{"not":{"$ref":"#/$defs/b"}},"b":{"if":{"$ref":"#/$defs/a"}}}}`,
		[]p{{"/$defs/b/if/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/b → #/$defs/a"}}},
	{"cycle through then, else, oneOf, dependentSchemas, dependencies", `{"$defs":{
			"a":{"then":{"$ref":"#/$defs/b"}},"b":{"else":{"$ref":"#/$defs/c"}},"c":{"oneOf":[{"$ref":"#/$defs/d"}]},
			"d":{"dependentSchemas":{"p":{"$ref":"#/$defs/e"}}},"e":{"dependencies":{"q":{"$ref":"#/$defs/a"}}}}}`,
		[]p{{"/$defs/e/dependencies/q/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/b → #/$defs/c → #/$defs/d → #/$defs/e → #/$defs/a"}}},
	{"cycle entered from the root is reported once", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"p":{"$ref":"#/$defs/b"}}}`,
		[]p{{"/$defs/b/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/b → #/$defs/a"}}},
	{"cycle through the root", `{"allOf":[{"$ref":"#/$defs/a"}],"$defs":{"a":{"$ref":"#"}}}`,
		[]p{{"/$defs/a/$ref", "$ref cycle that never reaches a value: # → #/$defs/a → #"}}},
	{"cycle through an anchor", `{"$defs":{"a":{"$anchor":"A","anyOf":[{"$ref":"#B"}]},"b":{"$anchor":"B","$ref":"#A"}}}`,
		[]p{{"/$defs/b/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/b → #/$defs/a"}}},
	{"two cycles", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"},"c":{"allOf":[{"$ref":"#/$defs/c"}]}}}`, []p{
		{"/$defs/b/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/b → #/$defs/a"},
		{"/$defs/c/allOf/0/$ref", "$ref cycle that never reaches a value: #/$defs/c → #/$defs/c"},
	}},
	{"cycle next to legitimate recursion", `{"properties":{"kids":{"items":{"$ref":"#"}}},"$defs":{"a":{"$ref":"#/$defs/a"}}}`,
		[]p{{"/$defs/a/$ref", "$ref cycle that never reaches a value: #/$defs/a → #/$defs/a"}}},

	// Pointers are escaped, problems are sorted.
	{"escaped pointer", `{"properties":{"a/b":{"$ref":"x.json"},"m~n":{"properties":{"$ref":{"$ref":"#/nope"}}}}}`, []p{
		{"/properties/a~1b/$ref", ext("x.json")},
		{"/properties/m~0n/properties/$ref/$ref", `$ref "#/nope" does not resolve: the schema has no member "nope"`},
	}},
	{"several problems", `{"$id":"x","$ref":"#/$defs/a","$defs":{"a":{"$id":"y","$anchor":"-"}},"items":[{"$ref":"urn:x"}]}`, []p{
		{"/$defs/a/$anchor", `$anchor "-" is not a plain name: start with a letter or "_", then use only letters, digits, ".", "_" and "-"`},
		{"/$defs/a/$id", `$id is only allowed at the root: an embedded $id starts a new schema resource and changes what the $refs inside it resolve against; remove it and name the schema with $anchor if a $ref needs it`},
		{"/items/0/$ref", ext("urn:x")},
	}},
}

func TestCheckSchemaRefsProblems(t *testing.T) {
	for _, tc := range rejectedSchemas {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(decodeSchema(t, tc.schema))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check(%s) mismatch (-want +got):\n%s", tc.schema, diff)
			}
		})
	}
}

// nested returns a schema of depth levels: the root with depth-1 "not"s
// nested below it.
func nested(depth int) string {
	return strings.Repeat(`{"not":`, depth-1) + `{"$ref":"#"}` + strings.Repeat(`}`, depth-1)
}

func TestCheckSchemaRefsDepth(t *testing.T) {
	// At the limit: everything is checked, including the cycle.
	got := Check(decodeSchema(t, nested(MaxDepth)))
	want := []Problem{{strings.Repeat("/not", MaxDepth-1) + "/$ref", "$ref cycle that never reaches a value: # → #"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%d levels (-want +got):\n%s", MaxDepth, diff)
	}
	// One level more: reported once, at the first schema too deep.
	for _, depth := range []int{MaxDepth + 1, 5000} {
		got := Check(decodeSchema(t, nested(depth)))
		want := []Problem{{strings.Repeat("/not", MaxDepth), "schema nested deeper than 256 levels; flatten it, for example by moving parts under $defs"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d levels (-want +got):\n%s", depth, diff)
		}
	}
	// Wide below the limit: still one problem.
	wide := strings.Repeat(`{"not":`, MaxDepth-1) + `{"anyOf":[{},{},{}],"properties":{"a":{},"b":{}}}` + strings.Repeat(`}`, MaxDepth-1)
	got = Check(decodeSchema(t, wide))
	want = []Problem{{strings.Repeat("/not", MaxDepth-1) + "/anyOf/0", "schema nested deeper than 256 levels; flatten it, for example by moving parts under $defs"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wide (-want +got):\n%s", diff)
	}
}

// TestCheckSchemaRefsScales checks shapes that would take exponential time or
// unbounded recursion if references were followed naively.
func TestCheckSchemaRefsScales(t *testing.T) {
	const n = 20000
	var b strings.Builder

	// Each def refers twice to the next: 2^n paths from the first to the last.
	b.WriteString(`{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	if got := Check(decodeSchema(t, b.String())); len(got) != 0 {
		t.Errorf("ladder: got %d problems, first %v", len(got), got[0])
	}

	// Many refs to one def.
	b.Reset()
	b.WriteString(`{"type":"object","$defs":{"m":{"type":"number"}},"properties":{`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"p%d":{"$ref":"#/$defs/m"},`, i)
	}
	b.WriteString(`"last":{"$ref":"#/$defs/m"}}}`)
	if got := Check(decodeSchema(t, b.String())); len(got) != 0 {
		t.Errorf("fan-in: got %d problems, first %v", len(got), got[0])
	}

	// One long cycle: reported once, with the chain shortened.
	b.Reset()
	b.WriteString(`{"$defs":{`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"c%05d":{"$ref":"#/$defs/c%05d"},`, i, (i+1)%n)
	}
	b.WriteString(`"end":{}}}`)
	got := Check(decodeSchema(t, b.String()))
	want := []Problem{{fmt.Sprintf("/$defs/c%05d/$ref", n-1), fmt.Sprintf(
		"$ref cycle that never reaches a value: #/$defs/c00000 → #/$defs/c00001 → #/$defs/c00002 → #/$defs/c00003 → … %d more … → #/$defs/c%05d → #/$defs/c%05d → #/$defs/c%05d → #/$defs/c00000",
		n+1-8, n-3, n-2, n-1)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("long cycle (-want +got):\n%s", diff)
	}
}

func TestResolveRef(t *testing.T) {
	root := decodeSchema(t, `{"type":"object",
		"properties":{"a":{"type":"string"},"a/b":{"type":"number"},"m~n":{"$anchor":"tilde"},"with space":true},
		"$defs":{"x":{"$anchor":"ex","items":[{"type":"null"}]},"dup1":{"$anchor":"d","title":"1"},"dup0":{"$anchor":"d","title":"0"}},
		"enum":[{"$anchor":"data"}]}`)
	props := root.(map[string]any)["properties"].(map[string]any)
	defs := root.(map[string]any)["$defs"].(map[string]any)
	r := NewResolver(root) // one for every case: the anchor index is built once
	for _, tc := range []struct {
		ref    string
		target any
		ok     bool
	}{
		{"#", root, true},
		{"#/properties/a", props["a"], true},
		{"#/properties/a~1b", props["a/b"], true},
		{"#/properties/m~0n", props["m~n"], true},
		{"#/properties/with%20space", true, true},
		{"#/properties/a%7E1b", props["a/b"], true},
		{"#%2Fproperties%2Fa", props["a"], true},
		{"#/$defs/x/items/0", defs["x"].(map[string]any)["items"].([]any)[0], true},
		{"#ex", defs["x"], true},
		{"#tilde", props["m~n"], true},
		{"#d", defs["dup0"], true}, // the smallest pointer wins
		{"#data", nil, false},      // inside enum: not an anchor
		{"#/type", nil, false},     // a string
		{"#/properties/b", nil, false},
		{"#/properties/a~2", nil, false},
		{"#/$defs/x/items/00", nil, false},
		{"#/properties/%zz", nil, false},
		{"#1", nil, false},
		{"", nil, false},
		{"/properties/a", nil, false},
		{"tool.json#/properties/a", nil, false},
		{"https://example.com/tool.json#", nil, false},
	} {
		target, ok := r.Resolve(tc.ref)
		if diff := cmp.Diff(tc.target, target); diff != "" || ok != tc.ok {
			t.Errorf("Resolve(%q) = (…, %v), want (…, %v); target (-want +got):\n%s", tc.ref, ok, tc.ok, diff)
		}
	}
}

// checkResolverAgrees checks that every $ref Check resolves, a Resolver
// resolves to the same schema.
func checkResolverAgrees(t *testing.T, doc any) {
	t.Helper()
	m, ok := doc.(map[string]any)
	if !ok {
		return
	}
	c := newRefChecker(m)
	c.indexAnchors()
	c.checkRefs()
	r := NewResolver(doc)
	for id, n := range c.nodes {
		if c.refTarget[id] < 0 {
			continue
		}
		ref := n.ref.(string)
		target, ok := r.Resolve(ref)
		if want := c.nodes[c.refTarget[id]].value; !ok || reflect.ValueOf(target).Pointer() != reflect.ValueOf(want).Pointer() {
			t.Errorf("$ref %q at %s: Check resolves it to %s, the Resolver to %v (ok %v)", ref, c.pointer(int32(id)), c.pointer(c.refTarget[id]), target, ok)
		}
	}
}

func TestResolverAgreesWithCheck(t *testing.T) {
	for _, tc := range acceptedSchemas {
		checkResolverAgrees(t, decodeSchema(t, tc.schema))
	}
	for _, tc := range rejectedSchemas {
		checkResolverAgrees(t, decodeSchema(t, tc.schema))
	}
	checkResolverAgrees(t, decodeSchema(t, catalogtest.AnchorSchema(100)))
}

func TestResolveNotObject(t *testing.T) {
	for _, root := range []any{true, false, nil, []any{}, "#a"} {
		r := NewResolver(root)
		if target, ok := r.Resolve("#a"); ok {
			t.Errorf("NewResolver(%#v).Resolve(\"#a\") = %v, want not ok", root, target)
		}
		target, ok := r.Resolve("#")
		if _, isBool := root.(bool); ok != isBool || ok && target != root {
			t.Errorf("NewResolver(%#v).Resolve(\"#\") = (%v, %v)", root, target, ok)
		}
	}
}

// resolvePointer returns the value at an RFC 6901 pointer in doc.
func resolvePointer(doc any, pointer string) (any, bool) {
	v, _, _, fail := lookupRefPointer(doc, pointer, false)
	if fail != "" {
		return nil, false
	}
	return v, true
}

func TestResolvePointer(t *testing.T) {
	doc := decodeSchema(t, `{"a":[10,{"b":null}],"":{"":1},"c/d":2,"e~f":3,"g h":4}`)
	for _, tc := range []struct {
		pointer string
		want    any
		ok      bool
	}{
		{"", doc, true},
		{"/a/0", json.Number("10"), true},
		{"/a/1/b", nil, true},
		{"/", doc.(map[string]any)[""], true},
		{"//", json.Number("1"), true},
		{"/c~1d", json.Number("2"), true},
		{"/e~0f", json.Number("3"), true},
		{"/g h", json.Number("4"), true},
		{"/g%20h", nil, false}, // %-escapes belong to URI fragments, not pointers
		{"/a/2", nil, false},
		{"/a/-", nil, false},
		{"/a/01", nil, false},
		{"/a/+1", nil, false},
		{"/a/99999999999999999999", nil, false},
		{"/a/0/x", nil, false},
		{"/a/1/b/c", nil, false},
		{"/x", nil, false},
		{"/e~2f", nil, false},
		{"/e~", nil, false},
		{"a", nil, false},
		{"#/a", nil, false},
	} {
		got, ok := resolvePointer(doc, tc.pointer)
		if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.ok {
			t.Errorf("resolvePointer(%q) = (%v, %v), want (%v, %v)", tc.pointer, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzCheckSchemaRefs(f *testing.F) {
	for _, s := range []string{
		`{}`, `true`, `null`, `[]`, `"#"`,
		`{"$ref":"#"}`,
		`{"anyOf":[{"$ref":"#"}]}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
		`{"properties":{"a":{"$ref":"#/properties/a/items/0"},"b":{"items":[{"$ref":"#b"}],"$anchor":"b"}}}`,
		`{"$defs":{"a":{"$anchor":"x","$id":"#x","$dynamicAnchor":"x","dependencies":{"p":{"$ref":"#x"},"q":["r"]}}}}`,
		`{"properties":{"a":{"$ref":"#/properties/a~1b%20~0"},"a/b ~":{"not":{"$ref":"#/properties/a"}}}}`,
		`{"$ref":"other.json#/x","enum":[{"$ref":5}],"x":{"$ref":"#/x"}}`,
		nested(300),
	} {
		f.Add([]byte(s))
	}
	for _, tc := range acceptedSchemas {
		f.Add([]byte(tc.schema))
	}
	for _, tc := range rejectedSchemas {
		f.Add([]byte(tc.schema))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var doc any
		if d.Decode(&doc) != nil {
			return
		}
		got := Check(doc)
		for i, p := range got {
			if i > 0 && got[i-1].Pointer > p.Pointer {
				t.Errorf("problems not sorted: %q before %q", got[i-1].Pointer, p.Pointer)
			}
			if _, ok := resolvePointer(doc, p.Pointer); !ok {
				t.Errorf("problem pointer %q does not resolve", p.Pointer)
			}
			if p.Message == "" || strings.ContainsAny(p.Message, "\n\r") {
				t.Errorf("problem at %q: message %q is not one line", p.Pointer, p.Message)
			}
		}
		if again := Check(doc); !cmp.Equal(got, again) {
			t.Errorf("not deterministic:\n%v\n%v", got, again)
		}
		checkResolverAgrees(t, doc)
	})
}

// benchmarkSchema is a tool input schema of 40 schema objects with a few refs.
const benchmarkSchema = `{
  "type": "object",
  "$defs": {
    "money": {"type": "object", "properties": {"amount": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"}, "currency": {"type": "string", "enum": ["EUR", "USD"]}}, "required": ["amount", "currency"]},
    "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}, "country": {"type": "string", "minLength": 2, "maxLength": 2}}},
    "category": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/category"}}}}
  },
  "properties": {
    "customer": {"type": "object", "properties": {
      "name": {"type": "string"}, "email": {"type": "string", "format": "email"},
      "billing": {"$ref": "#/$defs/address"}, "shipping": {"anyOf": [{"$ref": "#/$defs/address"}, {"type": "null"}]}}},
    "lines": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
      "sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1},
      "price": {"$ref": "#/$defs/money"}, "category": {"$ref": "#/$defs/category"},
      "options": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["sku", "quantity"]}},
    "discount": {"oneOf": [{"$ref": "#/$defs/money"}, {"type": "object", "properties": {"percent": {"type": "number"}}}]},
    "notes": {"type": "string", "maxLength": 2000},
    "tags": {"type": "array", "items": {"type": "string"}},
    "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
    "deliverBy": {"type": "string", "format": "date"},
    "giftWrap": {"type": "boolean"},
    "metadata": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": {"type": "string"}}
  },
  "required": ["customer", "lines"],
  "additionalProperties": false
}`

func BenchmarkCheckSchemaRefs(b *testing.B) {
	schema := decodeSchema(b, benchmarkSchema)
	c := newRefChecker(schema.(map[string]any))
	c.walk(0, 1)
	if len(c.nodes) != 40 {
		b.Fatalf("benchmark schema has %d schema objects, want 40", len(c.nodes))
	}
	if got := Check(schema); len(got) != 0 {
		b.Fatalf("benchmark schema has problems: %v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(schema)
	}
}

// BenchmarkCheckManyAnchors checks a schema of 50,000 anchors, each named by
// one $ref: linear in the schema's size.
func BenchmarkCheckManyAnchors(b *testing.B) {
	schema := decodeSchema(b, catalogtest.AnchorSchema(50_000))
	if got := Check(schema); len(got) != 0 {
		b.Fatalf("anchor schema has problems: %v", got[0])
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(schema)
	}
}
