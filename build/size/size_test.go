package size

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[any]int64{
		"1": 1, "512B": 512, "100kB": 100_000, "100KB": 100_000, "64MiB": 64 << 20, "64 MiB": 64 << 20,
		"1.5GB": 1_500_000_000, "0.25MiB": 1 << 18, "1GiB": 1 << 30,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []any{"", "64 megabytes", "-1", "0", "0.1B", "1e9", "1TiB", true, nil} {
		if n, err := Parse(in); err == nil {
			t.Errorf("Parse(%v) = %d, want an error", in, n)
		}
	}
}

func TestMeasure(t *testing.T) {
	schema := func() map[string]any {
		return map[string]any{
			"type": "object",
			"properties": map[string]any{
				"b": map[string]any{"enum": []any{"x", "yyyy", nil}},
				"a": map[string]any{"type": "string"},
			},
		}
	}
	// {"type":"object","properties":{...}}: 2+2 braces and separators,
	// "type" 6, "object" 8, "properties" 12, the members' objects 2+2 and
	// names 3+3, {"type":"string"} 2+1+6+8, {"enum":[...]} 2+1+6 and the
	// list 2+3, "x" 3, "yyyy" 6, null 4.
	const size = 4 + 6 + 8 + 12 + 4 + 6 + 17 + 9 + 5 + 3 + 6 + 4
	for _, tc := range []struct {
		limit   int64
		n       int64
		pointer string
		ok      bool
	}{
		{limit: size, n: size, ok: true},
		{limit: 1 << 20, n: size, ok: true},
		// Over the limit, the pointer is found in key order (a's schema
		// before b's, "properties" before "type"), and is the value whose
		// member name or value passed it; the count stops after it.
		{limit: size - 1, n: size, pointer: "/type"},
		{limit: 30, n: 40, pointer: "/properties/a"},
		{limit: 40, n: 46, pointer: "/properties"},
		{limit: 60, n: 66, pointer: "/properties/b/enum/1"},
		// Over at the root: the count stops at its braces.
		{limit: 1, n: 4, pointer: ""},
	} {
		var z Meter
		n, pointer, ok := z.Measure(schema(), tc.limit)
		if n != tc.n || pointer != tc.pointer || ok != tc.ok {
			t.Errorf("Measure(limit %d) = %d, %q, %v; want %d, %q, %v", tc.limit, n, pointer, ok, tc.n, tc.pointer, tc.ok)
		}
	}
	// A value measured once is not walked again: the memo answers.
	var z Meter
	s := schema()
	z.Measure(s, 1<<20)
	s["description"] = "added after it was measured"
	if n, _, _ := z.Measure(s, 1<<20); n != size {
		t.Errorf("second Measure of the same map = %d, want the memo's %d", n, size)
	}
}
