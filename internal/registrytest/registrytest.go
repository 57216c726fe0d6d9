// Package registrytest replays, against a host in a test, the requests the
// MCP registry's clients send (VS Code, Copilot CLI, a browser's
// preflight), and holds each answer to the one signpost serve gives the
// same request on the same site: status, body byte for byte, and the
// headers a client reads. The layouts that run code at their edge
// (Cloudflare, Netlify) share it, so that each is held to serve alike.
package registrytest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/serve"
)

// Catalog is a catalog folder's files (for catalogtest.Write) whose site
// has the registry's hard cases: a version with build metadata ('+'), a
// name with upper case (its key escapes it), a description with non-ASCII
// upper case, and more servers than a search's limit.
var Catalog = map[string]string{
	"signpost.yaml": catalogtest.Config,
	"servers.yaml": `servers:
  - {name: com.example/weather, version: 2.3.1, description: Forecasts and alerts., remotes: [{type: streamable-http, url: https://mcp.example.com/weather}]}
  - {name: com.example/builds, version: 1.0.0+build.7, description: Build metadata in the version.}
  - {name: Com.Example/Tickets, version: 4.2.0, title: Tickets, description: Read and update support TICKETS.}
  - {name: com.example/meteo, version: 1.0.0, description: "MÉTÉO de la journée, Ünïcödé."}
`,
}

// Request is one request a client sends.
type Request struct {
	Name, Method, Target string
	Header               map[string]string
}

// Answer is a response as a test reads it.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends one request to the host under test, its target relative to
// the site's origin, and returns the answer as it came off the wire,
// uncompressed.
type Do func(t *testing.T, method, target string, header map[string]string) Answer

// Compared are the headers held to serve's, besides the status and the
// body: the registry's CORS set, and what a client or a cache reads.
var Compared = []string{
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"Access-Control-Expose-Headers", "Access-Control-Max-Age", "Allow",
	"Content-Type", "Cache-Control", "ETag",
}

const (
	vscodeOrigin = "vscode-file://vscode-app"
	search       = "/v0.1/servers?limit=50&version=latest&search=WEATHER"
)

