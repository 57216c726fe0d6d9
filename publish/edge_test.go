package publish

import (
	"bytes"
	"io"
	"net/http"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/hosts/cloudfront"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/internal/edgetest"
)

// edgeTestBase is the origin the example catalog's documents name; the
// client of checktest.Serve sends it to the emulated edge.
const edgeTestBase = "https://example.com"

// edgeCORS are the CORS headers the response headers policy puts on every
// response, and the functions and signpost serve too.
var edgeCORS = map[string]string{
	"Access-Control-Allow-Origin":   "*",
	"Access-Control-Allow-Methods":  "GET, HEAD, OPTIONS",
	"Access-Control-Allow-Headers":  "Authorization, Content-Type, If-None-Match",
	"Access-Control-Expose-Headers": "ETag",
}

// newEdge starts the emulated distribution of templates/aws/cloudfront-s3.yaml
// in front of bucket for the site under sitePrefix, with the site's
// functions and the key value store store (nil for none). Without node it
// skips the test, or fails it in CI.
func newEdge(t *testing.T, bucket, sitePrefix string, s *output.Site, compactView bool, store map[string]string) *edgetest.Edge {
	t.Helper()
	ctx := t.Context()
	origin, err := NewS3Client(ctx, testRegion, testEndpoint, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tpl := filepath.Join("..", "templates", "aws", "cloudfront-s3.yaml")
	dist, err := edgetest.LoadTemplate(tpl, sitePrefix)
	if err != nil {
		t.Fatal(err)
	}
	req, resp, err := cloudfront.Functions(s, &target.S3{Bucket: bucket}, compactView)
	if err != nil {
		t.Fatal(err)
	}
	return edgetest.StartForTest(t, edgetest.Config{
		Distribution: dist, ViewerRequest: req, ViewerResponse: resp,
		Origin: origin, Bucket: bucket, KeyValueStore: store,
	})
}

// edgeDoc returns the body of the document of route in view.
func edgeDoc(t *testing.T, s *output.Site, route, view string) output.Document {
	t.Helper()
	for _, d := range s.Documents {
		if d.Route.Route == route && d.View == view {
			return d
		}
	}
	t.Fatalf("site %s has no document %s in view %s", s.Dir, route, view)
	return output.Document{}
}

// edgeExchange is what a test sees of one response.
type edgeExchange struct {
	status int
	header http.Header
	body   []byte
}

func edgeDo(t *testing.T, client *http.Client, method, route string, header map[string]string) edgeExchange {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, edgeTestBase+route, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, route, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		t.Fatalf("%s %s: %v", method, route, err)
	}
	return edgeExchange{resp.StatusCode, resp.Header, body}
}

// wantHeaders reports the headers of x that differ from want ("" for a
// header that must be absent).
func (x edgeExchange) wantHeaders(t *testing.T, what string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for k := range want {
		got[k] = strings.Join(x.header.Values(k), ", ")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: headers (-want +got):\n%s", what, diff)
	}
}

func withCORS(h map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range edgeCORS {
		out[k] = v
	}
	for k, v := range h {
		out[k] = v
	}
	return out
}

