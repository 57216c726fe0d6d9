package discovery

import (
	"cmp"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
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

// ServerDetail builds the server.json of a local server, as the registry
// publishes it in each of its documents: the v1 card with the server.json
// schema as "$schema", and the declared packages. nil for a cross-host server, whose card another
// host serves: the registry does not list it.
func ServerDetail(s *Server) any {
	if s == nil || s.CrossHost() {
		return nil
	}
	c := serverCard(s)
	c["$schema"] = spec.ServerJSONSchema
	if len(s.Packages) > 0 {
		// A card describes remote endpoints; the registry's server.json
		// also the packages a client installs.
		c["packages"] = serverClone(s.Packages)
	}
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
	var entries []catalogEntry
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
		id := "urn:mcp:server:" + s.Name
		entries = append(entries, catalogEntry{id, u, map[string]any{
			"identifier": id,
			"mediaType":  spec.ContentTypeServerCardDraft,
			"url":        u,
		}})
	}
	return map[string]any{"specVersion": "draft", "entries": sortedEntries(entries)}
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
// "host": {"displayName": displayName (publisher when empty), "identifier":
// publisher}, "entries": [...]}, sorted by identifier (AI Catalog 1.0's Host
// Info requires displayName; a signed catalog's identifier becomes the
// signer's DID, build/signing). Each server has an entry
// urn:air:PUBLISHER:mcp:NAME, as AIIdentifiers gives it, of type
// application/mcp-server-card+json, the one media type of an MCP Server
// Card in an AI Catalog (application/mcp-server+json, the draft card's,
// never appears): a local server's url is origin + its v1 path, with the
// digest "sha256:" + cardSums[its v1 path] (the lower-case hex SHA-256 of
// the card's bytes as the site serves them; none when cardSums has no such
// route); a cross-host server's url is its CardURL, without a digest, since
// what another host serves is not known here and may change under the
// catalog. When tools is not nil, the entry
// urn:air:PUBLISHER:tool-catalog:NAME (ToolCatalogIdentifier) describes the
// tool catalog inline (type application/json, data {"toolCatalog": {"url",
// "sources" sorted and unique, "compactView", "catalogue"}}).
func AICatalog(origin, publisher, displayName string, servers []*Server, tools *ToolCatalogAd, cardSums map[string]string) any {
	origin = strings.TrimSuffix(origin, "/")
	var entries []catalogEntry
	ids, _ := AIIdentifiers(publisher, servers) // Check reports the problems
	for i, s := range servers {
		if s == nil {
			continue
		}
		e := map[string]any{
			"identifier": ids[i],
			"type":       spec.ContentTypeServerCardV1,
		}
		u := s.CardURL
		if !s.CrossHost() {
			u = origin + s.V1Route()
			if sum, ok := cardSums[s.V1Route()]; ok {
				e["digest"] = "sha256:" + sum
			}
		}
		e["url"] = u
		if ext := policyExtension(s); ext != nil {
			e["extensions"] = ext
		}
		entries = append(entries, catalogEntry{ids[i], u, e})
	}
	if tools != nil {
		sources := []any{}
		sorted := slices.Clone(tools.Sources)
		slices.Sort(sorted)
		for _, src := range slices.Compact(sorted) {
			sources = append(sources, src)
		}
		id := ToolCatalogIdentifier(publisher, tools.Tenant)
		entries = append(entries, catalogEntry{identifier: id, value: map[string]any{
			"identifier": id,
			"type":       serverToolCatalogType,
			"data": map[string]any{"toolCatalog": map[string]any{
				"url":         tools.URL,
				"sources":     sources,
				"compactView": tools.CompactView,
				"catalogue":   tools.Catalogue,
			}},
		}})
	}
	host := map[string]any{"displayName": cmp.Or(displayName, publisher), "identifier": publisher}
	return map[string]any{"specVersion": "1.0", "host": host, "entries": sortedEntries(entries)}
}

// PolicyURLsExtension is the key of the AI catalog's policy-urls
// extension (ADR-0029) in an entry's extensions.
const PolicyURLsExtension = "https://ai-catalog.org/extensions/policy-urls"

// policyExtension is the extensions member of a server's AI catalog
// entry: the policy-urls extension with the server's privacy policy and
// terms of service, each when set; nil when neither is.
func policyExtension(s *Server) map[string]any {
	p := map[string]any{}
	if s.PrivacyPolicyURL != "" {
		p["privacyPolicyUrl"] = s.PrivacyPolicyURL
	}
	if s.TermsOfServiceURL != "" {
		p["termsOfServiceUrl"] = s.TermsOfServiceURL
	}
	if len(p) == 0 {
		return nil
	}
	return map[string]any{PolicyURLsExtension: p}
}

// WithPolicies returns servers with the site's privacy policy and terms
// of service given to each server that declares none of its own: copies,
// servers left as they are.
func WithPolicies(servers []*Server, privacy, terms string) []*Server {
	if privacy == "" && terms == "" {
		return servers
	}
	out := make([]*Server, len(servers))
	for i, s := range servers {
		if s == nil {
			continue
		}
		c := *s
		c.PrivacyPolicyURL = cmp.Or(c.PrivacyPolicyURL, privacy)
		c.TermsOfServiceURL = cmp.Or(c.TermsOfServiceURL, terms)
		out[i] = &c
	}
	return out
}

// ARDEntryType is the type of a server's entry in the ARD manifest: its
// v1 card's, as in the AI catalog.
const ARDEntryType = spec.ContentTypeServerCardV1

// ARD builds /.well-known/ard.json, the manifest of Agentic Resource
// Discovery (ARD v0.91, spec/ard.md and spec/schemas/ard.cddl of
// ards-project/ard-spec): {"specVersion": "1.0", "host": {"displayName"}
// (left out without a display name), "entries": [...]}, one entry per
// server sorted by identifier, the identifier its AI catalog entry has
// (AIIdentifiers). An entry has displayName (the server's title, else its
// name), type application/mcp-server-card+json, url (as in the AI
// catalog: origin + the v1 path of a local server, the CardURL of a
// cross-host one), description when declared, capabilities (tools[i],
// the names of the server's tools the site publishes, sorted and unique;
// left out when none, since ARD lists at least one) and
// representativeQueries when declared.
func ARD(origin, publisher, displayName string, servers []*Server, tools [][]string) any {
	origin = strings.TrimSuffix(origin, "/")
	ids, _ := AIIdentifiers(publisher, servers) // Check reports the problems
	var entries []catalogEntry
	for i, s := range servers {
		if s == nil {
			continue
		}
		u := s.CardURL
		if !s.CrossHost() {
			u = origin + s.V1Route()
		}
		e := map[string]any{
			"identifier":  ids[i],
			"displayName": cmp.Or(s.Title, s.Name),
			"type":        ARDEntryType,
			"url":         u,
		}
		if s.Description != "" {
			e["description"] = s.Description
		}
		if i < len(tools) && len(tools[i]) > 0 {
			names := slices.Clone(tools[i])
			slices.Sort(names)
			caps := []any{}
			for _, n := range slices.Compact(names) {
				caps = append(caps, n)
			}
			e["capabilities"] = caps
		}
		if len(s.RepresentativeQueries) > 0 {
			qs := make([]any, len(s.RepresentativeQueries))
			for j, q := range s.RepresentativeQueries {
				qs[j] = q
			}
			e["representativeQueries"] = qs
		}
		entries = append(entries, catalogEntry{ids[i], u, e})
	}
	doc := map[string]any{"specVersion": "1.0", "entries": sortedEntries(entries)}
	if displayName != "" {
		doc["host"] = map[string]any{"displayName": displayName}
	}
	return doc
}

// catalogEntry is an entry of a catalog, with what it is sorted by.
type catalogEntry struct {
	identifier, url string
	value           map[string]any
}

// sortedEntries sorts catalog entries by identifier, then url, so that the
// order never depends on the order of declarations, and returns their
// values. (An entry without a url, the tool catalog's, has an identifier
// no server's can have.)
func sortedEntries(entries []catalogEntry) []any {
	slices.SortStableFunc(entries, func(a, b catalogEntry) int {
		return cmp.Or(strings.Compare(a.identifier, b.identifier), strings.Compare(a.url, b.url))
	})
	out := make([]any, len(entries))
	for i, e := range entries {
		out[i] = e.value
	}
	return out
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
