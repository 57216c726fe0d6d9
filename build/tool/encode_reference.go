package tool

import (
	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/tokens"
)

// The references of the hand-written encoders of encode.go and
// catalogue.go: each document as a Go value, encoded by encoding/json
// (jsonenc.Append takes it for a struct, and for every value in a build
// without fast paths). In a build without fast paths (package fastpath)
// they make the documents; TestEncodeMatchesEncodingJSON holds the
// hand-written encoders to them.

// appendDescriptorValue is AppendDescriptor's reference: the Descriptor,
// encoded.
func appendDescriptorValue(b []byte, t *Tool) []byte {
	d := t.Descriptor()
	if t.OutputSchema == nil {
		d.OutputSchema = nil // omitted, as a nil value is
	}
	return jsonenc.Append(b, d)
}

// appendCompactDescriptorValue is AppendCompactDescriptor's reference: the
// CompactDescriptor, encoded.
func appendCompactDescriptorValue(b []byte, t *Tool, o compact.Options) []byte {
	return jsonenc.Append(b, t.compactDescriptor(o))
}

// catalogueEntryValue is CatalogueEntry's reference: the entry as a map,
// its schemas those of t, encoded whole.
func catalogueEntryValue(t *Tool, cost output.Tokens, def definition.Definition) [][]byte {
	e := catalogueMembers(t, cost)
	e["_meta"] = definition.Meta{Definition: def}
	e["arguments"] = t.InputSchema
	if t.OutputSchema != nil {
		e["response"] = t.OutputSchema
	}
	return [][]byte{jsonenc.Append(nil, e)}
}

// catalogueMembers are the members of a tool's catalogue entry but its
// schemas, as a map for encoding/json: the reference CatalogueEntry is
// held to.
func catalogueMembers(t *Tool, cost output.Tokens) map[string]any {
	costs := map[string]any{"encoding": tokens.Encoding, "standard": cost.Standard}
	if cost.Compact > 0 {
		costs["compact"] = cost.Compact
	}
	e := map[string]any{
		"name":         t.ToolID,
		"operationId":  t.OperationID(),
		"descriptor":   map[string]any{"kind": t.DescriptorRef().Kind, "id": t.DescriptorRef().ID},
		"description":  t.Description,
		"source":       t.Source,
		"safetyTier":   t.SafetyTier,
		"replayPolicy": t.ReplayPolicy,
		"egress":       t.Egress,
		"group":        t.GroupKey,
		"tokens":       costs,
	}
	if t.Title != "" {
		e["title"] = t.Title
	}
	reserved := map[string]any{}
	if r := t.Reserved; r.IdempotencyKey != "" {
		owner := "catalogue"
		if r.KeyDeclared {
			owner = "tool"
		}
		reserved["idempotencyKey"] = map[string]any{"argument": r.IdempotencyKey, "owner": owner, "required": true}
	}
	if r := t.Reserved; r.Confirmation != "" {
		reserved["confirmation"] = map[string]any{"argument": r.Confirmation, "preview": true, "required": true}
	}
	if len(reserved) > 0 {
		e["reserved"] = reserved
	}
	if s := t.Sensitivity; s != nil {
		rs := map[string]any{"level": s.Level}
		if len(s.Fields) > 0 {
			rs["fields"] = s.Fields
		}
		e["responseSensitivity"] = rs
	}
	return e
}
