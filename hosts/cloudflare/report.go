package cloudflare

import (
	"errors"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/hosts"
)

// ReportFile is the name of the Cloudflare report in a build output
// folder: for each site, its Worker and the requirements Cloudflare cannot
// meet. It has the shape of the GitHub Pages report (hosts/pages), with
// the Worker's name besides.
const ReportFile = "cloudflare-report.json"

// ReportFormat is the version of the Cloudflare report's layout.
const ReportFormat = 1

// EveryRoute is the route of a gap every route of a site has.
const EveryRoute = hosts.EveryRoute

// The kinds of Gap, in the order a report groups them.
const (
	// KindAssetCount: the site has more assets than Workers Free accepts.
	KindAssetCount = "asset-count"
)

// kinds are the kinds of Gap in report order.
var kinds = []string{KindAssetCount}

// Gap is one requirement of the HTTP contract, or of deploying the site,
// that Cloudflare cannot meet; Served is what Cloudflare allows.
type Gap = hosts.Gap

// counts counts a site's routes (route and view pairs) and those served
// exactly as the contract says: every route but those with a gap, none
// when a gap is of every route.
func counts(s *output.Site, gaps []Gap) (routes, exact int) {
	routes, ownRight, everyRoute := hosts.Count(s, gaps)
	if everyRoute {
		return routes, 0
	}
	return routes, ownRight
}

// Report is what a build for Cloudflare is and what Cloudflare cannot
// serve of it, in the shape of every host's report: for each site its
// folder, Worker and gaps grouped by kind, each group with its count and
// its fix, and the routes served exactly as the contract says; then notes
// on deploying. sites are the sites of b.Sites as laid out (see Write).
func Report(b *output.Build, sites []*Site) (*hosts.Report, error) {
	if len(sites) != len(b.Sites) {
		return nil, errors.New("cloudflare report: one laid-out site per site is needed")
	}
	r := &hosts.Report{Format: ReportFormat, Target: "cloudflare", Host: "Cloudflare"}
	for i, s := range b.Sites {
		gaps := sites[i].Gaps
		routes, exact := counts(s, gaps)
		sr := hosts.SiteReport{Tenant: s.Tenant, Dir: s.Dir, Worker: sites[i].Worker, Routes: routes, Exact: exact, Gaps: gaps}
		byKind := map[string][]Gap{}
		for _, g := range gaps {
			byKind[g.Kind] = append(byKind[g.Kind], g)
		}
		for _, k := range kinds {
			for _, g := range byKind[k] {
				sr.Lines = append(sr.Lines, hosts.GapLine(g, "Cloudflare allows"))
			}
		}
		r.Sites = append(r.Sites, sr)
	}
	r.Deploying = append(r.Deploying, "Deploy each site's folder as it is: wrangler deploy --config DIR/"+ConfigFile+" (the Cloudflare workflow of signpost init does, with the repository secrets CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID).")
	if r.Tenants() {
		r.Deploying = append(r.Deploying, "Each tenant's folder is a Worker of its own: give each its tenant's origin.")
	}
	r.Deploying = append(r.Deploying,
		"Serve each Worker at the root of its site's origin, as signpost.yaml's origin says (add the origin's host as the Worker's custom domain): /.well-known and /tools only work at the root.",
		"Set the zone's Minimum TLS Version to 1.2 (SSL/TLS, Edge Certificates): at Cloudflare's default, 1.0, the site fails transport.tls-minimum.",
		"Cloudflare may make an ETag weak (W/) when it compresses a response on the way; the Worker answers If-None-Match with either form: that is not a gap.",
		"Compression: the Worker sends a document's precompressed variant as it is, with its Content-Encoding, its own ETag and Vary: Accept-Encoding, in the coding Cloudflare's edge picks for the client (brotli or gzip, by q-value, then in the client's order); Cloudflare compresses the other answers itself at its edge.",
		"Every gap, route by route, is in "+ReportFile+" beside "+output.RouteTableFile+".")
	return r, nil
}
