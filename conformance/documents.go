package conformance

import (
	"encoding/json"

	"github.com/signpost-dev/signpost/build/tool"
)

// The members of the published documents that conformance reads beyond
// their schemas, as typed values built from the decoded documents
// (decodeJSON): the only code of the package that looks into a decoded
// object by a member's name. Members are found by their exact names
// (encoding/json would fill a field tagged "safetyTier" from "SafetyTier"
// as well); a text member is read as str reads it.

// descriptor is a tool descriptor, in either view.
type descriptor struct {
	// The schemas are JSON Schemas: open JSON, as decoded, which
	// refs.Check walks.
	inputSchema, outputSchema any

	safetyTier, replayPolicy, egress, source string
	// annotations are nil unless they are a JSON object.
	annotations *annotations
}

// annotations are a descriptor's four hints, each nil unless it is a
// boolean.
type annotations struct {
	readOnly, destructive, idempotent, openWorld *bool
}

// descriptorOf reads a descriptor: false when d is not a JSON object.
func descriptorOf(d any) (descriptor, bool) {
	m, ok := object(d)
	if !ok {
		return descriptor{}, false
	}
	out := descriptor{
		inputSchema:  m["inputSchema"],
		outputSchema: m["outputSchema"],
		safetyTier:   str(m["safetyTier"]),
		replayPolicy: str(m["replayPolicy"]),
		egress:       str(m["egress"]),
		source:       str(m["source"]),
	}
	if a, ok := object(m["annotations"]); ok {
		out.annotations = &annotations{
			readOnly:    boolean(a["readOnlyHint"]),
			destructive: boolean(a["destructiveHint"]),
			idempotent:  boolean(a["idempotentHint"]),
			openWorld:   boolean(a["openWorldHint"]),
		}
	}
	return out, true
}

// descriptorsOf is the list of descriptors of a tool list: the document
// itself in the standard view, its tools in the compact view; nil when
// it is neither.
func descriptorsOf(doc any) []any {
	if m, ok := object(doc); ok {
		list, _ := m["tools"].([]any)
		return list
	}
	list, _ := doc.([]any)
	return list
}

// catalogue is a tool catalogue or group document.
type catalogue struct {
	// version is catalogVersion as decoded; hasVersion says it is there.
	version    any
	hasVersion bool
	// tools are its tools, nil where one is not a JSON object.
	tools []*catalogueTool
}

// catalogueTool is a tool of a catalogue or group document.
type catalogueTool struct {
	// The schemas are JSON Schemas: open JSON, as decoded, which
	// refs.Check walks.
	arguments, response any

	name, source, safetyTier string
	descriptor               tool.DescriptorRef
}

// catalogueOf reads a catalogue or group document: false when doc is not
// a JSON object.
func catalogueOf(doc any) (catalogue, bool) {
	m, ok := object(doc)
	if !ok {
		return catalogue{}, false
	}
	var c catalogue
	c.version, c.hasVersion = m["catalogVersion"]
	tools, _ := m["tools"].([]any)
	for _, t := range tools {
		tm, ok := object(t)
		if !ok {
			c.tools = append(c.tools, nil)
			continue
		}
		dm, _ := object(tm["descriptor"])
		c.tools = append(c.tools, &catalogueTool{
			arguments:  tm["arguments"],
			response:   tm["response"],
			name:       str(tm["name"]),
			source:     str(tm["source"]),
			safetyTier: str(tm["safetyTier"]),
			descriptor: tool.DescriptorRef{Kind: str(dm["kind"]), ID: str(dm["id"])},
		})
	}
	return c, true
}

// object is v when it is a JSON object, else nil and false.
func object(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// boolean is v when it is true or false, else nil.
func boolean(v any) *bool {
	b, ok := v.(bool)
	if !ok {
		return nil
	}
	return &b
}

// str is v as a string: a string or a json.Number, "" for anything else.
func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}
