package discovery

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/schemas"
)

// The documents of MCP discovery, made from checked server declarations
// (see servers.go). Pure functions of decoded JSON values.

// DraftCard builds the draft card of a local server, served as
// application/mcp-server+json at its draft path: name, version,
// description, then the optional fields that are set. nil for a cross-host
// server. The result shares nothing with s.
func DraftCard(s *Server) any {
	if s == nil || s.CrossHost() {
		return nil
	}
	return serverCard(s)
}

// V1Card builds the v1 card of a local server, served as
// application/mcp-server-card+json at its v1 path: the draft card and
// "$schema". nil for a cross-host server.
func V1Card(s *Server) any {
	if s == nil || s.CrossHost() {
		return nil
	}
	c := serverCard(s)
	c["$schema"] = serverCardSchemaURI
	return c
}

func serverCard(s *Server) map[string]any {
	c := map[string]any{"name": s.Name}
	set := func(k string, v any, present bool) {
		if present {
			c[k] = serverClone(v)
		}
	}
	set("version", s.Version, s.Version != "")
	set("description", s.Description, s.Description != "")
	set("title", s.Title, s.Title != "")
	set("websiteUrl", s.WebsiteURL, s.WebsiteURL != "")
	set("repository", s.Repository, len(s.Repository) > 0)
	set("icons", s.Icons, len(s.Icons) > 0)
	set("remotes", s.Remotes, len(s.Remotes) > 0)
	set("_meta", s.Meta, s.Meta != nil)
	return c
}

// MCPCatalog builds /.well-known/mcp/catalog.json: {"specVersion": "draft",
// "entries": [...]}, one entry per server whose card is served as
// application/mcp-server+json, sorted by identifier. A local server's url is
// origin + its draft path; a cross-host server's is its CardURL, and a
// cross-host server whose card is only a v1 card is left out.
func MCPCatalog(origin string, servers []*Server) any {
	origin = strings.TrimSuffix(origin, "/")
	entries := []any{}
	for _, s := range servers {
		if s == nil {
			continue
		}
		u := origin + s.DraftRoute()
		if s.CrossHost() {
			if s.CardType() != spec.ContentTypeServerCardDraft {
				continue
			}
			u = s.CardURL
		}
		entries = append(entries, map[string]any{
			"identifier": "urn:mcp:server:" + s.Name,
			"mediaType":  spec.ContentTypeServerCardDraft,
			"url":        u,
		})
	}
	serverSortEntries(entries)
	return map[string]any{"specVersion": "draft", "entries": entries}
}

// ToolCatalogAd is what the AI catalog says about the site's tool catalog.
type ToolCatalogAd struct {
	URL         string   // absolute URL of /tools
	Catalogue   string   // absolute URL of /tool-catalogue.json
	Sources     []string // source values of the published tools, in any order
	CompactView bool
	// Tenant is the site's tenant, "" for the one site of a catalog without
	// tenants: it names the entry (ToolCatalogIdentifier).
	Tenant string
}

// AICatalog builds /.well-known/ai-catalog.json: {"specVersion": "1.0",
// "host": {"domain": publisher, "displayName": displayName (left out when
// empty)}, "entries": [...]}, sorted by identifier. Each server has an entry
// urn:air:PUBLISHER:mcp:NAME, as AIIdentifiers gives it: a local server's is
// its v1 card (application/mcp-server-card+json at origin + its v1 path), a
// cross-host server's is its CardURL with the card's own media type. When
// tools is not nil, the entry urn:air:PUBLISHER:tool-catalog:NAME
// (ToolCatalogIdentifier) describes the tool catalog inline (type
// application/json, data {"toolCatalog": {"url", "sources" sorted and
// unique, "compactView", "catalogue"}}).
func AICatalog(origin, publisher, displayName string, servers []*Server, tools *ToolCatalogAd) any {
	origin = strings.TrimSuffix(origin, "/")
	entries := []any{}
	ids, _ := AIIdentifiers(publisher, servers) // Check reports the problems
	for i, s := range servers {
		if s == nil {
			continue
		}
		typ, u := spec.ContentTypeServerCardV1, origin+s.V1Route()
		if s.CrossHost() {
			typ, u = s.CardType(), s.CardURL
		}
		entries = append(entries, map[string]any{
			"identifier": ids[i],
			"type":       typ,
			"url":        u,
		})
	}
	if tools != nil {
		sources := []any{}
		sorted := slices.Clone(tools.Sources)
		slices.Sort(sorted)
		for _, src := range slices.Compact(sorted) {
			sources = append(sources, src)
		}
		entries = append(entries, map[string]any{
			"identifier": ToolCatalogIdentifier(publisher, tools.Tenant),
			"type":       serverToolCatalogType,
			"data": map[string]any{"toolCatalog": map[string]any{
				"url":         tools.URL,
				"sources":     sources,
				"compactView": tools.CompactView,
				"catalogue":   tools.Catalogue,
			}},
		})
	}
	serverSortEntries(entries)
	host := map[string]any{"domain": publisher}
	if displayName != "" {
		host["displayName"] = displayName
	}
	return map[string]any{"specVersion": "1.0", "host": host, "entries": entries}
}

// serverSortEntries sorts catalog entries by identifier, then url, so that
// the order never depends on the order of declarations.
func serverSortEntries(entries []any) {
	slices.SortStableFunc(entries, func(a, b any) int {
		am, bm := a.(map[string]any), b.(map[string]any)
		return cmp.Or(
			strings.Compare(am["identifier"].(string), bm["identifier"].(string)),
			strings.Compare(fmt.Sprint(am["url"]), fmt.Sprint(bm["url"])),
		)
	})
}

// serverItemFromCard turns a v1 server card (a decoded JSON document) into
// a server item that Decode reads: the card without "$schema", which
// must name the v1 server card schema.
func serverItemFromCard(card any) (map[string]any, []Problem) {
	m, ok := card.(map[string]any)
	if !ok {
		return nil, []Problem{{Message: "a server card must be a JSON object, got " + schemas.KindOf(card)}}
	}
	var ps []Problem
	switch sch, present := m["$schema"]; {
	case !present:
		ps = append(ps, Problem{Message: `missing required field "$schema": a v1 server card names ` + serverCardSchemaURI})
	case sch != serverCardSchemaURI:
		ps = append(ps, Problem{Pointer: "/$schema", Message: fmt.Sprintf("$schema %s is not the v1 server card schema %s", serverQuote(sch), serverCardSchemaURI)})
	}
	item := make(map[string]any, len(m))
	for k, v := range m {
		if k != "$schema" {
			item[k] = v
		}
	}
	return item, ps
}

// serverClone copies a JSON value, so that documents share nothing with
// the declarations.
func serverClone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = serverClone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = serverClone(e)
		}
		return out
	}
	return v
}

func serverObject(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func serverArray(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

func serverQuote(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return schemas.KindOf(v)
}
