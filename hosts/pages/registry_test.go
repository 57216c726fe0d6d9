package pages

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// The requests VS Code, Copilot CLI and a browser send to a registry
// (REGISTRY-CONTRACT: the example's server com.example/weather), and what
// each gets from GitHub Pages serving the Pages layout, whichever way
// Pages reads %2F. Every one fails: the list and the versions are folders
// on Pages, and Pages adds .html to a path, never .json. A status of 0 is
// any: what GitHub answers OPTIONS with is not documented, and the
// preflight fails whatever it is.
var pagesRegistryRequests = []struct {
	client, method, target string
	header                 map[string]string
	status                 int
	why                    string
}{
	{"VS Code", "GET", "/v0.1/servers?limit=1", nil, 404,
		"no file /v0.1/servers: it is the folder of the other documents, and Pages tries only .html; the probe fails"},
	{"VS Code", "GET", "/v0.1/servers?limit=50&version=latest", nil, 404,
		"the same path, the query ignored: the gallery's query fails, no server is listed"},
	{"VS Code", "GET", "/v0.1/servers?limit=50&version=latest&search=weather", nil, 404,
		"the same path: no search"},
	{"VS Code", "GET", "/v0.1/servers/", nil, 404,
		"a folder without index.html"},
	{"VS Code", "GET", "/v0.1/servers/com.example%2Fweather/versions/latest", nil, 404,
		"the file is latest.json; with %2F read as / or not, no file has the path"},
	{"VS Code", "GET", "/v0.1/servers/com.example/weather/versions/latest", nil, 404,
		"the name's / as it is: still no .json"},
	{"VS Code", "GET", "/v0.1/servers/com.example%2Fweather/versions", nil, 404,
		"versions is a folder (of versions/latest.json), its list versions.json"},
	{"VS Code", "GET", "/v0.1/servers/com.example%2Fweather/versions/2.3.1", nil, 404,
		"the file is 2.3.1.json"},
	{"Copilot CLI", "GET", "/v0.1/servers/com.example%2Fweather/versions/latest", map[string]string{"Accept": "application/json"}, 404,
		"404 is a refusal: Copilot CLI refuses the server, and so every server"},
	{"Copilot CLI", "GET", "/v0.1/servers/com.example%2Fnope/versions/latest", map[string]string{"Accept": "application/json"}, 404,
		"an unknown server: the right status, an HTML body"},
	{"browser", "OPTIONS", "/v0.1/servers", map[string]string{"Origin": "vscode-file://vscode-app", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"}, 0,
		"no OPTIONS on Pages, no Access-Control-Allow-Headers: the preflight fails, whatever the status"},
	{"browser", "GET", "/v0.1/servers", map[string]string{"Origin": "vscode-file://vscode-app"}, 404,
		"as VS Code's: the list is not at its route"},
}

func TestPagesRegistryRequests(t *testing.T) {
	b := pagesExample(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Write(t.Context(), b, out); err != nil {
		t.Fatal(err)
	}
	s := pagesSite(t, b, "acme")
	for _, decodeSlash := range []bool{true, false} {
		t.Run(fmt.Sprintf("decodeSlash=%v", decodeSlash), func(t *testing.T) {
			base := pagesServer(t, filepath.Join(out, s.Dir), decodeSlash)
			for _, rq := range pagesRegistryRequests {
				got := pagesDo(t, base, rq.method, rq.target, rq.header)
				if rq.status != 0 && got.status != rq.status {
					t.Errorf("%s: %s %s: %d, want %d (%s)", rq.client, rq.method, rq.target, got.status, rq.status, rq.why)
				}
				if got.status == http.StatusNotFound && got.header.Get("Content-Type") != "text/html" {
					t.Errorf("%s %s: a 404 of %s, want Pages' HTML", rq.method, rq.target, got.header.Get("Content-Type"))
				}
				// No answer of Pages passes a preflight that asks for
				// Authorization: it lacks Access-Control-Allow-Headers.
				if got.header.Get("Access-Control-Allow-Headers") != "" || got.header.Get("Access-Control-Allow-Methods") != "" {
					t.Errorf("%s %s: CORS headers %v, want Access-Control-Allow-Origin alone", rq.method, rq.target, got.header)
				}
			}

			// Every route of the registry is a 404, the file at its key a
			// 200 with the document's bytes: what each gap says.
			files, gaps := Layout(s)
			served := map[string]string{}
			for _, g := range gaps {
				if g.Kind == KindRegistry {
					served[g.Route] = g.Served
				}
			}
			latest := 0
			for _, f := range files {
				if !spec.IsRegistryRoute(f.Route.Route) {
					continue
				}
				if got := pagesDo(t, base, "GET", f.Route.Route, map[string]string{"Accept": "application/json"}); got.status != http.StatusNotFound {
					t.Errorf("GET %s: %d, want Pages' 404", f.Route.Route, got.status)
				}
				got := pagesDo(t, base, "GET", "/"+f.Key, nil)
				if got.status != http.StatusOK || got.body != string(buildtest.Body(t, f)) || got.header.Get("Content-Type") != spec.ContentTypeJSON {
					t.Errorf("GET /%s: %d %s, want the document of %s", f.Key, got.status, got.header.Get("Content-Type"), f.Route.Route)
				}
				if want := " at /" + f.Key + " only; " + f.Route.Route + " is Pages' HTML 404"; !strings.Contains(served[f.Route.Route], want) {
					t.Errorf("the gap of %s says %q, want %q in it", f.Route.Route, served[f.Route.Route], want)
				}
				if strings.HasSuffix(f.Route.Route, "/versions/latest") {
					latest++
				}
			}
			if latest == 0 {
				t.Error("the site has no server: the test proves nothing")
			}
		})
	}

	// What Pages does serve, the same stand-in: the documents at their
	// .json paths, /tools not.
	base := pagesServer(t, filepath.Join(out, s.Dir), true)
	for target, status := range map[string]int{
		"/tools.json":                  200,
		"/tools":                       404,
		"/.well-known/ai-catalog.json": 200,
		"/v0.1/servers.json":           200,
		"/v0.1/servers/com.example/weather/versions/latest.json": 200,
	} {
		if got := pagesDo(t, base, "GET", target, nil); got.status != status {
			t.Errorf("GET %s: %d, want %d", target, got.status, status)
		}
	}
}

// pagesRegistrySite is a site of one server with two versions, one with
// build metadata, and its MCP catalog.
func pagesRegistrySite(t testing.TB) *output.Site {
	doc := func(route string) output.Document {
		return buildtest.Document(t, route, spec.ViewStandard, spec.ContentTypeJSON, []byte("{}\n"))
	}
	docs := []output.Document{
		doc(spec.RouteMCPCatalog),
		doc(spec.RouteRegistry),
		doc(spec.RegistryVersionsRoute("com.example/weather")),
		doc(spec.RegistryVersionRoute("com.example/weather", "1.0.0+build.7")),
		doc(spec.RegistryVersionRoute("com.example/weather", "0.9.0")),
		doc(spec.RegistryVersionRoute("com.example/weather", spec.RegistryLatest)),
	}
	output.SortDocuments(docs)
	return &output.Site{Dir: "public", Documents: docs}
}

func TestPagesRegistryGaps(t *testing.T) {
	s := pagesRegistrySite(t)
	_, gaps := Layout(s)
	const (
		cors = ", with the registry's CORS headers and a 204 preflight"
		fix  = "point the clients at this catalog built for a cloudflare, netlify or s3 target (with CloudFront), or at signpost serve; or leave the registry out with discovery: {registry: false} in signpost.yaml"
	)
	want := []Gap{
		{
			Kind:        KindRegistry,
			Route:       "/v0.1/servers",
			View:        "standard",
			Requirement: "the list at /v0.1/servers whatever the query (?limit=1, ?limit=50&version=latest, &search=)" + cors,
			Served:      "it at /v0.1/servers.json only; /v0.1/servers is Pages' HTML 404 (Pages adds no .json, and it is the folder of the other registry documents), so VS Code's gallery is empty",
			Fix:         fix,
		},
		{
			Kind:        KindRegistry,
			Route:       "/v0.1/servers/com.example%2Fweather/versions",
			View:        "standard",
			Requirement: "the versions at /v0.1/servers/com.example%2Fweather/versions, the name's / as %2F or as it is" + cors,
			Served:      "them at /v0.1/servers/com.example/weather/versions.json only; /v0.1/servers/com.example%2Fweather/versions is Pages' HTML 404, with %2F or /",
			Fix:         fix,
		},
		{
			Kind:        KindRegistry,
			Route:       "/v0.1/servers/com.example%2Fweather/versions/0.9.0",
			View:        "standard",
			Requirement: "the version at /v0.1/servers/com.example%2Fweather/versions/0.9.0, the name's / as %2F or as it is" + cors,
			Served:      "it at /v0.1/servers/com.example/weather/versions/0.9.0.json only; /v0.1/servers/com.example%2Fweather/versions/0.9.0 is Pages' HTML 404, with %2F or /, so VS Code cannot open that version",
			Fix:         fix,
		},
		{
			Kind:        KindRegistry,
			Route:       "/v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7",
			View:        "standard",
			Requirement: "the version at /v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7, the name's / as %2F or as it is" + cors,
			Served:      "it at /v0.1/servers/com.example/weather/versions/1.0.0_2bbuild.7.json only; /v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7 is Pages' HTML 404, with %2F or /, so VS Code cannot open that version",
			Fix:         fix,
		},
		{
			Kind:        KindRegistry,
			Route:       "/v0.1/servers/com.example%2Fweather/versions/latest",
			View:        "standard",
			Requirement: "the latest version at /v0.1/servers/com.example%2Fweather/versions/latest, as Copilot CLI and VS Code ask for it" + cors,
			Served:      "it at /v0.1/servers/com.example/weather/versions/latest.json only; /v0.1/servers/com.example%2Fweather/versions/latest is Pages' HTML 404, with %2F or /, so Copilot CLI refuses the server and VS Code cannot show it",
			Fix:         fix,
		},
	}
	var got []Gap
	for _, g := range gaps {
		if g.Kind == KindRegistry {
			got = append(got, g)
		} else if g.Route != EveryRoute {
			t.Errorf("a gap of another kind than the registry's for one of its routes: %+v", g)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registry gaps (-want +got):\n%s", diff)
	}

	// The report: a line of what Pages cannot do, then a line for each
	// class of routes, several of one class as one line.
	var buf bytes.Buffer
	if err := writeReport(&buf, []*output.Site{s}, [][]Gap{gaps}); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, line := range []string{
		"What GitHub Pages cannot do:\n  The MCP registry will not work on GitHub Pages: every request VS Code, Copilot and Copilot CLI send to /v0.1/servers and below is Pages' HTML 404, so Copilot CLI refuses every server and VS Code's gallery is empty.\n  A script in a browser",
		"public/: 6 routes on GitHub Pages, 7 gaps\n" +
			"  /v0.1/servers: needs the list at /v0.1/servers whatever the query (?limit=1, ?limit=50&version=latest, &search=)" + cors + "; Pages serves it at /v0.1/servers.json only; /v0.1/servers is Pages' HTML 404 (Pages adds no .json, and it is the folder of the other registry documents), so VS Code's gallery is empty. Fix: " + fix + ".\n" +
			"  /v0.1/servers/com.example%2Fweather/versions: needs the versions at /v0.1/servers/com.example%2Fweather/versions, the name's / as %2F or as it is" + cors + "; Pages serves them at /v0.1/servers/com.example/weather/versions.json only; /v0.1/servers/com.example%2Fweather/versions is Pages' HTML 404, with %2F or /. Fix: " + fix + ".\n" +
			"  2 routes /v0.1/servers/{name}/versions/{version}: need each version at /v0.1/servers/{name}/versions/{version}, the name's / as %2F or as it is" + cors + "; Pages serves each at /v0.1/servers/{namespace}/{name}/versions/{version}.json only; the routes are Pages' HTML 404, with %2F or /, so VS Code cannot open a version. Fix: " + fix + ".\n" +
			"  /v0.1/servers/com.example%2Fweather/versions/latest: needs the latest version at /v0.1/servers/com.example%2Fweather/versions/latest, as Copilot CLI and VS Code ask for it" + cors + "; Pages serves it at /v0.1/servers/com.example/weather/versions/latest.json only; /v0.1/servers/com.example%2Fweather/versions/latest is Pages' HTML 404, with %2F or /, so Copilot CLI refuses the server and VS Code cannot show it. Fix: " + fix + ".\n" +
			"  every route: needs Access-Control-Allow-Methods",
		"  0 of 6 routes are served exactly as the contract says; 1 more has the contract's URL and Content-Type but not the headers every route needs.\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("report lacks\n%s\nin\n%s", line, text)
		}
	}

	// Several servers: each class of routes is one line with its count.
	s.Documents = append(s.Documents,
		buildtest.Document(t, spec.RegistryVersionsRoute("com.example/docs"), spec.ViewStandard, spec.ContentTypeJSON, []byte("{}\n")),
		buildtest.Document(t, spec.RegistryVersionRoute("com.example/docs", spec.RegistryLatest), spec.ViewStandard, spec.ContentTypeJSON, []byte("{}\n")),
	)
	output.SortDocuments(s.Documents)
	_, gaps = Layout(s)
	buf.Reset()
	if err := writeReport(&buf, []*output.Site{s}, [][]Gap{gaps}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  2 routes /v0.1/servers/{name}/versions: need each server's versions at /v0.1/servers/{name}/versions, the name's / as %2F or as it is" + cors + "; Pages serves each at /v0.1/servers/{namespace}/{name}/versions.json only; the routes are Pages' HTML 404, with %2F or /. Fix: " + fix + ".\n",
		"  2 routes /v0.1/servers/{name}/versions/latest: need each server's latest version at /v0.1/servers/{name}/versions/latest, as Copilot CLI and VS Code ask for it" + cors + "; Pages serves each at /v0.1/servers/{namespace}/{name}/versions/latest.json only; the routes are Pages' HTML 404, with %2F or /, so Copilot CLI refuses every server and VS Code can show none. Fix: " + fix + ".\n",
	} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("report lacks\n%s\nin\n%s", line, buf.String())
		}
	}
}

// What any catalog published to Pages should expect names the registry,
// which a catalog with a server has unless it turns it off.
func TestLimitsNameTheRegistry(t *testing.T) {
	want := "The MCP registry will not work on GitHub Pages: every request VS Code, Copilot and Copilot CLI send to /v0.1/servers and below is Pages' HTML 404, so Copilot CLI refuses every server and VS Code's gallery is empty"
	_, gaps := Layout(pagesRegistrySite(t))
	for _, limits := range [][]string{Limits(), Limits(gaps)} {
		n := 0
		for _, l := range limits {
			if l == want {
				n++
			}
		}
		if n != 1 {
			t.Errorf("Limits %q: the registry's line %d times, want once", limits, n)
		}
	}
	if _, gaps := Layout(pagesSmallSite(t)); strings.Contains(strings.Join(Limits(gaps), "\n"), "MCP registry") {
		t.Error("a site without a registry is told of the registry")
	}
}
