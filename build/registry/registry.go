// Package registry makes the MCP registry of a site: the documents of the
// read-only subregistry API v0.1 that VS Code, GitHub Copilot and Copilot
// CLI read (the list of servers, each server's versions, each version and
// its latest), from the servers the site lists, each version dated by the
// Git history of the catalog folder (ReadHistory), never by the clock.
package registry

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
// Which servers: those the tenant sees (build.Catalog.RegistryServers).
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

// status is the status of every version the registry lists: a version of
// a server declared today is active, the latest or not.
const status = "active"

// version is one version of a server in the registry.
type version struct {
	server             *discovery.Server
	detail             []byte // server, encoded as the registry publishes it
	published, updated time.Time
	// first orders the versions by when they first appeared: higher is
	// newer.
	first int
}

// epoch dates the versions of a catalog without a history.
var epoch = time.Unix(0, 0).UTC()

// versions returns the versions of the server cur, the latest (cur
// itself) first, then newest first (see the rules above).
func versions(cur *discovery.Server, h *History) []version {
	type state struct {
		at     time.Time
		server *discovery.Server
	}
	var states []state
	now := epoch
	if h != nil {
		for _, c := range h.commits {
			states = append(states, state{c.at, c.servers[cur.Name]})
		}
		now = h.Head
	}
	states = append(states, state{now, cur})
	byVersion := map[string]*version{}
	var prev []byte // the previous state's detail; nil when not declared
	for i, st := range states {
		if st.server == nil {
			prev = nil
			continue
		}
		detail := jsonenc.Append(nil, discovery.ServerDetail(st.server))
		v := byVersion[st.server.Version]
		if v == nil {
			v = &version{published: st.at, updated: st.at, first: i}
			byVersion[st.server.Version] = v
		}
		if !slices.Equal(detail, prev) {
			v.updated = st.at
		}
		v.server, v.detail, prev = st.server, detail, detail
	}
	latest := byVersion[cur.Version]
	out := []version{*latest}
	for ver, v := range byVersion {
		if ver != cur.Version {
			out = append(out, *v)
		}
	}
	slices.SortFunc(out[1:], func(a, b version) int { return b.first - a.first })
	return out
}

// date writes a date as the registry does: RFC 3339, UTC, to the
// second.
func date(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// card is a card of a server as the registry's own _meta names it.
type card struct {
	URL, MediaType, SHA256 string
}

// Site is what the registry of one site is made from, besides its
// servers.
type Site struct {
	// Origin is the origin the site's documents name.
	Origin string
	// AICatalog and MCPCatalog say which cards the site publishes: the
	// v1 cards of the AI catalog, the draft cards of the MCP catalog.
	AICatalog, MCPCatalog bool
	// History dates the versions; nil is none.
	History *History
}

// Documents makes the registry documents of a site that lists servers
// (sorted by name): the list of the latest versions, and per server its
// versions, each version and latest. cards gives the SHA-256 of each card
// document by route. nil when the site lists no server.
func Documents(site Site, servers []*discovery.Server, cards map[string]string) ([]output.Document, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	type body struct {
		route string
		body  content.Body
	}
	var bodies []body
	base := strings.TrimSuffix(site.Origin, "/")
	latest := make([][]byte, 0, len(servers))
	for _, s := range servers {
		vs := versions(s, site.History)
		var ours []card
		for _, c := range []struct {
			on          bool
			route, kind string
		}{
			{site.AICatalog, s.V1Route(), spec.ContentTypeServerCardV1},
			{site.MCPCatalog, s.DraftRoute(), spec.ContentTypeServerCardDraft},
		} {
			if sum, ok := cards[c.route]; c.on && ok {
				ours = append(ours, card{URL: base + c.route, MediaType: c.kind, SHA256: sum})
			}
		}
		responses := make([][]byte, len(vs))
		for i, v := range vs {
			var c []card
			if i == 0 {
				c = ours // the cards describe the latest version
			}
			responses[i] = response(v, i == 0, base+spec.RouteTools, c)
		}
		latest = append(latest, responses[0])
		bodies = append(bodies,
			body{spec.RegistryVersionsRoute(s.Name), list(responses)},
			body{spec.RegistryVersionRoute(s.Name, spec.RegistryLatest), content.New(responses[0], newline)},
		)
		for i, v := range vs {
			bodies = append(bodies, body{spec.RegistryVersionRoute(s.Name, v.server.Version), content.New(responses[i], newline)})
		}
	}
	bodies = append(bodies, body{spec.RouteRegistry, list(latest)})
	var docs output.Documents
	for _, b := range bodies {
		docs.Add(b.route, spec.ViewStandard, spec.ContentTypeJSON, b.body)
	}
	return docs.List, docs.Err
}

var newline = []byte("\n")

// list is a ServerList of responses, without a cursor (a static
// registry answers every server at once): {"metadata":{"count":N},
// "servers":[...]} and a newline, the responses' bytes shared.
func list(responses [][]byte) content.Body {
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

// response encodes one ServerResponse: the server.json of the
// version, the registry's official metadata and signpost's own (the
// site's tool list, and the latest version's cards).
func response(v version, latest bool, toolList string, cards []card) []byte {
	official := map[string]any{
		"status":      status,
		"publishedAt": date(v.published),
		"updatedAt":   date(v.updated),
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
