package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
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
// encoding/json on every tool of the example catalog (the corpus suite
// does on the corpus's, TestCorpusEncodeMatchesEncodingJSON).
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	var tools []*tool.Tool
	cat, diags := build.Load(context.Background(), "../../catalogs/example")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tools = append(tools, cat.Tools...)
	// Every member a catalogue entry may hold.
	schema := json.RawMessage(jsonenc.Append(nil, map[string]any{"type": "object"}))
	for _, v := range []struct {
		title    string
		reserved tool.Reserved
		sens     *tool.Sensitivity
	}{
		{title: "Confirmed", reserved: tool.Reserved{Confirmation: "confirm"}},
		{reserved: tool.Reserved{IdempotencyKey: "key"}},
		{reserved: tool.Reserved{IdempotencyKey: "requestId", KeyDeclared: true, Confirmation: "confirm"}, sens: &tool.Sensitivity{Level: "secret"}},
		{sens: &tool.Sensitivity{Level: "personal", Fields: []string{"/email", "/name"}}},
	} {
		tools = append(tools, &tool.Tool{ToolID: "made_up", Title: v.title, Description: "A \"made-up\" tool.", Group: "Made up", GroupKey: "made-up",
			Source: spec.SourceHostExtension, SafetyTier: spec.TierWrite, ReplayPolicy: spec.ReplayUnsafe, Egress: spec.EgressInternet,
			InputSchema: schema, OutputSchema: schema, Reserved: v.reserved, Sensitivity: v.sens})
	}
	checkEncodings(t, tools)
}

// checkEncodings holds the descriptors, catalogue entries and compact
// descriptors of tools to encoding/json's bytes.
func checkEncodings(t *testing.T, tools []*tool.Tool) {
	t.Helper()
	for _, tl := range tools {
		// The schemas as decoded values, for encoding/json to encode.
		in, out := decodeSchema(t, tl.InputSchema), decodeSchema(t, tl.OutputSchema)
		got, input, response := tool.AppendDescriptorFields(nil, tl)
		def, err := definition.Digest(got)
		if err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		got = tool.AppendMeta(got, def)
		d := tl.Descriptor()
		d.InputSchema, d.OutputSchema = in, out
		d.Meta = &definition.Meta{Definition: def}
		if want := stdEncode(t, d); !bytes.Equal(got, want) {
			t.Errorf("%s: standard descriptor\n got %s\nwant %s", tl.Name, got, want)
		}
		// The catalogue's entry shares the descriptor's schemas: joined, its
		// parts are the entry as encoding/json writes it.
		for _, cost := range []output.Tokens{{Standard: 12, Compact: 3}, {Standard: 1234}} {
			whole := tool.CatalogueMembers(tl, cost)
			whole["arguments"] = in
			whole["_meta"] = definition.Meta{Definition: def}
			if out != nil {
				whole["response"] = out
			}
			if got, want := bytes.Join(tool.CatalogueEntryParts(tl, cost, def, input.Of(got), response.Of(got)), nil), stdEncode(t, whole); !bytes.Equal(got, want) {
				t.Errorf("%s: catalogue entry\n got %s\nwant %s", tl.Name, got, want)
			}
		}
		c := tl.CompactDescriptor()
		c.InputSchema = compact.Options{}.Schema(in)
		if got, want := tool.AppendCompactDescriptorFields(nil, tl, compact.Options{}), stdEncode(t, c); !bytes.Equal(got, want) {
			t.Errorf("%s: compact descriptor\n got %s\nwant %s", tl.Name, got, want)
		}
	}
}

// decodeSchema decodes an encoded schema as source decodes a file; nil
// stays nil.
func decodeSchema(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if raw == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return v
}
