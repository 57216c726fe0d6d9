// Package declarations decodes a declaration file
// (schemas/declarations.schema.json) once into the typed declarations the
// loader's passes read: its tools, its mcp: and openapi: imports, and its
// servers (decoded by package discovery). It is the only place that reads
// a declaration file's decoded YAML by member name.
package declarations

import (
	"strings"

	"github.com/signpost-dev/signpost/build/discovery"
)

// The values of a declaration file (schemas/declarations.schema.json)
// decoded into what the loader's passes read: the only place of the
// loader, beside signpost.yaml's (build/configfile), that reads the
// decoded YAML by member name; a server is decoded by package discovery
// (discovery.DecodeDecl), which knows what it holds. A value of the wrong
// type reads as absent: the schema has reported it, and a tool that failed
// its schema is still checked where the schema had nothing against it.

// File is a declaration file, or one part of a large one.
type File struct {
	// tools holds the items of tools, each decoded when it is declared
	// (see Tool): a large file's thousands of tools are never all held
	// decoded twice.
	tools []any
	// MCP and OpenAPI are the file's imports, nil when it has none.
	MCP, OpenAPI *Import
	// Servers holds the items of servers, decoded by package discovery,
	// where what a server declares is known (see discovery.Decl); each
	// keeps its value as written, for the limits to measure.
	Servers []discovery.Decl
}

// Tool is a tool as declared.
type Tool struct {
	ToolID, Name, Title, Description, Source, Server string
	SafetyTier, ReplayPolicy, Egress, Status         string
	// Tenants is nil when the tool declares none.
	Tenants []string
	// InputSchema and OutputSchema are as written: a schema, or {file:
	// PATH}; HasOutputSchema tells an outputSchema written from none.
	InputSchema, OutputSchema any
	HasOutputSchema           bool
	// The fields the tool catalogue uses.
	Group, IdempotencyKey string
	Irreversible          bool
	ResponseSensitivity   *Sensitivity
}

// Sensitivity is a tool's responseSensitivity as declared: how sensitive
// its response is, and where in it the sensitive values are.
type Sensitivity struct {
	Level  string   // personal, confidential or secret
	Fields []string // JSON pointers into the response; empty for all of it
}

// Import is an mcp: or openapi: import.
type Import struct {
	From, Server, ToolIDPrefix string
	// Tenants is nil when the import declares none.
	Tenants []string
	ReadGet bool
	// Default classifies every imported tool; Classify the tools it
	// names.
	Default  Classification
	Classify map[string]Classification
}

// Classification is what a declaration says of an imported tool.
type Classification struct {
	ToolID, Title, Description, SafetyTier, ReplayPolicy, Egress, Status string
	// Tenants is nil when the classification declares none.
	Tenants []string
}

// Decode decodes the value of a declaration file; one that is not an
// object declares nothing.
func Decode(v any) File {
	var f File
	m, _ := v.(map[string]any)
	f.tools = arr(m, "tools")
	if imp, ok := m["mcp"].(map[string]any); ok {
		f.MCP = decodeImport(imp)
	}
	if imp, ok := m["openapi"].(map[string]any); ok {
		f.OpenAPI = decodeImport(imp)
	}
	if items := arr(m, "servers"); len(items) > 0 {
		f.Servers = make([]discovery.Decl, len(items))
		for i, v := range items {
			f.Servers[i] = discovery.DecodeDecl(v)
		}
	}
	return f
}

// NumTools is the number of items of tools.
func (f *File) NumTools() int { return len(f.tools) }

// Tool decodes item i of tools; ok is false when it is not an object.
func (f *File) Tool(i int) (t Tool, ok bool) {
	m, ok := f.tools[i].(map[string]any)
	if !ok {
		return t, false
	}
	t = Tool{
		ToolID:         str(m, "toolId"),
		Name:           str(m, "name"),
		Title:          strings.TrimSpace(str(m, "title")),
		Description:    strings.TrimSpace(str(m, "description")),
		Source:         str(m, "source"),
		Server:         str(m, "server"),
		SafetyTier:     str(m, "safetyTier"),
		ReplayPolicy:   str(m, "replayPolicy"),
		Egress:         str(m, "egress"),
		Status:         str(m, "status"),
		Tenants:        strs(m, "tenants"),
		InputSchema:    m["inputSchema"],
		Group:          strings.TrimSpace(str(m, "group")),
		IdempotencyKey: str(m, "idempotencyKey"),
	}
	t.OutputSchema, t.HasOutputSchema = m["outputSchema"]
	t.Irreversible, _ = m["irreversible"].(bool)
	if rs, ok := m["responseSensitivity"].(map[string]any); ok {
		t.ResponseSensitivity = &Sensitivity{Level: str(rs, "level"), Fields: strs(rs, "fields")}
	}
	return t, true
}

func decodeImport(m map[string]any) *Import {
	imp := &Import{
		From:         str(m, "from"),
		Server:       str(m, "server"),
		ToolIDPrefix: str(m, "toolIdPrefix"),
		Tenants:      strs(m, "tenants"),
		Default:      decodeClassification(m["default"]),
	}
	imp.ReadGet, _ = m["readGet"].(bool)
	if classify, ok := m["classify"].(map[string]any); ok {
		imp.Classify = make(map[string]Classification, len(classify))
		for name, v := range classify {
			if _, ok := v.(map[string]any); ok {
				imp.Classify[name] = decodeClassification(v)
			}
		}
	}
	return imp
}

func decodeClassification(v any) Classification {
	m, _ := v.(map[string]any)
	return Classification{
		ToolID: str(m, "toolId"), Title: str(m, "title"), Description: str(m, "description"),
		SafetyTier: str(m, "safetyTier"), ReplayPolicy: str(m, "replayPolicy"), Egress: str(m, "egress"),
		Status: str(m, "status"), Tenants: strs(m, "tenants"),
	}
}

// SchemaRef decodes an inputSchema or outputSchema as declared: a
// schema, or {file: PATH} naming a JSON file. schema is nil for a value
// that is neither.
func SchemaRef(v any) (schema any, file string, isFile bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "", false
	}
	if file, isFile = m["file"].(string); !isFile || len(m) != 1 {
		return m, "", false
	}
	return nil, file, true
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func arr(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

func strs(m map[string]any, k string) []string {
	a, ok := m[k].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, v := range a {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
