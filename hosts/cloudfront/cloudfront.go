// Package cloudfront generates the two CloudFront Functions that make a
// distribution in front of an S3 bucket answer the HTTP contract: a
// viewer-request function that routes each route and view to its object and
// answers preflights, wrong methods and unknown paths itself, and a
// viewer-response function that adds the CORS headers to every response.
// Their code names no document, so their size is the same for a catalog of
// one tool and of ten thousand, one server and a thousand.
package cloudfront

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"text/template"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/templates"
)

// functionTemplates are the two CloudFront Functions' templates, filled
// in by Code. Parsed once; read-only after.
var functionTemplates = template.Must(template.New("cloudfront").ParseFS(templates.CloudFront, "cloudfront/*.js.tmpl"))

// MaxSize is the largest function code CloudFront accepts,
// in bytes.
const MaxSize = 10 * 1024

// Code returns the source of the viewer-request and viewer-response
// functions for a site whose objects sit under prefix ("" or
// "tenants/acme").
//
// The functions (runtime cloudfront-js-2.0) make a distribution in front of
// the bucket answer the HTTP contract as `signpost serve` does:
//
//   - viewer-request maps /tools and /tools/{toolId}, with ?view=compact
//     when compactView is set, to the keys of their objects under prefix;
//     the MCP registry's paths, as its clients send them (a name's '/' as
//     %2F or as it is, a version's '+' as %2B or as it is, a trailing
//     slash), to the keys of their documents (spec.ParseRegistryPath,
//     spec.RegistryKey); and every other path that can be a document's
//     (see hosts.DocumentKey), outside the registry's folder, to the key
//     equal to it. It drops the query string so the cache key does not
//     vary with it: every query of the registry, search included, gets the
//     whole list. It answers OPTIONS with a 204 preflight, methods other
//     than GET and HEAD with a 405, and a toolId that is not one, a
//     registry path that names no document, or a path that cannot be a
//     document's, with a JSON 404 (the registry's error document on its
//     routes); all with the CORS headers (spec.RegistryCORSHeaders on the
//     registry's routes) and errors with Cache-Control no-store.
//   - viewer-response puts the CORS headers on every response, the
//     registry's on its documents, and turns the 403 that S3 gives for a
//     missing key into a 404.
//
// With a gate, the functions are those of a gated site (see package gate):
// viewer-request lets a request through only with a valid token for
// gate.Tenant, whose key it reads from the KeyValueStore associated with
// it, and answers others with 401 or 403 itself; viewer-response makes
// what it let through private. The registry stays behind the gate.
//
// The code names no document, so its size does not depend on the catalog:
// a site of one server and a site of a thousand get the same functions.
func Code(prefix string, compactView bool, g *Gate) (viewerRequest, viewerResponse []byte) {
	return code(prefix, compactView, g, "")
}

// code is Code with link, when not "", the Link header viewer-response
// puts on every document response (output.Site.Link): a constant, so the
// functions' size still does not depend on the catalog.
func code(prefix string, compactView bool, g *Gate, link string) (viewerRequest, viewerResponse []byte) {
	var segs []string
	for _, s := range strings.Split(prefix, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	keyPrefix := "/"
	if len(segs) > 0 {
		keyPrefix += escapeKey(strings.Join(segs, "/")) + "/"
	}
	type gateData struct {
		Tenant          string
		PublicDiscovery bool
	}
	data := struct {
		Site, KeyPrefix string
		Compact         bool
		Gate            *gateData
		Link            string
	}{
		Site:      jsString(strings.Join(segs, "/")),
		KeyPrefix: jsString(keyPrefix),
		Compact:   compactView,
	}
	if link != "" {
		data.Link = jsString(link)
	}
	if g != nil {
		data.Gate = &gateData{Tenant: jsString(g.Tenant), PublicDiscovery: g.PublicDiscovery}
	}
	return execute("viewer-request.js.tmpl", data), execute("viewer-response.js.tmpl", data)
}

// Gate is the gate of a gated site's functions.
type Gate struct {
	// Tenant is the tenant whose tokens open the site.
	Tenant string
	// PublicDiscovery lets requests under /.well-known/ through without a
	// token.
	PublicDiscovery bool
}

// execute fills in one template. The data are strings the
// generator made, so a failure is a bug in a template.
func execute(name string, data any) []byte {
	var buf bytes.Buffer
	if err := functionTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		panic("cloudfront: " + name + ": " + err.Error())
	}
	return buf.Bytes()
}

