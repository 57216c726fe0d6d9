package netlify

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/hosts"

	"github.com/signpost-dev/signpost/build/spec"
)

// ReportFile is the name of the Netlify report in a build output folder:
// for each site, the requirements Netlify cannot meet.
const ReportFile = "netlify-report.json"

// ReportFormat is the version of the Netlify report's layout.
const ReportFormat = 1

// The files of a site's folder that tell Netlify how to serve it.
const (
	// HeadersFile sets the headers of each path.
	HeadersFile = "_headers"
	// RedirectsFile rewrites each route to its document.
	RedirectsFile = "_redirects"
	// ErrorFile is the JSON 404 every unknown path is answered with. Not
	// spec.ErrorDocumentKey, which S3 holds: netlify deploy uploads no file
	// whose name starts with a dot but .well-known, so the rules would name
	// a file the deployed site does not have. Its own path answers 404.
	ErrorFile = "signpost-404.json"
)

// EveryRoute is the route of a gap every route of a site has.
const EveryRoute = hosts.EveryRoute

// The kinds of Gap, in the order a report groups them.
const (
	// KindPreflight: Netlify answers OPTIONS itself.
	KindPreflight = "preflight"
	// KindMethods: other methods get Netlify's answer, not the JSON 405.
	KindMethods = "methods"
	// KindViewHeaders: two views of one route need different headers,
	// which Netlify cannot select by query.
	KindViewHeaders = "view-headers"
)

// kinds are the kinds of Gap in report order.
var kinds = []string{KindPreflight, KindMethods, KindViewHeaders}

// Gap is one requirement of the HTTP contract that Netlify cannot meet for
// a route; Served is what Netlify serves instead.
type Gap = hosts.Gap

// netlifyInstead is the remedy of every gap: Netlify cannot be told
// otherwise.
const netlifyInstead = "none on Netlify; S3 behind CloudFront answers exactly"

// Site is what Layout makes of one site: the two rule files, the Netlify
// Functions, and the gaps.
type Site struct {
	// Headers and Redirects are the bodies of HeadersFile and
	// RedirectsFile.
	Headers, Redirects []byte
	// Function is the body of FunctionFile, nil when no document needs it;
	// FunctionRoutes the routes it serves.
	Function       []byte
	FunctionRoutes []string
	// NotFound is the body of NotFoundFile, nil for a site without tools
	// or groups.
	NotFound []byte
	// Registry is the body of RegistryFile, nil for a site without an MCP
	// registry; RegistryRoutes the routes it serves.
	Registry       []byte
	RegistryRoutes []string
	Gaps           []Gap
}

