package cloudfront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/edgetest"
)

// cloudFrontNodeTimeout bounds the node process that runs every event, and
// each event.
const cloudFrontNodeTimeout = 30 * time.Second

// cfRoute is one entry of a site's route table.
type cfRoute struct{ Route, View, Key string }

// cfSite is a site of the example catalog as the functions see it.
type cfSite struct {
	Name   string // tenant, or "public"
	Dir    string // the site's folder in the build output
	Routes []cfRoute
}

// cloudFrontExampleSites builds the example catalog and returns its sites.
func cloudFrontExampleSites(t *testing.T) []cfSite {
	t.Helper()
	b := buildtest.Example(t)
	var sites []cfSite
	for _, s := range b.Sites {
		site := cfSite{Name: s.Tenant, Dir: s.Dir}
		if site.Name == "" {
			site.Name = "public"
		}
		for _, d := range s.Documents {
			if spec.IsRegistryRoute(d.Route.Route) {
				continue // the functions do not route the registry yet
			}
			site.Routes = append(site.Routes, cfRoute{Route: d.Route.Route, View: d.View, Key: d.Key})
		}
		sites = append(sites, site)
	}
	return sites
}

// otherRoutes returns the site's routes outside the tool catalog, sorted.
func (s cfSite) otherRoutes() []string {
	var out []string
	for _, r := range s.Routes {
		if r.Route != "/tools" && !strings.HasPrefix(r.Route, "/tools/") && !slices.Contains(out, r.Route) {
			out = append(out, r.Route)
		}
	}
	slices.Sort(out)
	return out
}

// compact reports whether the site serves the compact view.
func (s cfSite) compact() bool {
	return slices.ContainsFunc(s.Routes, func(r cfRoute) bool { return r.View == "compact" })
}

// key returns the key that answers route in view: the compact document
// when the site has one, else the standard one.
func (s cfSite) key(route, view string) string {
	std := ""
	for _, r := range s.Routes {
		if r.Route != route {
			continue
		}
		if view == "compact" && r.View == "compact" {
			return r.Key
		}
		if r.View == "standard" {
			std = r.Key
		}
	}
	return std
}

// The headers every answer carries.
var cfCORS = map[string]string{
	"access-control-allow-origin":   "*",
	"access-control-allow-methods":  "GET, HEAD, OPTIONS",
	"access-control-allow-headers":  "Authorization, Content-Type, If-None-Match",
	"access-control-expose-headers": "ETag",
}

// The headers every answer of a route of the MCP registry carries
// (spec.RegistryCORSHeaders).
var cfRegistryCORS = registryCORS()

func registryCORS() map[string]string {
	h := map[string]string{}
	for _, kv := range spec.RegistryCORSHeaders() {
		h[strings.ToLower(kv[0])] = kv[1]
	}
	return h
}

// cfHeaders returns CloudFront-shaped headers: the CORS ones when cors is
// set, and extra.
func cfHeaders(cors bool, extra map[string]string) map[string]any {
	if !cors {
		return cfHeadersWith(nil, extra)
	}
	return cfHeadersWith(cfCORS, extra)
}

// cfHeadersWith returns CloudFront-shaped headers: the set cors, then
// extra.
func cfHeadersWith(cors, extra map[string]string) map[string]any {
	h := map[string]any{}
	for k, v := range cors {
		h[k] = map[string]any{"value": v}
	}
	for k, v := range extra {
		h[k] = map[string]any{"value": v}
	}
	return h
}

// cfQuery returns a CloudFront-shaped query string of one parameter: one
// value, or several (multiValue, with value holding the first).
func cfQuery(name string, values ...string) map[string]any {
	p := map[string]any{"value": values[0]}
	if len(values) > 1 {
		var mv []any
		for _, v := range values {
			mv = append(mv, map[string]any{"value": v})
		}
		p["multiValue"] = mv
	}
	return map[string]any{name: p}
}

// cfRequestEvent returns a viewer-request event.
func cfRequestEvent(method, uri string, query map[string]any) map[string]any {
	if query == nil {
		query = map[string]any{}
	}
	return map[string]any{
		"version": "1.0",
		"context": map[string]any{
			"distributionDomainName": "d111111abcdef8.cloudfront.net",
			"distributionId":         "EDFDVBD6EXAMPLE",
			"eventType":              "viewer-request",
			"requestId":              "4TyzHTaYWb1GX1qTfsHhEqV6HUDd_BzoBZnwfnvQc_1oF26ClkoUSEQ==",
		},
		"viewer": map[string]any{"ip": "198.51.100.11"},
		"request": map[string]any{
			"method":      method,
			"uri":         uri,
			"querystring": query,
			"headers": cfHeaders(false, map[string]string{
				"host":   "discovery.example.com",
				"accept": "application/json",
			}),
			"cookies": map[string]any{},
		},
	}
}

// cfForwarded is what the viewer-request function returns for a request it
// lets through: the same request, at uri, without its query string.
func cfForwarded(event map[string]any, uri string) map[string]any {
	req := map[string]any{}
	for k, v := range event["request"].(map[string]any) {
		req[k] = v
	}
	req["uri"] = uri
	req["querystring"] = map[string]any{}
	return req
}

