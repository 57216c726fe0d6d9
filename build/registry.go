package build

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// The MCP registry of a site (see build/spec's registry routes): the
// read-only subregistry API v0.1 that VS Code, GitHub Copilot and Copilot
// CLI read, as documents made from the server declarations.
//
// Which servers: those the tenant sees (Catalog.RegistryServers).
//
// Which versions: a declaration holds one version, the latest. The earlier
// ones are the other versions the server's declaration had in the catalog
// folder's Git history (History), each published as its declaration was at
// the last commit that had it. Without a history, the latest is the only
// one.
//
// Their dates, from Git, never the clock: a version's publishedAt is the
// time of the oldest commit (within the history read) whose declaration of
// the server had that version; its updatedAt, of the newest commit that
// changed that version's declaration as published (a comment or a
// reformatting changes nothing). A declaration no commit holds yet (a
// change not committed) is dated by the newest commit that changed the
// catalog folder; without a history at all (a folder in no repository, or
// that no commit changed), every date is the Unix epoch,
// 1970-01-01T00:00:00Z. Every build of one commit gives the same dates,
// and commits outside the catalog folder change none.
//
// Order: a server's versions newest first, the latest always first, then
// by when each first appeared; the list holds each server's latest, by
// name.

// registryStatus is the status of every version the registry lists: a
// version of a server declared today is active, the latest or not.
const registryStatus = "active"

// RegistryServers returns the servers the registry of tenant's site lists,
// sorted by name: the site's own servers (see SiteServers), none when the
// registry is off (Config.Registry).
func (cat *Catalog) RegistryServers(tenant string) []*Server {
	return registryServers(cat, cat.Tools, tenant)
}

// registryServers is RegistryServers, with the catalog's tools given:
// Compile's catalog holds none.
func registryServers(cat *Catalog, tools []*Tool, tenant string) []*Server {
	if !cat.Config.Registry {
		return nil
	}
	return siteServers(cat, tools, tenant)
}

// registryVersion is one version of a server in the registry.
type registryVersion struct {
	server             *Server
	detail             []byte // server, encoded as the registry publishes it
	published, updated time.Time
	// first orders the versions by when they first appeared: higher is
	// newer.
	first int
}

// registryEpoch dates the versions of a catalog without a history.
var registryEpoch = time.Unix(0, 0).UTC()

// registryVersions returns the versions of the server cur, the latest (cur
// itself) first, then newest first (see the rules above).
func registryVersions(cur *Server, h *History) []registryVersion {
	type state struct {
		at     time.Time
		server *Server
	}
	var states []state
	now := registryEpoch
	if h != nil {
		for _, c := range h.commits {
			states = append(states, state{c.at, c.servers[cur.Name]})
		}
		now = h.Head
	}
	states = append(states, state{now, cur})
	byVersion := map[string]*registryVersion{}
	var prev []byte // the previous state's detail; nil when not declared
	for i, st := range states {
		if st.server == nil {
			prev = nil
			continue
		}
		detail := jsonenc.Append(nil, discovery.ServerDetail(st.server))
		v := byVersion[st.server.Version]
		if v == nil {
			v = &registryVersion{published: st.at, updated: st.at, first: i}
			byVersion[st.server.Version] = v
		}
		if !slices.Equal(detail, prev) {
			v.updated = st.at
		}
		v.server, v.detail, prev = st.server, detail, detail
	}
	latest := byVersion[cur.Version]
	out := []registryVersion{*latest}
	for version, v := range byVersion {
		if version != cur.Version {
			out = append(out, *v)
		}
	}
	slices.SortFunc(out[1:], func(a, b registryVersion) int { return b.first - a.first })
	return out
}

// registryDate writes a date as the registry does: RFC 3339, UTC, to the
// second.
func registryDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// registryCard is a card of a server as the registry's own _meta names it.
type registryCard struct {
	URL, MediaType, SHA256 string
}

