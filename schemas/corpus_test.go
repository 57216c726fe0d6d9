//go:build corpus

package schemas

import (
	"fmt"
	"slices"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpus checks the input schemas real MCP servers publish.
func TestCorpus(t *testing.T) {
	v := newValidator(t)
	for _, file := range []string{"github-mcp-server.tools.json", "kubernetes-mcp-server.tools.json"} {
		t.Run(file, func(t *testing.T) {
			tools, ok := decode(t, string(corpus.Read(t, file))).([]any)
			if !ok || len(tools) == 0 {
				t.Fatalf("%s: not an array of tools", file)
			}
			notCompact := 0
			for i, x := range tools {
				tool, _ := x.(map[string]any)
				name, _ := tool["name"].(string)
				for _, kw := range []string{"inputSchema", "outputSchema"} {
					sch, ok := tool[kw]
					if !ok {
						continue
					}
					for _, viol := range v.CheckSchema(sch) {
						t.Errorf("tool %d (%s) %s%s: %s", i, name, kw, viol.Pointer, viol.Message)
					}
				}
				if hasForbidden(tool["inputSchema"]) {
					notCompact++
				}
			}
			t.Logf("%d tools, every schema valid; %d input schemas need rewriting for the compact view", len(tools), notCompact)
		})
	}
}

// TestCorpusFastPathAgrees holds the fast path to the meta-schema on every
// real schema of the corpus, and every one of its subschemas on its own.
// They are all valid, and the fast path is there for them: it should decide
// every input schema.
func TestCorpusFastPathAgrees(t *testing.T) {
	v := newValidator(t)
	fast, total := 0, 0
	check := func(label string, s any) {
		t.Helper()
		total++
		if !plainValid2020(s) {
			return
		}
		fast++
		if err := v.meta20.Validate(s); err != nil {
			t.Errorf("%s: fast path accepts what the meta-schema rejects: %v", label, err)
		}
	}
	inputs, inputsFast := 0, 0
	for _, file := range corpus.ToolFiles {
		tools, _ := decode(t, string(corpus.Read(t, file))).([]any)
		for _, x := range tools {
			tool, _ := x.(map[string]any)
			var walk func(any)
			walk = func(s any) {
				check(fmt.Sprint(tool["name"]), s)
				if m, ok := s.(map[string]any); ok {
					for _, e := range m {
						walk(e)
					}
				}
			}
			walk(tool["inputSchema"])
			inputs++
			if plainValid2020(tool["inputSchema"]) {
				inputsFast++
			}
		}
	}
	if inputs != 164 || inputsFast != inputs {
		t.Errorf("fast path decided %d of %d corpus input schemas, want all 164", inputsFast, inputs)
	}
	t.Logf("fast path accepted %d of %d schemas, %d of %d corpus input schemas", fast, total, inputsFast, inputs)
}

func hasForbidden(x any) bool {
	switch x := x.(type) {
	case map[string]any:
		for k, e := range x {
			if slices.Contains(spec.CompactForbidden(), k) || hasForbidden(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasForbidden(e) {
				return true
			}
		}
	}
	return false
}
