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

// stdEncode is encoding/json's output, the reference for appendJSON.
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

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" backslash \\", "\x00\x01\b\f\n\r\t\x1f", "<html>&", "\u2028\u2029", "\xff\xfe", "é😀", "a\u00a0b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendString(nil, s), stdEncode(t, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
		v := map[string]any{s: []any{s, json.Number("1.5"), true, nil, 42, struct{ A string }{s}}}
		if got, want := appendJSON(nil, v), stdEncode(t, v); !bytes.Equal(got, want) {
			t.Fatalf("appendJSON = %s, want %s", got, want)
		}
	})
}
