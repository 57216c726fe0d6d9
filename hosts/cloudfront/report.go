package cloudfront

import (
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/hosts"
)

// ReportFile is the name of the CloudFront report in a build output
// folder: for each site that publishes the MCP registry, what a
// distribution in front of the bucket cannot serve of it. It has the shape
// of every host's report (hosts.Report).
const ReportFile = "cloudfront-report.json"

// ReportFormat is the version of the CloudFront report's layout.
const ReportFormat = 1

// The kinds of Gap, in the order a report groups them.
const (
	// KindRegistrySearch: a search of the registry gets the whole list.
	KindRegistrySearch = "registry-search"
	// KindRegistryNotFound: an unknown server or version gets the site's
	// JSON 404, not the registry's.
	KindRegistryNotFound = "registry-not-found"
)

// UnknownServer is the route of the gap of the servers and versions a
// site does not have.
const UnknownServer = spec.RouteRegistry + "/{name}/versions/{version}"

// limits say what a distribution cannot do, by kind of gap, for the top of
// a report.
var limits = map[string]string{
	KindRegistrySearch:   "A CloudFront Function names no document, so the edge cannot compute a search of the MCP registry: every query of " + spec.RouteRegistry + ", search included, gets the whole list",
	KindRegistryNotFound: "A distribution has one error page for every path: a server or version of the MCP registry that the site does not have gets a 404 with the site's JSON error document, not the registry's",
}

// kinds are the kinds of Gap in report order.
var kinds = []string{KindRegistrySearch, KindRegistryNotFound}

// Gaps returns what a distribution in front of the bucket, with the
// functions of Code and the settings of templates/aws/cloudfront-s3.yaml,
// cannot serve of the site as the contract says: nothing but two things of
// the MCP registry, when the site publishes it.
func Gaps(s *output.Site) []hosts.Gap {
	registry := false
	for _, d := range s.Documents {
		registry = registry || d.Route.Route == spec.RouteRegistry
	}
	if !registry {
		return nil
	}
	return []hosts.Gap{
		{
			Kind:        KindRegistrySearch,
			Route:       spec.RouteRegistry,
			View:        spec.ViewStandard,
			Requirement: "?search=TEXT answered with the servers whose name or description holds TEXT, ignoring case, with version and limit honoured",
			Served:      "the whole list, the same bytes whatever the query",
			Fix:         "nothing needed where clients may list every server of the site (a static registry may ignore search); serve the registry with signpost serve where a search must filter",
		},
		{
			Kind:        KindRegistryNotFound,
			Route:       UnknownServer,
			Requirement: `a 404 with {"error":"Server not found"} or {"error":"Server version not found"}`,
			Served:      "the 404 status, with the registry's CORS headers and the body, ETag and Last-Modified of the site's error page (" + errorPage + ")",
			Fix:         "nothing needed: clients, Copilot CLI among them, act on the 404 status",
		},
	}
}

// errorPage is the object of the site's JSON 404, which the distribution's
// custom error responses answer a missing key with (publish uploads it).
const errorPage = spec.ReservedPrefix + "404.json"

// Report is what a distribution cannot serve of the sites' MCP registries,
// in the shape of every host's report: first what CloudFront cannot do,
// then for each site its gaps, each with its fix, and the routes served
// exactly as the contract says; then notes on deploying. nil when no site
// has a gap.
func Report(sites []*output.Site) *hosts.Report {
	r := &hosts.Report{Format: ReportFormat, Target: "cloudfront", Host: "CloudFront"}
	present := map[string]bool{}
	for _, s := range sites {
		gaps := Gaps(s)
		routes, exact, _ := hosts.Count(s, gaps)
		sr := hosts.SiteReport{Tenant: s.Tenant, Dir: s.Dir, Routes: routes, Exact: exact, Gaps: gaps}
		byKind := map[string][]hosts.Gap{}
		for _, g := range gaps {
			byKind[g.Kind] = append(byKind[g.Kind], g)
			present[g.Kind] = true
		}
		for _, k := range kinds {
			for _, g := range byKind[k] {
				sr.Lines = append(sr.Lines, hosts.GapLine(g, "CloudFront serves"))
			}
		}
		r.Sites = append(r.Sites, sr)
	}
	if len(present) == 0 {
		return nil
	}
	for _, k := range kinds {
		if present[k] {
			r.Limits = append(r.Limits, limits[k])
		}
	}
	r.Deploying = append(r.Deploying,
		"Every gap, route by route, is in "+ReportFile+" beside "+output.RouteTableFile+".",
		"The registry's routes need the two cache behaviors of templates/aws/cloudfront-s3.yaml ("+spec.RouteRegistry+" and "+spec.RouteRegistry+"/*, with both functions and the registry's response headers policy): a distribution without them answers the registry with the CORS headers of every other route.")
	return r
}
