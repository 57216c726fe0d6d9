//go:build corpus

package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusEncodeMatchesEncodingJSON holds the hand-written encoder to
// encoding/json on every tool of the corpus.
func TestCorpusEncodeMatchesEncodingJSON(t *testing.T) {
	var tools []*tool.Tool
	for _, name := range corpus.ToolFiles {
		for _, m := range corpus.Tools(t, name) {
			tools = append(tools, &tool.Tool{ToolID: "x", Name: m["name"].(string), Description: description(m),
				Source: spec.SourceMCP, SafetyTier: spec.TierWrite, ReplayPolicy: spec.ReplayUnsafe, Egress: spec.EgressInternet,
				InputSchema: encodeSchema(m["inputSchema"]), OutputSchema: encodeSchema(m["annotations"])})
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

// encodeSchema encodes a decoded schema as Load does; nil stays nil.
func encodeSchema(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	return jsonenc.Append(nil, v)
}