// Layout writes the _headers and _redirects of a site whose documents sit
// at their keys, with the error document at ErrorFile, and
// lists its gaps, deterministically: the rules follow the order of the
// site's documents. The tools and the tool catalogue's groups, whose
// number grows with the tools', are routed and headed by placeholder
// rules (see families), so that the files have the same size for one tool
// or ten thousand; a path of theirs that no file holds is answered by the
// Netlify Function NotFoundFile. It refuses a site with a route or key
// that cannot be written in Netlify's rules, or that Netlify would not
// serve: one that is no document's path (see hosts.DocumentKey) other
// than /tools and the tool routes, a tool's or group's document at
// another key than its family's, or documents of one family with
// different headers.
func Layout(s *output.Site) (Site, error) {
	var hdr, red strings.Builder
	hdr.WriteString("# The headers of every path of this site, written by signpost build from its route table.\n")
	hdr.WriteString("/*\n")
	for _, h := range spec.CORSHeaders() {
		fmt.Fprintf(&hdr, "  %s: %s\n", h[0], h[1])
	}
	if l := s.Link(); l != "" {
		// The site's ARD manifest, on every document.
		fmt.Fprintf(&hdr, "  Link: %s\n", l)
	}
	header := func(p, contentType, cacheControl string) {
		fmt.Fprintf(&hdr, "%s\n  Content-Type: %s\n  Cache-Control: %s\n", p, contentType, cacheControl)
	}
	red.WriteString("# How this site's routes reach their documents, written by signpost build from its route table.\n")
	red.WriteString("# The first rule that matches wins; ! serves the rule even where a file is.\n")
	notFound := "/" + ErrorFile

	// Which view of each route comes first: the views other than the
	// standard one, which match by query, before it.
	type routeDocs struct {
		route string
		docs  []output.Document
	}
	var routes []routeDocs
	for _, d := range s.Documents {
		if n := len(routes); n > 0 && routes[n-1].route == d.Route.Route {
			routes[n-1].docs = append(routes[n-1].docs, d)
			continue
		}
		routes = append(routes, routeDocs{d.Route.Route, []output.Document{d}})
	}
	function, functionRoutes, err := Function(s)
	if err != nil {
		return Site{}, err
	}
	registry, registryRoutes, err := RegistryFunction(s)
	if err != nil {
		return Site{}, err
	}
	var gaps []Gap
	headed := map[string]bool{}
	var listKeys []string
	var rewrites []string
	fams := families()
	for _, r := range routes {
		if err := checkRoute(s, r.route); err != nil {
			return Site{}, err
		}
		if slices.Contains(functionRoutes, r.route) || spec.IsRegistryRoute(r.route) {
			// A function sends every header and picks the view: the
			// documents' function, or the registry's, at /v0.1/servers
			// and below whatever the number of servers.
			continue
		}
		if f, name := familyOf(fams, r.route); f != nil {
			if err := f.add(s, name, r.docs); err != nil {
				return Site{}, err
			}
			continue
		}
		docs := slices.Clone(r.docs)
		slices.SortStableFunc(docs, func(a, b output.Document) int {
			return viewRank(a.View) - viewRank(b.View)
		})
		std := docs[len(docs)-1]
		for _, d := range docs {
			if !safePath(d.Key) {
				return Site{}, fmt.Errorf("write build: site %s: the key %q of route %s cannot be written in Netlify's rules: use letters, digits and . _ - ~ in card paths", s.Dir, d.Key, r.route)
			}
			if _, ok := hosts.DocumentKey("/" + d.Key); !ok && "/"+d.Key != r.route {
				listKeys = append(listKeys, d.Key)
			}
			if "/"+d.Key != r.route {
				cond := ""
				if d.View != spec.ViewStandard {
					cond = " view=" + d.View
				}
				rewrites = append(rewrites, fmt.Sprintf("%s%s /%s 200!", r.route, cond, d.Key))
			}
			if d.ContentType != std.ContentType || d.CacheControl != std.CacheControl {
				gaps = append(gaps, Gap{
					Kind:        KindViewHeaders,
					Route:       r.route,
					View:        d.View,
					Requirement: fmt.Sprintf("Content-Type %s and Cache-Control %s", d.ContentType, d.CacheControl),
					Served:      fmt.Sprintf("those of the standard view, %s and %s, when the host matches headers by the path requested", std.ContentType, std.CacheControl),
					Fix:         "give the views of a route the same headers, or " + netlifyInstead,
				})
			}
			if !headed["/"+d.Key] {
				headed["/"+d.Key] = true
				header("/"+d.Key, d.ContentType, d.CacheControl)
			}
		}
		if !headed[r.route] {
			headed[r.route] = true
			header(r.route, std.ContentType, std.CacheControl)
		}
	}
	var missing []string
	for _, f := range fams {
		if len(f.views) == 0 {
			continue
		}
		// One segment below the family's folder: its routes and keys,
		// and not /tools or the lists' keys, which have rules of their
		// own.
		header(f.route(f.param), f.contentType, f.cacheControl)
		for _, v := range f.views {
			if p := "/" + f.key("*", v); !slices.Contains(missing, p) {
				missing = append(missing, p)
			}
		}
	}
	var notFoundFn []byte
	if len(missing) > 0 {
		notFoundFn = NotFoundFunction(s, missing)
	}
	header(notFound, spec.ContentTypeJSON, spec.ErrorCacheControl)
	red.WriteString("# The error document and the functions' source are no document's path: a 404.\n")
	fmt.Fprintf(&red, "%s %s 404!\n", notFound, notFound)
	if function != nil || notFoundFn != nil {
		fmt.Fprintf(&red, "/%s/* %s 404!\n", strings.SplitN(FunctionsDir, "/", 2)[0], notFound)
	}
	if len(listKeys) > 0 {
		red.WriteString("# The tool lists' own keys are no document's path: a 404, as on CloudFront.\n")
		for _, k := range listKeys {
			fmt.Fprintf(&red, "/%s %s 404!\n", k, notFound)
		}
	}
	red.WriteString("# Each route and view to its document: another view before the standard one.\n")
	for _, r := range rewrites {
		red.WriteString(r + "\n")
	}
	for _, f := range fams {
		if len(f.views) == 0 || !f.keyed {
			continue
		}
		red.WriteString("# Every tool, by its toolId, to its document: another view before the standard one. Not forced,\n")
		red.WriteString("# so a document's own key is served as it is; the key of a toolId this site does not have is\n")
		red.WriteString("# answered by the function " + path.Base(NotFoundFile) + " with the JSON 404.\n")
		for _, v := range f.views {
			cond := ""
			if v != spec.ViewStandard {
				cond = " view=" + v
			}
			fmt.Fprintf(&red, "%s%s /%s 200\n", f.route(f.param), cond, f.key(f.param, v))
		}
	}
	red.WriteString("# Every other path that is no file: the JSON error document.\n")
	fmt.Fprintf(&red, "/* %s 404\n", notFound)

	gaps = append([]Gap{
		{
			Kind:        KindPreflight,
			Route:       EveryRoute,
			Requirement: "OPTIONS answered 204 with Allow: " + spec.AllowMethods + " and Access-Control-Max-Age: " + spec.PreflightMaxAge,
			Served:      "its own answer, with the CORS headers of " + HeadersFile + " (all a browser's preflight needs) but no Allow or Access-Control-Max-Age, on every route but those of the Netlify Functions, which answer exactly",
			Fix:         netlifyInstead,
		},
		{
			Kind:        KindMethods,
			Route:       EveryRoute,
			Requirement: "other methods than GET, HEAD and OPTIONS answered 405 with the JSON error document",
			Served:      "its own answer (clients only GET and HEAD a catalog), on every route but those of the Netlify Functions, which answer exactly",
			Fix:         netlifyInstead,
		},
	}, gaps...)
	return Site{Headers: []byte(hdr.String()), Redirects: []byte(red.String()), Function: function, FunctionRoutes: functionRoutes, NotFound: notFoundFn,
		Registry: registry, RegistryRoutes: registryRoutes, Gaps: gaps}, nil
}

