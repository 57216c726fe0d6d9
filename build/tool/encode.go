package tool

import (
	"strconv"

	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// The descriptors are encoded field by field, in the order and with the
// omissions of Descriptor and CompactDescriptor, with package
// jsonenc (a test holds them to encoding/json). In a build without fast
// paths (package fastpath) the references of encode_reference.go encode
// them.

// field appends "name": to an object under construction, with the comma
// that separates it from the previous member.
func field(b []byte, name string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// Span is where a value is in an encoded document: b[s[0]:s[1]].
type Span [2]int

// Of returns the bytes of the span in b; nil for the zero span.
func (s Span) Of(b []byte) []byte {
	if s == (Span{}) {
		return nil
	}
	return b[s[0]:s[1]:s[1]]
}

// AppendDescriptor appends the tool's standard descriptor: the fields of
// Descriptor, in its order, with its omissions. It returns where the
// input and output schemas are in b, for the catalogue's entry to share
// their bytes instead of encoding them again: nowhere, in a build without
// fast paths, whose catalogue entries encode them again.
func AppendDescriptor(b []byte, t *Tool) (_ []byte, input, output Span) {
	if !fastpath.Enabled {
		return appendDescriptorValue(b, t), Span{}, Span{}
	}
	return appendDescriptorFields(b, t)
}

// appendDescriptorFields is AppendDescriptor in a build with fast paths.
func appendDescriptorFields(b []byte, t *Tool) (_ []byte, input, output Span) {
	b = append(b, '{')
	b = jsonenc.AppendString(field(b, "toolId"), t.ToolID)
	if t.Name != "" {
		b = jsonenc.AppendString(field(b, "name"), t.Name)
	}
	if t.Title != "" {
		b = jsonenc.AppendString(field(b, "title"), t.Title)
	}
	b = jsonenc.AppendString(field(b, "description"), t.Description)
	b = jsonenc.AppendString(field(b, "source"), t.Source)
	if t.Server != "" {
		b = jsonenc.AppendString(field(b, "server"), t.Server)
	}
	b = jsonenc.AppendString(field(b, "safetyTier"), t.SafetyTier)
	b = jsonenc.AppendString(field(b, "replayPolicy"), t.ReplayPolicy)
	b = jsonenc.AppendString(field(b, "egress"), t.Egress)
	a := t.Annotations()
	b = field(b, "annotations")
	b = append(b, `{"readOnlyHint":`...)
	b = strconv.AppendBool(b, a.ReadOnlyHint)
	b = append(b, `,"destructiveHint":`...)
	b = strconv.AppendBool(b, a.DestructiveHint)
	b = append(b, `,"idempotentHint":`...)
	b = strconv.AppendBool(b, a.IdempotentHint)
	b = append(b, `,"openWorldHint":`...)
	b = strconv.AppendBool(b, a.OpenWorldHint)
	b = append(b, '}')
	b = field(b, "inputSchema")
	input[0] = len(b)
	b = appendRaw(b, t.InputSchema)
	input[1] = len(b)
	if t.OutputSchema != nil {
		b = field(b, "outputSchema")
		output[0] = len(b)
		b = append(b, t.OutputSchema...)
		output[1] = len(b)
	}
	return append(b, '}'), input, output
}

// AppendCompactDescriptor appends the tool's compact descriptor: the fields
// of CompactDescriptor, in its order, its input schema projected with o.
func AppendCompactDescriptor(b []byte, t *Tool, o compact.Options) []byte {
	if !fastpath.Enabled {
		return appendCompactDescriptorValue(b, t, o)
	}
	return appendCompactDescriptorFields(b, t, o)
}

// appendCompactDescriptorFields is AppendCompactDescriptor in a build with
// fast paths.
func appendCompactDescriptorFields(b []byte, t *Tool, o compact.Options) []byte {
	b = append(b, '{')
	b = jsonenc.AppendString(field(b, "toolId"), t.ToolID)
	b = jsonenc.AppendString(field(b, "description"), compact.Text(t.Description, compactDescriptionLen))
	b = jsonenc.AppendString(field(b, "source"), t.Source)
	b = jsonenc.AppendString(field(b, "safetyTier"), t.SafetyTier)
	b = jsonenc.AppendString(field(b, "replayPolicy"), t.ReplayPolicy)
	b = jsonenc.AppendString(field(b, "egress"), t.Egress)
	b = append(field(b, "inputSchema"), t.compactSchema(o)...)
	return append(b, '}')
}

// appendRaw appends an encoded JSON value; null for none, as a nil value
// encodes.
func appendRaw(b, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return append(b, v...)
}
