package tool

import (
	"bytes"
	"encoding/json"

	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/spec"
)

// Descriptor is one tool as the catalog publishes it at /tools/{toolId}.
type Descriptor struct {
	ToolID       string           `json:"toolId"`
	Name         string           `json:"name,omitempty"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description"`
	Source       string           `json:"source"`
	Server       string           `json:"server,omitempty"`
	SafetyTier   string           `json:"safetyTier"`
	ReplayPolicy string           `json:"replayPolicy"`
	Egress       string           `json:"egress"`
	Annotations  spec.Annotations `json:"annotations"`
	InputSchema  any              `json:"inputSchema"`
	OutputSchema any              `json:"outputSchema,omitempty"`
	// Meta holds the digest of the tool's definition: the descriptor
	// without Meta (see definition.Definition). Descriptor leaves it nil;
	// Compile adds it to the encoded descriptor.
	Meta *definition.Meta `json:"_meta,omitempty"`
}

// Descriptor returns the published form of the tool.
func (t *Tool) Descriptor() Descriptor {
	return Descriptor{
		ToolID:       t.ToolID,
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		Source:       t.Source,
		Server:       t.Server,
		SafetyTier:   t.SafetyTier,
		ReplayPolicy: t.ReplayPolicy,
		Egress:       t.Egress,
		Annotations:  t.Annotations(),
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
	}
}

// compactDescriptionLen is the longest description of a compact descriptor.
const compactDescriptionLen = 160

// CompactDescriptor is one tool as the compact view publishes it at
// /tools/{toolId}?view=compact: what a model needs to choose a tool and call
// it by toolId, in as few bytes as honesty allows. The safety fields are all
// there; the annotations, which they determine, the server and the MCP name,
// which only routing needs, and the output schema are left to the standard
// view. The description is shortened and the input schema projected onto one
// without $ref or combinators (see compact.Schema).
type CompactDescriptor struct {
	ToolID       string `json:"toolId"`
	Description  string `json:"description"`
	Source       string `json:"source"`
	SafetyTier   string `json:"safetyTier"`
	ReplayPolicy string `json:"replayPolicy"`
	Egress       string `json:"egress"`
	InputSchema  any    `json:"inputSchema"`
}

// CompactDescriptor returns the compact form of the tool, its input
// schema's descriptions kept.
func (t *Tool) CompactDescriptor() CompactDescriptor {
	return t.compactDescriptor(compact.Options{})
}

// compactDescriptor returns the compact form of the tool, its input schema
// projected with o.
func (t *Tool) compactDescriptor(o compact.Options) CompactDescriptor {
	return CompactDescriptor{
		ToolID:       t.ToolID,
		Description:  compact.Text(t.Description, compactDescriptionLen),
		Source:       t.Source,
		SafetyTier:   t.SafetyTier,
		ReplayPolicy: t.ReplayPolicy,
		Egress:       t.Egress,
		InputSchema:  json.RawMessage(t.compactSchema(o)),
	}
}

// compactSchema is the tool's input schema projected with o, encoded: the
// one Load made when it was made with o, else made from InputSchema.
func (t *Tool) compactSchema(o compact.Options) []byte {
	if t.compactInput != nil && t.compactOptions == o {
		return t.compactInput
	}
	var v any
	if len(t.InputSchema) > 0 {
		d := json.NewDecoder(bytes.NewReader(t.InputSchema))
		d.UseNumber()
		if d.Decode(&v) != nil {
			v = nil
		}
	}
	return o.AppendSchema(nil, v)
}