// family is a kind of document whose number grows with the tools': the
// tools and the tool catalogue's groups. Each is one path segment below a
// folder, and placeholder rules head (and, for the tools, route) them
// all, so that the rules of a site have the same size whatever the number
// of tools. Its fields after param are what add gathers: the views its
// documents have, in the order of the rules (the standard view last), and
// the one Content-Type and Cache-Control they all have.
type family struct {
	what  string                         // its documents, in messages
	param string                         // the placeholder of a name in its rules
	route func(name string) string       // the route of the document name
	key   func(name, view string) string // the key of name in view
	keyed bool                           // a key is not its route: _redirects routes it

	views                     []string
	contentType, cacheControl string
	first                     string
}

// families are the families of a site's documents, in the order of their
// rules.
func families() []*family {
	return []*family{
		{what: "tool", param: ":id", route: spec.ToolRoute, key: spec.ToolKey, keyed: true},
		{what: "group", param: ":key",
			route: func(name string) string { return spec.RouteGroups + name },
			key:   func(name, _ string) string { return strings.TrimPrefix(spec.GroupRoute(name), "/") }},
	}
}

// familyOf returns the family of route and the name of its document in
// it, or nil.
func familyOf(fams []*family, route string) (*family, string) {
	if id, ok := spec.ToolSegment(route); ok {
		return fams[0], id
	}
	if k, ok := spec.GroupKeyOf(route); ok && k != "" && !strings.Contains(k, "/") {
		return fams[1], k
	}
	return nil, ""
}

// add adds the documents of name, refusing one that the family's rules
// would not serve as the route table says.
func (f *family) add(s *output.Site, name string, docs []output.Document) error {
	for _, d := range docs {
		if want := f.key(name, d.View); d.Key != want || (!f.keyed && d.View != spec.ViewStandard) {
			return fmt.Errorf("write build: site %s: the %s view of %s is at %s, not %s, which Netlify's rule of every %s serves", s.Dir, d.View, d.Route.Route, d.Key, want, f.what)
		}
		if f.first == "" {
			f.first, f.contentType, f.cacheControl = d.Key, d.ContentType, d.CacheControl
		} else if d.ContentType != f.contentType || d.CacheControl != f.cacheControl {
			return fmt.Errorf("write build: site %s: %s is sent with Content-Type %s and Cache-Control %s, %s with %s and %s: Netlify's rule of every %s gives them the same headers",
				s.Dir, f.first, f.contentType, f.cacheControl, d.Key, d.ContentType, d.CacheControl, f.what)
		}
		if !slices.Contains(f.views, d.View) {
			f.views = append(f.views, d.View)
			slices.SortStableFunc(f.views, func(a, b string) int {
				if r := viewRank(a) - viewRank(b); r != 0 {
					return r
				}
				return strings.Compare(a, b)
			})
		}
	}
	return nil
}

