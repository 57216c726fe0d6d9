// Package tool is a tool as the catalog holds it, after its declaration's
// defaults and classification, and what it publishes: its standard and
// compact descriptors (/tools/{toolId}), the digest of its definition
// that they carry (package definition), and its entry of the tool
// catalogue, each encoded field by field (encode.go, catalogue.go) or, in
// a build without fast paths (package fastpath), by encoding/json
// (encode_reference.go).
package tool

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
)

// The statuses of a tool.
const (
	StatusActive  = "active"
	StatusPlanned = "planned"
	StatusHidden  = "hidden"
)

// Tool is one tool as declared, after defaults and classification.
type Tool struct {
	ToolID string
	// Name is the tool's name at its source: the MCP tool name for tools
	// recorded from an MCP server, empty otherwise.
	Name         string
	Title        string
	Description  string
	Source       string
	Server       string
	SafetyTier   string
	ReplayPolicy string
	Egress       string
	Status       string
	// Tenants limits the tool to these tenants; empty means every tenant.
	Tenants []string
	// InputSchema is the tool's arguments as published, encoded as the
	// descriptor holds them: the declared schema with the reserved
	// arguments (see Reserved) added.
	InputSchema json.RawMessage
	// OutputSchema describes the first JSON-object success response,
	// encoded; nil when the tool declares none, or one the catalogue
	// cannot publish.
	OutputSchema json.RawMessage
	// compactInput is InputSchema as the compact view publishes it with
	// compactOptions, when Load made it (see SetCompactInput).
	compactInput   []byte
	compactOptions compact.Options
	// held are InputSchema, OutputSchema and compactInput, one after the
	// other, in a spill file (HoldSchemas), and heldSizes their sizes, -1
	// for nil.
	held      content.Body
	heldSizes *[3]int
	// Group is the name of the tool's group (cluster) in the tool
	// catalogue: declared, or its server's or source's; GroupKey is its
	// normalized key.
	Group, GroupKey string
	// Irreversible marks a destructive tool whose effect cannot be undone:
	// a caller must confirm it through Reserved.Confirmation.
	Irreversible bool
	// Reserved names the arguments the catalogue reserves in InputSchema.
	Reserved Reserved
	// Sensitivity is what the tool's response holds that needs care, when
	// declared.
	Sensitivity *Sensitivity
	// ServerAnnotations are the annotations the tool's MCP server recorded
	// (compact JSON), for a tool of an mcp: import whose recording has
	// them; nil otherwise. They are never published (the safety fields
	// decide the published annotations): the live drift check compares
	// them with what the server says now.
	ServerAnnotations json.RawMessage
	// src and ptr are where the tool is declared; src is nil for a tool
	// made in code.
	src *source.File
	ptr string
}

// SetDeclared records where the tool is declared: the value at the JSON
// pointer ptr of src.
func (t *Tool) SetDeclared(src *source.File, ptr string) { t.src, t.ptr = src, ptr }

// Pos returns where the tool is declared, or the zero Pos for a tool made
// in code. Load keeps the place, not its line: finding the line parses the
// file's positions, which only a message needs.
func (t *Tool) Pos() source.Pos {
	if t.src == nil {
		return source.Pos{}
	}
	return t.src.Pos(t.ptr)
}

// SetCompactInput records the tool's input schema as the compact view
// publishes it with o, encoded, for the compact descriptor to use rather
// than project InputSchema again.
func (t *Tool) SetCompactInput(schema []byte, o compact.Options) {
	t.compactInput, t.compactOptions = schema, o
}