// cfError is the response the viewer-request function generates for an
// error: the JSON body of `signpost serve` (serve.writeError), none for
// HEAD.
func cfError(method string, status int, text, message string, extra map[string]string) map[string]any {
	h := map[string]string{"content-type": "application/json", "cache-control": "no-store"}
	for k, v := range extra {
		h[k] = v
	}
	res := map[string]any{"statusCode": status, "statusDescription": text, "headers": cfHeaders(true, h)}
	if method != "HEAD" {
		var e struct {
			Error struct {
				Status  int    `json:"status"`
				Message string `json:"message"`
			} `json:"error"`
		}
		e.Error.Status, e.Error.Message = status, message
		body, _ := json.Marshal(e)
		res["body"] = map[string]any{"encoding": "text", "data": string(body) + "\n"}
	}
	return res
}

// cfRegistryError is the response the viewer-request function generates
// for an error on a route of the MCP registry: the registry's error
// document of `signpost serve` (spec.RegistryErrorBody) and the registry's
// CORS headers, no body for HEAD.
func cfRegistryError(method string, status int, text, message string, extra map[string]string) map[string]any {
	h := map[string]string{"content-type": "application/json", "cache-control": "no-store"}
	for k, v := range extra {
		h[k] = v
	}
	res := map[string]any{"statusCode": status, "statusDescription": text, "headers": cfHeadersWith(cfRegistryCORS, h)}
	if method != "HEAD" {
		res["body"] = map[string]any{"encoding": "text", "data": string(spec.RegistryErrorBody(message))}
	}
	return res
}

// cfResponseEvent returns a viewer-response event for a request to uri
// (already rewritten) answered by the origin with status and headers.
func cfResponseEvent(uri string, status int, text string, headers map[string]any) map[string]any {
	ev := cfRequestEvent("GET", uri, nil)
	ev["context"].(map[string]any)["eventType"] = "viewer-response"
	ev["response"] = map[string]any{"statusCode": status, "statusDescription": text, "headers": headers}
	return ev
}

// cfCase is one event for one function, and the exact result it must give.
type cfCase struct {
	name     string
	function string // a key of the functions map
	event    map[string]any
	want     any
}

// startFunctions starts node with functions and the key value store
// store (nil for none), and stops it when the test ends. Without node it
// skips the test, or fails it in CI.
func startFunctions(ctx context.Context, t *testing.T, functions map[string][]byte, store map[string]string) *edgetest.Functions {
	t.Helper()
	fns, err := edgetest.StartFunctionsWithStore(ctx, functions, store)
	if errors.Is(err, edgetest.ErrNoNode) {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is needed to test the CloudFront Functions: %v", err)
		}
		t.Skipf("node not found, CloudFront Functions not run: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fns.Close() })
	return fns
}

// runCloudFront runs every case under node, in one process, and checks each
// result.
func runCloudFront(t *testing.T, functions map[string][]byte, cases []cfCase) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), cloudFrontNodeTimeout)
	defer cancel()
	fns := startFunctions(ctx, t, functions, nil)
	for _, c := range cases {
		result, logs, err := fns.Run(ctx, c.function, c.event, cloudFrontNodeTimeout)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got any
		if err := json.Unmarshal(result, &got); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(roundTrip(t, c.want), got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		if len(logs) > 0 {
			t.Errorf("%s: the function logged %q", c.name, logs)
		}
	}
}

// cfKeyPrefix is the URI prefix of the objects of a site under prefix.
func cfKeyPrefix(prefix string) string {
	if prefix == "" {
		return "/"
	}
	return "/" + prefix + "/"
}

// acceptCases are values of Accept-Encoding and the suffix of the variant
// the viewer-request function picks for each, as spec.AcceptsEncoding
// reads them (TestAcceptCasesFollowSpec), brotli first.
var acceptCases = []struct{ accept, suffix string }{
	{"gzip", ".gz"}, {"br", ".br"}, {"gzip, deflate, br, zstd", ".br"}, {"BR;q=0.5, gzip;q=1", ".br"},
	{"br;q=0, gzip", ".gz"}, {"br;q=0", ""}, {"*", ".br"}, {"gzip;q=0", ""}, {"identity", ""}, {"deflate", ""}, {"", ""},
	{"br;q=0, *", ".gz"}, {"gzip;q=0, br;q=0, *", ""}, {"br;q=0.000, gzip;q=0.001", ".gz"}, {" , gzip ; Q=0.5 ,", ".gz"},
	{"br;q=abc, gzip", ".gz"}, {"br;q=0.0001, gzip", ".gz"}, {"br;q=2", ""}, {"br;level=9", ""}, {"br;q=1., gzip", ".br"},
	{"constructor, __proto__;q=1, gzip", ".gz"},
}

// TestAcceptCasesFollowSpec checks that the cases the function is held to
// are what spec.AcceptsEncoding, which serve applies, says of each header:
// the two read Accept-Encoding by one rule.
func TestAcceptCasesFollowSpec(t *testing.T) {
	for _, c := range acceptCases {
		want := ""
		if spec.AcceptsEncoding([]string{c.accept}, spec.EncodingBrotli) {
			want = ".br"
		} else if spec.AcceptsEncoding([]string{c.accept}, spec.EncodingGzip) {
			want = ".gz"
		}
		if want != c.suffix {
			t.Errorf("Accept-Encoding %q: spec.AcceptsEncoding picks %q, the case says %q", c.accept, want, c.suffix)
		}
	}
}