// checkRoute refuses a route Netlify's rules cannot name, or that is no
// document's path: /tools and the tool routes are routed by rule, every
// other route must be a document's path as hosts.DocumentKey says.
func checkRoute(s *output.Site, route string) error {
	if route == spec.RouteTools {
		return nil
	}
	if id, ok := spec.ToolSegment(route); ok && safePath(id) {
		return nil
	}
	if _, ok := hosts.DocumentKey(route); ok {
		return nil
	}
	if _, ok := spec.RegistryKey(route); ok {
		return nil // a registry route, as the route table writes it
	}
	return fmt.Errorf("write build: site %s: route %s cannot be served on Netlify: a document's path is segments of letters, digits and . _ - ~ ending in .json", s.Dir, route)
}

// safePath reports whether p, a key or a segment, can be written in a rule
// of _headers or _redirects as it is: no space, no '#', nothing to encode,
// no "." or ".." segment.
func safePath(p string) bool {
	if p == "" {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~-/", c) >= 0) {
			return false
		}
	}
	return true
}

func viewRank(view string) int {
	if view == spec.ViewStandard {
		return 1
	}
	return 0
}

// Write writes the build b for Netlify to the folder out, atomically, as
// output.Build.Write does: the normal layout (public/, or tenants/ID/ for
// each tenant), each folder a Netlify site of its own with its documents at
// their keys and the _headers, _redirects, Netlify Function and error
// document Layout describes; the route table, unchanged;
// netlify-report.json, the gaps of each site and the routes of its
// function; and the build's Files beside them. It returns the gaps, one
// slice per site of b.Sites. A failed Write leaves out as it was.
func Write(ctx context.Context, b *output.Build, out string) ([][]Gap, error) {
	_, gaps, err := write(ctx, b, out)
	return gaps, err
}

// Host is the Netlify layout (see Write), as a hosts.Host.
type Host struct{}

// Write writes b for Netlify and returns what Netlify cannot serve.
func (Host) Write(ctx context.Context, b *output.Build, out string) (*hosts.Report, error) {
	rep, _, err := write(ctx, b, out)
	return rep, err
}

// write is Write, returning the report too.
func write(ctx context.Context, b *output.Build, out string) (*hosts.Report, [][]Gap, error) {
	// A build for this host makes no variants (hosts.ServesVariants); one
	// that has them anyway leaves them out: the host compresses on its own
	// (see the report), and they would be files no client is sent.
	b = b.WithoutVariants()
	laid := &output.Build{Sites: b.Sites, Files: slices.Clone(b.Files), Limits: b.Limits}
	gaps := make([][]Gap, len(b.Sites))
	for i, s := range b.Sites {
		l, err := Layout(s)
		if err != nil {
			return nil, nil, err
		}
		gaps[i] = l.Gaps
		laid.Files = append(laid.Files,
			output.File{Path: path.Join(s.Dir, HeadersFile), Body: l.Headers},
			output.File{Path: path.Join(s.Dir, RedirectsFile), Body: l.Redirects},
			output.File{Path: path.Join(s.Dir, ErrorFile), Body: spec.NotFoundBody()},
		)
		if l.Function != nil {
			laid.Files = append(laid.Files, output.File{Path: functionPath(s), Body: l.Function})
		}
		if l.NotFound != nil {
			laid.Files = append(laid.Files, output.File{Path: path.Join(s.Dir, NotFoundFile), Body: l.NotFound})
		}
		if l.Registry != nil {
			laid.Files = append(laid.Files, output.File{Path: path.Join(s.Dir, RegistryFile), Body: l.Registry})
		}
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

// counts counts a site's routes (route and view pairs) and those with no
// gap of their own: every GET and HEAD of them is answered exactly as the
// contract says.
func counts(s *output.Site, gaps []Gap) (routes, exact int) {
	routes, exact, _ = hosts.Count(s, gaps)
	return routes, exact
}