// HoldSchemas moves the tool's encoded schemas (InputSchema, OutputSchema
// and the compact input of SetCompactInput) to spill and lets go of them:
// a large catalog's schemas are hundreds of megabytes, which nothing reads
// between Load and Compile. WithSchemas reads them back.
func (t *Tool) HoldSchemas(spill *content.Spill) error {
	schemas := [3][]byte{t.InputSchema, t.OutputSchema, t.compactInput}
	sizes := new([3]int)
	for i, s := range schemas {
		sizes[i] = len(s)
		if s == nil {
			sizes[i] = -1
		}
	}
	held, err := spill.Hold(schemas[:]...)
	if err != nil {
		return err
	}
	t.InputSchema, t.OutputSchema, t.compactInput = nil, nil, nil
	t.held, t.heldSizes = held, sizes
	return nil
}

// WithSchemas returns the tool with the schemas HoldSchemas held read back
// into InputSchema, OutputSchema and the compact input: a copy of it, or t
// itself when it holds none. t is left as it is.
func (t *Tool) WithSchemas() (*Tool, error) {
	if t.heldSizes == nil {
		return t, nil
	}
	b, err := t.held.Bytes()
	if err != nil {
		return nil, fmt.Errorf("read its schemas back: %w", err)
	}
	var schemas [3][]byte
	for i, n := range t.heldSizes {
		if n >= 0 {
			schemas[i], b = b[:n:n], b[n:]
		}
	}
	c := *t
	c.InputSchema, c.OutputSchema, c.compactInput = schemas[0], schemas[1], schemas[2]
	c.held, c.heldSizes = content.Body{}, nil
	return &c, nil
}

// Reserved names a tool's reserved arguments: the caller-owned idempotency
// key of a keyed tool, and the confirmation of an irreversible one. Empty
// when the tool has none.
type Reserved struct {
	// IdempotencyKey is the argument that holds the key; KeyDeclared is
	// true when it is the tool's own argument, named by its declaration,
	// and false when the catalogue added it.
	IdempotencyKey string
	KeyDeclared    bool
	// Confirmation is the argument that confirms an irreversible call,
	// always added by the catalogue.
	Confirmation string
}

// Sensitivity is response-sensitivity metadata: how sensitive a tool's
// response is, and where in it the sensitive values are.
type Sensitivity struct {
	Level  string   // personal, confidential or secret
	Fields []string // JSON pointers into the response; empty for all of it
}

// Published reports whether the tool appears in the built site.
func (t *Tool) Published() bool { return t.Status == StatusActive }

// VisibleTo reports whether tenant may see the tool ("" is the site without
// tenants, which sees every tool).
func (t *Tool) VisibleTo(tenant string) bool {
	return tenant == "" || len(t.Tenants) == 0 || slices.Contains(t.Tenants, tenant)
}

// Annotations derives the tool's MCP hints.
func (t *Tool) Annotations() spec.Annotations {
	return spec.Derive(t.SafetyTier, t.ReplayPolicy, t.Egress)
}

// Descriptor kinds of the catalogue's descriptor references.
const (
	DescriptorOpenAPI       = "openapi-operation"
	DescriptorMCP           = "mcp-tool"
	DescriptorHostExtension = "host-extension"
)

// DescriptorRef identifies the operation a tool calls at its source: an
// identity, not a path.
type DescriptorRef struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// DescriptorRef returns the tool's descriptor reference: the OpenAPI
// operation, the MCP server and tool name, or the host extension.
func (t *Tool) DescriptorRef() DescriptorRef {
	switch t.Source {
	case spec.SourceOpenAPI:
		return DescriptorRef{DescriptorOpenAPI, t.OperationID()}
	case spec.SourceMCP:
		if t.Server != "" {
			return DescriptorRef{DescriptorMCP, t.Server + "/" + t.OperationID()}
		}
		return DescriptorRef{DescriptorMCP, t.OperationID()}
	}
	return DescriptorRef{DescriptorHostExtension, t.ToolID}
}

// OperationID is the tool's name at its source (the OpenAPI operationId or
// the MCP tool name), or its toolId when it has none.
func (t *Tool) OperationID() string {
	if t.Name != "" {
		return t.Name
	}
	return t.ToolID
}
