// Package pages lays a build out for GitHub Pages and says what Pages
// cannot serve of the HTTP contract.
//
// GitHub Pages serves the files of a folder as they are, with headers it
// chooses itself: the media type of the file's extension, its own
// Cache-Control and ETag, and Access-Control-Allow-Origin: * alone. It has
// no rewrites and no query routing, and answers a missing file with its own
// HTML 404 page. So a site built for Pages serves every document at a path
// that ends in .json, and the build says, route by route, where that falls
// short of the HTTP contract and what to put in front of Pages to close the
// gap.
//
// Pages sends ETags of its own, not the route table's, but strong
// validators all the same: they are not listed as a gap.
//
// The MCP registry's documents are laid out at their keys too, but no
// request of its clients reaches them: VS Code, Copilot and Copilot CLI
// ask for /v0.1/servers and /v0.1/servers/{name}/versions/... without
// .json, a name's / sent as %2F, and a browser first sends a preflight
// Pages does not answer. Pages adds no .json to a path (it tries .html
// alone), and /v0.1/servers and .../versions are the folders of the other
// registry documents, so no layout of files can answer them: every
// request is Pages' HTML 404, whichever way Pages reads %2F. The report
// says so route by route (KindRegistry), with where to serve the registry
// instead.
package pages

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/hosts"

	"github.com/signpost-dev/signpost/build/spec"
)

// ReportFile is the name of the Pages report in a build output folder:
// for each site, the requirements GitHub Pages cannot meet.
const ReportFile = "pages-report.json"

// ReportFormat is the version of the Pages report's layout.
const ReportFormat = 1

// noJekyll is the file that stops Pages from running Jekyll on a
// branch deployment, which would leave out .well-known and every other
// folder whose name starts with "." or "_".
const noJekyll = ".nojekyll"

// The routes of a Gap that are not routes of the route table.
const (
	// EveryRoute is the route of a gap every route of a site has.
	EveryRoute = hosts.EveryRoute
	// UnknownTool is the route of the gap of unknown toolIds.
	UnknownTool = "/tools/{toolId}"
)

// What GitHub Pages sends.
const (
	pagesCacheControl = "max-age=600"
	pagesJSONType     = "application/json"
)

// The remedies a Fix names: what to put in front of Pages, or where to
// publish instead.
const (
	pagesFront   = "in a CDN or worker in front of Pages, "
	pagesInstead = "; or publish to S3 behind CloudFront instead"
)

// The kinds of Gap, in the order a report groups them.
const (
	// KindToolList: /tools is not served at /tools.
	KindToolList = "tool-list-url"
	// KindCompactList: ?view=compact does not select the compact list.
	KindCompactList = "compact-list-query"
	// KindToolURL: /tools/{toolId} is not served at its URL.
	KindToolURL = "tool-url"
	// KindCompactTool: ?view=compact does not select a compact descriptor.
	KindCompactTool = "compact-tool-query"
	// KindURL: another document is not served at its URL.
	KindURL = "url"
	// KindContentType: a document is served with another Content-Type.
	KindContentType = "content-type"
	// KindCORS: the CORS headers every response needs are missing.
	KindCORS = "cors"
	// KindCacheControl: every response has Pages' Cache-Control.
	KindCacheControl = "cache-control"
	// KindLink: the Link header of a site with an ARD manifest is
	// missing: Pages sends no header of a site's own.
	KindLink = "link"
	// KindNotFound: an unknown toolId gets Pages' HTML 404.
	KindNotFound = "not-found"
	// KindRegistry: a route of the MCP registry, which no request of its
	// clients reaches on Pages. The same kind as the other hosts' gaps of
	// the registry.
	KindRegistry = "registry"
)

// kinds are the kinds of Gap in report order.
var kinds = []string{KindToolList, KindCompactList, KindToolURL, KindCompactTool, KindRegistry, KindURL, KindContentType, KindCORS, KindCacheControl, KindLink, KindNotFound}

// Gap is one requirement of the HTTP contract that GitHub Pages cannot
// meet for a route; Served is what Pages serves instead.
type Gap = hosts.Gap

