package publish

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/checktest"
)

// TestEdgeGate publishes the example's acme site gated, with public
// discovery, and puts the emulated distribution in front of it with the
// site's key in the store of its viewer-request function: check with a
// token passes every rule, access.gate included, and the edge refuses
// requests without one as serve does.
func TestEdgeGate(t *testing.T) {
	api, bucket := newBucket(t)
	b := buildtest.CompileEdited(t, exampleCatalog, func(c *build.Catalog) {
		c.Config.TenantSites = map[string]build.TenantSite{"acme": {Access: gate.Access{Token: true, PublicDiscovery: true}}}
	})
	// As publish.Run publishes it: the viewer-request function asks for
	// the variants of the lists and catalogs.
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := b.Sites[0]
	if s.Tenant != "acme" || !s.Access.Token {
		t.Fatalf("site %s, access %+v", s.Tenant, s.Access)
	}
	publish(t, api, bucket, s.Dir, append(slices.Clip(s.Documents), ErrorDocument()), applyOptions{})

	keys := gate.Keys{"acme/k1": gate.NewSecret()}
	edge := newEdge(t, bucket, s.Dir, s, true, keys)
	client := checktest.Serve(t, edge)
	tok, err := gate.Mint(keys, "acme", "k1", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	r, err := check.Run(t.Context(), edgeTestBase, check.Options{Client: client, Token: tok})
	if err != nil {
		t.Fatal(err)
	}
	if bad := unadmitted(t, r, s); len(bad) > 0 || r.Failed() {
		t.Errorf("rules not met through the gated edge: %v\n%s", bad, checktest.Problems(r))
	}
	gated := 0
	for _, f := range r.Findings {
		if f.Rule == "access.gate" && f.Result == check.ResultPass {
			gated++
		}
	}
	if gated != 5 {
		t.Errorf("access.gate passed %d times, want 5", gated)
	}

	// Without a token: a 401 with the CORS headers and a challenge,
	// whatever the path; with it, the list, private.
	for _, route := range []string{"/tools", "/tools/get_forecast", "/tool-catalogue.json", "/nope"} {
		x := edgeDo(t, client, http.MethodGet, route, nil)
		if x.status != http.StatusUnauthorized || !strings.Contains(string(x.body), `"status":401`) {
			t.Errorf("GET %s without a token: %d %s", route, x.status, x.body)
		}
		x.wantHeaders(t, "GET "+route+" without a token", withCORS(map[string]string{
			"Content-Type": "application/json", "Cache-Control": "no-store", "WWW-Authenticate": `Bearer realm="acme"`}))
	}
	// The MCP registry stays behind the gate, public discovery or not: the
	// same refusal, with the registry's CORS headers; with the token, the
	// document, private.
	for _, route := range []string{"/v0.1/servers", "/v0.1/servers/com.example%2Fweather/versions/latest", "/v0.1/servers/bad"} {
		x := edgeDo(t, client, http.MethodGet, route, nil)
		if x.status != http.StatusUnauthorized || !strings.Contains(string(x.body), `"status":401`) {
			t.Errorf("GET %s without a token: %d %s", route, x.status, x.body)
		}
		x.wantHeaders(t, "GET "+route+" without a token", edgeRegistryCORS(map[string]string{
			"Content-Type": "application/json", "Cache-Control": "no-store", "WWW-Authenticate": `Bearer realm="acme"`}))
	}
	list := edgeDoc(t, s, "/v0.1/servers", "standard")
	x := edgeDo(t, client, http.MethodGet, "/v0.1/servers?search=weather", map[string]string{"Authorization": "Bearer " + tok})
	if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, list)) {
		t.Errorf("GET /v0.1/servers with the token: %d %.100q, want the list", x.status, x.body)
	}
	x.wantHeaders(t, "GET /v0.1/servers with the token", edgeRegistryCORS(map[string]string{"Cache-Control": "private, max-age=3600"}))
	x = edgeDo(t, client, http.MethodGet, "/tools", map[string]string{"Authorization": "Bearer " + tok})
	if x.status != http.StatusOK || x.header.Get("Cache-Control") != "private, max-age=3600" {
		t.Errorf("GET /tools with the token: %d, Cache-Control %q", x.status, x.header.Get("Cache-Control"))
	}
	x = edgeDo(t, client, http.MethodGet, "/.well-known/ai-catalog.json", nil)
	if x.status != http.StatusOK || x.header.Get("Cache-Control") != "public, max-age=3600" {
		t.Errorf("GET the AI catalog without a token: %d, Cache-Control %q", x.status, x.header.Get("Cache-Control"))
	}
	if p := edge.Problems(); len(p) > 0 {
		t.Errorf("the edge met problems:\n%s", strings.Join(p, "\n"))
	}
}
