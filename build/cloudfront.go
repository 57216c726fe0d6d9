package build

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strings"
	"text/template"

	"github.com/signpost-dev/signpost/templates"
)

// cloudFrontTemplates are the two CloudFront Functions' templates, filled
// in by CloudFrontFunctions. Parsed once; read-only after.
var cloudFrontTemplates = template.Must(template.New("cloudfront").ParseFS(templates.CloudFront, "cloudfront/*.js.tmpl"))

// CloudFrontFunctionMaxSize is the largest function code CloudFront accepts,
// in bytes.
const CloudFrontFunctionMaxSize = 10 * 1024

// CloudFrontFunctions returns the source of the viewer-request and
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
// CloudFront takes at most CloudFrontFunctionMaxSize bytes of code, and the
// caller must check. The viewer-request function is about 4 KB plus the
// routes, listed by folder: 10 KB holds the two cards of about 190 servers
// that share a namespace, or of about 45 servers with a namespace each.
func CloudFrontFunctions(prefix string, routes []string, compactView bool) (viewerRequest, viewerResponse []byte) {
	var segs []string
	for _, s := range strings.Split(prefix, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	keyPrefix := "/"
	if len(segs) > 0 {
		keyPrefix += cloudFrontEscapeKey(strings.Join(segs, "/")) + "/"
	}
	folders := map[string][]string{} // folder -> file names
	escaped := map[string]string{}   // route -> escaped key, when it differs
	for _, r := range routes {
		if !strings.HasPrefix(r, "/") || r == "/tools" || strings.HasPrefix(r, "/tools/") {
			continue
		}
		dir, file := r[:strings.LastIndex(r, "/")+1], r[strings.LastIndex(r, "/")+1:]
		if !slices.Contains(folders[dir], file) {
			folders[dir] = append(folders[dir], file)
		}
		key := strings.TrimPrefix(r, "/")
		if esc := cloudFrontEscapeKey(key); esc != key {
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
		Site:      cloudFrontJS(strings.Join(segs, "/")),
		KeyPrefix: cloudFrontJS(keyPrefix),
		Routes:    cloudFrontObjectJS(table),
		Escaped:   cloudFrontObjectJS(escaped),
		Compact:   compactView,
	}
	return cloudFrontExecute("viewer-request.js.tmpl", data), cloudFrontExecute("viewer-response.js.tmpl", data)
}

// cloudFrontExecute fills in one template. The data are strings the
// generator made, so a failure is a bug in a template.
func cloudFrontExecute(name string, data any) []byte {
	var buf bytes.Buffer
	if err := cloudFrontTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		panic("cloudfront: " + name + ": " + err.Error())
	}
	return buf.Bytes()
}

// cloudFrontJS returns s as a JavaScript string literal. JSON is one, and
// encoding/json escapes <, >, &, U+2028 and U+2029 besides, so the literal is
// safe anywhere in a script.
func cloudFrontJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cloudFrontObjectJS returns m as a JavaScript object literal, one
// property a line, in sorted order.
func cloudFrontObjectJS(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := sortedKeys(m)
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range keys {
		b.WriteString("  " + cloudFrontJS(k) + ": " + cloudFrontJS(m[k]))
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}")
	return b.String()
}

// CloudFrontPath returns the URI path of the object key under prefix as
// the viewer-request function writes it (each segment escaped), which is
// the path CloudFront caches the object under.
func CloudFrontPath(prefix, key string) string {
	return "/" + cloudFrontEscapeKey(strings.Trim(path.Join(prefix, key), "/"))
}

// cloudFrontEscapeKey escapes an object key for a request URI, one segment
// at a time. "+" is escaped too, since S3 may read a "+" in a path as a
// space.
func cloudFrontEscapeKey(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), "+", "%2B")
	}
	return strings.Join(segs, "/")
}
