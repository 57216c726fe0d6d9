package cloudflare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/hosts"

	"github.com/signpost-dev/signpost/internal/english"
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

type report struct {
	Format int          `json:"format"`
	Target string       `json:"target"`
	Sites  []reportSite `json:"sites"`
}

type reportSite struct {
	Tenant string `json:"tenant"`
	Dir    string `json:"dir"`
	Worker string `json:"worker"`
	// Routes counts the site's routes and views; Exact those the Worker
	// serves exactly as the contract says.
	Routes int   `json:"routes"`
	Exact  int   `json:"exact"`
	Gaps   []Gap `json:"gaps"`
}

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

// reportFile is ReportFile of the sites of b as laid out.
func reportFile(b *output.Build, sites []*Site) (output.File, error) {
	rep := report{Format: ReportFormat, Target: "cloudflare", Sites: []reportSite{}}
	for i, s := range b.Sites {
		gaps := sites[i].Gaps
		if gaps == nil {
			gaps = []Gap{}
		}
		routes, exact := counts(s, gaps)
		rep.Sites = append(rep.Sites, reportSite{Tenant: s.Tenant, Dir: s.Dir, Worker: sites[i].Worker, Routes: routes, Exact: exact, Gaps: gaps})
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return output.File{}, fmt.Errorf("write %s: %w", ReportFile, err)
	}
	return output.File{Path: ReportFile, Body: append(data, '\n')}, nil
}

// WriteReport prints what a build for Cloudflare is and what Cloudflare
// cannot serve of it, in the shape of the Pages report: for each site its
// folder, Worker and gaps grouped by kind, each group with its count and
// its fix, and a line counting the routes served exactly as the contract
// says; then notes on deploying. sites are the sites of b.Sites as laid
// out (see Write).
func WriteReport(w io.Writer, b *output.Build, sites []*Site) error {
	if len(sites) != len(b.Sites) {
		return errors.New("cloudflare report: one laid-out site per site is needed")
	}
	var sb strings.Builder
	tenants := false
	for i, s := range b.Sites {
		tenants = tenants || s.Tenant != ""
		gaps := sites[i].Gaps
		routes, exact := counts(s, gaps)
		fmt.Fprintf(&sb, "%s/", s.Dir)
		if s.Tenant != "" {
			fmt.Fprintf(&sb, " (tenant %s)", s.Tenant)
		}
		fmt.Fprintf(&sb, ": Worker %s, %s on Cloudflare, %s\n", sites[i].Worker, english.Count(routes, "route", "routes"), english.Count(len(gaps), "gap", "gaps"))
		byKind := map[string][]Gap{}
		for _, g := range gaps {
			byKind[g.Kind] = append(byKind[g.Kind], g)
		}
		for _, k := range kinds {
			for _, g := range byKind[k] {
				fmt.Fprintf(&sb, "  %s: needs %s; Cloudflare allows %s. Fix: %s.\n", g.Label(), g.Requirement, g.Served, g.Fix)
			}
		}
		fmt.Fprintf(&sb, "  %d of %s %s served exactly as the contract says.\n", exact, english.Count(routes, "route", "routes"), english.Plural(exact, "is", "are"))
	}
	sb.WriteString("Deploying to Cloudflare:\n")
	sb.WriteString("  Deploy each site's folder as it is: wrangler deploy --config DIR/" + ConfigFile + " (the Cloudflare workflow of signpost init does, with the repository secrets CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID).\n")
	if tenants {
		sb.WriteString("  Each tenant's folder is a Worker of its own: give each its tenant's origin.\n")
	}
	sb.WriteString("  Serve each Worker at the root of its site's origin, as signpost.yaml's origin says (add the origin's host as the Worker's custom domain): /.well-known and /tools only work at the root.\n")
	sb.WriteString("  Set the zone's Minimum TLS Version to 1.2 (SSL/TLS, Edge Certificates): at Cloudflare's default, 1.0, the site fails transport.tls-minimum.\n")
	sb.WriteString("  Cloudflare may make an ETag weak (W/) when it compresses a response on the way; the Worker answers If-None-Match with either form: that is not a gap.\n")
	sb.WriteString("  Every gap, route by route, is in " + ReportFile + " beside " + output.RouteTableFile + ".\n")
	_, err := io.WriteString(w, sb.String())
	return err
}
