package build

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseYAMLValues(t *testing.T) {
	src, ps := parseYAML("f.yaml", "f.yaml", []byte(`
s: text
q: "123"
i: 42
h: 0x1F
f: 1.5
e: 1e3
b: true
y: yes
n: null
t: 2001-12-14
l: [1, two]
m: {a: 1}
`))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	want := map[string]any{
		"s": "text", "q": "123", "i": json.Number("42"), "h": json.Number("31"),
		"f": json.Number("1.5"), "e": json.Number("1e3"), "b": true, "y": "yes", "n": nil,
		"t": "2001-12-14", "l": []any{json.Number("1"), "two"}, "m": map[string]any{"a": json.Number("1")},
	}
	if diff := cmp.Diff(want, src.value); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
}

func TestParseYAMLProblems(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'i'; i, prev = i+1, i {
		bomb += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	for _, tc := range []struct {
		name, in string
		want     []problem
	}{
		{"syntax", "a: [1, 2\nb: 3\n", []problem{{line: 1, col: 1, rule: "yaml-syntax", msg: "invalid YAML: did not find expected ',' or ']'"}}},
		{"duplicate key", "a: 1\nb: 2\na: 3\n", []problem{{line: 3, col: 1, rule: "duplicate-key", msg: `duplicate key "a" (first at line 1)`}}},
		{"two documents", "a: 1\n---\nb: 2\n", []problem{{line: 2, col: 1, rule: "yaml-syntax", msg: "more than one YAML document in the file: keep one document per file"}}},
		{"merge key", "base: &b {x: 1}\nc:\n  <<: *b\n", []problem{{line: 3, col: 3, rule: "yaml-merge", msg: "merge keys (<<) are not supported: write the fields out"}}},
		{"custom tag", "a: !secret x\n", []problem{{line: 1, col: 4, rule: "yaml-type", msg: "unsupported YAML tag !secret: quote the value to make it a string"}}},
		{"infinity", "a: .inf\n", []problem{{line: 1, col: 4, rule: "yaml-type", msg: ".inf is not a JSON number"}}},
		{"complex key", "? [a]\n: 1\n", []problem{{line: 1, col: 3, rule: "yaml-key", msg: "mapping keys must be plain strings"}}},
		{"too deep", deep, []problem{{line: 1, col: 66, rule: "too-deep", msg: "nested more than 64 levels deep"}}},
		{"alias bomb", bomb, []problem{{line: 5, col: 36, rule: "alias-limit", msg: "aliases expand to more than 100000 nodes: write the values out, or use fewer nested aliases"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := parseYAML("f.yaml", "f.yaml", []byte(tc.in))
			if len(got) > 1 {
				got = got[:1]
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(problem{})); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseYAMLHugeFile(t *testing.T) {
	_, ps := parseYAML("f.yaml", "f.yaml", make([]byte, maxFileSize+1))
	if len(ps) != 1 || ps[0].rule != "file-size" {
		t.Fatalf("problems = %v, want one file-size problem", ps)
	}
}

func TestParseJSON(t *testing.T) {
	src, ps := parseJSON("s.json", "s.json", []byte("{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"c/d\": 2.50\n}\n"))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	want := map[string]any{"a": []any{json.Number("1"), map[string]any{"b": "x"}}, "c/d": json.Number("2.50")}
	if diff := cmp.Diff(want, src.value); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	for ptr, want := range map[string]Pos{
		"":          {File: "s.json", Line: 1, Col: 1},
		"/a":        {File: "s.json", Line: 2, Col: 8},
		"/a/1/b":    {File: "s.json", Line: 2, Col: 18},
		"/c~1d":     {File: "s.json", Line: 3, Col: 10},
		"/a/1/nope": {File: "s.json", Line: 2, Col: 12},
	} {
		if got := src.pos(ptr); got != want {
			t.Errorf("pos(%q) = %v, want %v", ptr, got, want)
		}
	}
}

func TestParseJSONProblems(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     problem
	}{
		{"duplicate key", "{\"a\": 1,\n \"a\": 2}", problem{line: 2, col: 2, rule: "duplicate-key", msg: `duplicate key "a"`}},
		{"trailing data", "{} {}", problem{line: 1, col: 4, rule: "json-syntax", msg: "unexpected data after the JSON value"}},
		{"too deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), problem{line: 1, col: 65, rule: "too-deep", msg: "nested more than 64 levels deep"}},
		{"truncated", `{"a": `, problem{line: 1, col: 7, rule: "json-syntax", msg: "unexpected end of JSON"}},
		{"not json", "a: 1", problem{line: 1, col: 1, rule: "json-syntax", msg: "invalid JSON: invalid character 'a' looking for beginning of value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := parseJSON("s.json", "s.json", []byte(tc.in))
			if diff := cmp.Diff([]problem{tc.want}, got, cmp.AllowUnexported(problem{})); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestYAMLPositions(t *testing.T) {
	src, ps := parseYAML("f.yaml", "f.yaml", []byte("tools:\n  - toolId: a\n    inputSchema:\n      type: object\n    tenants: [x, y]\n"))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	for ptr, want := range map[string]Pos{
		"/tools/0/toolId":           {File: "f.yaml", Line: 2, Col: 13},
		"/tools/0/inputSchema":      {File: "f.yaml", Line: 3, Col: 5}, // a block mapping: its key
		"/tools/0/inputSchema/type": {File: "f.yaml", Line: 4, Col: 13},
		"/tools/0/tenants/1":        {File: "f.yaml", Line: 5, Col: 18},
		"/tools/0/missing":          {File: "f.yaml", Line: 2, Col: 5},
	} {
		if got := src.pos(ptr); got != want {
			t.Errorf("pos(%q) = %v, want %v", ptr, got, want)
		}
	}
}
