package build

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tokens"
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
func catalogueEntry(t *Tool, cost output.Tokens, input, response []byte) [][]byte {
	// The members are in the order of their names, as encoding/json writes
	// a map: "arguments" before all others, "response" between those
	// before it and those after it, each side holding at least one.
	before, after := map[string]any{}, map[string]any{}
	for k, v := range catalogueMembers(t, cost) {
		if k < "response" {
			before[k] = v
		} else {
			after[k] = v
		}
	}
	mid := jsonenc.Append(nil, before)
	mid[0] = ','
	mid = mid[:len(mid)-1]
	end := jsonenc.Append(nil, after)
	end[0] = ','
	if response == nil {
		return [][]byte{[]byte(`{"arguments":`), input, append(mid, end...)}
	}
	return [][]byte{[]byte(`{"arguments":`), input, append(mid, `,"response":`...), response, end}
}

// catalogueMembers are the members of a tool's catalogue entry but its
// schemas, as decoded JSON.
func catalogueMembers(t *Tool, cost output.Tokens) map[string]any {
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
		"tokens":       tokensJSON(cost),
	}
	if t.Title != "" {
		e["title"] = t.Title
	}
	if r := reservedJSON(t.Reserved); r != nil {
		e["reserved"] = r
	}
	if s := t.Sensitivity; s != nil {
		rs := map[string]any{"level": s.Level}
		if len(s.Fields) > 0 {
			rs["fields"] = stringsJSON(s.Fields)
		}
		e["responseSensitivity"] = rs
	}
	return e
}

func reservedJSON(r Reserved) map[string]any {
	out := map[string]any{}
	if r.IdempotencyKey != "" {
		owner := "catalogue"
		if r.KeyDeclared {
			owner = "tool"
		}
		out["idempotencyKey"] = map[string]any{"argument": r.IdempotencyKey, "owner": owner, "required": true}
	}
	if r.Confirmation != "" {
		out["confirmation"] = map[string]any{"argument": r.Confirmation, "preview": true, "required": true}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func tokensJSON(t output.Tokens) map[string]any {
	out := map[string]any{"encoding": tokens.Encoding, "standard": json.Number(strconv.Itoa(t.Standard))}
	if t.Compact > 0 {
		out["compact"] = json.Number(strconv.Itoa(t.Compact))
	}
	return out
}

func stringsJSON(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// compileCatalogue encodes the tool catalogue of one site and its group
// documents, from the tools the site publishes (sorted by toolId) and the
// entries and costs Compile made of them.
func compileCatalogue(cat *Catalog, tools []*Tool, entries [][][]byte, costs []output.Tokens, tenant string) []output.Document {
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
		b = jsonenc.AppendString(append(b, `,"apiVersion":`...), cat.Config.APIVersionOrDefault())
		b = append(b, `,"generator":`...)
		return jsonenc.Append(b, map[string]any{"name": version.Name, "version": version.String()})
	}
	// The entries are joined as parts of the documents' bodies, never
	// copied: the catalogue of a large catalog is megabytes, and a group
	// may hold most of its tools.
	comma := []byte(",")
	list := func(b [][]byte, idx []int) [][]byte {
		b = slices.Grow(b, 6*len(idx)+2)
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

	var docs []output.Document
	var groups []any
	for _, k := range keys {
		g := byKey[k]
		groups = append(groups, groupJSON(g))
		b := list([][]byte{jsonenc.Append(append(head(nil), `,"group":`...), groupJSON(g))}, g.tools)
		docs = append(docs, output.NewDocument(spec.GroupRoute(k), spec.ViewStandard, spec.ContentTypeJSON, content.New(append(b, []byte("]}\n"))...)))
	}
	b := list([][]byte{head(nil)}, visible)
	tail := jsonenc.Append([]byte(`],"groups":`), append([]any{}, groups...))
	return append(docs, output.NewDocument(spec.RouteToolCatalogue, spec.ViewStandard, spec.ContentTypeJSON, content.New(append(b, append(tail, "}\n"...))...)))
}
