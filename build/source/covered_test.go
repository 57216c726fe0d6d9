package source

import "testing"

func TestCovered(t *testing.T) {
	root := map[string]any{"tools": []any{
		map[string]any{"toolId": 12.0, "tenants": []any{"a"}, "inputSchema": map[string]any{"type": "object"}},
	}}
	bad := []string{"/tools/0", "/tools/0/toolId", "/tools/0/inputSchema"}
	for _, c := range []struct {
		ptr  string
		want bool
	}{
		{"/tools/0", true},                   // the value that failed
		{"/tools/0/toolId", true},            // a field that failed
		{"/tools/0/egress", true},            // missing from an object that failed
		{"/tools/0/tenants/0", false},        // a field the schema had nothing against
		{"/tools/0/inputSchema/type", false}, // in an object that failed, but there
		{"/tools/1", false},
		{"/tool", false}, // a prefix of a bad pointer's text, not a parent
	} {
		if got := Covered(root, bad, c.ptr); got != c.want {
			t.Errorf("Covered(%s) = %t, want %t", c.ptr, got, c.want)
		}
	}
	if !Covered(root, []string{"/tools/0/toolId"}, "/tools/0/toolId/x") {
		t.Error("below a value that is not an object: not covered")
	}
}
