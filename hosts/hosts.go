// Package hosts is what the layouts of static hosts (GitHub Pages,
// Cloudflare, Netlify) share in their reports: a Gap, one requirement of
// the HTTP contract a host cannot meet for a route, how a report names its
// route, and how many of a site's routes a host serves exactly.
package hosts

import (
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// EveryRoute is the route of a gap every route of a site has.
const EveryRoute = "*"

// Gap is one requirement of the HTTP contract, or of deploying a site,
// that a host cannot meet for a route. Each host's report writes its gaps
// with these fields.
type Gap struct {
	// Kind is what kind of gap it is, one of the host's kinds: the gaps
	// of one kind share their cause and their fix.
	Kind string `json:"kind"`
	// Route is the route of the route table the gap is about; or
	// EveryRoute for a gap every route of the site has; or another
	// pattern the host defines (Pages' gap of unknown toolIds).
	Route string `json:"route"`
	// View is the route's view; empty when Route is not a route of the
	// table.
	View string `json:"view"`
	// Requirement is what the contract asks, e.g. "Content-Type
	// application/ai-catalog+json".
	Requirement string `json:"requirement"`
	// Served is what the host serves, or allows, instead.
	Served string `json:"served"`
	// Fix is what to put in front of the host, or where to publish
	// instead, to meet the requirement: one line.
	Fix string `json:"fix"`
}

// Label is how a report names the gap's route: "every route", or the
// route with its view when that is not the standard one.
func (g Gap) Label() string {
	if g.Route == EveryRoute {
		return "every route"
	}
	return spec.Request(g.Route, g.View)
}

// Count counts a site's routes (route and view pairs), those with no gap
// of their own, and whether a gap is of every route: each host decides
// what that makes of the routes it serves exactly.
func Count(s *output.Site, gaps []Gap) (routes, ownRight int, everyRoute bool) {
	type rv struct{ route, view string }
	gapped := map[rv]bool{}
	for _, g := range gaps {
		gapped[rv{g.Route, g.View}] = true
		everyRoute = everyRoute || g.Route == EveryRoute
	}
	for _, d := range s.Documents {
		if !gapped[rv{d.Route.Route, d.View}] {
			ownRight++
		}
	}
	return len(s.Documents), ownRight, everyRoute
}

// DocumentKey returns the object key every host serves a path other than
// /tools and /tools/{toolId} from, and false for a path no host may serve
// as a document (the CloudFront viewer-request function answers it with a
// 404 itself): a document's path is segments of letters,
// digits, '.', '_', '-' and '~', ending in .json (or a last segment
// server-card, the card of an MCP server beside its endpoint: see
// spec.IsServerCardRoute), with no "." or ".."
// segment, nothing in publish's namespace (spec.ReservedPrefix), and not
// the tool lists' own keys. It is the CloudFront function's rule, in Go:
// each host's layout refuses a site with a route it would not serve.
func DocumentKey(route string) (string, bool) {
	if len(route) > maxDocumentPath || len(route) < 2 || route[0] != '/' || !strings.HasSuffix(route, ".json") && !spec.IsServerCardRoute(route) {
		return "", false
	}
	key := route[1:]
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || spec.IsReservedName(seg) {
			return "", false
		}
		for i := 0; i < len(seg); i++ {
			if c := seg[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~-", c) >= 0) {
				return "", false
			}
		}
	}
	if key == spec.ListKey(spec.ViewStandard) || key == spec.ListKey(spec.ViewCompact) {
		return "", false
	}
	return key, true
}

// maxDocumentPath is the longest path the viewer-request function reads as
// a document's.
const maxDocumentPath = 1024
