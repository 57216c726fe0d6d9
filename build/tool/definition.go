package tool

import (
	"strconv"

	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/jcs"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// The digest of each tool's definition is package definition's; here it
// is written from the tool and its schemas' encoded bytes (DefinitionOf).

// AppendMeta appends the member _meta, holding def, to the object that
// ends b: its closing brace is moved after it. The object has members.
func AppendMeta(b []byte, def definition.Definition) []byte {
	b = field(b[:len(b)-1], spec.MetaKey)
	b = definition.AppendMetaValue(b, def)
	return append(b, '}')
}

// DefinitionOf returns the digest and size of t's definition: desc is its
// standard descriptor as AppendDescriptor encoded it, without _meta, and
// input and output are where its schemas are in desc. definition.Digest
// decodes desc again; in a build with fast paths (package fastpath), the
// canonical JSON is written from t and the schemas' bytes instead, which
// the documents' encoding makes canonical as they are unless a number is
// written otherwise than ECMAScript would, a string has an escape other
// than \u00xx, or keys could sort otherwise by UTF-16 code units: then
// definition.Digest makes it.
// buf, when not nil, is scratch space for the canonical JSON.
func DefinitionOf(t *Tool, desc []byte, input, output Span, buf *[]byte) (definition.Definition, error) {
	if !fastpath.Enabled || input == (Span{}) {
		return definition.Digest(desc)
	}
	in, out := input.Of(desc), output.Of(desc)
	if !definition.CanonicalAsIs(in) || (out != nil && !definition.CanonicalAsIs(out)) {
		return definition.Digest(desc)
	}
	var c []byte
	if buf != nil {
		c = (*buf)[:0]
	}
	c = appendCanonicalDescriptor(c, t, in, out)
	if buf != nil {
		*buf = c
	}
	return definition.Of(c), nil
}

// appendCanonicalDescriptor appends the canonical JSON of t's standard
// descriptor, its members in the order of their names, its schemas in and
// out (nil: none) as they are.
func appendCanonicalDescriptor(b []byte, t *Tool, in, out []byte) []byte {
	a := t.Annotations()
	b = strconv.AppendBool(append(b, `{"annotations":{"destructiveHint":`...), a.DestructiveHint)
	b = strconv.AppendBool(append(b, `,"idempotentHint":`...), a.IdempotentHint)
	b = strconv.AppendBool(append(b, `,"openWorldHint":`...), a.OpenWorldHint)
	b = strconv.AppendBool(append(b, `,"readOnlyHint":`...), a.ReadOnlyHint)
	b = jcs.AppendString(append(b, `},"description":`...), t.Description)
	b = jcs.AppendString(append(b, `,"egress":`...), t.Egress)
	b = append(append(b, `,"inputSchema":`...), in...)
	if t.Name != "" {
		b = jcs.AppendString(append(b, `,"name":`...), t.Name)
	}
	if out != nil {
		b = append(append(b, `,"outputSchema":`...), out...)
	}
	b = jcs.AppendString(append(b, `,"replayPolicy":`...), t.ReplayPolicy)
	b = jcs.AppendString(append(b, `,"safetyTier":`...), t.SafetyTier)
	if t.Server != "" {
		b = jcs.AppendString(append(b, `,"server":`...), t.Server)
	}
	b = jcs.AppendString(append(b, `,"source":`...), t.Source)
	if t.Title != "" {
		b = jcs.AppendString(append(b, `,"title":`...), t.Title)
	}
	b = jcs.AppendString(append(b, `,"toolId":`...), t.ToolID)
	return append(b, '}')
}
