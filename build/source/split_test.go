package source

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var declarationKeys = []string{"tools", "servers", "mcp", "openapi"}

// parseInParts parses data as the loader does a large file: in the parts
// SplitYAML makes, put back together. ok is false when the file is not
// split, or a part says it must be parsed whole.
func parseInParts(t *testing.T, data []byte, size int) (value map[string]any, parts []Part, ok bool) {
	t.Helper()
	src, parts := splitYAML("f.yaml", "f.yaml", data, size, declarationKeys)
	if parts == nil {
		return nil, nil, false
	}
	var aliased atomic.Int64
	value = map[string]any{}
	for _, p := range parts {
		v, ok := src.ParsePart(p, &aliased)
		if !ok {
			return nil, parts, false
		}
		for k, x := range v {
			if p.Key == "" {
				if _, dup := value[k]; dup {
					t.Fatalf("key %s in two parts", k)
				}
				value[k] = x
				continue
			}
			items, _ := value[k].([]any)
			if len(items) != p.First {
				t.Fatalf("part of %s starts at item %d, after %d items", k, p.First, len(items))
			}
			value[k] = append(items, x.([]any)...)
		}
	}
	return value, parts, true
}

// tools is a declaration file of n tools, each indented by indent.
func tools(n int, indent string) string {
	var b strings.Builder
	b.WriteString("# generated\ntools:\n")
	for i := range n {
		fmt.Fprintf(&b, "%s- toolId: t%d # the id\n%s  description: |\n%s    Tool %d.\n%s    - not an item\n\n%s  inputSchema: {\"type\": \"object\", \"properties\": {\"a\": {\"enum\": [1, \"x\"]}}}\n# between\n",
			indent, i, indent, indent, i, indent, indent)
	}
	return b.String()
}

// TestSplitYAMLSameValues: a file split into parts gives the values of the
// file parsed whole, for sequences at the margin and indented, CRLF line
// ends, several entries, and parts that start and end anywhere.
func TestSplitYAMLSameValues(t *testing.T) {
	files := map[string]string{
		"indented":      tools(40, "  "),
		"at the margin": tools(40, ""),
		"crlf":          strings.ReplaceAll(tools(40, "    "), "\n", "\r\n"),
		"entries": "mcp:\n  from: r.json\n  server: x\n" + tools(30, "  ") +
			"servers:\n  - name: io.example/a\n    description: A\n  - name: io.example/b\n    description: B\nopenapi:\n  from: api.yaml\n",
		"anchors in one item": tools(10, "  ") + "  - toolId: z\n    inputSchema: &s {type: object}\n    outputSchema: *s\n" + tools(10, "  ")[len("# generated\ntools:\n"):],
	}
	for name, text := range files {
		whole, ps := ParseYAML("f.yaml", "f.yaml", []byte(text))
		if len(ps) > 0 {
			t.Fatalf("%s: %v", name, ps)
		}
		for _, size := range []int{1, 100, 500, 2000} {
			got, parts, ok := parseInParts(t, []byte(text), size)
			if !ok {
				t.Errorf("%s, size %d: not parsed in parts (%d parts)", name, size, len(parts))
				continue
			}
			if diff := cmp.Diff(whole.Value, any(got)); diff != "" {
				t.Errorf("%s, size %d: values differ (-whole +parts):\n%s", name, size, diff)
			}
		}
	}
}

// TestSplitYAMLWhole: a file that a split could misread is parsed whole,
// either because SplitYAML does not split it or because a part fails.
func TestSplitYAMLWhole(t *testing.T) {
	body := tools(20, "  ")[len("# generated\ntools:\n"):]
	for name, text := range map[string]string{
		"small":                 "tools:\n  - toolId: a\n",
		"unknown key":           tools(20, "  ") + "paths:\n  /a: {}\n",
		"value on the key line": "tools: [\n" + body + "]\n",
		"anchor on the key":     "tools: &all\n" + body,
		"two documents":         tools(10, "  ") + "---\n" + tools(10, "  "),
		"directive":             "%YAML 1.2\n---\n" + tools(20, "  "),
		"repeated key":          tools(10, "  ") + tools(10, "  ")[len("# generated\n"):],
		"text before a key":     "  x: 1\n" + tools(20, "  "),
		"quoted key":            "\"tools\":\n" + body,
		"outdented item":        tools(10, "  ") + "- toolId: y\n" + body,
		"mapping at the margin": "mcp:\n  from: x\n- toolId: a\n" + tools(20, "  "),
		"item with a sibling":   tools(10, "  ") + "  note: x\n" + body,
		"alias across parts":    "tools:\n  - toolId: a\n    inputSchema: &s {type: object}\n" + body + "  - toolId: b\n    inputSchema: *s\n",
		"quote over an item":    tools(10, "  ") + "  - toolId: q\n    description: \"runs on\n  - over an item\"\n" + body,
		"flow over an item":     tools(10, "  ") + "  - toolId: f\n    tenants: [a,\n  - b]\n" + body,
		"duplicate key":         tools(10, "  ") + "  - toolId: d\n    toolId: e\n" + body,
		"tab":                   tools(10, "  ") + "\t- toolId: x\n" + body,
		"bom":                   "\xef\xbb\xbf" + tools(20, "  "),
	} {
		if _, parts, ok := parseInParts(t, []byte(text), 100); ok {
			t.Errorf("%s: parsed in %d parts, want whole", name, len(parts))
		}
	}
}

// TestSplitYAMLAliasLimit: the nodes aliases bring in count over all the
// parts of a file, as they do in the file parsed whole.
func TestSplitYAMLAliasLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n")
	list := "[" + strings.Repeat("x, ", 999) + "x]"
	for i := range 200 {
		fmt.Fprintf(&b, "  - toolId: t%d\n    a: &a%d %s\n    b: [*a%d]\n", i, i, list, i)
	}
	data := []byte(b.String())
	if _, ps := ParseYAML("f.yaml", "f.yaml", data); len(ps) == 0 || ps[0].Rule != "alias-limit" {
		t.Fatalf("whole: %v, want alias-limit", ps)
	}
	if _, parts, ok := parseInParts(t, data, 4096); ok || len(parts) < 2 {
		t.Errorf("parts: ok %v in %d parts, want a part refused", ok, len(parts))
	}
}

// FuzzSplitYAML: whenever every part of a file parses, the file parsed
// whole has no problem and the same values.
func FuzzSplitYAML(f *testing.F) {
	f.Add(tools(3, "  "))
	f.Add(tools(3, ""))
	f.Add("tools:\n  - a: \"x\n  - y\"\n  - b: 1\n  - c: [1,\n  - 2]\n  - d: |\n     x\n  - e: &x 1\n  - f: *x\n")
	f.Add("mcp:\n  from: x\nservers:\n- name: a\n-   name: b\n- - c\n-\n  name: d\n")
	f.Fuzz(func(t *testing.T, text string) {
		got, _, ok := parseInParts(t, []byte(text), 8)
		if !ok {
			return
		}
		whole, ps := ParseYAML("f.yaml", "f.yaml", []byte(text))
		if len(ps) > 0 {
			t.Fatalf("parsed in parts, but whole: %v", ps)
		}
		if diff := cmp.Diff(whole.Value, any(got)); diff != "" {
			t.Fatalf("values differ (-whole +parts):\n%s", diff)
		}
	})
}
