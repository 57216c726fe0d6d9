package pages

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/hosts"
)

// kindText is what a report says of the gaps of one kind.
type kindText struct {
	// limit says what GitHub Pages cannot do, for the top of a report.
	limit string
	// label names the routes of several gaps; need, served and fix say
	// what they need, what Pages serves and how to close the gaps, as a
	// Gap's fields do for one route.
	label, need, served, fix string
}

var kindTexts = map[string]kindText{
	KindToolList: {
		limit: "/tools will not work on GitHub Pages: it is Pages' HTML 404, and the tool list is at /tools.json",
	},
	KindCompactList: {
		limit: "?view=compact will not work on GitHub Pages: Pages ignores the query, and the compact views are at .compact.json paths",
	},
	KindToolURL: {
		limit:  "/tools/{toolId} will not work on GitHub Pages: it is Pages' HTML 404, and each descriptor is at /tools/{toolId}.json",
		label:  "/tools/{toolId}",
		need:   "each descriptor at /tools/{toolId}",
		served: "each at /tools/{toolId}.json instead; /tools/{toolId} is Pages' HTML 404",
		fix:    pagesFront + "rewrite /tools/{toolId} to /tools/{toolId}.json" + pagesInstead,
	},
	KindCompactTool: {
		limit:  "?view=compact will not work on GitHub Pages: Pages ignores the query, and the compact views are at .compact.json paths",
		label:  "/tools/{toolId}?view=compact",
		need:   "?view=compact to select the compact descriptor",
		served: "each at /tools/{toolId}.compact.json instead; Pages ignores the query",
		fix:    pagesFront + "rewrite /tools/{toolId}?view=compact to /tools/{toolId}.compact.json" + pagesInstead,
	},
	KindRegistry: {
		limit: "The MCP registry will not work on GitHub Pages: every request VS Code, Copilot and Copilot CLI send to /v0.1/servers and below is Pages' HTML 404, so Copilot CLI refuses every server and VS Code's gallery is empty",
	},
	KindURL: {
		limit:  "Some documents will not be at their URLs on GitHub Pages: Pages serves them at paths ending in .json",
		label:  "not at their URLs",
		need:   "each document at its route",
		served: "each at its route with .json added instead",
		fix:    pagesFront + "rewrite each route to its .json path (" + ReportFile + " lists them)" + pagesInstead,
	},
	KindContentType: {
		limit:  "Every document is served as application/json on GitHub Pages, whatever its media type: clients that check a card's media type, as the draft spec says they should, reject the card",
		label:  "with a Content-Type of their own",
		need:   "their Content-Type",
		served: "application/json, the type of the .json extension",
		fix:    pagesFront + "set each route's Content-Type (" + ReportFile + " lists them)" + pagesInstead + ", which stores it on the object",
	},
	KindCORS: {
		limit: "A script in a browser cannot send If-None-Match or read the ETag on GitHub Pages: Pages sends Access-Control-Allow-Origin: * and no other CORS header",
	},
	KindCacheControl: {
		limit: "Responses have Pages' Cache-Control: max-age=600, not public, max-age=3600 (a SHOULD; harmless)",
	},
	KindLink: {
		limit: "No response has the Link header of the ARD manifest (discovery.ard) on GitHub Pages: ARD clients find it at /.well-known/ard.json only",
	},
	KindNotFound: {
		limit: "An unknown toolId gets Pages' HTML 404, not a JSON one",
	},
}

// registryTexts are what a report says of several gaps of one class of
// the registry's routes (registryClass); the list is one route.
var registryTexts = map[string]kindText{
	registryVersions: {
		label:  spec.RouteRegistry + "/{name}/versions",
		need:   "each server's versions at " + spec.RouteRegistry + "/{name}/versions, the name's / as %2F or as it is" + registryNeeds,
		served: "each at " + spec.RouteRegistry + "/{namespace}/{name}/versions.json only; the routes are Pages' HTML 404, with %2F or /",
		fix:    registryFix,
	},
	registryVersion: {
		label:  spec.RouteRegistry + "/{name}/versions/{version}",
		need:   "each version at " + spec.RouteRegistry + "/{name}/versions/{version}, the name's / as %2F or as it is" + registryNeeds,
		served: "each at " + spec.RouteRegistry + "/{namespace}/{name}/versions/{version}.json only; the routes are Pages' HTML 404, with %2F or /, so VS Code cannot open a version",
		fix:    registryFix,
	},
	registryLatest: {
		label:  spec.RouteRegistry + "/{name}/versions/latest",
		need:   "each server's latest version at " + spec.RouteRegistry + "/{name}/versions/latest, as Copilot CLI and VS Code ask for it" + registryNeeds,
		served: "each at " + spec.RouteRegistry + "/{namespace}/{name}/versions/latest.json only; the routes are Pages' HTML 404, with %2F or /, so Copilot CLI refuses every server and VS Code can show none",
		fix:    registryFix,
	},
}

