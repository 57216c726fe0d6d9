package netlify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"text/template"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/templates"
)

// FunctionsDir is the folder of a site's Netlify Functions, below the site's
// folder: Netlify's default, so that netlify dev run in the site's folder
// finds it; a deploy names it (netlify deploy --functions).
const FunctionsDir = "netlify/functions"

// FunctionFile is the Netlify Function of a site's documents, below its
// folder.
const FunctionFile = FunctionsDir + "/signpost-documents.mjs"

// NotFoundFile is the Netlify Function of a site's unknown toolIds, below
// its folder.
const NotFoundFile = FunctionsDir + "/signpost-not-found.mjs"

// RegistryFile is the Netlify Function of a site's MCP registry, below its
// folder.
const RegistryFile = FunctionsDir + "/signpost-registry.mjs"

// functionTemplate holds the functions' templates and the registry's
// script they include. Parsed once; read-only after.
var functionTemplate = template.Must(template.Must(template.New("netlify").
	ParseFS(templates.Netlify, "netlify/*.mjs.tmpl")).
	ParseFS(templates.Registry, "registry/*.js.tmpl"))

// functionRoute reports whether d's route is one the Netlify Function
// serves: a document whose media type is not application/json, the type
// Netlify's static layer gives a .json file under netlify dev whatever
// _headers says.
func functionRoute(d output.Document) bool {
	return d.ContentType != spec.ContentTypeJSON
}

// Function writes the Netlify Function of the site s: every view of each
// route with a document functionRoute chooses, each with its Content-Type,
// Cache-Control and ETag, answered with the CORS headers, 304 to a
// matching If-None-Match, the preflight and the 405 of the contract. It
// returns the routes it serves, in the order of the site's documents, and
// nil and no routes when there is no such document.
func Function(s *output.Site) ([]byte, []string, error) {
	routes := FunctionRoutes(s)
	if len(routes) == 0 {
		return nil, nil, nil
	}
	byRoute := map[string][]output.Document{}
	for _, d := range s.Documents {
		if functionRoute(d) {
			byRoute[d.Route.Route] = append(byRoute[d.Route.Route], d)
		}
	}
	docs := make([]string, len(routes))
	for i, r := range routes {
		var views []string
		for _, d := range byRoute[r] {
			body, err := d.Body.Bytes()
			if err != nil {
				return nil, nil, fmt.Errorf("write build: site %s: %w", s.Dir, err)
			}
			views = append(views, fmt.Sprintf("%s: [%s, %s, %s, %s]", jsString(d.View),
				jsString(d.ContentType), jsString(d.CacheControl), jsString(d.ETag),
				jsString(base64.StdEncoding.EncodeToString(body))))
		}
		docs[i] = fmt.Sprintf("%s: { %s }", jsString(r), strings.Join(views, ", "))
	}
	return render(s, docs, routes, false), routes, nil
}

// FunctionRoutes returns the routes the Netlify Function of the site s
// serves (see Function), in the order of the site's documents.
func FunctionRoutes(s *output.Site) []string {
	var routes []string
	served := map[string]bool{}
	for _, d := range s.Documents {
		if functionRoute(d) && !served[d.Route.Route] {
			served[d.Route.Route] = true
			routes = append(routes, d.Route.Route)
		}
	}
	return routes
}

// NotFoundFunction writes the Netlify Function that answers a request at
// paths, the patterns of the keys of the tools and groups (such as
// /tools/*.json), where the site s has no file, with what the documents'
// function answers a path it does not serve: the JSON 404, the preflight
// and the 405, with the CORS headers. Netlify runs it only where no file
// is (preferStatic), and _redirects rewrites /tools/{toolId} to the
// tool's key: so a toolId or group the site does not have reaches it, and
// no other request.
func NotFoundFunction(s *output.Site, paths []string) []byte {
	return render(s, nil, paths, true)
}

