package check_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/serve"
)

// registryRequest reports whether r is a request of the registry's routes.
func registryRequest(r *http.Request) bool { return spec.IsRegistryRoute(r.URL.Path) }

// dropMeta removes _meta from a registry document: from each server of a
// list, or from the one version.
func dropMeta(v any) any {
	m := v.(map[string]any)
	if servers, ok := m["servers"].([]any); ok {
		for _, s := range servers {
			delete(s.(map[string]any), "_meta")
		}
		return m
	}
	delete(m, "_meta")
	return m
}

// TestRegistryBroken serves the example with one thing of the registry
// broken, and checks that the rules that say so, and only those, are not
// met, with a finding that says what a client would see.
func TestRegistryBroken(t *testing.T) {
	site := correctHandler(t)
	registryJSON := func(match func(*http.Request) bool, edit func(v any) any) http.Handler {
		return editResponses(site, match, func(status *int, _ http.Header, body []byte) []byte {
			if *status != http.StatusOK {
				return body
			}
			return editJSON(t, body, edit)
		})
	}
	weatherLatest := spec.RegistryVersionRoute("com.example/weather", spec.RegistryLatest)
	tests := []struct {
		name string
		site http.Handler
		want string
		// finding is a piece of the text of a finding of the report.
		finding  string
		warnOnly bool
	}{{
		name: "403 for a name the registry does not list",
		site: editResponses(site, registryRequest, func(status *int, _ http.Header, body []byte) []byte {
			if *status == http.StatusNotFound {
				*status = http.StatusForbidden
			}
			return body
		}),
		want:    "registry.unknown-name",
		finding: "Copilot CLI would refuse every server: 403 on a name the registry does not list",
	}, {
		name:    "no _meta",
		site:    registryJSON(registryRequest, dropMeta),
		want:    "registry.schema registry.server",
		finding: "/servers/0/_meta: missing, not an object",
	}, {
		name: "no official block in a latest version",
		site: registryJSON(func(r *http.Request) bool { return r.URL.EscapedPath() == weatherLatest }, func(v any) any {
			delete(v.(map[string]any)["_meta"].(map[string]any), spec.RegistryOfficialMeta)
			return v
		}),
		// The latest version is no longer the list's entry either.
		want:    "registry.consistent registry.schema registry.server",
		finding: "VS Code could not read com.example/weather",
	}, {
		name: "the CORS headers of another origin",
		site: editResponses(site, registryRequest, func(_ *int, h http.Header, body []byte) []byte {
			h.Set("Access-Control-Allow-Origin", "https://example.com")
			return body
		}),
		want:    "cors.every-response registry.cors registry.preflight",
		finding: "VS Code would not read the answer",
	}, {
		name: "404 for a name with %2F",
		site: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && registryRequest(r) && strings.Contains(r.URL.EscapedPath(), "%2F") {
				w.Header().Set("Access-Control-Allow-Origin", "*")
				w.Header().Set("Access-Control-Allow-Methods", spec.RegistryAllowMethods)
				w.Header().Set("Access-Control-Allow-Headers", spec.RegistryAllowHeaders)
				w.WriteHeader(http.StatusNotFound)
				w.Write(spec.RegistryErrorBody(spec.RegistryServerNotFound))
				return
			}
			site.ServeHTTP(w, r)
		}),
		want:    "registry.lookup registry.versions",
		finding: "VS Code could not open com.example/weather, and Copilot CLI would refuse it: 404 for the name as encodeURIComponent writes it ('/' as %2F)",
	}, {
		name: "no preflight",
		site: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions && registryRequest(r) {
				w.Header().Set("Access-Control-Allow-Origin", "*")
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			site.ServeHTTP(w, r)
		}),
		want:    "registry.preflight",
		finding: "VS Code would send no request with Authorization to the registry",
	}, {
		name: "a preflight that allows any header, which does not cover Authorization",
		site: editResponses(site, func(r *http.Request) bool { return r.Method == http.MethodOptions && registryRequest(r) }, func(_ *int, h http.Header, body []byte) []byte {
			h.Set("Access-Control-Allow-Headers", "*")
			return body
		}),
		want:    "registry.preflight",
		finding: "Access-Control-Allow-Headers without Authorization",
	}, {
		name: "a latest version that is not the list's entry",
		site: registryJSON(func(r *http.Request) bool { return r.URL.EscapedPath() == weatherLatest }, func(v any) any {
			v.(map[string]any)["server"].(map[string]any)["description"] = "Something else."
			return v
		}),
		want:     "registry.consistent",
		finding:  "VS Code would show one server and install another",
		warnOnly: true,
	}, {
		name: "a search that does not filter, as on a static host",
		site: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if registryRequest(r) {
				q := r.URL.Query()
				q.Del("search")
				r = r.Clone(r.Context())
				r.URL.RawQuery = q.Encode()
			}
			site.ServeHTTP(w, r)
		}),
		want:     "registry.search-filter",
		finding:  `VS Code's search for "billing" would show all 5 servers, not the 1 that match`,
		warnOnly: true,
	}, {
		name: "a search that loses the server searched",
		site: registryJSON(func(r *http.Request) bool { return registryRequest(r) && r.URL.Query().Has("search") }, func(v any) any {
			m := v.(map[string]any)
			m["servers"] = []any{}
			m["metadata"] = map[string]any{"count": 0}
			return m
		}),
		want:    "registry.search",
		finding: `VS Code's search for "billing" would not find com.example/billing`,
	}, {
		name: "a search that answers servers that do not match",
		site: registryJSON(func(r *http.Request) bool { return registryRequest(r) && r.URL.Query().Has("search") }, func(v any) any {
			m := v.(map[string]any)
			m["servers"] = append(m["servers"].([]any), map[string]any{"server": map[string]any{"name": "com.example/other"}})
			return m
		}),
		want:    "registry.schema registry.search",
		finding: "would show servers that do not match",
	}, {
		name: "an unknown name answered 200",
		site: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "zz.signpost.check") {
				r = r.Clone(r.Context())
				r.URL.Path, r.URL.RawPath = "/v0.1/servers/com.example/weather/versions/latest", ""
			}
			site.ServeHTTP(w, r)
		}),
		want:    "registry.unknown-name",
		finding: "Copilot CLI would allow a server the registry does not list",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runOn(t, tt.site, "https://example.com", check.Options{})
			want := strings.Fields(tt.want)
			if got := checktest.Bad(r); !slices.Equal(got, want) {
				t.Errorf("rules not met = %v, want %v\n%s", got, want, checktest.Problems(r))
			}
			wantFailed := false
			for _, w := range want {
				wantFailed = wantFailed || check.RuleLevel(w) == check.LevelMust && !tt.warnOnly
			}
			if r.Failed() != wantFailed {
				t.Errorf("Failed() = %t, want %t", r.Failed(), wantFailed)
			}
			if text := textOf(t, r); !strings.Contains(text, tt.finding) {
				t.Errorf("no finding says %q:\n%s", tt.finding, checktest.Problems(r))
			}
		})
	}
}