// viewerRequestCases returns the events of the contract for a site
// published under prefix, with the function named fn.
func viewerRequestCases(site cfSite, prefix, fn string) []cfCase {
	kp := cfKeyPrefix(prefix)
	var cases []cfCase
	forward := func(name string, ev map[string]any, key string) {
		cases = append(cases, cfCase{name: fn + ": " + name, function: fn, event: ev, want: cfForwarded(ev, kp+key)})
	}
	fail := func(name string, ev map[string]any, want map[string]any) {
		cases = append(cases, cfCase{name: fn + ": " + name, function: fn, event: ev, want: want})
	}
	notFound := func(method, message string) map[string]any {
		return cfError(method, 404, "Not Found", message, nil)
	}

	// Every route of the route table, in both views, and with a view that
	// is neither.
	var seen []string
	for _, r := range site.Routes {
		if slices.Contains(seen, r.Route) {
			continue
		}
		seen = append(seen, r.Route)
		forward("GET "+r.Route, cfRequestEvent("GET", r.Route, nil), site.key(r.Route, "standard"))
		forward("GET "+r.Route+"?view=compact", cfRequestEvent("GET", r.Route, cfQuery("view", "compact")), site.key(r.Route, "compact"))
		forward("GET "+r.Route+"?view=full", cfRequestEvent("GET", r.Route, cfQuery("view", "full")), site.key(r.Route, "standard"))
		forward("HEAD "+r.Route+"?view=compact", cfRequestEvent("HEAD", r.Route, cfQuery("view", "compact")), site.key(r.Route, "compact"))
	}
	if len(seen) == 0 {
		return nil
	}
	compact := site.key("/tools", "compact")

	// The view parameter: first value wins, escapes are decoded, other
	// parameters are dropped too.
	forward("view=compact&view=full", cfRequestEvent("GET", "/tools", cfQuery("view", "compact", "full")), compact)
	forward("view=full&view=compact", cfRequestEvent("GET", "/tools", cfQuery("view", "full", "compact")), "tools.json")
	forward("view=%63ompact", cfRequestEvent("GET", "/tools", cfQuery("view", "%63ompact")), compact)
	forward("%76iew=compact", cfRequestEvent("GET", "/tools", cfQuery("%76iew", "compact")), compact)
	forward("view=%zz", cfRequestEvent("GET", "/tools", cfQuery("view", "%zz")), "tools.json")
	forward("view=", cfRequestEvent("GET", "/tools", cfQuery("view", "")), "tools.json")
	forward("view=COMPACT", cfRequestEvent("GET", "/tools", cfQuery("view", "COMPACT")), "tools.json")
	both := cfQuery("lang", "en")
	both["view"] = map[string]any{"value": "compact"}
	forward("lang=en&view=compact", cfRequestEvent("GET", "/tools", both), compact)

	// Accept-Encoding picks the precompressed variant of the documents
	// that always have one (spec.AlwaysPrecompressed), brotli first, as
	// spec.AcceptsEncoding reads it; never of a tool's document, which
	// CloudFront compresses itself.
	encoded := func(uri string, query map[string]any, accept string) map[string]any {
		ev := cfRequestEvent("GET", uri, query)
		req := ev["request"].(map[string]any)
		req["headers"].(map[string]any)["accept-encoding"] = map[string]any{"value": accept}
		return ev
	}
	for _, c := range acceptCases {
		forward("GET /tools, Accept-Encoding "+c.accept, encoded("/tools", nil, c.accept), "tools.json"+c.suffix)
		forward("GET /tools?view=compact, Accept-Encoding "+c.accept, encoded("/tools", cfQuery("view", "compact"), c.accept), compact+c.suffix)
	}
	for _, r := range seen {
		suffix := ""
		if spec.AlwaysPrecompressed(r) {
			suffix = ".br"
		}
		forward("GET "+r+", Accept-Encoding br", encoded(r, nil, "gzip, br"), site.key(r, "standard")+suffix)
	}

	// A toolId that is well formed but not in the catalog goes to S3, whose
	// 403 the viewer-response function (or the custom error response) turns
	// into a 404.
	forward("unknown toolId", cfRequestEvent("GET", "/tools/no_such_tool", nil), "tools/no_such_tool.json")
	unknownCompact := "tools/no_such_tool.json"
	if site.compact() {
		unknownCompact = "tools/no_such_tool.compact.json"
	}
	forward("unknown toolId, compact", cfRequestEvent("GET", "/tools/no_such_tool", cfQuery("view", "compact")), unknownCompact)
	long := strings.Repeat("a", 48)
	forward("toolId of 48 characters", cfRequestEvent("GET", "/tools/"+long, nil), "tools/"+long+".json")
	forward("escaped toolId", cfRequestEvent("GET", "/tools/get%5Fforecast", nil), "tools/get_forecast.json")
	if len(site.otherRoutes()) > 0 {
		r := site.otherRoutes()[0]
		escaped := strings.Replace(r, ".", "%2E", 1)
		forward("escaped route "+escaped, cfRequestEvent("GET", escaped, nil), site.key(r, "standard"))
	}

	// Ids that cannot be toolIds, paths that are no route, and the object
	// keys themselves: answered here, never asked of S3.
	for _, c := range []struct{ uri, message string }{
		{"/tools/Get-Forecast", `no tool "Get-Forecast" in this catalog`},
		{"/tools/get_forecast.json", `no tool "get_forecast.json" in this catalog`},
		{"/tools/" + long + "a", `no tool "` + long + `a" in this catalog`},
		{"/tools/..%2Fx", `nothing at "/tools/../x"`},
		{"/tools/a/b", `nothing at "/tools/a/b"`},
		{"/tools/", `nothing at "/tools/"`},
		{"/tools/%zz", `nothing at "/tools/%zz"`},
		{"/nope", `nothing at "/nope"`},
		{"/", `nothing at "/"`},
		{"/tools.json", `nothing at "/tools.json"`},
		{"/tools.compact.json", `nothing at "/tools.compact.json"`},
		{"/__proto__", `nothing at "/__proto__"`},
		{"/.well-known/mcp/catalog.json/", `nothing at "/.well-known/mcp/catalog.json/"`},
	} {
		fail("GET "+c.uri, cfRequestEvent("GET", c.uri, nil), notFound("GET", c.message))
		fail("GET "+c.uri+"?view=compact", cfRequestEvent("GET", c.uri, cfQuery("view", "compact")), notFound("GET", c.message))
	}
	// Paths that could be a document's but name no object go to S3, whose
	// 403 becomes the 404: the function knows no document by name.
	for _, r := range site.otherRoutes() {
		dir, file := r[:strings.LastIndex(r, "/")+1], r[strings.LastIndex(r, "/")+1:]
		for _, key := range []string{dir + "nope.json", dir + file[1:], r + "/x.json"} {
			if !slices.Contains(site.otherRoutes(), key) {
				forward("GET "+key, cfRequestEvent("GET", key, nil), key[1:])
			}
		}
		if uri := dir + file[:len(file)-1]; !slices.Contains(site.otherRoutes(), uri) {
			fail("GET "+uri, cfRequestEvent("GET", uri, nil), notFound("GET", fmt.Sprintf("nothing at %q", uri)))
		}
	}
	// Paths that cannot be a document's: answered here.
	for _, uri := range []string{
		"/.signpost-manifest.json", "/.SIGNPOST-404.json", "/a/.signpost-invalidation.json",
		"/a/../tools.json", "/a/%2E%2E/tools.json", "/./x.json", "/a//b.json", "/a%2Fb.json/", "/caf%C3%A9.json",
		"/a b.json", "/a%20b.json", "/a+b.json", "/" + strings.Repeat("a", 1020) + ".json", "/x.JSON",
	} {
		path := uri
		if p, err := url.PathUnescape(uri); err == nil {
			path = p
		}
		fail("GET "+uri, cfRequestEvent("GET", uri, nil), notFound("GET", fmt.Sprintf("nothing at %q", path)))
	}
	fail("HEAD /nope", cfRequestEvent("HEAD", "/nope", nil), notFound("HEAD", `nothing at "/nope"`))
	fail("HEAD /tools/Bad", cfRequestEvent("HEAD", "/tools/Bad", nil), notFound("HEAD", `no tool "Bad" in this catalog`))

	// Methods: OPTIONS is a preflight wherever it goes; the others are not
	// allowed, wherever they go.
	preflight := map[string]any{"statusCode": 204, "statusDescription": "No Content",
		"headers": cfHeaders(true, map[string]string{"access-control-max-age": "86400", "allow": "GET, HEAD, OPTIONS"})}
	for _, uri := range []string{"/tools", "/tools/get_forecast", "/nope"} {
		ev := cfRequestEvent("OPTIONS", uri, cfQuery("view", "compact"))
		ev["request"].(map[string]any)["headers"].(map[string]any)["access-control-request-method"] = map[string]any{"value": "GET"}
		fail("OPTIONS "+uri, ev, preflight)
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		for _, uri := range []string{"/tools", "/nope"} {
			fail(m+" "+uri, cfRequestEvent(m, uri, nil),
				cfError(m, 405, "Method Not Allowed", "method "+m+" is not allowed: use GET or HEAD", map[string]string{"allow": "GET, HEAD, OPTIONS"}))
		}
	}
	return cases
}

