package build

import (
	"strings"

	"github.com/signpost-dev/signpost/build/discovery"
)

// The values of a declaration file (schemas/declarations.schema.json)
// decoded into what the loader's passes read: the only place of the
// loader, beside signpost.yaml's (config_file.go), that reads the decoded
// YAML by member name; a server is decoded by package discovery
// (discovery.DecodeDecl), which knows what it holds. A value of the wrong
// type reads as absent: the schema has reported it, and a tool that failed
// its schema is still checked where the schema had nothing against it.

// declarationsFile is a declaration file, or one part of a large one.
type declarationsFile struct {
	// tools holds the items of tools, each decoded when it is declared
	// (see Tool): a large file's thousands of tools are never all held
	// decoded twice.
	tools []any
	// MCP and OpenAPI are the file's imports, nil when it has none.
	MCP, OpenAPI *importDecl
	// Servers holds the items of servers, decoded by package discovery,
	// where what a server declares is known (see discovery.Decl); each
	// keeps its value as written, for the limits to measure.
	Servers []discovery.Decl
}

// toolDecl is a tool as declared.
type toolDecl struct {
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

// importDecl is an mcp: or openapi: import.
type importDecl struct {
	From, Server, ToolIDPrefix string
	// Tenants is nil when the import declares none.
	Tenants []string
	ReadGet bool
	// Default classifies every imported tool; Classify the tools it
	// names.
	Default  classification
	Classify map[string]classification
}

// classification is what a declaration says of an imported tool.
type classification struct {
	ToolID, Title, Description, SafetyTier, ReplayPolicy, Egress, Status string
	// Tenants is nil when the classification declares none.
	Tenants []string
}

// decodeDeclarations decodes the value of a declaration file; one that is
// not an object declares nothing.
func decodeDeclarations(v any) declarationsFile {
	var f declarationsFile
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
func (f *declarationsFile) NumTools() int { return len(f.tools) }

// Tool decodes item i of tools; ok is false when it is not an object.
func (f *declarationsFile) Tool(i int) (t toolDecl, ok bool) {
	m, ok := f.tools[i].(map[string]any)
	if !ok {
		return t, false
	}
	t = toolDecl{
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

func decodeImport(m map[string]any) *importDecl {
	imp := &importDecl{
		From:         str(m, "from"),
		Server:       str(m, "server"),
		ToolIDPrefix: str(m, "toolIdPrefix"),
		Tenants:      strs(m, "tenants"),
		Default:      decodeClassification(m["default"]),
	}
	imp.ReadGet, _ = m["readGet"].(bool)
	if classify, ok := m["classify"].(map[string]any); ok {
		imp.Classify = make(map[string]classification, len(classify))
		for name, v := range classify {
			if _, ok := v.(map[string]any); ok {
				imp.Classify[name] = decodeClassification(v)
			}
		}
	}
	return imp
}

func decodeClassification(v any) classification {
	m, _ := v.(map[string]any)
	return classification{
		ToolID: str(m, "toolId"), Title: str(m, "title"), Description: str(m, "description"),
		SafetyTier: str(m, "safetyTier"), ReplayPolicy: str(m, "replayPolicy"), Egress: str(m, "egress"),
		Status: str(m, "status"), Tenants: strs(m, "tenants"),
	}
}

// decodeSchemaRef decodes an inputSchema or outputSchema as declared: a
// schema, or {file: PATH} naming a JSON file. schema is nil for a value
// that is neither.
func decodeSchemaRef(v any) (schema any, file string, isFile bool) {
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
