package serve

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/compress"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// exampleServer serves the acme site of the example catalog on 127.0.0.1
// with the handler signpost serve uses.
func exampleServer(t testing.TB) (*httptest.Server, *output.Site) {
	t.Helper()
	b := buildtest.Example(t)
	h, err := NewHandler(t.Context(), b.Sites[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, b.Sites[0]
}

type exchange struct {
	method string
	path   string
	header map[string]string
}

func do(t testing.TB, srv *httptest.Server, x exchange) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(cmp.Or(x.method, http.MethodGet), srv.URL+x.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range x.header {
		req.Header.Set(k, v)
	}
	// The transport would add Accept-Encoding: gzip and decompress quietly;
	// the tests say what they accept.
	tr := &http.Transport{DisableCompression: true}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func doc(s *output.Site, route, view string) output.Document {
	for _, d := range s.Documents {
		if d.Route.Route == route && d.View == view {
			return d
		}
	}
	panic("no document " + route)
}

func TestHandlerRoutes(t *testing.T) {
	srv, site := exampleServer(t)
	for _, tc := range []struct {
		path        string
		status      int
		contentType string
		want        output.Document
	}{
		{"/tools", 200, "application/json", doc(site, "/tools", spec.ViewStandard)},
		{"/tools?view=compact", 200, "application/json", doc(site, "/tools", spec.ViewCompact)},
		{"/tools?view=zz", 200, "application/json", doc(site, "/tools", spec.ViewStandard)},
		{"/tools?view=", 200, "application/json", doc(site, "/tools", spec.ViewStandard)},
		{"/tools/get_forecast", 200, "application/json", doc(site, "/tools/get_forecast", spec.ViewStandard)},
		{"/tools/get_forecast?view=compact", 200, "application/json", doc(site, "/tools/get_forecast", spec.ViewCompact)},
		{"/tools/get_forecast?view=COMPACT", 200, "application/json", doc(site, "/tools/get_forecast", spec.ViewStandard)},
		{"/.well-known/mcp/catalog.json", 200, "application/json", doc(site, "/.well-known/mcp/catalog.json", spec.ViewStandard)},
		{"/.well-known/ai-catalog.json", 200, "application/ai-catalog+json", doc(site, "/.well-known/ai-catalog.json", spec.ViewStandard)},
		{"/.well-known/mcp/servers/com.example/weather.json", 200, "application/mcp-server+json", doc(site, "/.well-known/mcp/servers/com.example/weather.json", spec.ViewStandard)},
		{"/.well-known/mcp/server-cards/com.example/weather.json", 200, "application/mcp-server-card+json", doc(site, "/.well-known/mcp/server-cards/com.example/weather.json", spec.ViewStandard)},
		{"/tools/no_such_tool", 404, "application/json", output.Document{}},
		{"/tools/no_such_tool?view=compact", 404, "application/json", output.Document{}},
		{"/tools/", 404, "application/json", output.Document{}},
		{"/tools.json", 404, "application/json", output.Document{}},
		{"/tools/get_forecast.json", 404, "application/json", output.Document{}},
		{"/tools/../routes.json", 404, "application/json", output.Document{}},
		{"/", 404, "application/json", output.Document{}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := do(t, srv, exchange{path: tc.path})
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.contentType {
				t.Fatalf("status %d, Content-Type %q; want %d, %q", resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, tc.contentType)
			}
			for k, v := range map[string]string{
				"Access-Control-Allow-Origin":  "*",
				"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
				"Access-Control-Allow-Headers": "Authorization, Content-Type, If-None-Match",
			} {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if tc.status != 200 {
				if !bytes.HasPrefix(body, []byte(`{"error":{"status":404,"message":`)) || resp.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("error body %s, Cache-Control %q", body, resp.Header.Get("Cache-Control"))
				}
				return
			}
			if !bytes.Equal(body, buildtest.Body(t, tc.want)) {
				t.Errorf("body differs from the built document %s %s", tc.want.Route.Route, tc.want.View)
			}
			if resp.Header.Get("ETag") != tc.want.ETag || resp.Header.Get("Cache-Control") != "public, max-age=3600" || resp.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("ETag %q Cache-Control %q Vary %q", resp.Header.Get("ETag"), resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"))
			}
		})
	}
}

func TestHandlerConditional(t *testing.T) {
	srv, site := exampleServer(t)
	etag := doc(site, "/tools", spec.ViewStandard).ETag
	for _, tc := range []struct {
		inm    string
		status int
	}{
		{etag, 304},
		{"W/" + etag, 304},
		{`"nope", ` + etag, 304},
		{`"nope"`, 200},
		{"*", 304},
		{`W/"nope", "other"`, 200},
	} {
		resp, body := do(t, srv, exchange{path: "/tools", header: map[string]string{"If-None-Match": tc.inm}})
		if resp.StatusCode != tc.status {
			t.Errorf("If-None-Match %s: status %d, want %d", tc.inm, resp.StatusCode, tc.status)
		}
		if tc.status == 304 && (len(body) != 0 || resp.Header.Get("ETag") != etag || resp.Header.Get("Access-Control-Allow-Origin") != "*") {
			t.Errorf("304: body %d bytes, ETag %q, CORS %q", len(body), resp.Header.Get("ETag"), resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
}

func TestHandlerMethods(t *testing.T) {
	srv, site := exampleServer(t)
	resp, body := do(t, srv, exchange{method: http.MethodHead, path: "/tools"})
	if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Length") != strconv.FormatInt(doc(site, "/tools", spec.ViewStandard).Body.Len(), 10) {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %s", resp.StatusCode, len(body), resp.Header.Get("Content-Length"))
	}
	resp, _ = do(t, srv, exchange{method: http.MethodOptions, path: "/tools/get_forecast", header: map[string]string{
		"Origin": "https://app.example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "if-none-match"}})
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Max-Age") == "" {
		t.Errorf("OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		resp, body := do(t, srv, exchange{method: m, path: "/tools"})
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" || !strings.Contains(string(body), "not allowed") || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d, Allow %q, %s", m, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
	}
}

// A document with variants is sent in the one the client's Accept-Encoding
// allows, brotli first, with its own ETag; either ETag revalidates. A build
// without variants (for no host) is sent in gzip, compressed at start, as
// serve always did.
func TestHandlerEncodings(t *testing.T) {
	for _, precompressed := range []bool{true, false} {
		b := buildtest.Example(t)
		br := ""
		if precompressed {
			if err := b.Precompress(t.Context()); err != nil {
				t.Fatal(err)
			}
			br = "br"
		}
		h, err := NewHandler(t.Context(), b.Sites[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		want := doc(b.Sites[0], "/tools", spec.ViewStandard)
		for _, tc := range []struct {
			accept, coding string
		}{
			{"gzip", "gzip"},
			{"br, gzip;q=0.5", cmp.Or(br, "gzip")},
			{"gzip, deflate, br, zstd", cmp.Or(br, "gzip")},
			{"br;q=0, gzip", "gzip"},
			{"*", cmp.Or(br, "gzip")},
			{"br;q=0, *", "gzip"},
			{"br", br},
			{"gzip;q=0", ""},
			{"identity", ""},
			{"", ""},
		} {
			resp, body := do(t, srv, exchange{path: "/tools", header: map[string]string{"Accept-Encoding": tc.accept}})
			if got := resp.Header.Get("Content-Encoding"); got != tc.coding {
				t.Errorf("precompressed %v, Accept-Encoding %q: Content-Encoding %q, want %q", precompressed, tc.accept, got, tc.coding)
				continue
			}
			if resp.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Accept-Encoding %q: Vary %q", tc.accept, resp.Header.Get("Vary"))
			}
			if tc.coding != "" {
				sum := sha256.Sum256(body) // of the bytes sent
				var err error
				if body, err = compress.Decode(tc.coding, body, 1<<30); err != nil {
					t.Fatal(err)
				}
				if got, wantTag := resp.Header.Get("ETag"), spec.VariantETag(hex.EncodeToString(sum[:]), tc.coding); got != wantTag {
					t.Errorf("%s representation has ETag %s, want %s", tc.coding, got, wantTag)
				}
				// The ETag validates the representation it came with, and
				// only that one (RFC 9110, section 13.1.2): a request that
				// selects another gets it whole.
				tag := resp.Header.Get("ETag")
				r2, _ := do(t, srv, exchange{path: "/tools", header: map[string]string{"If-None-Match": tag, "Accept-Encoding": tc.accept}})
				if r2.StatusCode != 304 || r2.Header.Get("ETag") != tag {
					t.Errorf("If-None-Match with the %s ETag, the same Accept-Encoding: %d, ETag %s", tc.coding, r2.StatusCode, r2.Header.Get("ETag"))
				}
				r3, _ := do(t, srv, exchange{path: "/tools", header: map[string]string{"If-None-Match": tag}})
				if r3.StatusCode != 200 || r3.Header.Get("ETag") != want.ETag || r3.Header.Get("Content-Encoding") != "" {
					t.Errorf("If-None-Match with the %s ETag, no Accept-Encoding: %d, ETag %s, Content-Encoding %q; want 200, %s, none",
						tc.coding, r3.StatusCode, r3.Header.Get("ETag"), r3.Header.Get("Content-Encoding"), want.ETag)
				}
				r4, _ := do(t, srv, exchange{path: "/tools", header: map[string]string{"If-None-Match": want.ETag, "Accept-Encoding": tc.accept}})
				if r4.StatusCode != 200 || r4.Header.Get("ETag") != tag {
					t.Errorf("If-None-Match with the identity ETag, Accept-Encoding %q: %d, ETag %s; want 200, %s", tc.accept, r4.StatusCode, r4.Header.Get("ETag"), tag)
				}
			}
			if !bytes.Equal(body, buildtest.Body(t, want)) {
				t.Errorf("precompressed %v, Accept-Encoding %q: body differs", precompressed, tc.accept)
			}
		}
	}
}

// TestServeEndpointCard: a server's card beside its endpoint on the site's
// origin is answered as its v1 card is, with the card's media type, the
// CORS headers and, the site publishing an ARD manifest, its Link.
func TestServeEndpointCard(t *testing.T) {
	b := buildtest.ExampleOnSite(t)
	h, err := NewHandler(t.Context(), b.Sites[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	resp, body := do(t, srv, exchange{path: buildtest.OnSiteCardRoute, header: map[string]string{"Accept": spec.ContentTypeServerCardV1}})
	_, v1 := do(t, srv, exchange{path: "/.well-known/mcp/server-cards/com.example/onsite.json"})
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, v1) {
		t.Fatalf("GET %s: %d %q, want 200 and the v1 card %q", buildtest.OnSiteCardRoute, resp.StatusCode, body, v1)
	}
	for name, want := range map[string]string{
		"Content-Type":                 spec.ContentTypeServerCardV1,
		"Access-Control-Allow-Origin":  "*",
		"Access-Control-Allow-Methods": spec.AllowMethods,
		"Cache-Control":                spec.CacheControl,
		"Link":                         spec.DiscoveryLink,
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
