// Package cloudfront generates the two CloudFront Functions that make a
// distribution in front of an S3 bucket answer the HTTP contract: a
// viewer-request function that routes each route and view to its object and
// answers preflights, wrong methods and unknown paths itself, and a
// viewer-response function that adds the CORS headers to every response.
// Their size depends on the number of route folders, never on the number of
// tools.
package cloudfront

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"
	"text/template"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/templates"
)

// functionTemplates are the two CloudFront Functions' templates, filled
// in by Code. Parsed once; read-only after.
var functionTemplates = template.Must(template.New("cloudfront").ParseFS(templates.CloudFront, "cloudfront/*.js.tmpl"))

// MaxSize is the largest function code CloudFront accepts,
// in bytes.
const MaxSize = 10 * 1024

// Code returns the source of the viewer-request and
// viewer-response functions for a site whose objects sit under prefix
// ("" or "tenants/acme") and whose non-tool routes are routes (e.g. the
// catalogs and card paths, sorted).
//
// The functions (runtime cloudfront-js-2.0) make a distribution in front of
// the bucket answer the HTTP contract as `signpost serve` does:
//
//   - viewer-request maps /tools and /tools/{toolId}, with ?view=compact
//     when compactView is set, and every route of routes to the key of its
//     object under prefix, and drops the query string so the cache key does
//     not vary with it. It answers OPTIONS with a 204 preflight, methods
//     other than GET and HEAD with a 405, and a toolId that is not one, or a
//     path that is no route, with a JSON 404; all with the CORS headers and
//     errors with Cache-Control no-store.
//   - viewer-response puts the CORS headers on every response and turns the
//     403 that S3 gives for a missing key into a 404.
//
// Routes that are not absolute paths, and /tools and the routes below it,
// which the tool rules answer, are left out. The output depends only on the
// arguments: the routes are sorted and deduplicated.
//
// CloudFront takes at most MaxSize bytes of code, and the
// caller must check. The viewer-request function is about 4 KB plus the
// routes, listed by folder: 10 KB holds the two cards of about 190 servers
// that share a namespace, or of about 45 servers with a namespace each.
func Code(prefix string, routes []string, compactView bool) (viewerRequest, viewerResponse []byte) {
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
	folders := map[string][]string{} // folder -> file names
	escaped := map[string]string{}   // route -> escaped key, when it differs
	for _, r := range routes {
		if !strings.HasPrefix(r, "/") || spec.IsToolRoute(r) {
			continue
		}
		dir, file := r[:strings.LastIndex(r, "/")+1], r[strings.LastIndex(r, "/")+1:]
		if !slices.Contains(folders[dir], file) {
			folders[dir] = append(folders[dir], file)
		}
		key := strings.TrimPrefix(r, "/")
		if esc := escapeKey(key); esc != key {
			escaped[r] = esc
		}
	}
	table := map[string]string{}
	for dir, files := range folders {
		slices.Sort(files)
		table[dir] = "/" + strings.Join(files, "/") + "/"
	}
	data := struct {
		Site, KeyPrefix, Routes, Escaped string
		Compact                          bool
	}{
		Site:      jsString(strings.Join(segs, "/")),
		KeyPrefix: jsString(keyPrefix),
		Routes:    jsObject(table),
		Escaped:   jsObject(escaped),
		Compact:   compactView,
	}
	return execute("viewer-request.js.tmpl", data), execute("viewer-response.js.tmpl", data)
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

// jsObject returns m as a JavaScript object literal, one
// property a line, in sorted order.
func jsObject(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range keys {
		b.WriteString("  " + jsString(k) + ": " + jsString(m[k]))
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}")
	return b.String()
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
func Add(b *build.Output, target *build.S3Target, compactView bool) error {
	for _, s := range b.Sites {
		req, resp, err := Functions(s, target, compactView)
		if err != nil {
			return err
		}
		b.Files = append(b.Files,
			build.File{Path: path.Join("cloudfront", s.Dir, "viewer-request.js"), Body: req},
			build.File{Path: path.Join("cloudfront", s.Dir, "viewer-response.js"), Body: resp})
	}
	slices.SortFunc(b.Files, func(x, y build.File) int { return strings.Compare(x.Path, y.Path) })
	return nil
}

// Functions returns the code of the site's two CloudFront
// Functions for the bucket of target (see Add). It fails when a
// function exceeds CloudFront's size limit.
func Functions(s *build.Site, target *build.S3Target, compactView bool) (viewerRequest, viewerResponse []byte, err error) {
	prefix := target.SitePrefix(s)
	var routes []string
	for _, d := range s.Documents {
		routes = append(routes, d.Route.Route)
	}
	req, resp := Code(prefix, routes, compactView)
	for _, f := range []struct {
		name string
		code []byte
	}{{"viewer-request", req}, {"viewer-response", resp}} {
		if len(f.code) > MaxSize {
			return nil, nil, fmt.Errorf("the CloudFront %s function of %s is %d bytes; CloudFront accepts %d: the site has too many server cards for one function", f.name, s.Dir, len(f.code), MaxSize)
		}
	}
	return req, resp, nil
}
