//go:build corpus

package build

import (
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusEncodeMatchesEncodingJSON holds the hand-written encoder to
// encoding/json on every tool of the corpus.
func TestCorpusEncodeMatchesEncodingJSON(t *testing.T) {
	var tools []*Tool
	for _, name := range corpus.ToolFiles {
		for _, m := range corpus.Tools(t, name) {
			tools = append(tools, &Tool{ToolID: "x", Name: m["name"].(string), Description: description(m),
				Source: spec.SourceMCP, SafetyTier: spec.TierWrite, ReplayPolicy: spec.ReplayUnsafe, Egress: spec.EgressInternet,
				InputSchema: new(preparer).encodeSchema(m["inputSchema"]), OutputSchema: new(preparer).encodeSchema(m["annotations"])})
		}
	}
	if len(tools) != 164 {
		t.Fatalf("%d corpus tools, want 164", len(tools))
	}
	checkEncodings(t, tools)
}

// description is a corpus tool's description, or "".
func description(m map[string]any) string {
	s, _ := m["description"].(string)
	return s
}