// compileRegistry makes the registry documents of tenant's site: the list
// of the latest versions, and per server its versions, each version and
// latest. tools are every tool the catalog declares; cards gives the
// SHA-256 of each card document by route. nil when the site lists no
// server.
func compileRegistry(cat *Catalog, tools []*Tool, tenant string, cards map[string]string) []output.Document {
	servers := registryServers(cat, tools, tenant)
	if len(servers) == 0 {
		return nil
	}
	base := strings.TrimSuffix(cat.Config.SiteOrigin(tenant), "/")
	var docs []output.Document
	latest := make([][]byte, 0, len(servers))
	for _, s := range servers {
		versions := registryVersions(s, cat.History)
		var ours []registryCard
		for _, c := range []struct {
			on          bool
			route, kind string
		}{
			{cat.Config.AICatalog, s.V1Route(), spec.ContentTypeServerCardV1},
			{cat.Config.MCPCatalog, s.DraftRoute(), spec.ContentTypeServerCardDraft},
		} {
			if sum, ok := cards[c.route]; c.on && ok {
				ours = append(ours, registryCard{URL: base + c.route, MediaType: c.kind, SHA256: sum})
			}
		}
		responses := make([][]byte, len(versions))
		for i, v := range versions {
			var c []registryCard
			if i == 0 {
				c = ours // the cards describe the latest version
			}
			responses[i] = registryResponse(v, i == 0, base+spec.RouteTools, c)
		}
		latest = append(latest, responses[0])
		docs = append(docs,
			registryDocument(spec.RegistryVersionsRoute(s.Name), registryList(responses)),
			registryDocument(spec.RegistryVersionRoute(s.Name, spec.RegistryLatest), content.New(responses[0], newline)),
		)
		for i, v := range versions {
			docs = append(docs, registryDocument(spec.RegistryVersionRoute(s.Name, v.server.Version), content.New(responses[i], newline)))
		}
	}
	return append(docs, registryDocument(spec.RouteRegistry, registryList(latest)))
}

var newline = []byte("\n")

func registryDocument(route string, body content.Body) output.Document {
	return output.NewDocument(route, spec.ViewStandard, spec.ContentTypeJSON, body)
}

// registryList is a ServerList of responses, without a cursor (a static
// registry answers every server at once): {"metadata":{"count":N},
// "servers":[...]} and a newline, the responses' bytes shared.
func registryList(responses [][]byte) content.Body {
	parts := make([][]byte, 0, 2*len(responses)+2)
	parts = append(parts, []byte(`{"metadata":{"count":`+strconv.Itoa(len(responses))+`},"servers":[`))
	for i, r := range responses {
		if i > 0 {
			parts = append(parts, []byte(","))
		}
		parts = append(parts, r)
	}
	return content.New(append(parts, []byte("]}\n"))...)
}

// registryResponse encodes one ServerResponse: the server.json of the
// version, the registry's official metadata and signpost's own (the
// site's tool list, and the latest version's cards).
func registryResponse(v registryVersion, latest bool, toolList string, cards []registryCard) []byte {
	official := map[string]any{
		"status":      registryStatus,
		"publishedAt": registryDate(v.published),
		"updatedAt":   registryDate(v.updated),
		"isLatest":    latest,
	}
	ours := map[string]any{"toolList": toolList}
	if len(cards) > 0 {
		list := make([]any, len(cards))
		for i, c := range cards {
			list[i] = map[string]any{"url": c.URL, "mediaType": c.MediaType, "sha256": c.SHA256}
		}
		ours["cards"] = list
	}
	meta := jsonenc.Append(nil, map[string]any{spec.RegistryOfficialMeta: official, spec.RegistrySignpostMeta: ours})
	// {"_meta":...,"server":...}: the keys sorted, as every document's.
	b := append([]byte(`{"_meta":`), meta...)
	b = append(append(b, `,"server":`...), v.detail...)
	return append(b, '}')
}