// RegistryFunction writes the Netlify Function of the MCP registry of the
// site s, at /v0.1/servers and every path below: it holds every document
// of the registry with its Content-Type, Cache-Control and ETag, and the
// index of the list, and answers as signpost serve does (the registry's
// script of templates/registry, which the Cloudflare Worker runs too). It
// returns the routes it serves, in the order of the site's documents, and
// nil and no routes for a site without a registry.
func RegistryFunction(s *output.Site) ([]byte, []string, error) {
	entries, ok, err := hosts.SiteRegistryIndex(s)
	if err != nil {
		return nil, nil, fmt.Errorf("write build: site %s: %w", s.Dir, err)
	}
	if !ok {
		return nil, nil, nil
	}
	entriesJSON, err := json.Marshal(entries)
	if err != nil {
		return nil, nil, fmt.Errorf("write build: site %s: %w", s.Dir, err)
	}
	var docs, routes []string
	for _, d := range s.Documents {
		if !spec.IsRegistryRoute(d.Route.Route) || d.View != spec.ViewStandard {
			continue
		}
		body, err := d.Body.Bytes()
		if err != nil {
			return nil, nil, fmt.Errorf("write build: site %s: %w", s.Dir, err)
		}
		routes = append(routes, d.Route.Route)
		docs = append(docs, fmt.Sprintf("%s: [%s, %s, %s, %s]", jsString(d.Route.Route),
			jsString(d.ContentType), jsString(d.CacheControl), jsString(d.ETag),
			jsString(base64.StdEncoding.EncodeToString(body))))
	}
	paths, _ := json.Marshal([]string{spec.RouteRegistry, spec.RouteRegistry + "/*"})
	var buf bytes.Buffer
	err = functionTemplate.ExecuteTemplate(&buf, "registry.mjs.tmpl", map[string]any{
		"Site":      s.Dir,
		"Allow":     jsString(spec.AllowMethods),
		"MaxAge":    jsString(spec.PreflightMaxAge),
		"Registry":  hosts.RegistryScript(),
		"Documents": docs,
		"Entries":   string(entriesJSON),
		"Paths":     string(paths),
		"Link":      linkLiteral(s),
	})
	if err != nil {
		// The data are strings made here: a failure is a bug in the template.
		panic("netlify: registry.mjs.tmpl: " + err.Error())
	}
	return buf.Bytes(), routes, nil
}

// render writes a Netlify Function of the site s: the documents docs,
// each a JavaScript property of a route and its views, at paths; with
// preferStatic, Netlify runs it only where no file is.
func render(s *output.Site, docs, paths []string, preferStatic bool) []byte {
	cors := map[string]string{}
	for _, h := range spec.CORSHeaders() {
		cors[h[0]] = h[1]
	}
	corsJSON, _ := json.Marshal(cors)
	pathsJSON, _ := json.Marshal(paths)
	var buf bytes.Buffer
	err := functionTemplate.ExecuteTemplate(&buf, "documents.mjs.tmpl", map[string]any{
		"Site":         s.Dir,
		"CORS":         string(corsJSON),
		"Allow":        jsString(spec.AllowMethods),
		"MaxAge":       jsString(spec.PreflightMaxAge),
		"Standard":     jsString(spec.ViewStandard),
		"NotFound":     jsString(spec.NotFoundMessage),
		"Documents":    docs,
		"Paths":        string(pathsJSON),
		"PreferStatic": preferStatic,
		"Link":         linkLiteral(s),
	})
	if err != nil {
		// The data are strings made here: a failure is a bug in the template.
		panic("netlify: documents.mjs.tmpl: " + err.Error())
	}
	return buf.Bytes()
}

// linkLiteral is the site's Link header (output.Site.Link) as a
// JavaScript string literal, "" when it has none.
func linkLiteral(s *output.Site) string {
	if l := s.Link(); l != "" {
		return jsString(l)
	}
	return ""
}

// jsString returns s as a JavaScript string literal. JSON is one, and
// encoding/json escapes <, >, &, U+2028 and U+2029 besides, so the literal
// is safe anywhere in a module.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// functionPath is the site-relative path of the function's file.
func functionPath(s *output.Site) string { return path.Join(s.Dir, FunctionFile) }
