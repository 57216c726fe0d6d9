package serve

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// registryCatalog has a server whose version carries build metadata, and
// one whose name has upper case.
var registryCatalog = map[string]string{
	"signpost.yaml": catalogtest.Config,
	"servers.yaml": `servers:
  - {name: com.example/weather, version: 2.3.1, description: Forecasts and alerts., remotes: [{type: streamable-http, url: https://mcp.example.com/weather}]}
  - {name: com.example/builds, version: 1.0.0+build.7, description: Build metadata in the version.}
  - {name: Com.Example/Tickets, version: 4.2.0, title: Tickets, description: Read and update support TICKETS.}
`,
}

// answer is what a test reads of a response.
type answer struct {
	Status  int
	Headers map[string]string
	Body    string
}

// registryHeaders are the headers a registry response is held to.
var registryHeaders = []string{
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"Content-Type", "Cache-Control", "Etag", "Allow",
}

// registryExchange sends one request, then one that closes the connection, to
// both servers (net/http alone, and front), holds the two to the same
// bytes, and returns the first answer.
func registryExchange(t *testing.T, plain, fronted, raw string) answer {
	t.Helper()
	conversation := raw + "GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
	want, got := rawExchange(t, plain, conversation), rawExchange(t, fronted, conversation)
	if got != want {
		t.Errorf("%q:\nnet/http answered %d bytes, front %d:\n%s", raw, len(want), len(got), firstDifference(want, got))
	}
	req, _ := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(want)), req)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{Status: resp.StatusCode, Headers: map[string]string{}, Body: string(body)}
	for _, h := range registryHeaders {
		if v := resp.Header.Values(h); len(v) > 0 {
			a.Headers[h] = strings.Join(v, ", ")
		}
	}
	return a
}

// siteDocument returns the document of site at route.
func siteDocument(t *testing.T, site *output.Site, route string) output.Document {
	t.Helper()
	for _, d := range site.Documents {
		if d.Route.Route == route {
			return d
		}
	}
	t.Fatalf("no document at %s", route)
	return output.Document{}
}

