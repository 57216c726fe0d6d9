package build

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// stdEncode is encoding/json's output, the reference for the descriptors.
func stdEncode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestEncodeMatchesEncodingJSON holds the hand-written encoder to
// encoding/json on every tool of the example catalog and of the corpus.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	var tools []*Tool
	cat, diags := Load(context.Background(), exampleDir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tools = append(tools, cat.Tools...)
	for _, name := range corpus.ToolFiles {
		for _, m := range corpus.Tools(t, name) {
			tools = append(tools, &Tool{ToolID: "x", Name: m["name"].(string), Description: str(m, "description"),
				Source: spec.SourceMCP, SafetyTier: spec.TierWrite, ReplayPolicy: spec.ReplayUnsafe, Egress: spec.EgressInternet,
				InputSchema: m["inputSchema"], OutputSchema: m["annotations"]})
		}
	}
	for _, tl := range tools {
		if got, want := appendDescriptor(nil, tl), stdEncode(t, tl.Descriptor()); !bytes.Equal(got, want) {
			t.Errorf("%s: standard descriptor\n got %s\nwant %s", tl.Name, got, want)
		}
		if got, want := appendCompactDescriptor(nil, tl, compact.Options{}), stdEncode(t, tl.CompactDescriptor()); !bytes.Equal(got, want) {
			t.Errorf("%s: compact descriptor\n got %s\nwant %s", tl.Name, got, want)
		}
	}
}