// Layout maps a site's documents to the files Pages serves and lists
// the gaps, deterministically. The files are the site's documents in the
// same order, each with output.Route.Key changed to the path Pages serves it at,
// relative to the site's folder: "tools.json", "tools/get_forecast.json",
// "tools/get_forecast.compact.json", ".well-known/ai-catalog.json". Their
// other fields stay the contract's, as the route table records them; what
// Pages serves instead is in the gaps.
//
// Every path ends in .json, so Pages serves every document as
// application/json, and no file is also a folder: /tools and
// /tools/{toolId} are served at /tools.json and /tools/{toolId}.json, and
// the compact view, which Pages cannot select by query, at the .compact.json
// beside them.
//
// The gaps are sorted by route, gaps for every route first, then by view,
// the standard view first.
func Layout(s *output.Site) (files []output.Document, gaps []Gap) {
	files = make([]output.Document, 0, len(s.Documents))
	var aiCatalog, toolCatalog bool
	for _, d := range s.Documents {
		aiCatalog = aiCatalog || d.Route.Route == spec.RouteAICatalog
		toolCatalog = toolCatalog || d.Route.Route == spec.RouteTools
	}
	gaps = append(gaps,
		Gap{
			Kind:        KindCORS,
			Route:       EveryRoute,
			Requirement: "Access-Control-Allow-Methods: GET, HEAD, OPTIONS, Access-Control-Allow-Headers: Authorization, Content-Type, If-None-Match and Access-Control-Expose-Headers: ETag on every response",
			Served:      "only Access-Control-Allow-Origin: *, so browsers fetch the documents but a script cannot send If-None-Match or read the ETag",
			Fix:         pagesFront + "add the three headers to every response, errors included" + pagesInstead,
		},
		Gap{
			Kind:        KindCacheControl,
			Route:       EveryRoute,
			Requirement: "Cache-Control: " + spec.CacheControl + " (a SHOULD)",
			Served:      "Cache-Control: " + pagesCacheControl + ", so clients revalidate every 10 minutes rather than every hour",
			Fix:         pagesFront + "set Cache-Control: " + spec.CacheControl + pagesInstead + "; harmless to leave as it is",
		},
	)
	if link := s.Link(); link != "" {
		gaps = append(gaps, Gap{
			Kind:        KindLink,
			Route:       EveryRoute,
			Requirement: "Link: " + link + " on every document response",
			Served:      "no Link header: Pages sends no header of a site's own, so ARD clients find the manifest only at " + spec.RouteARD + ", which they fetch first",
			Fix:         pagesFront + "add the Link header to every response" + pagesInstead + "; the site has no HTML page for a <link rel=\"ard\"> either",
		})
	}
	if toolCatalog {
		gaps = append(gaps, Gap{
			Kind:        KindNotFound,
			Route:       UnknownTool,
			Requirement: "a JSON 404 for an unknown toolId",
			Served:      "its own HTML 404 page: the status is right, the body is HTML (a 404.html of your own would be text/html too)",
			Fix:         pagesFront + "answer an unknown /tools/{toolId} with a JSON 404" + pagesInstead,
		})
	}
	for _, d := range s.Documents {
		f := d
		f.Key = filePath(d.Route.Route, d.View, d.Key)
		files = append(files, f)
		gaps = append(gaps, routeGaps(f.Route, aiCatalog)...)
	}
	slices.SortStableFunc(gaps, func(a, b Gap) int {
		return cmp.Or(
			cmp.Compare(routeRank(a.Route), routeRank(b.Route)),
			strings.Compare(a.Route, b.Route),
			cmp.Compare(viewRank(a.View), viewRank(b.View)),
			strings.Compare(a.View, b.View),
		)
	})
	return files, gaps
}

// path_ is the path, relative to the site's folder, at which Pages
// serves the document of route in view. It is chosen here rather than taken
// from the document's key, so that the Pages layout stays what Pages needs
// whatever layout other hosts get: a path ending in .json, and no file
// where a folder must be.
func filePath(route, view, key string) string {
	suffix := ".json"
	if view == spec.ViewCompact {
		suffix = ".compact.json"
	}
	switch {
	case route == spec.RouteTools:
		return "tools" + suffix
	case strings.HasPrefix(route, spec.RouteTools+"/"):
		return "tools/" + strings.TrimPrefix(route, spec.RouteTools+"/") + suffix
	case spec.IsRegistryRoute(route):
		return key // a .json path, never a folder (spec.RegistryKey)
	case view == spec.ViewStandard:
		return strings.TrimPrefix(route, "/")
	}
	return key
}

// contentType is the media type Pages serves a file with: the one of
// its extension.
func contentType(key string) string {
	switch ext := path.Ext(key); ext {
	case ".json":
		return pagesJSONType
	case "":
		return "application/octet-stream"
	default:
		return "the media type Pages gives " + ext + " files"
	}
}