// viewerResponseCases returns the responses of S3 (and CloudFront) the
// viewer-response function named fn must complete.
func viewerResponseCases(prefix, fn string) []cfCase {
	kp := cfKeyPrefix(prefix)
	doc := map[string]string{
		"content-type":   "application/json",
		"cache-control":  "public, max-age=3600",
		"etag":           `"0f343b0931126a20f133d67c2b018a3b"`,
		"last-modified":  "Mon, 30 Nov 2026 06:00:00 GMT",
		"content-length": "1234",
	}
	// Every response also varies with Accept-Encoding: which object answers
	// does (the precompressed variants).
	withCORS := func(h map[string]string) map[string]any {
		return cfHeaders(true, maps.Collect(func(yield func(string, string) bool) {
			for k, v := range h {
				yield(k, v)
			}
			yield("vary", "Accept-Encoding")
		}))
	}
	resp := func(status int, text string, h map[string]any) map[string]any {
		return map[string]any{"statusCode": status, "statusDescription": text, "headers": h}
	}
	s3Error := map[string]string{"content-type": "application/xml", "server": "AmazonS3"}
	// S3 answers CORS itself to requests with an Origin; ours replace its.
	s3CORS := map[string]string{"access-control-allow-origin": "*", "access-control-allow-methods": "GET", "vary": "Origin"}
	return []cfCase{
		{fn + ": 200", fn, cfResponseEvent(kp+"tools.json", 200, "OK", cfHeaders(false, doc)), resp(200, "OK", withCORS(doc))},
		{fn + ": 304", fn, cfResponseEvent(kp+"tools.json", 304, "Not Modified", cfHeaders(false, map[string]string{"etag": doc["etag"]})),
			resp(304, "Not Modified", withCORS(map[string]string{"etag": doc["etag"]}))},
		{fn + ": 200 with S3's CORS", fn, cfResponseEvent(kp+"tools.json", 200, "OK", cfHeaders(false, s3CORS)),
			resp(200, "OK", withCORS(map[string]string{"vary": "Origin"}))},
		{fn + ": 403 from S3", fn, cfResponseEvent(kp+"tools/no_such_tool.json", 403, "Forbidden", cfHeaders(false, s3Error)),
			resp(404, "Not Found", withCORS(s3Error))},
		{fn + ": 404 from S3", fn, cfResponseEvent(kp+"tools/no_such_tool.json", 404, "Not Found", cfHeaders(false, s3Error)),
			resp(404, "Not Found", withCORS(s3Error))},
		{fn + ": 500", fn, cfResponseEvent(kp+"tools.json", 500, "Internal Server Error", cfHeaders(false, s3Error)),
			resp(500, "Internal Server Error", withCORS(s3Error))},
	}
}

