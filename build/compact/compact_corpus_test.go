//go:build corpus

package compact

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusCompactSchema: on real schemas, sound, compact, and smaller.
func TestCorpusCompactSchema(t *testing.T) {
	var total soundness
	var schemaIn, schemaOut, listIn, listOut, tools int
	for _, file := range corpus.ToolFiles {
		for i, tool := range corpus.Tools(t, file) {
			name := fmt.Sprintf("%s %v", file, tool["name"])
			schema, ok := tool["inputSchema"]
			if !ok {
				t.Errorf("%s: no inputSchema", name)
				continue
			}
			tools++
			const n = 150
			s := checkSound(t, name, schema, n, uint64(i))
			total.add(s)
			if s.accepted < n/10 {
				t.Errorf("%s: the original accepted only %d of %d generated instances", name, s.accepted, n)
			}
			compact := Schema(schema)
			checkPrecise(t, name, schema, compact, "")
			if root, _ := schema.(map[string]any); root["type"] == "object" {
				if root, _ := compact.(map[string]any); root["type"] != "object" {
					t.Errorf("%s: compact root type %v; want object", name, root["type"])
				}
			}
			schemaIn += len(marshalSchema(t, schema))
			schemaOut += len(marshalSchema(t, compact))
			// The part of a descriptor the compact view changes.
			desc, _ := tool["description"].(string)
			listIn += len(marshalSchema(t, map[string]any{"name": tool["name"], "description": desc, "inputSchema": schema}))
			listOut += len(marshalSchema(t, map[string]any{"name": tool["name"], "description": Text(desc, 300), "inputSchema": compact}))
		}
	}
	if tools != 164 {
		t.Errorf("read %d tools; want 164", tools)
	}
	t.Logf("corpus: %d tools, %d instances, %d accepted by the original (all by the compact schema), %d of its %d rejections shared by the compact schema",
		tools, total.instances, total.accepted, total.rejectedByBoth, total.rejected)
	t.Logf("corpus: input schemas %d bytes, compact %d bytes (%.2f); name+description+inputSchema %d bytes, compact %d (%.2f)",
		schemaIn, schemaOut, float64(schemaOut)/float64(schemaIn), listIn, listOut, float64(listOut)/float64(listIn))
	if schemaOut >= schemaIn {
		t.Errorf("compact schemas take %d bytes, the originals %d", schemaOut, schemaIn)
	}
}

// TestCorpusAppendMatchesValue holds the writer to the bytes of the value
// it made before it wrote bytes, on every input schema of the corpus.
func TestCorpusAppendMatchesValue(t *testing.T) {
	for _, file := range corpus.ToolFiles {
		for _, tool := range corpus.Tools(t, file) {
			for _, w := range writers {
				if got, want := w.projectBytes(nil, tool["inputSchema"]), appendReference(w, tool["inputSchema"]); !bytes.Equal(got, want) {
					t.Errorf("%+v of %s %v:\n got %s\nwant %s", w, file, tool["name"], got, want)
				}
			}
		}
	}
}

// checkPrecise reports where compact lost a type, enum, const, format,
// default or required list that orig states unconditionally: at a schema
// reached through properties, items and additionalProperties only, without
// $ref or an applicator of its own.
func checkPrecise(t *testing.T, name string, orig, compact any, at string) {
	t.Helper()
	om, ok1 := orig.(map[string]any)
	cm, ok2 := compact.(map[string]any)
	if !ok1 || !ok2 {
		return
	}
	for _, k := range []string{"$ref", "allOf", "anyOf", "oneOf", "if", "patternProperties", "dependentSchemas", "not"} {
		if _, ok := om[k]; ok {
			return
		}
	}
	for _, k := range []string{"type", "enum", "const", "format", "default", "required"} {
		if v, ok := om[k]; ok {
			if _, typed := cm[k]; k == "type" && !typed && typeImpliedByValues(cm) {
				continue // the enum or const says it
			}
			if l, _ := v.([]any); k == "enum" && cm[k] == nil && len(l) > compactEnumMax {
				continue // too long to write out
			}
			if diff := cmp.Diff(v, cm[k]); diff != "" {
				t.Errorf("%s: %s/%s changed (-original +compact):\n%s", name, at, k, diff)
			}
		}
	}
	if props, ok := om["properties"].(map[string]any); ok {
		cprops, _ := cm["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			checkPrecise(t, name, props[k], cprops[k], at+"/properties/"+source.EscapePointer(k))
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		checkPrecise(t, name, om[k], cm[k], at+"/"+k)
	}
}

// typeImpliedByValues reports whether a compact schema states an enum or a
// const, so that its type may be left out.
func typeImpliedByValues(m map[string]any) bool {
	_, e := m["enum"]
	_, c := m["const"]
	return e || c
}
