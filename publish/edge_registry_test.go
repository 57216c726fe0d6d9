package publish

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// edgeRegistryName and edgeRegistryVersion name a registry document the
// example has none like: upper case and a byte outside ASCII in the name,
// build metadata ('+') in the version. edgeRegistryExtras publishes it
// beside each site's documents.
const (
	edgeRegistryName    = "Com.Example/Caf\u00e9_Weather"
	edgeRegistryVersion = "1.0.0+build.7"
)

// edgeRegistryExtras returns the registry documents of edgeRegistryName,
// at the keys spec.RegistryKey gives, as a build would make them.
func edgeRegistryExtras(t testing.TB) []output.Document {
	var docs []output.Document
	for _, route := range []string{
		spec.RegistryVersionsRoute(edgeRegistryName),
		spec.RegistryVersionRoute(edgeRegistryName, edgeRegistryVersion),
	} {
		body := fmt.Appendf(nil, "{\"route\":%q}\n", route)
		docs = append(docs, buildtest.Document(t, route, spec.ViewStandard, spec.ContentTypeJSON, body))
	}
	return docs
}

// edgeRegistryCORS are the headers every response of a registry route
// carries, at the edge as in serve (spec.RegistryCORSHeaders).
func edgeRegistryCORS(h map[string]string) map[string]string {
	out := map[string]string{}
	for _, kv := range spec.RegistryCORSHeaders() {
		out[kv[0]] = kv[1]
	}
	for k, v := range h {
		out[k] = v
	}
	return out
}