// checkCloudFrontSource checks what CloudFront checks before it runs a
// function, and what the runtime does not offer.
func checkCloudFrontSource(t *testing.T, name string, src []byte) {
	t.Helper()
	if len(src) > MaxSize {
		t.Errorf("%s: %d bytes, more than CloudFront's %d", name, len(src), MaxSize)
	}
	if !bytes.Contains(src, []byte("\nfunction handler(event) {\n")) {
		t.Errorf("%s: no top-level function handler(event)", name)
	}
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`\brequire\s*\(`), regexp.MustCompile(`(?m)^\s*import\b`), regexp.MustCompile(`\bexport\b`),
		regexp.MustCompile(`\basync\b`), regexp.MustCompile(`\bawait\b`), regexp.MustCompile(`\{\{|\}\}`),
	} {
		if loc := re.FindIndex(src); loc != nil {
			t.Errorf("%s: %q is not for cloudfront-js-2.0 (or is a template left over)", name, src[loc[0]:loc[1]])
		}
	}
	for i, line := range strings.Split(string(src), "\n") {
		if strings.TrimRight(line, " \t") != line {
			t.Errorf("%s:%d: trailing space", name, i+1)
		}
	}
}

// TestCloudFrontFunctions runs the functions generated for every site of
// the example catalog, under the site's own prefix and under none (a
// distribution whose origin path is the site's folder), against
// CloudFront-shaped events.
func TestCloudFrontFunctions(t *testing.T) {
	sites := cloudFrontExampleSites(t)
	functions := map[string][]byte{}
	var cases []cfCase
	type variant struct {
		site   cfSite
		prefix string
	}
	variants := []variant{{sites[0], ""}}
	for _, s := range sites {
		variants = append(variants, variant{s, s.Dir})
	}
	for _, v := range variants {
		req, resp := Code(v.prefix, v.site.compact(), nil)
		name := v.site.Name + " under " + cfKeyPrefix(v.prefix)
		checkCloudFrontSource(t, name+" viewer-request", req)
		checkCloudFrontSource(t, name+" viewer-response", resp)
		t.Logf("%s: viewer-request %d bytes, viewer-response %d bytes", name, len(req), len(resp))
		functions[name+" viewer-request"] = req
		functions[name+" viewer-response"] = resp
		cases = append(cases, viewerRequestCases(v.site, v.prefix, name+" viewer-request")...)
		cases = append(cases, viewerResponseCases(v.prefix, name+" viewer-response")...)
	}
	runCloudFront(t, functions, cases)
}

// TestCloudFrontFunctionsWithoutCompactView checks that a site without the
// compact view answers ?view=compact with the standard documents.
func TestCloudFrontFunctionsWithoutCompactView(t *testing.T) {
	site := cfSite{Name: "plain", Routes: []cfRoute{
		{"/.well-known/ai-catalog.json", "standard", ".well-known/ai-catalog.json"},
		{"/tools", "standard", "tools.json"},
		{"/tools/get_forecast", "standard", "tools/get_forecast.json"},
	}}
	req, resp := Code("sites/plain", false, nil)
	checkCloudFrontSource(t, "viewer-request", req)
	cases := viewerRequestCases(site, "sites/plain", "viewer-request")
	cases = append(cases, viewerResponseCases("sites/plain", "viewer-response")...)
	runCloudFront(t, map[string][]byte{"viewer-request": req, "viewer-response": resp}, cases)
}

// TestDocumentKey checks the Go rule against the function's: every path
// runs through both.
func TestDocumentKey(t *testing.T) {
	req, resp := Code("/tenants/acme/", true, nil)
	checkCloudFrontSource(t, "viewer-request", req)
	if !bytes.Contains(req, []byte(`var KEY_PREFIX = "/tenants/acme/";`)) {
		t.Errorf("KEY_PREFIX not /tenants/acme/:\n%s", req)
	}
	paths := []struct {
		path string
		ok   bool
	}{
		{"/.well-known/mcp/servers/com.example/weather.json", true},
		{"/cards/a~b_c-d.e.json", true},
		{"/tool-catalogue.json", true},
		{"/toolsx.json", true},
		{"/x.json", true},
		{"/tools.json", false},
		{"/tools.compact.json", false},
		{"/.signpost-manifest.json", false},
		{"/a/.Signpost-404.json", false},
		{"/a/../b.json", false},
		{"/./b.json", false},
		{"/a//b.json", false},
		{"/a b.json", false},
		{"/a+b.json", false},
		{"/caf\u00e9.json", false},
		{"/x.JSON", false},
		{"/x", false},
		{"/", false},
		{"relative.json", false},
		{"/" + strings.Repeat("a", 1018) + ".json", true},
		{"/" + strings.Repeat("a", 1019) + ".json", false},
	}
	fn := "viewer-request"
	var cases []cfCase
	for _, p := range paths {
		key, ok := hosts.DocumentKey(p.path)
		if ok != p.ok || ok && key != p.path[1:] {
			t.Errorf("DocumentKey(%q) = %q, %v; want ok %v", p.path, key, ok, p.ok)
		}
		if !strings.HasPrefix(p.path, "/") {
			continue
		}
		ev := cfRequestEvent("GET", (&url.URL{Path: p.path}).EscapedPath(), nil)
		want := cfError("GET", 404, "Not Found", fmt.Sprintf("nothing at %q", p.path), nil)
		if p.ok {
			want = cfForwarded(ev, "/tenants/acme/"+p.path[1:])
		}
		cases = append(cases, cfCase{p.path, fn, ev, want})
	}
	runCloudFront(t, map[string][]byte{fn: req, "viewer-response": resp}, cases)
}

