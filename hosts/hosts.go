// Package hosts is what the layouts of static hosts (GitHub Pages,
// Cloudflare, Netlify) share in their reports: a Gap, one requirement of
// the HTTP contract a host cannot meet for a route, how a report names its
// route, and how many of a site's routes a host serves exactly.
package hosts

import (
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
