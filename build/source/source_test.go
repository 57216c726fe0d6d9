package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseYAMLValues(t *testing.T) {
	src, ps := ParseYAML("f.yaml", "f.yaml", []byte(`
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
	if diff := cmp.Diff(want, src.Value); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
}

// TestParseYAMLAliases holds the values an alias brings in to those of its
// anchor, however often it is used: the tree of a file with anchors is
// kept whole while it is converted, since a node is reached more than once.
func TestParseYAMLAliases(t *testing.T) {
	src, ps := ParseYAML("f.yaml", "f.yaml", []byte("base: &b {x: 1, y: [1, {z: two}]}\nc: *b\nd: [*b, *b]\n"))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	b := map[string]any{"x": json.Number("1"), "y": []any{json.Number("1"), map[string]any{"z": "two"}}}
	want := map[string]any{"base": b, "c": b, "d": []any{b, b}}
	if diff := cmp.Diff(want, src.Value); diff != "" {
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
		want     []Problem
	}{
		{"duplicate key", "a: 1\nb: 2\na: 3\n", []Problem{{Line: 3, Col: 1, Rule: "duplicate-key", Msg: `duplicate key "a" (first at line 1)`}}},
		{"two documents", "a: 1\n---\nb: 2\n", []Problem{{Line: 2, Col: 1, Rule: "yaml-syntax", Msg: "more than one YAML document in the file: keep one document per file"}}},
		{"merge key", "base: &b {x: 1}\nc:\n  <<: *b\n", []Problem{{Line: 3, Col: 3, Rule: "yaml-merge", Msg: "merge keys (<<) are not supported: write the fields out"}}},
		{"custom tag", "a: !secret x\n", []Problem{{Line: 1, Col: 4, Rule: "yaml-type", Msg: "unsupported YAML tag !secret: quote the value to make it a string"}}},
		{"infinity", "a: .inf\n", []Problem{{Line: 1, Col: 4, Rule: "yaml-type", Msg: ".inf is not a JSON number"}}},
		{"complex key", "? [a]\n: 1\n", []Problem{{Line: 1, Col: 3, Rule: "yaml-key", Msg: "mapping keys must be plain strings"}}},
		{"too deep", deep, []Problem{{Line: 1, Col: 66, Rule: "too-deep", Msg: "nested more than 64 levels deep"}}},
		// Past the YAML parser's own bound of 10,000 levels, which it
		// reported as "exceeded max depth of 10000".
		{"deeper than the parser goes", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), []Problem{{Line: 1, Col: 10001, Rule: "too-deep", Msg: "nested more than 64 levels deep"}}},
		{"alias bomb", bomb, []Problem{{Line: 5, Col: 36, Rule: "alias-limit", Msg: "aliases expand to more than 100000 nodes: write the values out, or use fewer nested aliases"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := ParseYAML("f.yaml", "f.yaml", []byte(tc.in))
			if len(got) > 1 {
				got = got[:1]
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Problem{})); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseYAMLSyntax holds a syntax error to the line and column of the
// mistake itself, not of the construct around it, with its likely cause.
func TestParseYAMLSyntax(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Problem
	}{
		{"dedented key in a list item",
			"# tools\n# of the catalog\ntools:\n  - toolId: a\n    description: x\n   safetyTier: read\n  - toolId: b\n",
			Problem{Line: 6, Col: 4, Msg: `invalid YAML: did not find expected '-' indicator: a line in a list either starts a new item with "- " or is indented like the fields of the item above it`}},
		{"key at the level of the dash",
			"tools:\n  - toolId: a\n  description: x\n",
			Problem{Line: 3, Col: 3, Msg: `invalid YAML: did not find expected '-' indicator: a line in a list either starts a new item with "- " or is indented like the fields of the item above it`}},
		{"dedented key in a mapping",
			"site:\n  origin: x\n publisher: y\n",
			Problem{Line: 3, Col: 2, Msg: "invalid YAML: did not find expected key: this line is not indented like the keys of the mapping above it"}},
		{"over-indented key",
			"site:\n  origin: x\n    publisher: y\n",
			Problem{Line: 3, Col: 5, Msg: `invalid YAML: mapping values are not allowed in this context: the line above has a value, so this line cannot start a mapping inside it; is it indented too far, or is a value with ": " not quoted?`}},
		{"tab in a list item",
			"tools:\n  - toolId: a\n\tdescription: x\n",
			Problem{Line: 3, Col: 1, Msg: "invalid YAML: a tab indents this line: YAML indents with spaces only"}},
		{"tab in a mapping",
			"site:\n  origin: x\n \tpublisher: y\n",
			Problem{Line: 3, Col: 2, Msg: "invalid YAML: a tab indents this line: YAML indents with spaces only"}},
		{"unclosed double quote",
			"site:\n  origin: \"https://x\n  publisher: y\ntools: []\n",
			Problem{Line: 2, Col: 11, Msg: `invalid YAML: the string that starts with " here is never closed: end it with " on the same line`}},
		{"unclosed single quote",
			"a: 'abc\nb: c\n",
			Problem{Line: 1, Col: 4, Msg: `invalid YAML: the string that starts with ' here is never closed: end it with ' on the same line`}},
		{"unclosed flow sequence",
			"site:\n  origin: x\ntenants: [a, b\ntools: []\n",
			Problem{Line: 3, Col: 10, Msg: "invalid YAML: the [ here is never closed: end it with ] (or separate its items with commas)"}},
		{"unclosed flow sequence at the end",
			"a: [1, 2\n",
			Problem{Line: 1, Col: 4, Msg: "invalid YAML: the [ here is never closed: end it with ] (or separate its items with commas)"}},
		{"unclosed flow sequence, end of the file",
			"openapi: 3.0.0\ninfo: [\n",
			Problem{Line: 2, Col: 7, Msg: "invalid YAML: the [ here is never closed: end it with ] (or separate its items with commas)"}},
		{"unclosed flow mapping",
			"a: {x: 1, y: 2\nb: c\n",
			Problem{Line: 1, Col: 4, Msg: "invalid YAML: the { here is never closed: end it with } (or separate its items with commas)"}},
		{"junk in a flow sequence",
			"a: [x, \"b\" c]\n",
			Problem{Line: 1, Col: 12, Msg: "invalid YAML: did not find expected ',' or ']'"}},
		{"missing space, then a key",
			"site:\n  origin:https://x\n  publisher: y\n",
			Problem{Line: 2, Col: 9, Msg: `invalid YAML: no space after the colon of "origin:": write a key and its value as "origin: VALUE"`}},
		{"missing space, last key",
			"site:\n  publisher: y\n  origin:https://x\n",
			Problem{Line: 3, Col: 9, Msg: `invalid YAML: no space after the colon of "origin:": write a key and its value as "origin: VALUE"`}},
		{"missing space in a list item",
			"tools:\n  - toolId:a\n    description: x\n",
			Problem{Line: 2, Col: 11, Msg: `invalid YAML: no space after the colon of "toolId:": write a key and its value as "toolId: VALUE"`}},
		{"missing space, then a comment",
			"tools:\n  - toolId: a\n    description:x\n    # the source\n    source: mcp\n",
			Problem{Line: 3, Col: 16, Msg: `invalid YAML: no space after the colon of "description:": write a key and its value as "description: VALUE"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Rule = "yaml-syntax"
			_, got := ParseYAML("f.yaml", "f.yaml", []byte(tc.in))
			if diff := cmp.Diff([]Problem{tc.want}, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseYAMLHugeFile(t *testing.T) {
	_, ps := ParseYAML("f.yaml", "f.yaml", make([]byte, MaxFileSize+1))
	if len(ps) != 1 || ps[0].Rule != "file-size" {
		t.Fatalf("problems = %v, want one file-size Problem", ps)
	}
}

func TestParseJSON(t *testing.T) {
	src, ps := ParseJSON("s.json", "s.json", []byte("{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"c/d\": 2.50\n}\n"))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	want := map[string]any{"a": []any{json.Number("1"), map[string]any{"b": "x"}}, "c/d": json.Number("2.50")}
	if diff := cmp.Diff(want, src.Value); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	for ptr, want := range map[string]Pos{
		"":          {File: "s.json", Line: 1, Col: 1},
		"/a":        {File: "s.json", Line: 2, Col: 8},
		"/a/1/b":    {File: "s.json", Line: 2, Col: 18},
		"/c~1d":     {File: "s.json", Line: 3, Col: 10},
		"/a/1/nope": {File: "s.json", Line: 2, Col: 12},
	} {
		if got := src.Pos(ptr); got != want {
			t.Errorf("pos(%q) = %v, want %v", ptr, got, want)
		}
	}
}

func TestParseJSONProblems(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Problem
	}{
		{"duplicate key", "{\"a\": 1,\n \"a\": 2}", Problem{Line: 2, Col: 2, Rule: "duplicate-key", Msg: `duplicate key "a"`}},
		{"trailing data", "{} {}", Problem{Line: 1, Col: 4, Rule: "json-syntax", Msg: "unexpected data after the JSON value"}},
		{"too deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), Problem{Line: 1, Col: 65, Rule: "too-deep", Msg: "nested more than 64 levels deep"}},
		{"truncated", `{"a": `, Problem{Line: 1, Col: 7, Rule: "json-syntax", Msg: "unexpected end of JSON"}},
		{"not json", "a: 1", Problem{Line: 1, Col: 1, Rule: "json-syntax", Msg: "invalid JSON: invalid character 'a' looking for beginning of value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := ParseJSON("s.json", "s.json", []byte(tc.in))
			if diff := cmp.Diff([]Problem{tc.want}, got, cmp.AllowUnexported(Problem{})); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestYAMLPositions(t *testing.T) {
	src, ps := ParseYAML("f.yaml", "f.yaml", []byte("tools:\n  - toolId: a\n    inputSchema:\n      type: object\n    tenants: [x, y]\n"))
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
		if got := src.Pos(ptr); got != want {
			t.Errorf("pos(%q) = %v, want %v", ptr, got, want)
		}
	}
}

// FuzzParseJSON checks that the one-call decoding ParseJSON tries first
// accepts only what the token walk accepts, with the same value. (It may
// decline more: a key written with an escape sends a file to the walk.)
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `1`, `"a"`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a\"":1,"a":2}`, `{} {}`, `{"a": `,
		`{"a":{"b":[1,2,{"c":null}]},"b":true}`, `{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k1":10}`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		"\"\xff\"", `{"a":"\\"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := decodeJSON(data)
		slow, p := walkJSON(data)
		if ok && p != nil {
			t.Fatalf("decodeJSON ok %v, walkJSON problem %v", ok, p)
		}
		if ok && !reflect.DeepEqual(fast, slow) { // cmp takes exponential time on deep nesting
			t.Errorf("values differ:\n%#v\n%#v", slow, fast)
		}
	})
}

func TestParseJSONDecodesInOneCall(t *testing.T) {
	for _, s := range []string{`{"a":[1,{"b":"x"}],"c":{"d":null,"e":true}}`, `{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}`} {
		if _, ok := decodeJSON([]byte(s)); !ok {
			t.Errorf("decodeJSON(%s) declined it", s)
		}
	}
}

// The positions of a JSON file are converted from offsets that only grow:
// the cursor must say what lineCol says, from the first byte to past the
// last, with and without a newline at either end.
func TestCursorIsLineCol(t *testing.T) {
	for _, data := range []string{"", "\n", "{}", "{\n\"a\": 1,\n\n  \"b\": [1,\n2]}\n", "\n\n[1]"} {
		var c cursor
		for off := 0; off <= len(data)+1; off++ {
			wl, wc := lineCol([]byte(data), off)
			if gl, gc := c.lineCol([]byte(data), off); gl != wl || gc != wc {
				t.Errorf("%q at %d: cursor says %d:%d, lineCol %d:%d", data, off, gl, gc, wl, wc)
			}
		}
	}
}

// TestUnload: a file let go of finds its positions by reading it again, the
// same as before, and only while its bytes are the ones parsed.
func TestUnload(t *testing.T) {
	data := []byte("tools:\n  - name: a\n    inputSchema:\n      type: object\n")
	const ptr = "/tools/0/inputSchema/type"
	want := Pos{File: "c/tools.yaml", Line: 4, Col: 13}
	for _, tc := range []struct {
		name   string
		reread []byte
		err    error
		want   Pos
	}{
		{"same bytes", data, nil, want},
		{"changed since", []byte("tools: []\n"), nil, Pos{File: "c/tools.yaml", Line: 1, Col: 1}},
		{"gone", nil, errors.New("no such file"), Pos{File: "c/tools.yaml", Line: 1, Col: 1}},
	} {
		src, ps := ParseYAML("c/tools.yaml", "tools.yaml", slices.Clone(data))
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		reads := 0
		src.Unload(func() ([]byte, error) { reads++; return tc.reread, tc.err })
		if src.Value != nil {
			t.Errorf("%s: value kept", tc.name)
		}
		for range 2 {
			if got := src.Pos(ptr); got != tc.want {
				t.Errorf("%s: Pos(%s) = %v, want %v", tc.name, ptr, got, tc.want)
			}
		}
		if reads != 1 {
			t.Errorf("%s: file read %d times, want once", tc.name, reads)
		}
	}
	// Positions found before Unload need no second read.
	src, _ := ParseYAML("c/tools.yaml", "tools.yaml", data)
	src.Pos(ptr)
	src.Unload(func() ([]byte, error) { t.Error("read again"); return nil, nil })
	if got := src.Pos(ptr); got != want {
		t.Errorf("Pos(%s) after Unload = %v, want %v", ptr, got, want)
	}
}