// TestRegistryClients replays the requests the registry's clients send,
// exactly, against serve (net/http alone and front, byte for byte the
// same): VS Code's probe, list, search and lookup by
// encodeURIComponent(name); Copilot CLI's lookup of versions/latest with
// Accept: application/json and no Authorization; a browser's preflight
// from VS Code; and every other form of a name and a version a client may
// send. Each gets its status, the registry's CORS headers and the bytes of
// its document.
func TestRegistryClients(t *testing.T) {
	site := buildtest.Compile(t, catalogtest.Write(t, registryCatalog)).Sites[0]
	plain, fronted := servers(t, site, nil)
	ok := func(d output.Document) answer {
		return answer{Status: 200, Body: string(buildtest.Body(t, d)), Headers: map[string]string{
			"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type",
			"Content-Type": "application/json", "Cache-Control": "public, max-age=3600", "Etag": d.ETag,
		}}
	}
	notFound := func(message string) answer {
		return answer{Status: 404, Body: `{"error":"` + message + `"}` + "\n", Headers: map[string]string{
			"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type",
			"Content-Type": "application/json", "Cache-Control": "no-store",
		}}
	}
	list := siteDocument(t, site, spec.RouteRegistry)
	var entries struct{ Servers []json.RawMessage }
	if err := json.Unmarshal(buildtest.Body(t, list), &entries); err != nil || len(entries.Servers) != 3 {
		t.Fatalf("the list: %v, %d servers", err, len(entries.Servers))
	}
	// By name: Com.Example/Tickets, com.example/builds, com.example/weather.
	tickets, builds, weather := string(entries.Servers[0]), string(entries.Servers[1]), string(entries.Servers[2])
	found := func(raw ...string) answer {
		body := `{"metadata":{"count":` + string(rune('0'+len(raw))) + `},"servers":[` + strings.Join(raw, ",") + "]}\n"
		d := buildtest.Document(t, spec.RouteRegistry, spec.ViewStandard, spec.ContentTypeJSON, []byte(body))
		return ok(d)
	}
	weatherLatest := siteDocument(t, site, spec.RegistryVersionRoute("com.example/weather", spec.RegistryLatest))
	weatherVersion := siteDocument(t, site, spec.RegistryVersionRoute("com.example/weather", "2.3.1"))
	weatherVersions := siteDocument(t, site, spec.RegistryVersionsRoute("com.example/weather"))
	buildsVersion := siteDocument(t, site, spec.RegistryVersionRoute("com.example/builds", "1.0.0+build.7"))
	ticketsLatest := siteDocument(t, site, spec.RegistryVersionRoute("Com.Example/Tickets", spec.RegistryLatest))
	if weatherLatest.SHA256 != weatherVersion.SHA256 {
		t.Error("versions/latest and versions/2.3.1 differ")
	}
	get := func(target string, headers ...string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + strings.Join(headers, "") + "\r\n"
	}
	vscode := "User-Agent: Mozilla/5.0 Code/1.109.3\r\nAccept: */*\r\nOrigin: vscode-file://vscode-app\r\n"
	copilot := "Accept: application/json\r\nUser-Agent: copilot-cli\r\n"
	for _, tc := range []struct {
		name, raw string
		want      answer
	}{
		{"VS Code's probe", get("/v0.1/servers?limit=1", vscode), ok(list)},
		{"VS Code's list", get("/v0.1/servers?limit=50&version=latest", vscode), ok(list)},
		{"VS Code's next page", get("/v0.1/servers?limit=50&version=latest&cursor=", vscode), ok(list)},
		{"the list", get("/v0.1/servers"), ok(list)},
		{"the list, a trailing slash", get("/v0.1/servers/"), ok(list)},
		{"the list, updated_since", get("/v0.1/servers?updated_since=2025-08-07T13:15:04.280Z"), ok(list)},
		{"VS Code's search", get("/v0.1/servers?limit=50&version=latest&search=WEATHER", vscode), found(weather)},
		{"a search of descriptions", get("/v0.1/servers?limit=50&version=latest&search=tickets", vscode), found(tickets)},
		{"a search of names, ignoring case", get("/v0.1/servers?search=com.example%2F"), found(tickets, builds, weather)},
		{"a search within limit", get("/v0.1/servers?search=com.example&limit=2"), found(tickets, builds)},
		{"a search of an exact version", get("/v0.1/servers?search=e&version=1.0.0%2Bbuild.7"), found(builds)},
		{"a search that finds nothing", get("/v0.1/servers?limit=50&version=latest&search=nothing"), found()},
		{"an empty search", get("/v0.1/servers?limit=50&version=latest&search="), ok(list)},
		{"VS Code's lookup", get("/v0.1/servers/com.example%2Fweather/versions/latest", vscode), ok(weatherLatest)},
		{"Copilot CLI's lookup", get("/v0.1/servers/com.example%2Fweather/versions/latest", copilot), ok(weatherLatest)},
		{"a lookup, the name's slash as it is", get("/v0.1/servers/com.example/weather/versions/latest", copilot), ok(weatherLatest)},
		{"a lookup, a lower-case escape", get("/v0.1/servers/com.example%2fweather/versions/latest"), ok(weatherLatest)},
		{"a lookup, a trailing slash", get("/v0.1/servers/com.example%2Fweather/versions/latest/"), ok(weatherLatest)},
		{"a lookup with a query", get("/v0.1/servers/com.example%2Fweather/versions/latest?x=1"), ok(weatherLatest)},
		{"a version", get("/v0.1/servers/com.example%2Fweather/versions/2.3.1"), ok(weatherVersion)},
		{"the versions", get("/v0.1/servers/com.example%2Fweather/versions"), ok(weatherVersions)},
		{"the versions, a trailing slash", get("/v0.1/servers/com.example/weather/versions/"), ok(weatherVersions)},
		{"build metadata, %2B", get("/v0.1/servers/com.example%2Fbuilds/versions/1.0.0%2Bbuild.7"), ok(buildsVersion)},
		{"build metadata, +", get("/v0.1/servers/com.example/builds/versions/1.0.0+build.7"), ok(buildsVersion)},
		{"a name with upper case", get("/v0.1/servers/Com.Example%2FTickets/versions/latest"), ok(ticketsLatest)},
		{"an unknown server", get("/v0.1/servers/com.example%2Fnope/versions/latest", copilot), notFound("Server not found")},
		{"an unknown server's versions", get("/v0.1/servers/com.example%2Fnope/versions"), notFound("Server not found")},
		{"a name in another case", get("/v0.1/servers/com.example%2Ftickets/versions/latest"), notFound("Server not found")},
		{"an unknown version", get("/v0.1/servers/com.example%2Fweather/versions/9.9.9"), notFound("Server version not found")},
		{"build metadata left out", get("/v0.1/servers/com.example%2Fbuilds/versions/1.0.0"), notFound("Server version not found")},
		{"no versions segment", get("/v0.1/servers/com.example%2Fweather"), notFound("Server not found")},
		{"the server's own path", get("/v0.1/servers/com.example/weather"), notFound("Server not found")},
		{"VS Code's preflight", "OPTIONS /v0.1/servers?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: vscode-file://vscode-app\r\nAccess-Control-Request-Method: GET\r\n\r\n",
			answer{Status: 204, Headers: map[string]string{
				"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type", "Allow": "GET, HEAD, OPTIONS",
			}}},
		{"a preflight of a lookup", "OPTIONS /v0.1/servers/com.example%2Fweather/versions/latest HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: vscode-file://vscode-app\r\nAccess-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: authorization\r\n\r\n",
			answer{Status: 204, Headers: map[string]string{
				"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type", "Allow": "GET, HEAD, OPTIONS",
			}}},
		{"a revalidation", get("/v0.1/servers?limit=50&version=latest", "If-None-Match: "+list.ETag+"\r\n"),
			answer{Status: 304, Headers: map[string]string{
				"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type",
				"Cache-Control": "public, max-age=3600", "Etag": list.ETag,
			}}},
		{"a revalidation of a search", get("/v0.1/servers?search=weather", "If-None-Match: "+found(weather).Headers["Etag"]+"\r\n"),
			answer{Status: 304, Headers: map[string]string{
				"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type",
				"Cache-Control": "public, max-age=3600", "Etag": found(weather).Headers["Etag"],
			}}},
		{"another route keeps its CORS", "OPTIONS /tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			answer{Status: 204, Headers: map[string]string{
				"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type, If-None-Match", "Allow": "GET, HEAD, OPTIONS",
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, registryExchange(t, plain, fronted, tc.raw)); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}

// TestRegistryGated keeps a gated tenant's registry behind its gate, its
// discovery public or not: Copilot CLI, which sends no token, is refused
// (and so refuses every server: it fails closed). The preflight and the
// refusal carry the registry's CORS headers.
func TestRegistryGated(t *testing.T) {
	site := buildtest.Compile(t, catalogtest.Write(t, registryCatalog)).Sites[0]
	site.Access = gate.Access{Token: true, PublicDiscovery: true}
	keys := gate.Keys{site.Tenant + "/k1": gate.NewSecret()}
	tok, err := gate.Mint(keys, site.Tenant, "k1", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	plain, fronted := servers(t, site, keys)
	latest := siteDocument(t, site, spec.RegistryVersionRoute("com.example/weather", spec.RegistryLatest))
	cors := map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, OPTIONS", "Access-Control-Allow-Headers": "Authorization, Content-Type"}
	lookup := "GET /v0.1/servers/com.example%2Fweather/versions/latest HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
	refused := registryExchange(t, plain, fronted, lookup+"\r\n")
	if refused.Status != http.StatusUnauthorized || !strings.Contains(refused.Body, `"status":401`) {
		t.Errorf("Copilot CLI's lookup on a gated site: %+v", refused)
	}
	for k, v := range cors {
		if refused.Headers[k] != v {
			t.Errorf("the refusal's %s: %q, want %q", k, refused.Headers[k], v)
		}
	}
	if got := registryExchange(t, plain, fronted, lookup+"Authorization: Bearer "+tok+"\r\n\r\n"); got.Status != 200 || got.Body != string(buildtest.Body(t, latest)) || got.Headers["Cache-Control"] != "private, max-age=3600" {
		t.Errorf("a lookup with a token: %+v", got)
	}
	if got := registryExchange(t, plain, fronted, "OPTIONS /v0.1/servers HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: vscode-file://vscode-app\r\nAccess-Control-Request-Method: GET\r\n\r\n"); got.Status != 204 || got.Headers["Access-Control-Allow-Methods"] != "GET, OPTIONS" {
		t.Errorf("a preflight on a gated site: %+v", got)
	}
}