// TestRegistryOff: a site whose /v0.1/servers answers 404 has no registry
// (a catalog may turn it off); every registry rule is skipped, saying why,
// and the check passes.
func TestRegistryOff(t *testing.T) {
	site := correctHandler(t)
	off := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if registryRequest(r) && r.Method == http.MethodGet {
			r = r.Clone(r.Context())
			r.URL.Path, r.URL.RawPath = "/v0.1/servers/zz.nowhere/none/versions/latest", ""
		}
		site.ServeHTTP(w, r)
	})
	r := runOn(t, off, "https://example.com", check.Options{})
	if bad := checktest.Bad(r); len(bad) > 0 || r.Failed() {
		t.Errorf("rules not met: %v\n%s", bad, checktest.Problems(r))
	}
	skipped := map[string]bool{}
	for _, f := range r.Findings {
		if !strings.HasPrefix(f.Rule, "registry.") {
			continue
		}
		if f.Result != check.ResultSkip || f.URL != "https://example.com/v0.1/servers" || !strings.Contains(f.Message, "the site has no MCP registry: /v0.1/servers?limit=1 answers 404") {
			t.Errorf("%s %s at %s: %s", f.Rule, f.Result, f.URL, f.Message)
		}
		skipped[f.Rule] = true
	}
	for _, rule := range check.Rules() {
		if strings.HasPrefix(rule.Name, "registry.") && !skipped[rule.Name] {
			t.Errorf("%s is not skipped", rule.Name)
		}
	}
}

// uriRecorder records the request URIs a handler is sent.
type uriRecorder struct {
	next http.Handler
	mu   sync.Mutex
	uris []string
}

func (u *uriRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.uris = append(u.uris, r.Method+" "+r.RequestURI)
	u.mu.Unlock()
	u.next.ServeHTTP(w, r)
}