// TestEdgeServesTheContract publishes the example catalog, each tenant's
// site under tenants/ID in one bucket with the JSON 404 page, puts an
// emulated CloudFront distribution of templates/aws/cloudfront-s3.yaml in
// front of each site with the site's functions, and checks each edge as
// clients see it: signpost check passes every rule, MUST and SHOULD, and
// the few answers the functions and the distribution give themselves are
// exactly those of signpost serve.
//
// The example's help-desk card is advertised on a vendor host that does not
// exist; the client of checktest.Serve answers that host with a card, as in
// check's TestCorrectSite. Every other request goes to the edge.
func TestEdgeServesTheContract(t *testing.T) {
	api, bucket := newBucket(t)
	var cat *build.Catalog
	// The example with a server whose endpoint is on the site's origin,
	// whose card is answered beside it, and the ARD manifest.
	b := buildtest.CompileEdited(t, buildtest.ExampleOnSiteDir(t), func(c *build.Catalog) { cat = c })
	// As publish.Run publishes it: the viewer-request function asks for
	// the variants of the lists and catalogs.
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(b.Sites) < 2 {
		t.Fatalf("the example catalog builds %d sites, want one per tenant", len(b.Sites))
	}
	// One bucket, every site under its own prefix, as publish lays out a
	// catalog with tenants (no s3.prefix).
	for _, s := range b.Sites {
		docs := append(slices.Clip(s.Documents), append(edgeRegistryExtras(t), ErrorDocument())...)
		publish(t, api, bucket, s.Dir, docs, applyOptions{})
	}

	for _, s := range b.Sites {
		t.Run(s.Tenant, func(t *testing.T) {
			if s.Dir != path.Join("tenants", s.Tenant) {
				t.Fatalf("site folder %s, want tenants/%s", s.Dir, s.Tenant)
			}
			edge := newEdge(t, bucket, s.Dir, s, cat.Config.CompactView, nil)
			client := checktest.Serve(t, edge)

			r, err := check.Run(t.Context(), edgeTestBase, check.Options{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			if bad := unadmitted(t, r, s); len(bad) > 0 || r.Failed() {
				t.Errorf("rules not met through the edge: %v\n%s", bad, checktest.Problems(r))
			}
			passed := map[string]bool{}
			for _, f := range r.Findings {
				if f.Result == check.ResultPass {
					passed[f.Rule] = true
				}
			}
			for _, rule := range check.Rules() {
				// access.gate needs a gated site: TestEdgeGate.
				if rule.Level == check.LevelMust && !passed[rule.Name] && rule.Name != "access.gate" && !checktest.SignedRule(rule.Name) {
					t.Errorf("MUST rule %s never passed through the edge", rule.Name)
				}
			}

			edgeDirect(t, client, s, cat.Config.CompactView)
			edgeMethods(t, client)
			replayed := edgeRegistry(t, client, s)
			t.Logf("the MCP registry's requests:\n%s", strings.Join(replayed, "\n"))
			if p := edge.Problems(); len(p) > 0 {
				t.Errorf("the edge met problems:\n%s", strings.Join(p, "\n"))
			}
		})
	}
}

// edgeDirect asserts the answers of the edge that matter most to clients,
// one by one.
func edgeDirect(t *testing.T, client *http.Client, s *output.Site, compactView bool) {
	t.Helper()
	errorPage := ErrorDocument()
	tools := edgeDoc(t, s, "/tools", spec.ViewStandard)

	// An unknown but well-formed toolId reaches S3, which answers 403 (no
	// s3:ListBucket); the custom error response makes it the JSON 404, with
	// the CORS headers of the response headers policy.
	for _, view := range []string{"", "?view=compact"} {
		x := edgeDo(t, client, http.MethodGet, "/tools/no_such_tool"+view, nil)
		if x.status != http.StatusNotFound || !bytes.Equal(x.body, buildtest.Body(t, errorPage)) {
			t.Errorf("unknown toolId%s: %d %q, want 404 %q", view, x.status, x.body, buildtest.Body(t, errorPage))
		}
		x.wantHeaders(t, "unknown toolId"+view, withCORS(map[string]string{"Content-Type": spec.ContentTypeJSON, "Cache-Control": "no-store"}))
	}
	if x := edgeDo(t, client, http.MethodHead, "/tools/no_such_tool", nil); x.status != http.StatusNotFound || len(x.body) != 0 {
		t.Errorf("HEAD unknown toolId: %d with %d bytes, want 404 without a body", x.status, len(x.body))
	}
	// A toolId that cannot be one is answered by the viewer-request function.
	x := edgeDo(t, client, http.MethodGet, "/tools/Not-A-Tool", nil)
	if x.status != http.StatusNotFound || !strings.Contains(string(x.body), `"status":404`) {
		t.Errorf("malformed toolId: %d %q, want the JSON 404", x.status, x.body)
	}
	x.wantHeaders(t, "malformed toolId", withCORS(map[string]string{"Content-Type": spec.ContentTypeJSON, "Cache-Control": "no-store"}))

	// The card beside an endpoint on the site's origin, with the card's
	// media type and CORS; every document with the ARD Link.
	if card, ok := edgeFind(s, buildtest.OnSiteCardRoute); ok {
		x = edgeDo(t, client, http.MethodGet, buildtest.OnSiteCardRoute, nil)
		if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, card)) {
			t.Errorf("GET %s: %d %q, want 200 and the card", buildtest.OnSiteCardRoute, x.status, x.body)
		}
		x.wantHeaders(t, "GET "+buildtest.OnSiteCardRoute, withCORS(map[string]string{"Content-Type": spec.ContentTypeServerCardV1, "Link": s.Link()}))
	} else {
		t.Errorf("the site has no card at %s", buildtest.OnSiteCardRoute)
	}

	// The tool list, with its headers from the object's metadata, and
	// the compact view.
	x = edgeDo(t, client, http.MethodGet, "/tools", nil)
	if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, tools)) {
		t.Errorf("GET /tools: %d, %d bytes, want 200 and the %d bytes of the list", x.status, len(x.body), tools.Body.Len())
	}
	x.wantHeaders(t, "GET /tools", withCORS(map[string]string{"Content-Type": tools.ContentType, "Cache-Control": tools.CacheControl, "Link": s.Link()}))
	etag := x.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
		t.Errorf("GET /tools: ETag %q is not a strong validator", etag)
	}
	if compactView {
		compact := edgeDoc(t, s, "/tools", spec.ViewCompact)
		x = edgeDo(t, client, http.MethodGet, "/tools?view=compact", nil)
		if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, compact)) {
			t.Errorf("GET /tools?view=compact: %d %.100q, want the compact list %.100q", x.status, x.body, buildtest.Body(t, compact))
		}
		x.wantHeaders(t, "GET /tools?view=compact", withCORS(map[string]string{"Content-Type": compact.ContentType}))
	}
	// The GET's transport asked for gzip, as it does not for a HEAD: the
	// same representation, the list's gzip variant, is asked for by hand.
	x = edgeDo(t, client, http.MethodHead, "/tools", map[string]string{"Accept-Encoding": "gzip"})
	if x.status != http.StatusOK || len(x.body) != 0 {
		t.Errorf("HEAD /tools: %d with %d bytes, want 200 without a body", x.status, len(x.body))
	}
	x.wantHeaders(t, "HEAD /tools", withCORS(map[string]string{"Content-Type": tools.ContentType, "ETag": etag}))

	// CloudFront answers a matching If-None-Match itself; the
	// viewer-response function puts the CORS headers on the 304.
	for _, inm := range []string{etag, `"other", ` + etag, "*"} {
		x = edgeDo(t, client, http.MethodGet, "/tools", map[string]string{"If-None-Match": inm})
		if x.status != http.StatusNotModified || len(x.body) != 0 {
			t.Errorf("If-None-Match: %s: %d with %d bytes, want 304 without a body", inm, x.status, len(x.body))
		}
		x.wantHeaders(t, "If-None-Match: "+inm, withCORS(map[string]string{"ETag": etag, "Link": s.Link()}))
	}
	if x = edgeDo(t, client, http.MethodGet, "/tools", map[string]string{"If-None-Match": `"other"`}); x.status != http.StatusOK {
		t.Errorf("If-None-Match of another ETag: %d, want 200", x.status)
	}

	// The preflight, answered by the viewer-request function.
	x = edgeDo(t, client, http.MethodOptions, "/tools/get_forecast", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"})
	if x.status != http.StatusNoContent || len(x.body) != 0 {
		t.Errorf("OPTIONS: %d %q, want 204 without a body", x.status, x.body)
	}
	x.wantHeaders(t, "OPTIONS", withCORS(map[string]string{"Allow": "GET, HEAD, OPTIONS", "Access-Control-Max-Age": "86400"}))
}