// TestCloudFrontFunctionsDeterministic checks that the output depends only
// on the arguments.
func TestCloudFrontFunctionsDeterministic(t *testing.T) {
	req1, resp1 := Code("p", true, nil)
	req2, resp2 := Code("p", true, nil)
	if !bytes.Equal(req1, req2) || !bytes.Equal(resp1, resp2) {
		t.Errorf("output varies:\n%s\n---\n%s", req1, req2)
	}
	req3, _ := Code("q", true, nil)
	if bytes.Equal(req1, req3) {
		t.Error("the prefix does not change the viewer-request function")
	}
}

// TestCloudFrontFunctionsSize checks that the functions fit in CloudFront's
// 10 KB whatever the catalog: the example's sites, and a site of 1,000
// servers and 10,000 tools, which gets the very same code.
func TestCloudFrontFunctionsSize(t *testing.T) {
	b := buildtest.Example(t)
	target := &target.S3{Bucket: "b", Prefix: "sites"}
	for _, s := range b.Sites {
		req, resp, err := Functions(s, target, true)
		if err != nil {
			t.Fatal(err)
		}
		checkCloudFrontSource(t, s.Dir+" viewer-request", req)
		checkCloudFrontSource(t, s.Dir+" viewer-response", resp)
	}
	big := &output.Site{Tenant: "example-tenant", Dir: "tenants/example-tenant"}
	big.Documents = append(big.Documents, b.Sites[0].Documents...)
	for i := range 1000 {
		for _, dir := range []string{"/.well-known/mcp/servers/", "/.well-known/mcp/server-cards/"} {
			route := fmt.Sprintf("%scom.example-corp/server-%04d.json", dir, i)
			big.Documents = append(big.Documents, output.Document{Route: output.Route{Route: route, Key: route[1:]}})
		}
	}
	for i := range 1000 {
		name := fmt.Sprintf("com.example-corp/server-%04d", i)
		for _, route := range []string{spec.RegistryVersionsRoute(name), spec.RegistryVersionRoute(name, "1.0.0"), spec.RegistryVersionRoute(name, spec.RegistryLatest)} {
			key, _ := spec.RegistryKey(route)
			big.Documents = append(big.Documents, output.Document{Route: output.Route{Route: route, Key: key}})
		}
	}
	for i := range 10000 {
		id := fmt.Sprintf("tool_%05d", i)
		big.Documents = append(big.Documents, output.Document{Route: output.Route{Route: "/tools/" + id, Key: "tools/" + id + ".json"}})
	}
	bigReq, bigResp, err := Functions(big, target, true)
	if err != nil {
		t.Fatal(err)
	}
	smallReq, smallResp := Code(target.SitePrefix(big), true, nil)
	if !bytes.Equal(bigReq, smallReq) || !bytes.Equal(bigResp, smallResp) {
		t.Error("the functions depend on the site's documents")
	}
	t.Logf("viewer-request %d bytes, viewer-response %d bytes", len(bigReq), len(bigResp))
	checkCloudFrontSource(t, "viewer-request", bigReq)

	// A gated site's functions, the largest, with a tenant name of the
	// longest a tenant may have, fit too.
	gated := *big
	gated.Tenant = strings.Repeat("t", 63)
	gated.Dir = "tenants/" + gated.Tenant
	gated.Access.Token, gated.Access.PublicDiscovery = true, true
	gatedReq, gatedResp, err := Functions(&gated, target, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gated: viewer-request %d bytes, viewer-response %d bytes", len(gatedReq), len(gatedResp))
	for name, code := range map[string][]byte{"gated viewer-request": gatedReq, "gated viewer-response": gatedResp} {
		if len(code) > MaxSize {
			t.Errorf("%s: %d bytes, more than CloudFront's %d", name, len(code), MaxSize)
		}
	}

	for _, d := range []output.Document{
		{Route: output.Route{Route: "/a b.json", Key: "a b.json"}},
		{Route: output.Route{Route: "/v0.1/servers", Key: "v0.1/servers"}},
		{Route: output.Route{Route: "/v0.1/servers/com.example%2Fweather/versions", Key: "v0.1/servers/com.example%2Fweather/versions.json"}},
		{Route: output.Route{Route: "/v0.1/x.json", Key: "v0.1/x.json"}},
		{Route: output.Route{Route: "/V0.1/servers.json", Key: "V0.1/servers.json"}},
	} {
		bad := &output.Site{Dir: "x", Documents: []output.Document{d}}
		if _, _, err := Functions(bad, target, true); err == nil || !strings.Contains(err.Error(), "cannot serve "+d.Route.Route) {
			t.Errorf("%s at %s, which the functions cannot serve: err = %v", d.Route.Route, d.Key, err)
		}
	}
}

// roundTrip is v through JSON, as node's result is compared: numbers as
// float64.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// registryPaths are paths of the MCP registry, as clients send them
// (escaped), that the viewer-request function is held to
// spec.ParseRegistryPath and spec.RegistryKey on: the requests of VS Code,
// Copilot CLI and browsers, a name as one segment holding %2F or as two, a
// version's '+' as %2B or as it is, every byte a key escapes, a trailing
// slash, and paths that name no document of the registry.
var registryPaths = []string{
	"/v0.1/servers",
	"/v0.1/servers/",
	"/v0.1/servers/com.example%2Fweather/versions",
	"/v0.1/servers/com.example%2Fweather/versions/",
	"/v0.1/servers/com.example%2fweather/versions",
	"/v0.1/servers/com.example/weather/versions",
	"/v0.1/servers/com.example/weather/versions/",
	"/v0.1/servers/com.example%2Fweather/versions/latest",
	"/v0.1/servers/com.example%2Fweather/versions/latest/",
	"/v0.1/servers/com.example/weather/versions/latest",
	"/v0.1/servers/com.example%2Fweather/versions/2.3.1",
	"/v0.1/servers/com%2Eexample%2Fweather/versions/2%2E3%2E1",
	"/v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7",
	"/v0.1/servers/com.example%2Fweather/versions/1.0.0+build.7",
	"/v0.1/servers/com.example%2Fweather/versions/1.0.0%2bbuild.7",
	"/v0.1/servers/Com.Example%2FWeather/versions/latest",
	"/v0.1/servers/COM.EXAMPLE/WEATHER/versions",
	"/v0.1/servers/io.github.some_user%2Fmy-server/versions/latest",
	"/v0.1/servers/com.example%2F.hidden/versions/.1",
	"/v0.1/servers/com.example%2Fcaf%C3%A9/versions",
	"/v0.1/servers/com.example%2Fcaf\u00e9/versions",
	"/v0.1/servers/com.example%2F%FF%00/versions/%20",
	"/v0.1/servers/com.example%2F~a%21/versions/(1)",
	"/v0.1/servers/%2Fweather/versions",
	// Not one of the registry's documents: the registry's 404.
	"/v0.1/servers//",
	"/v0.1/servers/com.example",
	"/v0.1/servers/com.example%2Fweather",
	"/v0.1/servers/com.example/weather",
	"/v0.1/servers/com.example/versions",
	"/v0.1/servers/com.example%2Fweather/latest",
	"/v0.1/servers/com.example%2Fweather/versions/latest/x",
	"/v0.1/servers/com.example%2Fweather/versions//",
	"/v0.1/servers/com.example%2Fweather%2Fx/versions",
	"/v0.1/servers/a%2Fb/c/versions",
	"/v0.1/servers/com.example//weather/versions",
	"/v0.1/servers/com.example%2Fweather/Versions",
	"/v0.1/servers/com.example%2Fweather/versions/%zz",
	"/v0.1/servers/com.example%2Fweather/versions/%2",
	"/v0.1/servers/%E0%A4%A/versions",
}

// cfQueryOf returns a CloudFront-shaped query string of name, value pairs,
// one value each.
func cfQueryOf(pairs ...string) map[string]any {
	q := map[string]any{}
	for i := 0; i+1 < len(pairs); i += 2 {
		q[pairs[i]] = map[string]any{"value": pairs[i+1]}
	}
	return q
}

// registryRequestCases returns the events of the MCP registry for a site
// published under prefix, with the function named fn: every registry
// document of the site as its clients send for it, registryPaths, the
// paths of the registry's folder that are not its routes, preflights and
// other methods.
func registryRequestCases(site *output.Site, prefix, fn string) []cfCase {
	kp := cfKeyPrefix(prefix)
	var cases []cfCase
	add := func(name string, ev, want map[string]any) {
		cases = append(cases, cfCase{name: fn + ": " + name, function: fn, event: ev, want: want})
	}
	notFound := func(method string) map[string]any {
		return cfRegistryError(method, 404, "Not Found", spec.RegistryServerNotFound, nil)
	}

	// Every document, as VS Code, Copilot CLI and a browser ask for it:
	// the query is dropped, whatever it says.
	for _, d := range site.Documents {
		route := d.Route.Route
		if !spec.IsRegistryRoute(route) {
			continue
		}
		for _, v := range []struct {
			method, uri string
			query       map[string]any
		}{
			{"GET", route, nil},
			{"HEAD", route, nil},
			{"GET", route + "/", nil},
			{"GET", strings.Replace(route, "%2F", "/", 1), nil},
			{"GET", route, cfQueryOf("limit", "1")},
			{"GET", route, cfQueryOf("limit", "50", "version", "latest")},
			{"GET", route, cfQueryOf("limit", "50", "version", "latest", "search", "weather")},
			{"GET", route, cfQueryOf("search", "no-such-server", "cursor", "x", "updated_since", "2025-01-01T00:00:00Z")},
			{"GET", route, cfQuery("view", "compact")},
		} {
			ev := cfRequestEvent(v.method, v.uri, v.query)
			add(fmt.Sprintf("%s %s %v", v.method, v.uri, v.query), ev, cfForwarded(ev, kp+d.Key))
		}
	}

	// Each path, held to Go's rule: the key of spec.RegistryKey, or the
	// registry's 404.
	for _, p := range registryPaths {
		for _, method := range []string{"GET", "HEAD"} {
			ev := cfRequestEvent(method, p, cfQueryOf("limit", "1"))
			want := notFound(method)
			if r, ok := spec.ParseRegistryPath(p); ok {
				key, ok := spec.RegistryKey(r.Route())
				if !ok {
					panic("no key for " + r.Route())
				}
				want = cfForwarded(ev, kp+key)
			}
			add(method+" "+p, ev, want)
		}
	}

	// The registry's folder holds nothing else, whatever the case: the
	// site's 404, with the site's CORS headers (as serve).
	for _, p := range []string{"/v0.1/servers.json", "/v0.1/x.json", "/V0.1/servers.json", "/v0.1/Servers/a.json", "/v0.1/serversx", "/v0.1/serv%65rs", "/v0.1/"} {
		path, err := url.PathUnescape(p)
		if err != nil {
			panic(err)
		}
		add("GET "+p, cfRequestEvent("GET", p, nil), cfError("GET", 404, "Not Found", fmt.Sprintf("nothing at %q", path), nil))
	}

	// Preflights and other methods, on any path of the registry.
	allow := map[string]string{"allow": spec.AllowMethods}
	for _, p := range []string{"/v0.1/servers", "/v0.1/servers/com.example%2Fweather/versions/latest", "/v0.1/servers/bad"} {
		ev := cfRequestEvent("OPTIONS", p, cfQueryOf("limit", "1"))
		h := ev["request"].(map[string]any)["headers"].(map[string]any)
		h["origin"] = map[string]any{"value": "vscode-file://vscode-app"}
		h["access-control-request-method"] = map[string]any{"value": "GET"}
		h["access-control-request-headers"] = map[string]any{"value": "authorization"}
		add("OPTIONS "+p, ev, map[string]any{"statusCode": 204, "statusDescription": "No Content",
			"headers": cfHeadersWith(cfRegistryCORS, map[string]string{"access-control-max-age": spec.PreflightMaxAge, "allow": spec.AllowMethods})})
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
			add(m+" "+p, cfRequestEvent(m, p, nil), cfRegistryError(m, 405, "Method Not Allowed", "method "+m+" is not allowed: use GET or HEAD", allow))
		}
	}
	return cases
}

