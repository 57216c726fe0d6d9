package tool

import (
	"strconv"

	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/tokens"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// CatalogueEntry is a tool's entry in the catalogue, as the parts of its
// encoding: its arguments and response are input and output, the bytes of
// its schemas in its descriptor, shared rather than encoded again (they
// were the larger part of a large catalogue's memory). response is nil when
// the tool publishes no output schema.
//
// The members are written in the order of their names, as encoding/json
// writes a map ("_meta", the digest of the tool's definition, first, then
// "arguments", "response" between "reserved" and "responseSensitivity"):
// TestEncodeMatchesEncodingJSON holds the entry to
// encoding/json's encoding of the members as a map (catalogueEntryValue,
// which makes the entry in a build without fast paths: package fastpath).
func CatalogueEntry(t *Tool, cost output.Tokens, def definition.Definition, input, response []byte) [][]byte {
	if !fastpath.Enabled {
		return catalogueEntryValue(t, cost, def)
	}
	return catalogueEntryParts(t, cost, def, input, response)
}

// catalogueEntryParts is CatalogueEntry in a build with fast paths.
func catalogueEntryParts(t *Tool, cost output.Tokens, def definition.Definition, input, response []byte) [][]byte {
	head := definition.AppendMetaValue(append(make([]byte, 0, 128), `{"_meta":`...), def)
	head = append(head, `,"arguments":`...)
	b := make([]byte, 0, 384+len(t.Description))
	ref := t.DescriptorRef()
	b = jsonenc.AppendString(append(b, `,"description":`...), t.Description)
	b = jsonenc.AppendString(append(b, `,"descriptor":{"id":`...), ref.ID)
	b = jsonenc.AppendString(append(b, `,"kind":`...), ref.Kind)
	b = jsonenc.AppendString(append(b, `},"egress":`...), t.Egress)
	b = jsonenc.AppendString(append(b, `,"group":`...), t.GroupKey)
	b = jsonenc.AppendString(append(b, `,"name":`...), t.ToolID)
	b = jsonenc.AppendString(append(b, `,"operationId":`...), t.OperationID())
	b = jsonenc.AppendString(append(b, `,"replayPolicy":`...), t.ReplayPolicy)
	if r := t.Reserved; r.Confirmation != "" || r.IdempotencyKey != "" {
		b = append(b, `,"reserved":{`...)
		if r.Confirmation != "" {
			b = jsonenc.AppendString(append(b, `"confirmation":{"argument":`...), r.Confirmation)
			b = append(b, `,"preview":true,"required":true}`...)
		}
		if r.IdempotencyKey != "" {
			if r.Confirmation != "" {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(append(b, `"idempotencyKey":{"argument":`...), r.IdempotencyKey)
			if r.KeyDeclared {
				b = append(b, `,"owner":"tool","required":true}`...)
			} else {
				b = append(b, `,"owner":"catalogue","required":true}`...)
			}
		}
		b = append(b, '}')
	}
	// What follows "response".
	mid := len(b)
	if s := t.Sensitivity; s != nil {
		b = append(b, `,"responseSensitivity":{`...)
		if len(s.Fields) > 0 {
			b = append(b, `"fields":[`...)
			for i, f := range s.Fields {
				if i > 0 {
					b = append(b, ',')
				}
				b = jsonenc.AppendString(b, f)
			}
			b = append(b, `],`...)
		}
		b = jsonenc.AppendString(append(b, `"level":`...), s.Level)
		b = append(b, '}')
	}
	b = jsonenc.AppendString(append(b, `,"safetyTier":`...), t.SafetyTier)
	b = jsonenc.AppendString(append(b, `,"source":`...), t.Source)
	if t.Title != "" {
		b = jsonenc.AppendString(append(b, `,"title":`...), t.Title)
	}
	b = AppendTokens(append(b, `,"tokens":`...), cost)
	b = append(b, '}')
	if response == nil {
		return [][]byte{head, input, b}
	}
	return [][]byte{head, input, b[:mid:mid], []byte(`,"response":`), response, b[mid:]}
}

// AppendTokens appends the token costs of a tool or group: its compact
// cost only when the compact view is on.
func AppendTokens(b []byte, t output.Tokens) []byte {
	b = append(b, '{')
	if t.Compact > 0 {
		b = strconv.AppendInt(append(b, `"compact":`...), int64(t.Compact), 10)
		b = append(b, ',')
	}
	b = jsonenc.AppendString(append(b, `"encoding":`...), tokens.Encoding)
	b = strconv.AppendInt(append(b, `,"standard":`...), int64(t.Standard), 10)
	return append(b, '}')
}
