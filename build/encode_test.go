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
		got, input, output := appendDescriptor(nil, tl)
		if want := stdEncode(t, tl.Descriptor()); !bytes.Equal(got, want) {
			t.Errorf("%s: standard descriptor\n got %s\nwant %s", tl.Name, got, want)
		}
		// The catalogue's entry shares the descriptor's schemas: joined, its
		// parts are the entry as encoding/json writes it.
		cost := Tokens{Standard: 12, Compact: 3}
		whole := catalogueMembers(tl, cost)
		whole["arguments"] = tl.InputSchema
		if tl.OutputSchema != nil {
			whole["response"] = tl.OutputSchema
		}
		if got, want := bytes.Join(catalogueEntry(tl, cost, input.of(got), output.of(got)), nil), stdEncode(t, whole); !bytes.Equal(got, want) {
			t.Errorf("%s: catalogue entry\n got %s\nwant %s", tl.Name, got, want)
		}
		if got, want := appendCompactDescriptor(nil, tl, compact.Options{}), stdEncode(t, tl.CompactDescriptor()); !bytes.Equal(got, want) {
			t.Errorf("%s: compact descriptor\n got %s\nwant %s", tl.Name, got, want)
		}
	}
}
