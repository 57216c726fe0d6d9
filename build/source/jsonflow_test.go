package source

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameAsWritten parses data as ParseYAML does and as written, without the
// JSON lines decoded as JSON, and fails unless both give the same values
// and problems.
func sameAsWritten(t *testing.T, data []byte) {
	t.Helper()
	got, gotPs := ParseYAML("f.yaml", "f.yaml", data)
	want, wantPs, _ := parseYAML(data, nil)
	if !reflect.DeepEqual(want, got.Value) { // cmp.Diff takes minutes on deep arrays
		t.Fatalf("%q: values differ (-as written +with JSON lines):\n%s", data, cmp.Diff(want, got.Value))
	}
	if diff := cmp.Diff(wantPs, gotPs); diff != "" {
		t.Fatalf("%q: problems differ (-as written +with JSON lines):\n%s", data, diff)
	}
}

// TestJSONFlows: lines of JSON decoded as JSON give the values and the
// problems of the file parsed as written, and the ones YAML would read
// otherwise are left to it.
func TestJSONFlows(t *testing.T) {
	for _, text := range []string{
		"inputSchema: {\"type\": \"object\", \"properties\": {\"a\": {\"enum\": [1, 2.5, -0, 1e5, true, null, \"x\"]}}}\n",
		"tools:\n  - inputSchema: {\"a\":\"tab\\there \\\"q\\\" \\\\ \\/ é ☃\"}\n    outputSchema: []\n",
		"a: {\"n\": 1e999}\n",                          // a string to YAML
		"a: {\"n\": 123456789012345678901234567890}\n", // a float to YAML, a number to both
		"a: {\"s\": \"\\ud83d\\ude00\"}\n",             // a surrogate pair YAML rejects
		"a: {\"s\": \"\u2028\"}\n",                     // a line break to YAML
		"a: {\"s\": \"\u0085\"}\n",
		"a: {\"k\": 1, \"k\": 2}\n",    // a repeated key
		"a: {\"k\": 1}   \r\nb: [1]\n", // CRLF and trailing spaces
		"a: {\"k\": 1} # a comment\n",
		"d: |\n  inputSchema: {\"a\": 1}\n",        // inside a block scalar
		"d: \"runs\n  x: {\\\"a\\\": 1}\n  on\"\n", // inside a quoted scalar
		"b: &x\n  s: {\"a\": 1}\nc: *x\n",          // under an alias
		"a: " + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n",
		"x:\n  y: " + strings.Repeat("{\"a\":", 62) + "1" + strings.Repeat("}", 62) + "\n",
		"- a: {\"b\": [1, {\"c\": {}}]}\n- [1]\n",
		"a: {\"b\": 1}\na: {\"b\": 2}\n", // a repeated key outside the JSON
		"a: {\"b\": 1\n",                 // not JSON
		"a:\t{\"b\": 1}\n",
	} {
		sameAsWritten(t, []byte(text))
	}
	if _, flows := jsonFlows([]byte("tools:\n  - inputSchema: {\"type\": \"object\"}\n")); len(flows) != 1 {
		t.Errorf("a one-line JSON schema is not decoded as JSON")
	}
}

// TestJSONFlowsGenerated holds random JSON values, written on YAML lines,
// to the file parsed as written.
func TestJSONFlowsGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "a", "é", "☃", "a b", "a: b", "# c", "\"", "\\", "/", "\n", "\t", "\x7f", "\u0085", "\u2028", "\ufeff", "<&>", "~", "null", "yes", "1", "0x1F", "{", "]", "'"}
	nums := []string{"0", "-0", "1", "-1", "1.5", "1e5", "1E-5", "1.0e+300", "1e999", "-1e999", "9223372036854775807", "9223372036854775808", "18446744073709551616", "0.000001"}
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := r.IntN(10); {
		case n < 3 && depth < 5:
			m := map[string]any{}
			for range r.IntN(4) {
				m[strs[r.IntN(len(strs))]] = gen(depth + 1)
			}
			return m
		case n < 5 && depth < 5:
			var a []any
			for range r.IntN(4) {
				a = append(a, gen(depth+1))
			}
			return a
		case n < 6:
			return json.Number(nums[r.IntN(len(nums))])
		case n < 7:
			return r.IntN(2) == 0
		case n < 8:
			return nil
		}
		return strs[r.IntN(len(strs))]
	}
	decoded := 0
	for i := range 3000 {
		v := gen(0)
		if _, ok := v.(map[string]any); !ok && i%2 == 0 {
			v = map[string]any{"v": v}
		}
		var j bytes.Buffer
		enc := json.NewEncoder(&j)
		enc.SetEscapeHTML(i%3 != 0)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		data := fmt.Appendf(nil, "tools:\n  - toolId: t%d\n    inputSchema: %s", i, j.Bytes())
		if _, flows := jsonFlows(data); flows != nil {
			decoded++
		}
		sameAsWritten(t, data)
	}
	if decoded < 1000 {
		t.Errorf("%d of 3,000 lines decoded as JSON: the test holds too few of them to YAML", decoded)
	}
}

// FuzzJSONFlows: whatever the file, decoding its JSON lines as JSON gives
// the values and problems of the file parsed as written.
func FuzzJSONFlows(f *testing.F) {
	f.Add("a: {\"b\": [1, \"c\"]}\n")
	f.Add("- k: [{\"x\": null}, true]\n  j: {}\n")
	f.Add("d: >\n  k: {\"a\": 1}\n")
	f.Fuzz(func(t *testing.T, text string) {
		sameAsWritten(t, []byte(text))
	})
}

// FuzzDecodeFlow: what decodeFlow decodes, encoding/json decodes to the
// same value.
func FuzzDecodeFlow(f *testing.F) {
	for _, seed := range []string{`{"a": [1, -0.5e3, true, null, "x\"\\\n"]}`, `[]`, `{"a":{"b":{}}}`, `[1e999]`, `{"a":1,"a":2}`, `[01]`, `["é☃"]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, j string) {
		fl := decodeFlow([]byte(j))
		if fl == nil {
			return
		}
		d := json.NewDecoder(strings.NewReader(j))
		d.UseNumber()
		var want any
		if err := d.Decode(&want); err != nil {
			t.Fatalf("%q: decoded, but encoding/json: %v", j, err)
		}
		if !reflect.DeepEqual(want, fl.value) {
			t.Fatalf("%q: %#v, encoding/json %#v", j, fl.value, want)
		}
	})
}
