package netlify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/internal/english"
)

// limits say what Netlify cannot do, by kind of gap, for the top of a
// report.
var limits = map[string]string{
	KindPreflight:   "Netlify answers OPTIONS itself: a browser's preflight passes on the CORS headers of " + HeadersFile + ", but the answer has no Allow or Access-Control-Max-Age",
	KindMethods:     "Netlify answers POST, PUT, DELETE and other methods itself, not with the JSON 405",
	KindViewHeaders: "Netlify matches headers by path, not by query: two views of a route with different headers cannot both be served",
}

// Report is what Netlify cannot serve as the contract says: first what
// Netlify cannot do, then for each site its gaps grouped by kind, each
// group with its count and its fix, and the routes Netlify serves exactly
// as the contract says, with the routes of its function. Notes on
// deploying to Netlify follow the sites. gaps holds one slice per site, as
// Write returns them.
func Report(sites []*output.Site, gaps [][]Gap) (*hosts.Report, error) {
	if len(sites) != len(gaps) {
		return nil, errors.New("netlify report: one list of gaps per site is needed")
	}
	present := map[string]bool{}
	for _, site := range gaps {
		for _, g := range site {
			present[g.Kind] = true
		}
	}
	r := &hosts.Report{Format: ReportFormat, Target: "netlify", Host: "Netlify",
		Exactly: " to GET and HEAD, with its Content-Type, Cache-Control and the CORS headers"}
	for _, k := range kinds {
		if present[k] {
			r.Limits = append(r.Limits, limits[k])
		}
	}
	for i, s := range sites {
		routes, exact := counts(s, gaps[i])
		fn := FunctionRoutes(s)
		if fn == nil {
			fn = []string{}
		}
		sr := hosts.SiteReport{Tenant: s.Tenant, Dir: s.Dir, Routes: routes, Exact: exact, Function: &fn, Gaps: gaps[i]}
		byKind := map[string][]Gap{}
		for _, g := range gaps[i] {
			byKind[g.Kind] = append(byKind[g.Kind], g)
		}
		for _, k := range kinds {
			sr.Lines = append(sr.Lines, kindLines(byKind[k])...)
		}
		r.Sites = append(r.Sites, sr)
	}
	r.Deploying = append(r.Deploying, "Every gap, route by route, is in "+ReportFile+" beside "+output.RouteTableFile+".")
	if r.Tenants() {
		r.Deploying = append(r.Deploying, "Deploy each tenants/ID folder as a Netlify site of its own, at its tenant's origin.")
	}
	r.Deploying = append(r.Deploying,
		"Deploy the folder as it is (netlify deploy --dir), with "+HeadersFile+" and "+RedirectsFile+" at its top, and serve it at the root of its origin, as signpost.yaml's origin says.",
		"Compression: Netlify compresses what it serves itself at its edge (brotli or gzip, as the request's Accept-Encoding allows), and its rules cannot choose a file by Accept-Encoding: the build makes no precompressed variants for it.",
		"Netlify sends strong ETags of its own on the files it serves, not those of "+output.RouteTableFile+", and answers If-None-Match with 304; that is not a gap.")
	if fn := functionCount(sites); fn > 0 {
		r.Deploying = append(r.Deploying, fmt.Sprintf("%s whose media type is not application/json (the cards and the AI catalog) %s served by the Netlify Function %s, with every header: deploy it with its site (netlify deploy --functions DIR/%s); each request to one is a function invocation of the Netlify plan.",
			english.Count(fn, "route", "routes"), english.Plural(fn, "is", "are"), FunctionFile, FunctionsDir))
	}
	if n := registryCount(sites); n > 0 {
		r.Deploying = append(r.Deploying, fmt.Sprintf("The MCP registry (/v0.1/servers and below, %s) is answered by the Netlify Function %s as signpost serve answers it: a name and a version however a client escapes them, the registry's CORS headers, preflight and 404s, and search computed over the list. Deploy it with its site; each request to the registry is a function invocation.",
			english.Count(n, "route", "routes"), RegistryFile))
	}
	if notFoundSites(sites) {
		r.Deploying = append(r.Deploying, fmt.Sprintf("The tools and the tool catalogue's groups are routed and headed by placeholder rules, the same few lines of %s and %s whatever their number; a toolId or group a site does not have is answered with the JSON 404 by the Netlify Function %s, which Netlify runs only where no file is (preferStatic): deploy it with its site, and count each such request as a function invocation.",
			RedirectsFile, HeadersFile, NotFoundFile))
	}
	r.Deploying = append(r.Deploying, "netlify dev sends Cache-Control: public, max-age=0 and weak ETags of its own on the other files, over "+HeadersFile+": check a deployed site, not netlify dev, for Cache-Control and ETags.")
	return r, nil
}

// kindLines are the lines of the gaps of one kind: one line each, or, for
// several routes, one line with their count.
func kindLines(gaps []Gap) []string {
	switch {
	case len(gaps) == 0:
		return nil
	case len(gaps) == 1:
		return []string{hosts.GapLine(gaps[0], "Netlify serves")}
	}
	labels := make([]string, len(gaps))
	for i, g := range gaps {
		labels[i] = g.Label()
	}
	return []string{fmt.Sprintf("%d routes (%s): need their own headers per view; Netlify serves %s. Fix: %s.", len(gaps), strings.Join(labels, ", "), gaps[0].Served, gaps[0].Fix)}
}

// functionCount counts the routes the Netlify Functions of sites serve.
func functionCount(sites []*output.Site) int {
	n := 0
	for _, s := range sites {
		routes := FunctionRoutes(s)
		n += len(routes)
	}
	return n
}

// registryCount counts the routes of the MCP registry of sites, which
// their registry's function serves.
func registryCount(sites []*output.Site) int {
	n := 0
	for _, s := range sites {
		for _, d := range s.Documents {
			if spec.IsRegistryRoute(d.Route.Route) {
				n++
			}
		}
	}
	return n
}

// notFoundSites reports whether one of sites has tools or groups, and so
// the function of the paths of theirs that no file holds.
func notFoundSites(sites []*output.Site) bool {
	fams := families()
	for _, s := range sites {
		for _, d := range s.Documents {
			if f, _ := familyOf(fams, d.Route.Route); f != nil && !functionRoute(d) {
				return true
			}
		}
	}
	return false
}