// TestRegistryRequests checks what the check sends: the clients' requests
// as they send them, a name's '/' as %2F and a version's '+' as %2B, over
// a catalog whose weather server has build metadata in its version; and
// that a host which cannot take %2B is told so.
func TestRegistryRequests(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(catalogtest.ExampleDir(t))); err != nil {
		t.Fatal(err)
	}
	servers := filepath.Join(dir, "servers.yaml")
	b, err := os.ReadFile(servers)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "version: 2.3.1\n", "version: 2.3.1+build.5\n", 1)
	if edited == string(b) {
		t.Fatal("the example's weather server is no longer at version 2.3.1")
	}
	if err := os.WriteFile(servers, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := serve.NewHandler(t.Context(), buildtest.Compile(t, dir).Sites[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &uriRecorder{next: h}
	r := runOn(t, rec, "https://example.com", check.Options{})
	if bad := checktest.Bad(r); len(bad) > 0 || r.Failed() {
		t.Errorf("rules not met: %v\n%s", bad, checktest.Problems(r))
	}
	for _, want := range []string{
		"GET /v0.1/servers?limit=1",
		"GET /v0.1/servers?limit=50&version=latest",
		"GET /v0.1/servers?limit=50&version=latest&search=billing",
		"GET /v0.1/servers/com.example%2Fweather/versions/latest",
		"GET /v0.1/servers/com.example%2Fweather/versions",
		"GET /v0.1/servers/com.example%2Fweather/versions/2.3.1%2Bbuild.5",
		"GET /v0.1/servers/zz.signpost.check%2Funknown-0/versions/latest",
		"OPTIONS /v0.1/servers",
		"OPTIONS /v0.1/servers/com.example%2Fbilling/versions/latest",
	} {
		if !slices.Contains(rec.uris, want) {
			t.Errorf("no request %s", want)
		}
	}

	noPlus := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.RequestURI, "%2B") {
			r = r.Clone(r.Context())
			r.URL.Path, r.URL.RawPath = "/v0.1/servers/com.example/weather/versions/9.9.9", ""
		}
		h.ServeHTTP(w, r)
	})
	r = runOn(t, noPlus, "https://example.com", check.Options{})
	if got := checktest.Bad(r); !slices.Equal(got, []string{"registry.versions"}) || r.Failed() {
		t.Errorf("rules not met = %v (failed %t), want [registry.versions] as a warning\n%s", got, r.Failed(), checktest.Problems(r))
	}
	if text := textOf(t, r); !strings.Contains(text, "version 2.3.1+build.5 of com.example/weather should answer 200, its number as encodeURIComponent writes it ('+' as %2B)") {
		t.Errorf("no finding of the version with '+':\n%s", checktest.Problems(r))
	}
}

// TestRegistryPages: a registry that pages its list (metadata.nextCursor)
// is followed, and every server of every page is looked up.
func TestRegistryPages(t *testing.T) {
	site := correctHandler(t)
	var mu sync.Mutex
	var cursors []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != spec.RouteRegistry || q.Get("limit") != "50" || q.Has("search") || r.Method != http.MethodGet {
			site.ServeHTTP(w, r)
			return
		}
		cursor := q.Get("cursor")
		mu.Lock()
		cursors = append(cursors, cursor)
		mu.Unlock()
		editResponses(site, func(*http.Request) bool { return true }, func(status *int, h http.Header, body []byte) []byte {
			h.Del("ETag")
			if *status != http.StatusOK {
				return body
			}
			return editJSON(t, body, func(v any) any {
				m := v.(map[string]any)
				all := m["servers"].([]any)
				if cursor == "" {
					m["servers"] = all[:2]
					m["metadata"] = map[string]any{"count": 2, "nextCursor": "page 2"}
				} else {
					m["servers"] = all[2:]
					m["metadata"] = map[string]any{"count": len(all) - 2}
				}
				return m
			})
		}).ServeHTTP(w, r)
	})
	r := runOn(t, h, "https://example.com", check.Options{})
	// The pages have no ETag, which cache.etag says; the registry's rules
	// are all met.
	if got := checktest.Bad(r); !slices.Equal(got, []string{"cache.etag"}) {
		t.Errorf("rules not met = %v, want [cache.etag]\n%s", got, checktest.Problems(r))
	}
	lookups := 0
	for _, f := range r.Findings {
		if f.Rule == "registry.lookup" && f.Result == check.ResultPass {
			lookups++
		}
	}
	if lookups != 5 {
		t.Errorf("%d servers looked up, want 5", lookups)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(cursors, "page 2") {
		t.Errorf("cursors asked: %q, want page 2 among them", cursors)
	}
}

// TestRegistryLimit: with room for three of the registry's documents of the
// second stage, three servers are looked up, the rest are said not to be,
// and limits.documents counts what was left.
func TestRegistryLimit(t *testing.T) {
	// The first stage's 11, then 11 cards, 22 tools in 2 views, 7 groups
	// and the unknown view: 74 documents before the registry's.
	r := runOn(t, correctHandler(t), "https://example.com", check.Options{MaxDocuments: 77})
	if got := checktest.Bad(r); !slices.Equal(got, []string{"limits.documents"}) || r.Failed() {
		t.Errorf("rules not met = %v (failed %t), want [limits.documents] as a warning\n%s", got, r.Failed(), checktest.Problems(r))
	}
	var lookups int
	var skipped, documents string
	for _, f := range r.Findings {
		switch {
		case f.Rule == "registry.lookup" && f.Result == check.ResultPass:
			lookups++
		case f.Rule == "registry.lookup" && f.Result == check.ResultSkip:
			skipped = f.Evidence + ": " + f.Message
		case f.Rule == "limits.documents":
			documents = f.Evidence
		}
	}
	if lookups != 3 {
		t.Errorf("%d servers looked up, want 3", lookups)
	}
	if want := "2 servers of 5 not looked up: not fetched: the check's document limit was reached (see limits.documents)"; skipped != want {
		t.Errorf("registry.lookup skipped %q, want %q", skipped, want)
	}
	// 2 lookups, the search, 5 versions and 5 exact versions.
	if want := "77 documents fetched, 13 more not fetched (limit 77)"; documents != want {
		t.Errorf("limits.documents: %q, want %q", documents, want)
	}
}
