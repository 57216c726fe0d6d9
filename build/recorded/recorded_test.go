package recorded

import (
	"encoding/json"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestToolsShapes(t *testing.T) {
	for name, tc := range map[string]struct {
		in       string
		pointers string
		msg      string
	}{
		"bare array":     {`[{"name": "a"}, {"name": "b"}]`, "/0 /1", ""},
		"result":         {`{"tools": [{"name": "a"}]}`, "/tools/0", ""},
		"json-rpc":       {`{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}]}}`, "/result/tools/0", ""},
		"pages":          {`[{"tools": [{"name": "a"}]}, {"result": {"tools": [{"name": "b"}]}}]`, "/0/tools/0 /1/result/tools/0", ""},
		"json-rpc error": {`{"error": {"code": -1}}`, "", "the recording is a JSON-RPC error"},
		"no tools":       {`{"items": []}`, "", `the document has no "tools" array`},
		"not a tool":     {`[1]`, "", "/0 is not an MCP tool"},
		"nested pages":   {`[[{"tools": []}]]`, "", "/0 is not an MCP tool"},
		"scalar":         {`"x"`, "", "expected an array of MCP tools"},
	} {
		tools, msg := Tools(decode(t, tc.in))
		var ptrs []string
		for _, tl := range tools {
			ptrs = append(ptrs, tl.Pointer)
		}
		if got := strings.Join(ptrs, " "); tc.msg == "" && (got != tc.pointers || msg != "") {
			t.Errorf("%s: pointers %q, message %q; want %q", name, got, msg, tc.pointers)
		}
		if tc.msg != "" && !strings.HasPrefix(msg, tc.msg) {
			t.Errorf("%s: message %q, want it to start with %q", name, msg, tc.msg)
		}
	}
}

func TestSchema(t *testing.T) {
	obj := decode(t, `{"a": {"type": "object"}, "b": {}, "c": 3}`).(map[string]any)
	for field, want := range map[string]SchemaKind{"a": Typed, "b": Untyped, "c": NotObject, "d": Absent} {
		m, kind := Schema(obj, field)
		if kind != want {
			t.Errorf("Schema(%s) kind %d, want %d", field, kind, want)
		}
		if kind == Untyped && m["type"] != "object" {
			t.Errorf("Schema(%s) = %v, want a copy with type object", field, m)
		}
	}
	if _, typed := obj["b"].(map[string]any)["type"]; typed {
		t.Error("Schema changed the recording")
	}
}
