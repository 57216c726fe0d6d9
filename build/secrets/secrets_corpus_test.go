//go:build corpus

package secrets

import (
	"testing"

	"github.com/signpost-dev/signpost/internal/corpus"
)

// readCorpusTools reads a bare array of MCP Tool objects from the corpus.
func readCorpusTools(t testing.TB, name string) []any {
	t.Helper()
	var tools []any
	for _, tool := range corpus.Tools(t, name) {
		tools = append(tools, tool)
	}
	return tools
}

// No finding on 164 real tools: Find on each whole tool object and
// FindInSchema on each schema.
func TestCorpusFindSecrets(t *testing.T) {
	total := 0
	for _, f := range []struct {
		name  string
		tools int
	}{{"github-mcp-server.tools.json", 117}, {"kubernetes-mcp-server.tools.json", 47}} {
		tools := readCorpusTools(t, f.name)
		if len(tools) != f.tools {
			t.Errorf("%s: %d tools, want %d", f.name, len(tools), f.tools)
		}
		for i, tl := range tools {
			m, ok := tl.(map[string]any)
			if !ok {
				t.Fatalf("%s: tool %d is %T", f.name, i, tl)
			}
			if got := Find(m); got != nil {
				t.Errorf("%s: Find(%v) = %v, want none", f.name, m["name"], got)
			}
			if _, ok := m["inputSchema"]; !ok {
				t.Errorf("%s: tool %v has no inputSchema", f.name, m["name"])
			}
			for _, k := range []string{"inputSchema", "outputSchema"} {
				if s, ok := m[k]; ok {
					if got := FindInSchema(s); got != nil {
						t.Errorf("%s: FindInSchema(%v.%s) = %v, want none", f.name, m["name"], k, got)
					}
				}
			}
			total++
		}
	}
	t.Logf("%d real tools scanned, no findings", total)
}

// BenchmarkFindSecretsCorpus scans all 164 real tools per iteration.
func BenchmarkFindSecretsCorpus(b *testing.B) {
	tools := append(readCorpusTools(b, "github-mcp-server.tools.json"), readCorpusTools(b, "kubernetes-mcp-server.tools.json")...)
	b.ReportAllocs()
	for b.Loop() {
		for _, tl := range tools {
			Find(tl)
			FindInSchema(tl.(map[string]any)["inputSchema"])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tools)), "ns/tool")
}
