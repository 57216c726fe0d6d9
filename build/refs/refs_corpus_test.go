//go:build corpus

package refs

import (
	"testing"

	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusCheckSchemaRefs checks the input and output schemas of real MCP
// servers: they are all self-contained.
func TestCorpusCheckSchemaRefs(t *testing.T) {
	for _, name := range corpus.ToolFiles {
		t.Run(name, func(t *testing.T) {
			tools := corpus.Tools(t, name)
			schemas := 0
			for i, tool := range tools {
				for _, field := range []string{"inputSchema", "outputSchema"} {
					schema, ok := tool[field]
					if !ok {
						continue
					}
					schemas++
					if got := Check(schema); len(got) != 0 {
						t.Errorf("tool %d (%v) %s: %v", i, tool["name"], field, got)
					}
				}
			}
			if schemas < len(tools) || len(tools) == 0 {
				t.Errorf("checked %d schemas of %d tools; want an inputSchema on every tool", schemas, len(tools))
			}
		})
	}
}