// edgeMethods checks the methods other than GET, HEAD and OPTIONS: the
// template lets every method reach the viewer-request function, which
// answers them with the JSON 405 of signpost serve. (A cache behavior that
// did not allow them would have CloudFront answer with an HTML 403 of its
// own, which internal/edgetest's tests cover.)
func edgeMethods(t *testing.T, client *http.Client) {
	t.Helper()
	want405 := withCORS(map[string]string{"Allow": "GET, HEAD, OPTIONS", "Content-Type": spec.ContentTypeJSON, "Cache-Control": "no-store"})
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		x := edgeDo(t, client, m, "/tools", nil)
		if x.status != http.StatusMethodNotAllowed || !strings.Contains(string(x.body), `"status":405`) {
			t.Errorf("%s /tools: %d %q, want the JSON 405", m, x.status, x.body)
		}
		x.wantHeaders(t, m+" /tools", want405)
	}
}

// admittedRule is the check rule that warns of each gap cloudfront-report.json
// admits: a gap the report does not name may not warn, and a gap it names
// must (or the report says more than is true).
var admittedRule = map[string]string{
	cloudfront.KindRegistrySearch: "registry.search-filter",
}

// unadmitted returns the rules of r that failed or warned, but for the
// warnings of the gaps the CloudFront report of s admits, each of which
// must be there.
func unadmitted(t *testing.T, r *check.Report, s *output.Site) []string {
	t.Helper()
	admitted := map[string]bool{}
	for _, g := range cloudfront.Gaps(s) {
		if rule, ok := admittedRule[g.Kind]; ok {
			admitted[rule] = true
		}
	}
	warned := map[string]bool{}
	var bad []string
	for _, f := range r.Findings {
		switch {
		case f.Result == check.ResultWarn && admitted[f.Rule]:
			warned[f.Rule] = true
		case f.Result == check.ResultFail || f.Result == check.ResultWarn:
			bad = append(bad, f.Rule)
		}
	}
	for rule := range admitted {
		if !warned[rule] {
			t.Errorf("cloudfront-report.json admits a gap that %s does not warn of", rule)
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// edgeFind is the standard document of route in s, if s has it.
func edgeFind(s *output.Site, route string) (output.Document, bool) {
	for _, d := range s.Documents {
		if d.Route.Route == route && d.View == spec.ViewStandard {
			return d, true
		}
	}
	return output.Document{}, false
}
