package build

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tokens"
	"github.com/signpost-dev/signpost/internal/fastpath"
	"github.com/signpost-dev/signpost/internal/version"
)

// The tool catalogue (/tool-catalogue.json) is the tool catalog as one
// document, in the shape of the tool catalogue text: its version, the API's
// and the generator's, every tool with its descriptor reference, arguments,
// response, safety, reserved fields, group and measured token cost, and the
// named groups. Each group is also a document of its own
// (/tool-catalogue/groups/{key}.json) with only its tools, so that a client
// can take one group without the whole catalogue. Every schema a tool
// carries is self-contained (its $refs are local), so a group's tools bring
// every schema they reach.

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

// Descriptor returns the tool's descriptor reference: the OpenAPI
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

// measureTokens counts the tokens of a tool's encoded descriptors.
func measureTokens(c *tokens.Counter, standard, compact []byte) (output.Tokens, error) {
	var t output.Tokens
	var err error
	if t.Standard, err = c.Count(standard); err != nil {
		return t, err
	}
	if compact != nil {
		t.Compact, err = c.Count(compact)
	}
	return t, err
}

// catalogueEntry is a tool's entry in the catalogue, as the parts of its
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
func catalogueEntry(t *Tool, cost output.Tokens, def Definition, input, response []byte) [][]byte {
	if !fastpath.Enabled {
		return catalogueEntryValue(t, cost, def)
	}
	return catalogueEntryParts(t, cost, def, input, response)
}

// catalogueEntryParts is catalogueEntry in a build with fast paths.
func catalogueEntryParts(t *Tool, cost output.Tokens, def Definition, input, response []byte) [][]byte {
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
	b = appendTokens(append(b, `,"tokens":`...), cost)
	b = append(b, '}')
	if response == nil {
		return [][]byte{head, input, b}
	}
	return [][]byte{head, input, b[:mid:mid], []byte(`,"response":`), response, b[mid:]}
}

// appendTokens appends the token costs of a tool or group: its compact
// cost only when the compact view is on.
func appendTokens(b []byte, t output.Tokens) []byte {
	b = append(b, '{')
	if t.Compact > 0 {
		b = strconv.AppendInt(append(b, `"compact":`...), int64(t.Compact), 10)
		b = append(b, ',')
	}
	b = jsonenc.AppendString(append(b, `"encoding":`...), tokens.Encoding)
	b = strconv.AppendInt(append(b, `,"standard":`...), int64(t.Standard), 10)
	return append(b, '}')
}

// tokensJSON is the token costs of a group, as a value for jsonenc.
func tokensJSON(t output.Tokens) json.RawMessage { return appendTokens(nil, t) }

// compileCatalogue encodes the tool catalogue of one site and its group
// documents, from the tools the site publishes (sorted by toolId) and the
// entries and costs Compile made of them.
func compileCatalogue(cat *Catalog, tools []*Tool, entries [][][]byte, costs []output.Tokens, tenant string) []output.Document {
	bodies := catalogueBodies(&cat.Config, tools, entries, costs, tenant)
	docs := make([]output.Document, len(bodies))
	for i, b := range bodies {
		docs[i] = output.NewDocument(b.route, spec.ViewStandard, spec.ContentTypeJSON, b.body)
	}
	return docs
}

// routedBody is the body of a document and its route, before the document
// is made (and its body hashed).
type routedBody struct {
	route string
	body  content.Body
}

// catalogueBodies are the bodies of the tool catalogue of one site and of
// its group documents, groups first (see compileCatalogue); Load measures
// them with estimated costs.
func catalogueBodies(config *Config, tools []*Tool, entries [][][]byte, costs []output.Tokens, tenant string) []routedBody {
	type group struct {
		key, name string
		tools     []int
		cost      output.Tokens
	}
	byKey := map[string]*group{}
	var visible []int
	for i, t := range tools {
		if !t.VisibleTo(tenant) {
			continue
		}
		visible = append(visible, i)
		g := byKey[t.GroupKey]
		if g == nil {
			g = &group{key: t.GroupKey, name: t.Group}
			byKey[t.GroupKey] = g
		}
		g.tools = append(g.tools, i)
		g.cost.Standard += costs[i].Standard
		g.cost.Compact += costs[i].Compact
	}
	keys := sortedKeys(byKey)
	head := func(b []byte) []byte {
		b = append(b, `{"catalogVersion":`...)
		b = strconv.AppendInt(b, spec.ToolCatalogueVersion, 10)
		b = jsonenc.AppendString(append(b, `,"apiVersion":`...), config.APIVersionOrDefault())
		b = append(b, `,"generator":`...)
		return jsonenc.Append(b, map[string]any{"name": version.Name, "version": version.String()})
	}
	// The entries are joined as parts of the documents' bodies, never
	// copied: the catalogue of a large catalog is megabytes, and a group
	// may hold most of its tools.
	comma := []byte(",")
	list := func(b [][]byte, idx []int) [][]byte {
		b = slices.Grow(b, 7*len(idx)+2) // an entry's parts (see catalogueEntry) and a comma
		b = append(b, []byte(`,"tools":[`))
		for n, i := range idx {
			if n > 0 {
				b = append(b, comma)
			}
			b = append(b, entries[i]...)
		}
		return b
	}
	groupJSON := func(g *group) map[string]any {
		names := make([]any, len(g.tools))
		for n, i := range g.tools {
			names[n] = tools[i].ToolID
		}
		return map[string]any{
			"key": g.key, "name": g.name, "moduleKey": spec.GroupModuleKey(g.key),
			"document": spec.GroupRoute(g.key), "tools": names, "tokens": tokensJSON(g.cost),
		}
	}

	var docs []routedBody
	var groups []any
	for _, k := range keys {
		g := byKey[k]
		groups = append(groups, groupJSON(g))
		b := list([][]byte{jsonenc.Append(append(head(nil), `,"group":`...), groupJSON(g))}, g.tools)
		docs = append(docs, routedBody{spec.GroupRoute(k), content.New(append(b, []byte("]}\n"))...)})
	}
	b := list([][]byte{head(nil)}, visible)
	tail := jsonenc.Append([]byte(`],"groups":`), append([]any{}, groups...))
	return append(docs, routedBody{spec.RouteToolCatalogue, content.New(append(b, append(tail, "}\n"...))...)})
}