// Limits says, one line for each kind of gap among gaps (one slice per
// site, as Write returns them), what GitHub Pages cannot do, most
// important first; with no gaps given, what any catalog published to Pages
// should expect: every kind but KindURL, which only unusual card paths
// have, and KindLink, which only a site with an ARD manifest has
// (KindRegistry included: a catalog with a server has a registry unless
// it turns it off).
func Limits(gaps ...[]Gap) []string {
	present := map[string]bool{}
	for _, site := range gaps {
		for _, g := range site {
			present[g.Kind] = true
		}
	}
	var lines []string
	for _, k := range kinds {
		if len(gaps) > 0 && !present[k] || len(gaps) == 0 && (k == KindURL || k == KindLink) {
			continue
		}
		if l := kindTexts[k].limit; !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// Report is what GitHub Pages cannot serve as the contract says: first
// what Pages cannot do (see Limits), then for each site its gaps grouped
// by kind, in the order Layout gives the kinds, each group with its count
// and its fix (a gap alone in its kind is printed as it is), and the
// routes Pages serves exactly as the contract says. Notes on deploying to
// Pages follow the sites. Every gap, route by route, is in
// pages-report.json. gaps holds one slice per site, as Write returns them.
func Report(sites []*output.Site, gaps [][]Gap) (*hosts.Report, error) {
	if len(sites) != len(gaps) {
		return nil, errors.New("pages report: one list of gaps per site is needed")
	}
	r := &hosts.Report{Format: ReportFormat, Target: "github-pages", Host: "GitHub Pages", Limits: Limits(gaps...)}
	for i, s := range sites {
		routes, exact, ownRight := counts(s, gaps[i])
		sr := hosts.SiteReport{Tenant: s.Tenant, Dir: s.Dir, Routes: routes, Exact: exact, Gaps: gaps[i], URLRight: ownRight - exact}
		byKind := map[string][]Gap{}
		for _, g := range gaps[i] {
			byKind[g.Kind] = append(byKind[g.Kind], g)
		}
		for _, k := range kinds {
			sr.Lines = append(sr.Lines, kindLines(k, byKind[k])...)
		}
		r.Sites = append(r.Sites, sr)
	}
	r.Deploying = append(r.Deploying,
		"Every gap, route by route, is in "+ReportFile+" beside "+output.RouteTableFile+".",
		"A CDN or worker in front of Pages (a Cloudflare Worker, or CloudFront with a CloudFront Function) can close every gap above; S3 behind CloudFront, with the functions an S3 target's build writes, closes them without Pages.")
	if r.Tenants() {
		r.Deploying = append(r.Deploying, "Pages serves one site per repository: publish each tenants/ID folder from a repository of its own, at its tenant's origin.")
	}
	r.Deploying = append(r.Deploying,
		"Serve each site at the root of its origin (a custom domain, or OWNER.github.io), as signpost.yaml's origin says: /.well-known and /tools only work at the root.",
		"Upload with actions/upload-pages-artifact include-hidden-files: true, or .well-known is left out; .nojekyll keeps it in branch deployments.",
		"Pages sends strong ETags of its own, not those of "+output.RouteTableFile+"; that is not a gap.",
		"Compression: GitHub Pages compresses what it serves itself (gzip), and cannot send a file with a Content-Encoding of its own: the build makes no precompressed variants for it, and none are uploaded.")
	return r, nil
}

// kindLines are the lines of the gaps of kind k: a gap alone as it is,
// several as one line with their count; the registry's a line for each
// class of its routes (the list, the versions, a version, the latest).
func kindLines(k string, gaps []Gap) []string {
	if k == KindRegistry {
		// A line for each class of the registry's routes.
		byClass := map[string][]Gap{}
		for _, g := range gaps {
			c := registryClass(g.Route)
			byClass[c] = append(byClass[c], g)
		}
		var lines []string
		for _, c := range registryClasses {
			lines = append(lines, groupLines(registryTexts[c], byClass[c])...)
		}
		return lines
	}
	return groupLines(kindTexts[k], gaps)
}

// groupLines are the lines of gaps that t says: a gap alone as it is,
// several as one line with their count when t has a label.
func groupLines(t kindText, gaps []Gap) []string {
	switch {
	case len(gaps) == 0:
		return nil
	case len(gaps) == 1 || t.label == "":
		var lines []string
		for _, g := range gaps {
			lines = append(lines, hosts.GapLine(g, "Pages serves"))
		}
		return lines
	}
	need := t.need
	if gaps[0].Kind == KindContentType {
		// Which types, and how many of each.
		n := map[string]int{}
		var types []string
		for _, g := range gaps {
			ct := strings.TrimPrefix(g.Requirement, "Content-Type ")
			if n[ct] == 0 {
				types = append(types, ct)
			}
			n[ct]++
		}
		slices.Sort(types)
		parts := make([]string, len(types))
		for i, ct := range types {
			parts[i] = fmt.Sprintf("%s on %d", ct, n[ct])
		}
		need += ": " + strings.Join(parts, ", ")
	}
	return []string{fmt.Sprintf("%d routes %s: need %s; Pages serves %s. Fix: %s.", len(gaps), t.label, need, t.served, t.fix)}
}
