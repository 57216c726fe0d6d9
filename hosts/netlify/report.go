package netlify

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/english"
)

// limits say what Netlify cannot do, by kind of gap, for the top of a
// report.
var limits = map[string]string{
	KindPreflight:   "Netlify answers OPTIONS itself: a browser's preflight passes on the CORS headers of " + HeadersFile + ", but the answer has no Allow or Access-Control-Max-Age",
	KindMethods:     "Netlify answers POST, PUT, DELETE and other methods itself, not with the JSON 405",
	KindViewHeaders: "Netlify matches headers by path, not by query: two views of a route with different headers cannot both be served",
}

// WriteReport prints what Netlify cannot serve as the contract says, in
// the shape of the GitHub Pages report: first what Netlify cannot do, then
// for each site its gaps grouped by kind, each group with its count and its
// fix, and a line counting the routes Netlify serves exactly as the
// contract says. Notes on deploying to Netlify follow the sites. gaps holds
// one slice per site, as Write returns them.
func WriteReport(w io.Writer, sites []*output.Site, gaps [][]Gap) error {
	if len(sites) != len(gaps) {
		return errors.New("netlify report: one list of gaps per site is needed")
	}
	present := map[string]bool{}
	for _, site := range gaps {
		for _, g := range site {
			present[g.Kind] = true
		}
	}
	var sb strings.Builder
	sb.WriteString("What Netlify cannot do:\n")
	for _, k := range kinds {
		if present[k] {
			sb.WriteString("  " + limits[k] + ".\n")
		}
	}
	tenants := false
	for i, s := range sites {
		tenants = tenants || s.Tenant != ""
		routes, exact := counts(s, gaps[i])
		fmt.Fprintf(&sb, "%s/", s.Dir)
		if s.Tenant != "" {
			fmt.Fprintf(&sb, " (tenant %s)", s.Tenant)
		}
		fmt.Fprintf(&sb, ": %s on Netlify, %s\n", english.Count(routes, "route", "routes"), english.Count(len(gaps[i]), "gap", "gaps"))
		byKind := map[string][]Gap{}
		for _, g := range gaps[i] {
			byKind[g.Kind] = append(byKind[g.Kind], g)
		}
		for _, k := range kinds {
			writeKind(&sb, byKind[k])
		}
		fmt.Fprintf(&sb, "  %d of %s %s served exactly as the contract says to GET and HEAD, with its Content-Type, Cache-Control and the CORS headers.\n", exact, english.Count(routes, "route", "routes"), english.Plural(exact, "is", "are"))
	}
	sb.WriteString("Deploying to Netlify:\n")
	sb.WriteString("  Every gap, route by route, is in " + ReportFile + " beside " + output.RouteTableFile + ".\n")
	if tenants {
		sb.WriteString("  Deploy each tenants/ID folder as a Netlify site of its own, at its tenant's origin.\n")
	}
	sb.WriteString("  Deploy the folder as it is (netlify deploy --dir), with " + HeadersFile + " and " + RedirectsFile + " at its top, and serve it at the root of its origin, as signpost.yaml's origin says.\n")
	sb.WriteString("  Netlify sends strong ETags of its own on the files it serves, not those of " + output.RouteTableFile + ", and answers If-None-Match with 304; that is not a gap.\n")
	if fn := functionCount(sites); fn > 0 {
		fmt.Fprintf(&sb, "  %s whose media type is not application/json (the cards and the AI catalog) %s served by the Netlify Function %s, with every header: deploy it with its site (netlify deploy --functions DIR/%s); each request to one is a function invocation of the Netlify plan.\n",
			english.Count(fn, "route", "routes"), english.Plural(fn, "is", "are"), FunctionFile, FunctionsDir)
	}
	sb.WriteString("  netlify dev sends Cache-Control: public, max-age=0 and weak ETags of its own on the other files, over " + HeadersFile + ": check a deployed site, not netlify dev, for Cache-Control and ETags.\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeKind writes the gaps of one kind: one line each, or, for several
// routes, one line with their count.
func writeKind(sb *strings.Builder, gaps []Gap) {
	switch {
	case len(gaps) == 0:
		return
	case len(gaps) == 1:
		g := gaps[0]
		fmt.Fprintf(sb, "  %s: needs %s; Netlify serves %s. Fix: %s.\n", g.Label(), g.Requirement, g.Served, g.Fix)
		return
	}
	labels := make([]string, len(gaps))
	for i, g := range gaps {
		labels[i] = g.Label()
	}
	fmt.Fprintf(sb, "  %d routes (%s): need their own headers per view; Netlify serves %s. Fix: %s.\n", len(gaps), strings.Join(labels, ", "), gaps[0].Served, gaps[0].Fix)
}

// functionCount counts the routes the Netlify Functions of sites serve.
func functionCount(sites []*output.Site) int {
	n := 0
	for _, s := range sites {
		_, routes := Function(s)
		n += len(routes)
	}
	return n
}
