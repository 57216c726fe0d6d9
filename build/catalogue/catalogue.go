// Package catalogue is the tool catalogue of a site: the document
// /tool-catalogue.json and its group documents, joined from the entries of
// the tools the site publishes (tool.CatalogueEntry), never copying them.
//
// The tool catalogue (/tool-catalogue.json) is the tool catalog as one
// document, in the shape of the tool catalogue text: its version, the API's
// and the generator's, every tool with its descriptor reference, arguments,
// response, safety, reserved fields, group and measured token cost, and the
// named groups. Each group is also a document of its own
// (/tool-catalogue/groups/{key}.json) with only its tools, so that a client
// can take one group without the whole catalogue. Every schema a tool
// carries is self-contained (its $refs are local), so a group's tools bring
// every schema they reach.
package catalogue

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/internal/version"
)

// tokensJSON is the token costs of a group, as a value for jsonenc.
func tokensJSON(t output.Tokens) json.RawMessage { return tool.AppendTokens(nil, t) }

// Documents encodes the tool catalogue of tenant's site and its group
// documents, from the tools the site publishes (sorted by toolId), their
// entries (tool.CatalogueEntry) and their costs, under the API version
// apiVersion.
func Documents(apiVersion string, tools []*tool.Tool, entries []content.Body, costs []output.Tokens, tenant string) ([]output.Document, error) {
	var docs output.Documents
	for _, b := range Bodies(apiVersion, tools, entries, costs, tenant) {
		docs.Add(b.Route, spec.ViewStandard, spec.ContentTypeJSON, b.Body)
	}
	return docs.List, docs.Err
}

// Body is the body of a document and its route, before the document is
// made (and its body hashed).
type Body struct {
	Route string
	Body  content.Body
}

// Bodies are the bodies of the tool catalogue of tenant's site and of its
// group documents, groups first (see Documents); Load measures them with
// estimated costs.
func Bodies(apiVersion string, tools []*tool.Tool, entries []content.Body, costs []output.Tokens, tenant string) []Body {
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
	keys := slices.Sorted(maps.Keys(byKey))
	head := func(b []byte) []byte {
		b = append(b, `{"catalogVersion":`...)
		b = strconv.AppendInt(b, spec.ToolCatalogueVersion, 10)
		b = jsonenc.AppendString(append(b, `,"apiVersion":`...), apiVersion)
		b = append(b, `,"generator":`...)
		return jsonenc.Append(b, map[string]any{"name": version.Name, "version": version.String()})
	}
	// The entries are joined as parts of the documents' bodies, never
	// copied: the catalogue of a large catalog is megabytes, and a group
	// may hold most of its tools.
	comma := content.New([]byte(","))
	list := func(head []byte, idx []int, tail []byte) content.Body {
		var b content.Builder
		b.Grow(2*len(idx) + 3) // an entry and a comma each
		b.AddBytes(head)
		b.AddBytes([]byte(`,"tools":[`))
		for n, i := range idx {
			if n > 0 {
				b.Add(comma)
			}
			b.Add(entries[i])
		}
		b.AddBytes(tail)
		return b.Body()
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

	var docs []Body
	var groups []any
	for _, k := range keys {
		g := byKey[k]
		groups = append(groups, groupJSON(g))
		docs = append(docs, Body{spec.GroupRoute(k), list(jsonenc.Append(append(head(nil), `,"group":`...), groupJSON(g)), g.tools, []byte("]}\n"))})
	}
	tail := jsonenc.Append([]byte(`],"groups":`), append([]any{}, groups...))
	return append(docs, Body{spec.RouteToolCatalogue, list(head(nil), visible, append(tail, "}\n"...))})
}