// routeGaps lists what Pages cannot do for one file of a site: serve it
// at the contract's URL, and with the contract's Content-Type. aiCatalog
// says whether the site's AI catalog advertises /tools.
func routeGaps(r output.Route, aiCatalog bool) []Gap {
	var gaps []Gap
	url := "/" + r.Key
	switch {
	case r.View == spec.ViewCompact && r.Route == spec.RouteTools:
		gaps = append(gaps, Gap{
			Kind:        KindCompactList,
			Route:       r.Route,
			View:        r.View,
			Requirement: "?view=compact to select the compact list",
			Served:      "the compact list at " + url + " instead; Pages ignores the query",
			Fix:         pagesFront + "rewrite /tools?view=compact to " + url + pagesInstead,
		})
	case r.View == spec.ViewCompact:
		gaps = append(gaps, Gap{
			Kind:        KindCompactTool,
			Route:       r.Route,
			View:        r.View,
			Requirement: "?view=compact to select the compact descriptor",
			Served:      "it at " + url + " instead; Pages ignores the query",
			Fix:         pagesFront + "rewrite /tools/{toolId}?view=compact to /tools/{toolId}.compact.json" + pagesInstead,
		})
	case r.View != spec.ViewStandard:
		// Only the tool catalog has another view.
	case r.Route == spec.RouteTools:
		what := spec.RouteTools
		if aiCatalog {
			what += ", the URL " + spec.RouteAICatalog + " advertises,"
		}
		gaps = append(gaps, Gap{
			Kind:        KindToolList,
			Route:       r.Route,
			View:        r.View,
			Requirement: "the list at /tools",
			Served:      "it at " + url + " instead; " + what + " is Pages' HTML 404",
			Fix:         pagesFront + "rewrite /tools to " + url + pagesInstead,
		})
	case spec.IsRegistryRoute(r.Route):
		gaps = append(gaps, registryGap(r))
	case url != r.Route && strings.HasPrefix(r.Route, spec.RouteTools+"/"):
		gaps = append(gaps, Gap{
			Kind:        KindToolURL,
			Route:       r.Route,
			View:        r.View,
			Requirement: "the descriptor at " + r.Route,
			Served:      "it at " + url + " instead; " + r.Route + " is Pages' HTML 404",
			Fix:         pagesFront + "rewrite /tools/{toolId} to /tools/{toolId}.json" + pagesInstead,
		})
	case url != r.Route:
		gaps = append(gaps, Gap{
			Kind:        KindURL,
			Route:       r.Route,
			View:        r.View,
			Requirement: "the document at " + r.Route,
			Served:      "it at " + url + " instead",
			Fix:         pagesFront + "rewrite " + r.Route + " to " + url + pagesInstead,
		})
	}
	if served := contentType(r.Key); served != r.ContentType {
		why := ", the type of the " + path.Ext(r.Key) + " extension"
		if path.Ext(r.Key) == "" {
			// A card beside its MCP endpoint, at <endpoint>/server-card.
			why = ", the type of a file without an extension"
		}
		if r.ContentType == spec.ContentTypeServerCardDraft {
			why += ": clients that check it, as the draft spec says they should, reject the card"
		}
		gaps = append(gaps, Gap{
			Kind:        KindContentType,
			Route:       r.Route,
			View:        r.View,
			Requirement: "Content-Type " + r.ContentType,
			Served:      served + why,
			Fix:         pagesFront + "set Content-Type: " + r.ContentType + " on " + r.Route + pagesInstead + ", which stores it on the object",
		})
	}
	return gaps
}

// The classes of the registry's routes, as a report groups their gaps.
const (
	registryList     = spec.RegistryList
	registryVersions = spec.RegistryVersions
	registryVersion  = spec.RegistryVersion
	registryLatest   = spec.RegistryLatest
)

// registryClasses are the classes of the registry's routes in report
// order.
var registryClasses = []string{registryList, registryVersions, registryVersion, registryLatest}

// registryClass is the class of a registry route: the list, a server's
// versions, one version, or the latest.
func registryClass(route string) string {
	r, _ := spec.ParseRegistryPath(route)
	if r.Kind == spec.RegistryVersion && r.Version == spec.RegistryLatest {
		return registryLatest
	}
	return r.Kind
}

// What the registry's clients need of every route of the registry.
const registryNeeds = ", with the registry's CORS headers and a 204 preflight"

// registryFix is where to serve the registry instead of Pages.
const registryFix = "point the clients at this catalog built for a cloudflare, netlify or s3 target (with CloudFront), or at signpost serve; or leave the registry out with discovery: {registry: false} in signpost.yaml"

// registryGap is the gap of a route of the MCP registry: its document is
// at its key, where no client asks for it, and the route itself is
// Pages' HTML 404. Pages adds no .json to a path, and a registry route
// cannot be a file: the list's and the versions' routes are the folders
// of the other documents, and a name's / is sent as %2F.
func registryGap(r output.Route) Gap {
	url := "/" + r.Key
	g := Gap{Kind: KindRegistry, Route: r.Route, View: r.View, Fix: registryFix}
	switch registryClass(r.Route) {
	case registryList:
		g.Requirement = "the list at " + r.Route + " whatever the query (?limit=1, ?limit=50&version=latest, &search=)" + registryNeeds
		g.Served = "it at " + url + " only; " + r.Route + " is Pages' HTML 404 (Pages adds no .json, and it is the folder of the other registry documents), so VS Code's gallery is empty"
	case registryVersions:
		g.Requirement = "the versions at " + r.Route + ", the name's / as %2F or as it is" + registryNeeds
		g.Served = "them at " + url + " only; " + r.Route + " is Pages' HTML 404, with %2F or /"
	case registryLatest:
		g.Requirement = "the latest version at " + r.Route + ", as Copilot CLI and VS Code ask for it" + registryNeeds
		g.Served = "it at " + url + " only; " + r.Route + " is Pages' HTML 404, with %2F or /, so Copilot CLI refuses the server and VS Code cannot show it"
	default:
		g.Requirement = "the version at " + r.Route + ", the name's / as %2F or as it is" + registryNeeds
		g.Served = "it at " + url + " only; " + r.Route + " is Pages' HTML 404, with %2F or /, so VS Code cannot open that version"
	}
	return g
}