// edgeRegistry replays the requests of the MCP registry's clients (VS
// Code, Copilot CLI, a browser) through the edge in front of the site s,
// published with edgeRegistryExtras, and holds each answer to serve's:
// the document's bytes for every spelling of its route and any query,
// search included (a static registry gives the whole list), 304 on
// If-None-Match, the registry's 404, preflight and 405, and the registry's
// CORS headers on every one of them. It returns the requests it made with
// their statuses, in order.
func edgeRegistry(t *testing.T, client *http.Client, s *output.Site) []string {
	t.Helper()
	var replayed []string
	do := func(method, target string, header map[string]string) edgeExchange {
		x := edgeDo(t, client, method, target, header)
		replayed = append(replayed, fmt.Sprintf("%s %s %d", method, target, x.status))
		return x
	}
	docs := append(edgeRegistryExtras(t), s.Documents...)
	var list, latest output.Document
	for _, d := range docs {
		switch r, _ := spec.ParseRegistryPath(d.Route.Route); {
		case d.Route.Route == spec.RouteRegistry:
			list = d
		case r.Kind == spec.RegistryVersion && r.Version == spec.RegistryLatest && latest.Route.Route == "":
			latest = d
		}
	}
	if list.Route.Route == "" || latest.Route.Route == "" {
		t.Fatalf("site %s publishes no registry list or no latest version", s.Dir)
	}

	// 200: the document's bytes, whatever the spelling of its route and
	// the query; a strong ETag, and 304 on it.
	ok := func(what string, x edgeExchange, d output.Document) {
		t.Helper()
		if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, d)) {
			t.Errorf("%s: %d %.200q, want 200 and the %d bytes of %s", what, x.status, x.body, d.Body.Len(), d.Route.Route)
		}
		x.wantHeaders(t, what, edgeRegistryCORS(map[string]string{"Content-Type": d.ContentType, "Cache-Control": d.CacheControl}))
	}
	for _, d := range docs {
		route := d.Route.Route
		if !spec.IsRegistryRoute(route) {
			continue
		}
		x := do(http.MethodGet, route, nil)
		ok("GET "+route, x, d)
		etag := x.header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
			t.Errorf("GET %s: ETag %q is not a strong validator", route, etag)
		}
		x = do(http.MethodGet, route, map[string]string{"If-None-Match": etag})
		if x.status != http.StatusNotModified || len(x.body) != 0 {
			t.Errorf("GET %s, If-None-Match: %s: %d with %d bytes, want 304", route, etag, x.status, len(x.body))
		}
		x.wantHeaders(t, "304 of "+route, edgeRegistryCORS(map[string]string{"ETag": etag}))
		// The GET's transport asked for gzip, as it does not for a HEAD:
		// the same representation is asked for by hand.
		x = do(http.MethodHead, route, map[string]string{"Accept-Encoding": "gzip"})
		if x.status != http.StatusOK || len(x.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want 200 without a body", route, x.status, len(x.body))
		}
		x.wantHeaders(t, "HEAD "+route, edgeRegistryCORS(map[string]string{"Content-Type": d.ContentType, "ETag": etag}))
		for _, spelling := range []string{route + "/", strings.Replace(route, "%2F", "/", 1), route + "?limit=1"} {
			ok("GET "+spelling, do(http.MethodGet, spelling, nil), d)
		}
	}

	// VS Code's requests, search included, all get the whole list; its
	// lookup, and Copilot CLI's, get the latest version.
	for _, q := range []string{"?limit=1", "?limit=50&version=latest", "?limit=50&version=latest&search=weather", "?search=no-such-server", "?cursor=abc&updated_since=2025-01-01T00:00:00Z"} {
		ok("GET "+spec.RouteRegistry+q, do(http.MethodGet, spec.RouteRegistry+q, nil), list)
	}
	ok("Copilot CLI's lookup", do(http.MethodGet, latest.Route.Route, map[string]string{"Accept": "application/json"}), latest)
	ok("a browser's GET", do(http.MethodGet, spec.RouteRegistry, map[string]string{"Origin": "vscode-file://vscode-app"}), list)

	// The name and version of the extras as clients may spell them: the
	// version's '+' as %2B (encodeURIComponent), as %2b or as it is; the
	// name's '/' as %2F or as it is, its é escaped.
	extra := edgeRegistryExtras(t)[1]
	for _, spelling := range []string{
		"/v0.1/servers/Com.Example%2FCaf%C3%A9_Weather/versions/1.0.0%2Bbuild.7",
		"/v0.1/servers/Com.Example%2FCaf%C3%A9_Weather/versions/1.0.0%2bbuild.7",
		"/v0.1/servers/Com.Example/Caf%C3%A9_Weather/versions/1.0.0+build.7",
		"/v0.1/servers/Com.Example%2fCaf%c3%a9_Weather/versions/1.0.0+build.7/",
	} {
		ok("GET "+spelling, do(http.MethodGet, spelling, nil), extra)
	}

	// The browser's preflight, on any registry path.
	for _, p := range []string{spec.RouteRegistry, latest.Route.Route, "/v0.1/servers/bad"} {
		x := do(http.MethodOptions, p, map[string]string{
			"Origin": "vscode-file://vscode-app", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"})
		if x.status != http.StatusNoContent || len(x.body) != 0 {
			t.Errorf("OPTIONS %s: %d %q, want 204 without a body", p, x.status, x.body)
		}
		x.wantHeaders(t, "OPTIONS "+p, edgeRegistryCORS(map[string]string{"Allow": spec.AllowMethods, "Access-Control-Max-Age": spec.PreflightMaxAge}))
	}

	// Other methods: serve's 405, in the registry's error document.
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		x := do(m, spec.RouteRegistry, nil)
		want := spec.RegistryErrorBody(fmt.Sprintf("method %s is not allowed: use GET or HEAD", m))
		if x.status != http.StatusMethodNotAllowed || !bytes.Equal(x.body, want) {
			t.Errorf("%s %s: %d %q, want 405 %q", m, spec.RouteRegistry, x.status, x.body, want)
		}
		x.wantHeaders(t, m+" "+spec.RouteRegistry, edgeRegistryCORS(map[string]string{"Allow": spec.AllowMethods, "Content-Type": spec.ContentTypeJSON, "Cache-Control": spec.ErrorCacheControl}))
	}

	// A path that names no registry document: serve's 404, from the
	// function itself.
	for _, p := range []string{"/v0.1/servers/bad", "/v0.1/servers/com.example%2Fweather", "/v0.1/servers/a/b/c/versions"} {
		x := do(http.MethodGet, p, nil)
		if want := spec.RegistryErrorBody(spec.RegistryServerNotFound); x.status != http.StatusNotFound || !bytes.Equal(x.body, want) {
			t.Errorf("GET %s: %d %q, want 404 %q", p, x.status, x.body, want)
		}
		x.wantHeaders(t, "GET "+p, edgeRegistryCORS(map[string]string{"Content-Type": spec.ContentTypeJSON, "Cache-Control": spec.ErrorCacheControl}))
	}

	// A server or version the site does not have reaches S3: the 404
	// status, with the registry's CORS headers, and the site's error page
	// as the body (the report's gap registry-not-found).
	errorPage := ErrorDocument()
	name, _, _ := strings.Cut(strings.TrimPrefix(latest.Route.Route, spec.RouteRegistry+"/"), "/versions")
	for _, p := range []string{
		"/v0.1/servers/com.example%2Fno-such-server/versions/latest",
		"/v0.1/servers/com.example%2Fno-such-server/versions",
		"/v0.1/servers/" + name + "/versions/9.9.9",
		"/v0.1/servers/" + name + "/versions/9.9.9%2Bx",
	} {
		x := do(http.MethodGet, p, map[string]string{"Accept": "application/json"})
		if x.status != http.StatusNotFound || !bytes.Equal(x.body, buildtest.Body(t, errorPage)) {
			t.Errorf("GET %s: %d %q, want 404 with the error page", p, x.status, x.body)
		}
		x.wantHeaders(t, "GET "+p, edgeRegistryCORS(map[string]string{"Content-Type": spec.ContentTypeJSON, "Cache-Control": spec.ErrorCacheControl}))
	}
	if x := do(http.MethodHead, "/v0.1/servers/com.example%2Fno-such-server/versions/latest", nil); x.status != http.StatusNotFound || len(x.body) != 0 {
		t.Errorf("HEAD of an unknown server: %d with %d bytes, want 404 without a body", x.status, len(x.body))
	}

	// The registry's folder holds nothing else: the site's 404, with the
	// site's CORS headers, even for the list's own key.
	for _, p := range []string{"/v0.1/servers.json", "/v0.1/x.json"} {
		x := do(http.MethodGet, p, nil)
		if x.status != http.StatusNotFound || !strings.Contains(string(x.body), `"status":404`) {
			t.Errorf("GET %s: %d %q, want the site's JSON 404", p, x.status, x.body)
		}
		x.wantHeaders(t, "GET "+p, withCORS(map[string]string{"Content-Type": spec.ContentTypeJSON}))
	}
	return replayed
}