// Requests are the requests of the contract (see serve/registry.go) on
// the site of Catalog, revalidations aside (see Replay).
func Requests() []Request {
	vscode := map[string]string{"User-Agent": "Mozilla/5.0 Code/1.109.3", "Accept": "*/*", "Origin": vscodeOrigin}
	copilot := map[string]string{"Accept": "application/json", "User-Agent": "copilot-cli"}
	get := func(name, target string, header map[string]string) Request {
		return Request{Name: name, Method: http.MethodGet, Target: target, Header: header}
	}
	preflight := map[string]string{"Origin": vscodeOrigin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"}
	return []Request{
		get("VS Code's probe", "/v0.1/servers?limit=1", vscode),
		get("VS Code's list", "/v0.1/servers?limit=50&version=latest", vscode),
		get("VS Code's next page", "/v0.1/servers?limit=50&version=latest&cursor=", vscode),
		get("the list", "/v0.1/servers", nil),
		get("the list, a trailing slash", "/v0.1/servers/", nil),
		get("the list, updated_since", "/v0.1/servers?updated_since=2025-08-07T13:15:04.280Z", nil),
		get("VS Code's search", search, vscode),
		get("a search of descriptions", "/v0.1/servers?limit=50&version=latest&search=tickets", vscode),
		get("a search of names, ignoring case", "/v0.1/servers?search=com.example%2F", nil),
		get("a search within limit", "/v0.1/servers?search=com.example&limit=2", nil),
		get("a search, limit +3", "/v0.1/servers?search=com.example&limit=%2B3", nil),
		get("a search, limit not a count", "/v0.1/servers?search=com.example&limit=-1", nil),
		get("a search of an exact version", "/v0.1/servers?search=e&version=1.0.0%2Bbuild.7", nil),
		get("a search of an unknown version", "/v0.1/servers?search=e&version=9.9.9", nil),
		get("a search that finds nothing", "/v0.1/servers?limit=50&version=latest&search=nothing", nil),
		get("an empty search", "/v0.1/servers?limit=50&version=latest&search=", nil),
		get("a search of non-ASCII upper case", "/v0.1/servers?search=M%C3%89T%C3%89O", nil),
		get("a search with a space as +", "/v0.1/servers?search=forecasts+AND", nil),
		get("a search, the first of two", "/v0.1/servers?search=tickets&search=weather", nil),
		get("a search after a bad escape", "/v0.1/servers?search=%zz&search=builds", nil),
		get("a search of bytes that are not UTF-8", "/v0.1/servers?search=%FF", nil),
		get("a search, HTML characters", "/v0.1/servers?search=%3C%26%3E", nil),
		get("VS Code's lookup", "/v0.1/servers/com.example%2Fweather/versions/latest", vscode),
		get("Copilot CLI's lookup", "/v0.1/servers/com.example%2Fweather/versions/latest", copilot),
		get("a lookup, the name's slash as it is", "/v0.1/servers/com.example/weather/versions/latest", copilot),
		get("a lookup, a lower-case escape", "/v0.1/servers/com.example%2fweather/versions/latest", nil),
		get("a lookup, a trailing slash", "/v0.1/servers/com.example%2Fweather/versions/latest/", nil),
		get("a lookup with a query", "/v0.1/servers/com.example%2Fweather/versions/latest?x=1&search=zz", nil),
		get("a version", "/v0.1/servers/com.example%2Fweather/versions/2.3.1", nil),
		get("the versions", "/v0.1/servers/com.example%2Fweather/versions", nil),
		get("the versions, a trailing slash", "/v0.1/servers/com.example/weather/versions/", nil),
		get("build metadata, %2B", "/v0.1/servers/com.example%2Fbuilds/versions/1.0.0%2Bbuild.7", nil),
		get("build metadata, +", "/v0.1/servers/com.example/builds/versions/1.0.0+build.7", nil),
		get("a name with upper case", "/v0.1/servers/Com.Example%2FTickets/versions/latest", copilot),
		get("an unknown server", "/v0.1/servers/com.example%2Fnope/versions/latest", copilot),
		get("an unknown server's versions", "/v0.1/servers/com.example%2Fnope/versions", nil),
		get("a name in another case", "/v0.1/servers/com.example%2Ftickets/versions/latest", copilot),
		get("an unknown version", "/v0.1/servers/com.example%2Fweather/versions/9.9.9", copilot),
		get("build metadata left out", "/v0.1/servers/com.example%2Fbuilds/versions/1.0.0", nil),
		get("no versions segment", "/v0.1/servers/com.example%2Fweather", nil),
		get("the server's own path", "/v0.1/servers/com.example/weather", nil),
		get("a name of three segments", "/v0.1/servers/com.example%2Fweather%2Fx/versions", nil),
		get("a key, not a route", "/v0.1/servers/com.example/weather/versions/latest.json", nil),
		{Name: "a lookup, HEAD", Method: http.MethodHead, Target: "/v0.1/servers/com.example%2Fweather/versions/latest"},
		{Name: "a search, HEAD", Method: http.MethodHead, Target: search},
		{Name: "an unknown server, HEAD", Method: http.MethodHead, Target: "/v0.1/servers/com.example%2Fnope/versions/latest"},
		{Name: "VS Code's preflight", Method: http.MethodOptions, Target: "/v0.1/servers?limit=1", Header: preflight},
		{Name: "a preflight of a lookup", Method: http.MethodOptions, Target: "/v0.1/servers/com.example%2Fweather/versions/latest", Header: preflight},
		{Name: "a preflight of an unknown server", Method: http.MethodOptions, Target: "/v0.1/servers/com.example%2Fnope/versions/latest", Header: preflight},
		{Name: "POST", Method: http.MethodPost, Target: "/v0.1/servers"},
		{Name: "DELETE of a lookup", Method: http.MethodDelete, Target: "/v0.1/servers/com.example%2Fweather/versions/latest"},
	}
}

// Options are what a host under test does otherwise than the host it
// stands for.
type Options struct {
	// Retried, when set, is the target whose answer the host sends when
	// the answer to target is a 404 (a development server that tries
	// other paths after a 404, as netlify dev does); "" for none.
	Retried func(target string) string
}

// Replay sends every request of Requests to the host and to signpost serve
// (serve.Handler on 127.0.0.1) on site, the site of Catalog, then
// revalidates the list, a lookup and a search with the ETags serve sent
// (as sent and weakened), and fails the test for every answer of the host
// that is not serve's: status, body and the Compared headers (but
// Content-Type on a 304, which net/http leaves out). It returns the
// requests it sent, each with the status both answered.
func Replay(t *testing.T, site *output.Site, host Do, opts Options) []string {
	t.Helper()
	h, err := serve.NewHandler(t.Context(), site, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ref := func(t *testing.T, method, target string, header map[string]string) Answer {
		t.Helper()
		return Send(t, srv.URL, "", method, target, header)
	}
	reqs := Requests()
	for _, target := range []string{"/v0.1/servers", "/v0.1/servers/com.example%2Fweather/versions/latest", search} {
		etag := ref(t, http.MethodGet, target, nil).Header.Get("ETag")
		if etag == "" {
			t.Fatalf("serve sent no ETag for %s", target)
		}
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag} {
			reqs = append(reqs, Request{Name: "a revalidation", Method: http.MethodGet, Target: target, Header: map[string]string{"If-None-Match": inm}})
		}
		reqs = append(reqs, Request{Name: "another ETag", Method: http.MethodGet, Target: target, Header: map[string]string{"If-None-Match": `"other"`}})
	}
	var sent []string
	for _, r := range reqs {
		want := ref(t, r.Method, r.Target, r.Header)
		got := host(t, r.Method, r.Target, r.Header)
		what := r.Method + " " + r.Target
		if opts.Retried != nil && want.Status == http.StatusNotFound {
			if retried := opts.Retried(r.Target); retried != "" {
				want = ref(t, r.Method, retried, r.Header)
				what += " (retried as " + retried + ")"
			}
		}
		if len(r.Header) > 0 {
			var hs []string
			for k, v := range r.Header {
				if k != "User-Agent" {
					hs = append(hs, k+": "+v)
				}
			}
			slices.Sort(hs)
			what += " [" + strings.Join(hs, "; ") + "]"
		}
		if got.Status != want.Status || !bytes.Equal(got.Body, want.Body) {
			t.Errorf("%s (%s): %d %q, want serve's %d %q", what, r.Name, got.Status, got.Body, want.Status, want.Body)
		}
		for _, name := range Compared {
			if name == "Content-Type" && want.Status == http.StatusNotModified {
				continue
			}
			if g, w := strings.Join(got.Header.Values(name), ", "), strings.Join(want.Header.Values(name), ", "); g != w {
				t.Errorf("%s (%s): %s %q, want serve's %q", what, r.Name, name, g, w)
			}
		}
		sent = append(sent, what+" -> "+http.StatusText(want.Status))
	}
	return sent
}

// Send sends one request to base+target, with host as its Host when not
// empty, uncompressed and without following redirects.
func Send(t *testing.T, base, host, method, target string, header map[string]string) Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	return Answer{resp.StatusCode, resp.Header, body}
}