// registryResponseCases returns the responses of S3 on the registry's keys
// the viewer-response function named fn must complete with the registry's
// CORS headers.
func registryResponseCases(prefix, fn string) []cfCase {
	kp := cfKeyPrefix(prefix)
	doc := map[string]string{
		"content-type":  "application/json",
		"cache-control": "public, max-age=3600",
		"etag":          `"0f343b0931126a20f133d67c2b018a3b"`,
	}
	s3Error := map[string]string{"content-type": "application/xml", "server": "AmazonS3"}
	resp := func(status int, text string, h map[string]string) map[string]any {
		h = maps.Clone(h)
		h["vary"] = "Accept-Encoding"
		return map[string]any{"statusCode": status, "statusDescription": text, "headers": cfHeadersWith(cfRegistryCORS, h)}
	}
	var cases []cfCase
	for _, key := range []string{"v0.1/servers.json", "v0.1/servers/com.example/weather/versions.json", "v0.1/servers/com.example/weather/versions/latest.json"} {
		cases = append(cases,
			cfCase{fn + ": 200 " + key, fn, cfResponseEvent(kp+key, 200, "OK", cfHeaders(true, doc)), resp(200, "OK", doc)},
			cfCase{fn + ": 304 " + key, fn, cfResponseEvent(kp+key, 304, "Not Modified", cfHeaders(false, map[string]string{"etag": doc["etag"]})),
				resp(304, "Not Modified", map[string]string{"etag": doc["etag"]})},
			cfCase{fn + ": 403 " + key, fn, cfResponseEvent(kp+key, 403, "Forbidden", cfHeaders(false, s3Error)), resp(404, "Not Found", s3Error)})
	}
	return cases
}