func routeRank(route string) int {
	if route == EveryRoute {
		return 0
	}
	return 1
}

func viewRank(view string) int {
	switch view {
	case "", spec.ViewStandard:
		return 0
	case spec.ViewCompact:
		return 1
	}
	return 2
}

// counts counts a site's routes (route and view pairs), those served
// exactly as the contract says, and those whose own URL and Content-Type
// are right, whatever every route lacks.
func counts(s *output.Site, gaps []Gap) (routes, exact, ownRight int) {
	routes, ownRight, everyRoute := hosts.Count(s, gaps)
	if !everyRoute {
		exact = ownRight
	}
	return routes, exact, ownRight
}

// Write writes the build b for GitHub Pages to the folder out, atomically,
// as output.Build.Write does: one folder per site as in the normal layout
// (public/, or tenants/ID/ for each tenant), each the root of a Pages site
// with its documents at the paths Layout chooses and a .nojekyll; the route
// table, whose keys are those paths; pages-report.json, the gaps of each
// site; and the build's Files beside them. It returns the gaps, one slice
// per site of b.Sites. A failed Write leaves out as it was.
//
// The route table keeps the contract's headers, so the folder also serves
// and publishes exactly as a normal build does; the Pages paths are plain
// files, so any static host can serve it.
func Write(ctx context.Context, b *output.Build, out string) ([][]Gap, error) {
	_, gaps, err := write(ctx, b, out)
	return gaps, err
}

// write is Write, returning the report too.
func write(ctx context.Context, b *output.Build, out string) (*hosts.Report, [][]Gap, error) {
	// A build for this host makes no variants (hosts.ServesVariants); one
	// that has them anyway leaves them out: the host compresses on its own
	// (see the report), and they would be files no client is sent.
	b = b.WithoutVariants()
	laid := &output.Build{Files: slices.Clone(b.Files), Limits: b.Limits}
	gaps := make([][]Gap, len(b.Sites))
	for i, s := range b.Sites {
		var files []output.Document
		files, gaps[i] = Layout(s)
		if err := checkPaths(s, files); err != nil {
			return nil, nil, err
		}
		laid.Sites = append(laid.Sites, &output.Site{Tenant: s.Tenant, Dir: s.Dir, Documents: files, Tools: s.Tools})
		laid.Files = append(laid.Files, output.File{Path: path.Join(s.Dir, noJekyll)})
	}
	rep, err := Report(b.Sites, gaps)
	if err != nil {
		return nil, nil, err
	}
	if err := rep.WriteBeside(ctx, laid, ReportFile, out); err != nil {
		return nil, nil, err
	}
	return rep, gaps, nil
}

// Host is the GitHub Pages layout (see Write), as a hosts.Host.
type Host struct{}

// Write writes b for GitHub Pages and returns what Pages cannot serve.
func (Host) Write(ctx context.Context, b *output.Build, out string) (*hosts.Report, error) {
	rep, _, err := write(ctx, b, out)
	return rep, err
}

// checkPaths refuses a site whose Pages paths would overwrite one
// another, or need a file where a folder must be: a card path such as
// /tools.json is valid, but it is also where Pages serves the list.
func checkPaths(s *output.Site, files []output.Document) error {
	owner := map[string]string{noJekyll: "the " + noJekyll + " file"}
	for _, f := range files {
		what := "route " + spec.Request(f.Route.Route, f.View)
		if prev, ok := owner[f.Key]; ok {
			return fmt.Errorf("write build: site %s: %s and %s would both be served at /%s on GitHub Pages", s.Dir, prev, what, f.Key)
		}
		owner[f.Key] = what
	}
	for _, f := range files {
		for dir := path.Dir(f.Key); dir != "."; dir = path.Dir(dir) {
			if prev, ok := owner[dir]; ok {
				return fmt.Errorf("write build: site %s: %s is served at /%s, which must be a folder for route %s on GitHub Pages", s.Dir, prev, dir, f.Route.Route)
			}
		}
	}
	return nil
}