// jsString returns s as a JavaScript string literal. JSON is one, and
// encoding/json escapes <, >, &, U+2028 and U+2029 besides, so the literal is
// safe anywhere in a script.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Path returns the URI path of the object key under prefix as
// the viewer-request function writes it (each segment escaped), which is
// the path CloudFront caches the object under.
func Path(prefix, key string) string {
	return "/" + escapeKey(strings.Trim(path.Join(prefix, key), "/"))
}

// escapeKey escapes an object key for a request URI, one segment
// at a time. "+" is escaped too, since S3 may read a "+" in a path as a
// space.
func escapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), "+", "%2B")
	}
	return strings.Join(segs, "/")
}

// Add adds to b, for each site, the two CloudFront Functions that
// route the HTTP contract to the site's objects in the bucket of target:
// cloudfront/DIR/viewer-request.js and viewer-response.js. A site's objects
// sit under the target's prefix, and with tenants under DIR too (tenants/ID),
// so that one bucket can hold every tenant's site behind its own
// distribution. It fails when a function exceeds CloudFront's size limit.
func Add(b *output.Build, target *target.S3, compactView bool) error {
	for _, s := range b.Sites {
		req, resp, err := Functions(s, target, compactView)
		if err != nil {
			return err
		}
		b.Files = append(b.Files,
			output.File{Path: path.Join("cloudfront", s.Dir, "viewer-request.js"), Body: req},
			output.File{Path: path.Join("cloudfront", s.Dir, "viewer-response.js"), Body: resp})
	}
	slices.SortFunc(b.Files, func(x, y output.File) int { return strings.Compare(x.Path, y.Path) })
	return nil
}

// Host is the layout of an S3 target served by CloudFront (see Add), as a
// hosts.Host: the plain layout, with each site's functions beside it.
type Host struct {
	Target      *target.S3
	CompactView bool
}

// ServesVariants reports that S3 serves the precompressed variants, each an
// object with its Content-Encoding, which the viewer-request function
// picks by Accept-Encoding.
func (Host) ServesVariants() bool { return true }

// Write writes b with the CloudFront Functions of each site, and, when a
// site publishes the MCP registry, the report of what a distribution
// cannot serve of it (ReportFile beside the route table); it returns that
// report, or nil when the distribution serves the whole contract.
func (h Host) Write(ctx context.Context, b *output.Build, out string) (*hosts.Report, error) {
	laid := &output.Build{Sites: b.Sites, Files: slices.Clone(b.Files), Limits: b.Limits}
	if err := Add(laid, h.Target, h.CompactView); err != nil {
		return nil, err
	}
	rep := Report(b.Sites)
	if rep == nil {
		return nil, laid.Write(ctx, out)
	}
	return rep, rep.WriteBeside(ctx, laid, ReportFile, out)
}

// Functions returns the code of the site's two CloudFront
// Functions for the bucket of target (see Add). It fails when a
// function exceeds CloudFront's size limit.
func Functions(s *output.Site, target *target.S3, compactView bool) (viewerRequest, viewerResponse []byte, err error) {
	for _, d := range s.Documents {
		route := d.Route.Route
		if spec.IsToolRoute(route) {
			continue
		}
		if spec.IsRegistryRoute(route) {
			if key, ok := spec.RegistryKey(route); !ok || key != d.Key {
				return nil, nil, fmt.Errorf("the CloudFront functions of %s cannot serve %s at the key %s: they serve the MCP registry's documents at the keys spec.RegistryKey gives, and nothing else", s.Dir, route, d.Key)
			}
			continue
		}
		if strings.HasPrefix(strings.ToLower(route), spec.RegistryFolder) {
			return nil, nil, fmt.Errorf("the CloudFront functions of %s cannot serve %s: only the MCP registry's documents lie under %s", s.Dir, route, spec.RegistryFolder)
		}
		if key, ok := hosts.DocumentKey(route); !ok || key != d.Key {
			return nil, nil, fmt.Errorf("the CloudFront functions of %s cannot serve %s at the key %s: its functions serve every document other than the tools and the MCP registry at the key equal to its path, and nothing else", s.Dir, route, d.Key)
		}
	}
	var g *Gate
	if s.Access.Token {
		g = &Gate{Tenant: s.Tenant, PublicDiscovery: s.Access.PublicDiscovery}
	}
	req, resp := code(target.SitePrefix(s), compactView, g, s.Link())
	for _, f := range []struct {
		name string
		code []byte
	}{{"viewer-request", req}, {"viewer-response", resp}} {
		if len(f.code) > MaxSize {
			return nil, nil, fmt.Errorf("the CloudFront %s function of %s is %d bytes; CloudFront accepts %d", f.name, s.Dir, len(f.code), MaxSize)
		}
	}
	return req, resp, nil
}