// TestCloudFrontRegistry runs the functions of every site of the example
// catalog, under its prefix and under none, on the requests of the MCP
// registry's clients, and holds each answer to serve's: the document at
// the key of spec.RegistryKey, the registry's 404, preflight and 405, with
// the registry's CORS headers; the query dropped, search included.
func TestCloudFrontRegistry(t *testing.T) {
	b := buildtest.Example(t)
	functions := map[string][]byte{}
	var cases []cfCase
	type variant struct {
		site   *output.Site
		prefix string
	}
	variants := []variant{{b.Sites[0], ""}}
	for _, s := range b.Sites {
		variants = append(variants, variant{s, s.Dir})
	}
	registry := 0
	for _, v := range variants {
		req, resp := Code(v.prefix, true, nil)
		name := v.site.Dir + " under " + cfKeyPrefix(v.prefix)
		functions[name+" viewer-request"] = req
		functions[name+" viewer-response"] = resp
		cases = append(cases, registryRequestCases(v.site, v.prefix, name+" viewer-request")...)
		cases = append(cases, registryResponseCases(v.prefix, name+" viewer-response")...)
		for _, d := range v.site.Documents {
			if spec.IsRegistryRoute(d.Route.Route) {
				registry++
			}
		}
	}
	if registry == 0 {
		t.Fatal("the example catalog publishes no registry")
	}
	runCloudFront(t, functions, cases)
}
