package tool_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
)

// TestDefinitionOfMatchesReference holds DefinitionOf, which writes the
// canonical JSON from the tool, to definition.Digest, which decodes the
// descriptor, on schemas that are canonical as encoded and on every kind
// that is not.
func TestDefinitionOfMatchesReference(t *testing.T) {
	schemas := []string{
		`{"type":"object"}`,
		`{"properties":{"n":{"maximum":14,"minimum":-90,"type":"integer"}},"type":"object"}`,
		`{"properties":{"n":{"maximum":2.50,"minimum":1e3,"type":"number"}},"type":"object"}`,
		`{"properties":{"n":{"default":-0,"maximum":0.000001,"multipleOf":1e-7,"type":"number"}},"type":"object"}`,
		`{"properties":{"n":{"default":123456789012345678901,"enum":[1E2,100,10.0],"type":"number"}},"type":"object"}`,
		`{"description":"a\u2028b \u2029 \ufffd <&> \u001f \"q\" \\ é 😀","type":"object"}`,
		`{"properties":{"\ue000":{},"😀":{},"a":{}},"type":"object"}`,
		`{"properties":{"😀":{"description":"\uffff"}},"type":"object"}`,
	}
	var tools []*tool.Tool
	for i, s := range schemas {
		for _, out := range []string{"", s} {
			tl := &tool.Tool{ToolID: "made_up", Description: "A \"made-up\" tool.\u2028", Source: spec.SourceMCP, Server: "com.example/x", Name: "made-up",
				SafetyTier: spec.TierRead, ReplayPolicy: spec.ReplayIdempotent, Egress: spec.EgressNone,
				InputSchema: jsonenc.Append(nil, decodeSchema(t, json.RawMessage(s)))}
			if i%2 == 0 {
				tl.Title, tl.Server, tl.Name = "Made up 😀", "", ""
			}
			if out != "" {
				tl.OutputSchema = jsonenc.Append(nil, decodeSchema(t, json.RawMessage(out)))
			}
			tools = append(tools, tl)
		}
	}
	for _, tl := range tools {
		desc, input, output := tool.AppendDescriptorFields(nil, tl)
		want, err := definition.Digest(desc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tool.DefinitionOf(tl, desc, input, output, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("definition of %s: %+v, want %+v", desc, got, want)
		}
		c := tool.AppendCanonicalDescriptor(nil, tl, input.Of(desc), output.Of(desc))
		if asIs := definition.CanonicalAsIs(input.Of(desc)) && (output.Of(desc) == nil || definition.CanonicalAsIs(output.Of(desc))); asIs {
			if sum := sha256.Sum256(c); spec.DigestPrefix+hex.EncodeToString(sum[:]) != want.Digest {
				t.Errorf("%s is canonical as it is, but the descriptor written from it is not: %s", input.Of(desc), c)
			}
		}
	}
}
