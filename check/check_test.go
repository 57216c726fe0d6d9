package check_test

import (
	"bytes"
	stdcmp "cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/serve"
)

// correctHandler serves the first site of the example catalog with the
// handler of signpost serve: the check must pass against it.
func correctHandler(t testing.TB) http.Handler {
	t.Helper()
	b := buildtest.Example(t)
	// With the variants of a build for S3, as serve sends them: brotli
	// and gzip, each with its ETag.
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	h, err := serve.NewHandler(t.Context(), b.Sites[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// runOn checks site as it answers at base, with opts.
func runOn(t testing.TB, site http.Handler, base string, opts check.Options) *check.Report {
	t.Helper()
	opts.Client = checktest.Serve(t, site)
	r, err := check.Run(context.Background(), base, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// textOf is r's verbose text report.
func textOf(t testing.TB, r *check.Report) string {
	var b bytes.Buffer
	if err := r.WriteText(&b, true); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCorrectSite(t *testing.T) {
	site := correctHandler(t)
	for _, base := range []string{"https://example.com", "http://127.0.0.1:8080/"} {
		t.Run(base, func(t *testing.T) {
			r := runOn(t, site, base, check.Options{})
			if bad := checktest.Bad(r); len(bad) > 0 || r.Failed() {
				t.Errorf("rules not met: %v\n%s", bad, checktest.Problems(r))
			}
			if base != "https://example.com" {
				return
			}
			text := textOf(t, r)
			n := len(check.Rules()) - len(tokenRules) - len(onSiteRules)
			if want := fmt.Sprintf("\nAI Catalog conformance level 2 (Discoverable Catalog); not level 3: 0 of 7 entries have a verified publisher Trust Manifest\n%d rules: %d passed, 0 failed, 0 warnings, %d skipped\n", n, n-len(signedRules), len(signedRules)); !strings.HasSuffix(text, want) {
				t.Errorf("text report does not end in %q:\n%s", want, text[max(0, len(text)-200):])
			}
			// On its own origin, every rule applies somewhere.
			met := map[string]bool{}
			for _, f := range r.Findings {
				if f.Result == check.ResultPass {
					met[f.Rule] = true
				}
			}
			for _, rule := range check.Rules() {
				if !met[rule.Name] && !slices.Contains(tokenRules, rule.Name) && !slices.Contains(onSiteRules, rule.Name) && !slices.Contains(signedRules, rule.Name) {
					t.Errorf("rule %s never passed", rule.Name)
				}
			}
			// The identifiers signpost writes are of the domain-anchored
			// form: urn:air:example.com:mcp:weather and
			// urn:air:example.com:tool-catalog:acme pass.
			for _, f := range r.Findings {
				if f.Rule == "ai-catalog.identifier" && (f.Result != check.ResultPass || f.Evidence != "7 unique identifiers") {
					t.Errorf("ai-catalog.identifier: %s [%s]", f.Result, f.Evidence)
				}
			}
			// 2 catalogs, 10 local cards and 1 cross-host card, /tools in 3 views, 22 tools in 2 views,
			// 1 tool in an unknown view, an unknown tool in 2 views, the tool catalogue and its 7 groups,
			// the registry's probe, list, unknown server and search, and 5 servers' latest version,
			// versions and exact version.
			if want := 2 + 11 + 3 + 44 + 1 + 2 + 8 + 4 + 15; r.Documents != want {
				t.Errorf("documents = %d, want %d", r.Documents, want)
			}
		})
	}
}

// hostRecorder records the hosts of the requests its transport is asked
// to send.
type hostRecorder struct {
	next  http.RoundTripper
	mu    sync.Mutex
	hosts map[string]bool
}

func (h *hostRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.hosts[req.URL.Host] = true
	h.mu.Unlock()
	return h.next.RoundTrip(req)
}

// TestSameOrigin: with SameOrigin, the example's card on a vendor host is
// not fetched, its rules are skipped with the reason, and the check passes.
func TestSameOrigin(t *testing.T) {
	client := checktest.Serve(t, correctHandler(t))
	rec := &hostRecorder{next: client.Transport, hosts: map[string]bool{}}
	client.Transport = rec
	r, err := check.Run(context.Background(), "https://example.com", check.Options{Client: client, SameOrigin: true})
	if err != nil {
		t.Fatal(err)
	}
	if bad := checktest.Bad(r); len(bad) > 0 || r.Failed() {
		t.Errorf("rules not met: %v\n%s", bad, checktest.Problems(r))
	}
	if diff := cmp.Diff(map[string]bool{"example.com": true}, rec.hosts); diff != "" {
		t.Errorf("hosts asked (-want +got):\n%s", diff)
	}
	var skipped []string
	for _, f := range r.Findings {
		// The recorder hides the client's transport from the TLS probe.
		if f.Result == check.ResultSkip && f.Rule != "transport.tls-minimum" {
			skipped = append(skipped, f.Rule+" "+f.URL+": "+f.Message)
		}
	}
	card := "https://mcp.helpdesk-vendor.example.net/example-corp/.well-known/mcp-server-card"
	want := []string{
		"ai-catalog.signature https://example.com/.well-known/ai-catalog.json: the catalog is not signed",
		"ai-catalog.trust-manifest https://example.com/.well-known/ai-catalog.json: no entry is signed",
		"card.content-type " + card + ": the card is on another origin, and this check stays on the checked one",
		"card.name " + card + ": the card is on another origin, and this check stays on the checked one",
		"card.status " + card + ": the card is on another origin, and this check stays on the checked one",
		// The AI catalog lists it as an MCP Server Card.
		"card.v1-schema " + card + ": the card is on another origin, and this check stays on the checked one",
	}
	slices.Sort(skipped)
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	// One document fewer than TestCorrectSite: the cross-host card.
	if want := 2 + 10 + 3 + 44 + 1 + 2 + 8 + 4 + 15; r.Documents != want {
		t.Errorf("documents = %d, want %d", r.Documents, want)
	}
}

// tokenRules apply to gated sites only, checked with a token (see
// TestGatedSite).
var tokenRules = []string{"access.gate"}

// onSiteRules apply to a server whose endpoint is on the checked origin,
// which the example has none of (see TestEndpointCard).
var onSiteRules = []string{"card.mcp-url"}

// signedRules apply to signed AI catalogs only (see TestSignedSite); the
// example is not signed.
var signedRules = []string{"ai-catalog.signature", "ai-catalog.trust-manifest"}

func TestDeterministic(t *testing.T) {
	site := correctHandler(t)
	a := runOn(t, site, "https://example.com", check.Options{Concurrency: 1})
	b := runOn(t, site, "https://example.com", check.Options{Concurrency: 16})
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("two checks differ (-1 +16 workers):\n%s", d)
	}
	if !slices.IsSortedFunc(a.Findings, func(x, y check.Finding) int {
		return stdcmp.Or(strings.Compare(x.Rule, y.Rule), strings.Compare(x.URL, y.URL))
	}) {
		t.Error("findings are not sorted by rule, then URL")
	}
}

// editResponses wraps site: for requests that match, the response is
// recorded and edit may change its status, headers and body.
func editResponses(site http.Handler, match func(*http.Request) bool, edit func(status *int, h http.Header, body []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The edits work on plain JSON: ask the site for it uncompressed,
		// on every request, so that all of them see one representation.
		r = r.Clone(r.Context())
		r.Header.Del("Accept-Encoding")
		if !match(r) {
			site.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		site.ServeHTTP(rec, r)
		status := rec.Code
		body := edit(&status, rec.Header(), rec.Body.Bytes())
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(status)
		w.Write(body)
	})
}

// editJSON edits a JSON body.
func editJSON(t testing.TB, body []byte, edit func(v any) any) []byte {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("editing %s: %v", body, err)
	}
	out, err := json.Marshal(edit(v))
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func matches(path, view string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		v := r.URL.Query().Get("view")
		if view == spec.ViewStandard {
			return r.URL.Path == path && v != spec.ViewCompact
		}
		return r.URL.Path == path && v == view
	}
}

func anyOf(ms ...func(*http.Request) bool) func(*http.Request) bool {
	return func(r *http.Request) bool {
		for _, m := range ms {
			if m(r) {
				return true
			}
		}
		return false
	}
}

// editTool edits the descriptor of toolId id, in a list (standard or
// compact) or alone.
func editTool(id string, edit func(m map[string]any)) func(v any) any {
	return func(v any) any {
		list, _ := v.([]any)
		if obj, ok := v.(map[string]any); ok {
			if tools, ok := obj["tools"].([]any); ok {
				list = tools
			} else {
				list = []any{obj}
			}
		}
		for _, e := range list {
			if m := e.(map[string]any); m["toolId"] == id {
				edit(m)
			}
		}
		return v
	}
}

// aiIdentifier edits the AI catalog: the entry identified old gets the
// identifier new.
func aiIdentifier(old, new string) func(v any) any {
	return func(v any) any {
		for _, e := range v.(map[string]any)["entries"].([]any) {
			if m := e.(map[string]any); m["identifier"] == old {
				m["identifier"] = new
				return v
			}
		}
		panic("no AI catalog entry " + old)
	}
}

func TestBrokenSites(t *testing.T) {
	site := correctHandler(t)
	headers := func(match func(*http.Request) bool, edit func(h http.Header)) http.Handler {
		return editResponses(site, match, func(_ *int, h http.Header, body []byte) []byte { edit(h); return body })
	}
	// aiBytes serves the site with the first old of its AI catalog's
	// bytes replaced by new.
	aiBytes := func(old, new string) http.Handler {
		return editResponses(site, matches(spec.RouteAICatalog, spec.ViewStandard), func(status *int, _ http.Header, body []byte) []byte {
			if *status == http.StatusOK && !bytes.Contains(body, []byte(old)) {
				t.Errorf("the AI catalog has no %s", old)
			}
			return bytes.Replace(body, []byte(old), []byte(new), 1)
		})
	}
	jsonEdit := func(match func(*http.Request) bool, edit func(v any) any) http.Handler {
		return editResponses(site, match, func(status *int, _ http.Header, body []byte) []byte {
			if *status != http.StatusOK {
				return body
			}
			return editJSON(t, body, edit)
		})
	}
	rewrite := func(match func(*http.Request) bool, path string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				r = r.Clone(r.Context())
				r.URL.Path = path
			}
			site.ServeHTTP(w, r)
		})
	}
	allRequests := func(*http.Request) bool { return true }
	weatherDraft := "/.well-known/mcp/servers/com.example/weather.json"
	weatherV1 := "/.well-known/mcp/server-cards/com.example/weather.json"

	// encoded serves the site, and /tools to a request that accepts br
	// from site2 with edit applied to its headers: a variant of other
	// bytes, or without Vary.
	encoded := func(site2 http.Handler, edit func(h http.Header)) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != spec.RouteTools || r.URL.RawQuery != "" || r.Header.Get("Accept-Encoding") != "br" {
				site.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			site2.ServeHTTP(rec, r)
			edit(rec.Header())
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		})
	}
	// compact answers every request as /tools?view=compact.
	compact := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.URL.RawQuery = "view=compact"
		site.ServeHTTP(w, r)
	})

	tests := []struct {
		name string
		site http.Handler
		base string
		opts check.Options
		want string
		// warnOnly: the rules of want are broken at SHOULD only.
		warnOnly bool
	}{{
		name:     "a brotli /tools of other bytes",
		site:     encoded(compact, func(http.Header) {}),
		want:     "transport.encoding",
		warnOnly: true,
	}, {
		name:     "a brotli /tools without Vary",
		site:     encoded(site, func(h http.Header) { h.Del("Vary") }),
		want:     "transport.encoding",
		warnOnly: true,
	}, {
		name: "a brotli /tools with the gzip one's ETag",
		site: encoded(site, func(h http.Header) {
			r := httptest.NewRequest(http.MethodGet, spec.RouteTools, nil)
			r.Header.Set("Accept-Encoding", "gzip")
			rec := httptest.NewRecorder()
			site.ServeHTTP(rec, r)
			h.Set("ETag", rec.Header().Get("ETag"))
		}),
		want:     "transport.encoding",
		warnOnly: true,
	}, {
		name: "MCP catalog as text/plain",
		site: headers(matches(spec.RouteMCPCatalog, spec.ViewStandard), func(h http.Header) { h.Set("Content-Type", "text/plain") }),
		want: "mcp-catalog.content-type",
	}, {
		name: "MCP catalog CORS only with Origin",
		site: headers(func(r *http.Request) bool { return r.URL.Path == spec.RouteMCPCatalog && r.Header.Get("Origin") == "" },
			func(h http.Header) { h.Del("Access-Control-Allow-Origin") }),
		want: "mcp-catalog.cors",
	}, {
		name: "no CORS on 404",
		site: editResponses(site, allRequests, func(status *int, h http.Header, body []byte) []byte {
			if *status == http.StatusNotFound {
				for k := range h {
					if strings.HasPrefix(k, "Access-Control-") {
						h.Del(k)
					}
				}
			}
			return body
		}),
		// The registry's unknown server, a 404, is read by VS Code's
		// renderer too.
		want: "cors.every-response registry.cors",
	}, {
		name: "unsorted /tools",
		site: jsonEdit(matches("/tools", spec.ViewStandard), func(v any) any {
			l := v.([]any)
			l[0], l[1] = l[1], l[0]
			return l
		}),
		want: "tools.sorted",
	}, {
		name: "card name is not the identifier's",
		site: jsonEdit(matches(weatherDraft, spec.ViewStandard), func(v any) any {
			v.(map[string]any)["name"] = "com.example/wether"
			return v
		}),
		want: "card.name",
	}, {
		// An AI catalog identifier cannot hold a server's name: the card's
		// name after its namespace should be the identifier's NAME.
		name: "v1 card name is not the AI catalog identifier's",
		site: jsonEdit(matches(weatherV1, spec.ViewStandard), func(v any) any {
			v.(map[string]any)["name"] = "com.example/wether"
			return v
		}),
		// The card's bytes are not those the AI catalog's digest names.
		want: "ai-catalog.digest card.name",
	}, {
		name: "AI catalog identifier with a '/'",
		site: jsonEdit(matches(spec.RouteAICatalog, spec.ViewStandard), aiIdentifier("urn:air:example.com:mcp:weather", "urn:air:example.com:mcp:com.example/weather")),
		want: "ai-catalog.identifier",
	}, {
		name: "AI catalog with a member name twice",
		site: aiBytes(`"specVersion":"1.0"`, `"specVersion":"1.0","specVersion":"1.0"`),
		want: "ai-catalog.jcs",
	}, {
		name: "AI catalog with an integer beyond 2^53",
		site: aiBytes(`"specVersion":"1.0"}`, `"specVersion":"1.0","x":9007199254740993}`),
		want: "ai-catalog.jcs",
	}, {
		name: "AI catalog with a lone surrogate",
		site: aiBytes(`"displayName":"Example Corp"`, `"displayName":"Example \ud800Corp"`),
		want: "ai-catalog.jcs",
	}, {
		name: "AI catalog listing a draft card",
		site: aiBytes(`"type":"application/mcp-server-card+json","url":"https://mcp.helpdesk-vendor`, `"type":"application/mcp-server+json","url":"https://mcp.helpdesk-vendor`),
		want: "ai-catalog.media-type",
	}, {
		name: "AI catalog with the digest of other bytes",
		site: aiBytes(`"digest":"sha256:5`, `"digest":"sha256:6`),
		want: "ai-catalog.digest",
	}, {
		name: "AI catalog with a SHA-1 digest",
		site: aiBytes(`"digest":"sha256:5`, `"digest":"sha1:0123456789abcdef0123456789abcdef01234567","x":"`),
		want: "ai-catalog.digest",
	}, {
		name: "AI catalog tool catalog identifier with a '/'",
		site: jsonEdit(matches(spec.RouteAICatalog, spec.ViewStandard), aiIdentifier("urn:air:example.com:tool-catalog:acme", "urn:air:example.com:tool-catalog/acme")),
		want: "ai-catalog.identifier",
	}, {
		name: "AI catalog MCP identifier of another domain",
		site: jsonEdit(matches(spec.RouteAICatalog, spec.ViewStandard), aiIdentifier("urn:air:example.com:mcp:weather", "urn:air:example.org:mcp:weather")),
		want: "ai-catalog.identifier",
	}, {
		name: "compact schema with anyOf",
		site: jsonEdit(anyOf(matches("/tools", spec.ViewCompact), matches("/tools/get_forecast", spec.ViewCompact)),
			editTool("get_forecast", func(m map[string]any) {
				props := m["inputSchema"].(map[string]any)["properties"].(map[string]any)
				props["units"] = map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}}
			})),
		want: "compact.keywords",
	}, {
		name: "unknown toolId answered 200",
		site: rewrite(func(r *http.Request) bool { return r.URL.Path == "/tools/"+check.UnknownID }, "/tools/get_forecast"),
		want: "tools.unknown-id",
	}, {
		name: "readOnlyHint flipped",
		site: jsonEdit(anyOf(matches("/tools", spec.ViewStandard), matches("/tools/get_forecast", spec.ViewStandard)),
			editTool("get_forecast", func(m map[string]any) {
				a := m["annotations"].(map[string]any)
				a["readOnlyHint"] = !a["readOnlyHint"].(bool)
			})),
		// The digest, left as it was, is no longer the definition's.
		want: "tools.annotations tools.digest",
	}, {
		name: "tool document differs from its list entry",
		site: jsonEdit(matches("/tools/get_invoice", spec.ViewStandard), editTool("get_invoice", func(m map[string]any) {
			m["description"] = "Something else."
		})),
		want: "tools.item",
	}, {
		name: "compact list without a tool",
		site: jsonEdit(matches("/tools", spec.ViewCompact), func(v any) any {
			obj := v.(map[string]any)
			obj["tools"] = slices.DeleteFunc(obj["tools"].([]any), func(e any) bool { return e.(map[string]any)["toolId"] == "get_invoice" })
			return obj
		}),
		want: "compact.list",
	}, {
		name: "unknown view answered 404",
		site: rewrite(func(r *http.Request) bool { return r.URL.Query().Get("view") == check.UnknownView }, "/nowhere"),
		want: "view.unknown",
	}, {
		name: "no ETag, no 304",
		site: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del("If-None-Match")
			headers(allRequests, func(h http.Header) { h.Del("ETag") }).ServeHTTP(w, r)
		}),
		want: "cache.etag",
	}, {
		name: "v1 card as application/json",
		site: headers(matches(weatherV1, spec.ViewStandard), func(h http.Header) { h.Set("Content-Type", "application/json") }),
		want: "card.content-type",
	}, {
		name: "body over the limit",
		site: editResponses(site, matches("/tools/get_invoice", spec.ViewStandard), func(status *int, _ http.Header, body []byte) []byte {
			if *status != http.StatusOK {
				return body
			}
			return append(body, bytes.Repeat([]byte(" "), 70<<10)...)
		}),
		opts: check.Options{MaxBodyBytes: 64 << 10},
		want: "limits.body-size",
	}, {
		name: "an access key in a description",
		site: jsonEdit(anyOf(matches("/tools", spec.ViewStandard), matches("/tools/get_invoice", spec.ViewStandard)),
			editTool("get_invoice", func(m map[string]any) { m["description"] = "Uses AKIAIOSFODNN7EXAMPLE to read invoices." })),
		want: "tools.credentials tools.digest",
	}, {
		name: "exec tool from an MCP server",
		site: jsonEdit(func(r *http.Request) bool { return r.URL.Path == "/tools" || r.URL.Path == "/tools/run_python_sandbox" },
			editTool("run_python_sandbox", func(m map[string]any) { m["source"] = "mcp" })),
		// The catalogue, left as it was, no longer agrees with /tools, nor
		// the digest with the definition.
		want: "catalogue.tools tools.digest tools.exec",
	}, {
		name: "a tool's definition changed under its digest",
		site: jsonEdit(anyOf(matches("/tools", spec.ViewStandard), matches("/tools/get_forecast", spec.ViewStandard)),
			editTool("get_forecast", func(m map[string]any) { m["description"] = "Something else." })),
		want: "tools.digest",
	}, {
		name: "a digest of another form",
		site: jsonEdit(anyOf(matches("/tools", spec.ViewStandard), matches("/tools/get_forecast", spec.ViewStandard)),
			editTool("get_forecast", func(m map[string]any) {
				def := m["_meta"].(map[string]any)["dev.signpost/definition"].(map[string]any)
				def["digest"] = strings.ToUpper(def["digest"].(string))
			})),
		// The schema's pattern is left to tools.digest; the catalogue no
		// longer carries what /tools does.
		want: "tools.digest",
	}, {
		name: "a catalogue entry with another digest",
		site: jsonEdit(func(r *http.Request) bool { return r.URL.Path == spec.RouteToolCatalogue }, func(v any) any {
			t := v.(map[string]any)["tools"].([]any)[0].(map[string]any)
			t["_meta"].(map[string]any)["dev.signpost/definition"].(map[string]any)["digest"] = "sha256:" + strings.Repeat("0", 64)
			return v
		}),
		// Its group document, left as it was, no longer equals it.
		want: "catalogue.groups tools.digest",
	}, {
		name: "a tool catalogue that lost a tool",
		site: jsonEdit(func(r *http.Request) bool { return r.URL.Path == spec.RouteToolCatalogue }, func(v any) any {
			m := v.(map[string]any)
			m["tools"] = m["tools"].([]any)[1:]
			return m
		}),
		// The group documents still hold it.
		want: "catalogue.groups catalogue.tools",
	}, {
		name: "a group document with an argument of its own",
		site: jsonEdit(func(r *http.Request) bool { return r.URL.Path == spec.GroupRoute("weather") }, func(v any) any {
			m := v.(map[string]any)
			t := m["tools"].([]any)[0].(map[string]any)
			t["arguments"].(map[string]any)["properties"].(map[string]any)["extra"] = map[string]any{"type": "string"}
			return m
		}),
		want: "catalogue.groups",
	}, {
		name: "different bytes every time",
		site: func() http.Handler {
			var n atomic.Int64
			return editResponses(site, matches("/tools/get_invoice", spec.ViewStandard), func(status *int, _ http.Header, body []byte) []byte {
				return append(body, bytes.Repeat([]byte(" "), int(n.Add(1)))...)
			})
		}(),
		want: "determinism.repeatable",
	}, {
		name: "plain http on a public host",
		site: site,
		base: "http://example.test",
		want: "transport.https",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := stdcmp.Or(tt.base, "https://example.com")
			r := runOn(t, tt.site, base, tt.opts)
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
		})
	}
}

// An entry of an unknown media type is ignored: a skip, and its URL is not
// fetched. A site that does not advertise the compact view may answer
// ?view=compact with the standard view.
func TestIgnoredAndOptional(t *testing.T) {
	site := correctHandler(t)
	var fetchedFuture atomic.Bool
	h := editResponses(site, func(r *http.Request) bool {
		return r.URL.Path == spec.RouteMCPCatalog || r.URL.Path == spec.RouteAICatalog
	}, func(status *int, _ http.Header, body []byte) []byte {
		if *status != http.StatusOK {
			return body
		}
		return editJSON(t, body, func(v any) any {
			obj := v.(map[string]any)
			entries := obj["entries"].([]any)
			if _, ok := obj["host"]; !ok {
				obj["entries"] = append(entries, map[string]any{"identifier": "urn:mcp:server:com.example/future", "mediaType": "application/x-future+json", "url": "https://example.com/future.json"})
				return obj
			}
			for _, e := range entries {
				if tc := check.ToolCatalogEntry(e.(map[string]any)); tc != nil {
					tc["compactView"] = false
				}
			}
			return obj
		})
	})
	edited := h
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/future.json" {
			fetchedFuture.Store(true)
		}
		if r.URL.Query().Get("view") == spec.ViewCompact {
			r = r.Clone(r.Context())
			r.URL.RawQuery = ""
		}
		edited.ServeHTTP(w, r)
	})
	r := runOn(t, h, "https://example.com", check.Options{})
	if bad := checktest.Bad(r); len(bad) > 0 {
		t.Errorf("rules not met: %v\n%s", bad, checktest.Problems(r))
	}
	if fetchedFuture.Load() {
		t.Error("the entry of an unknown media type was fetched")
	}
	want := map[string]bool{"mcp-catalog.media-type https://example.com/future.json": false, "compact.list https://example.com/tools?view=compact": false}
	for _, f := range r.Findings {
		if _, ok := want[f.Rule+" "+f.URL]; ok && f.Result == check.ResultSkip {
			want[f.Rule+" "+f.URL] = true
		}
		if strings.HasPrefix(f.Rule, "compact.") && f.Result != check.ResultSkip {
			t.Errorf("compact view not advertised, yet %+v", f)
		}
	}
	for k, ok := range want {
		if !ok {
			t.Errorf("no skip finding %s", k)
		}
	}
}

func TestLimits(t *testing.T) {
	site := correctHandler(t)
	r := runOn(t, site, "https://example.com", check.Options{MaxDocuments: 10})
	if r.Documents != 10 {
		t.Errorf("documents = %d, want 10", r.Documents)
	}
	if got := checktest.Bad(r); !slices.Equal(got, []string{"limits.documents"}) {
		t.Errorf("rules not met = %v, want [limits.documents]\n%s", got, checktest.Problems(r))
	}

	// A site that never answers: every request times out, and the check
	// says so in one error, without a report.
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	start := time.Now()
	_, err := check.Run(context.Background(), "https://example.com", check.Options{Client: checktest.Serve(t, slow), Timeout: 50 * time.Millisecond, Concurrency: 8})
	if time.Since(start) > 3*time.Second {
		t.Errorf("check of a silent site took %v", time.Since(start))
	}
	var ue *check.UnreachableError
	if !errors.As(err, &ue) || err.Error() != "https://example.com does not answer: no answer in time" {
		t.Errorf("a silent site: err = %v, want an *UnreachableError of no answer in time", err)
	}
}

func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	l.Close()
	r, err := check.Run(context.Background(), base, check.Options{})
	var ue *check.UnreachableError
	if r != nil || !errors.As(err, &ue) || err.Error() != base+" does not answer: connection refused" {
		t.Errorf("a port where nothing listens: report %v, err %v; want no report and connection refused", r != nil, err)
	}
	// A host DNS does not know: the cause is the lookup.
	if _, err := check.Run(context.Background(), "http://nowhere.invalid", check.Options{}); err == nil || !strings.Contains(err.Error(), "does not answer: DNS: ") {
		t.Errorf("a host DNS does not know: err %v, want a DNS cause", err)
	}
}

// TestResolve checks a site by a host name that DNS does not know, at the
// address Resolve gives it, as the guard allows: the name's own address.
func TestResolve(t *testing.T) {
	srv := httptest.NewServer(correctHandler(t))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	resolve, err := dial.ParseResolve([]string{"example.com:" + port + ":127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := check.Run(context.Background(), "http://example.com:"+port, check.Options{Resolve: resolve})
	if err != nil {
		t.Fatal(err)
	}
	if r.Documents == 0 {
		t.Errorf("no document fetched through Resolve:\n%s", textOf(t, r))
	}
	for _, bad := range []string{"example.com:443", "example.com:x:127.0.0.1", "example.com:443:localhost", ":443:127.0.0.1", "example.com:0:127.0.0.1"} {
		if _, err := dial.ParseResolve([]string{bad}); err == nil {
			t.Errorf("ParseResolve(%q): no error", bad)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, base := range []string{"", "example.com", "ftp://example.com", "https://", "https://user:pw@example.com", "https://example.com/?view=compact", "https://example.com/#x", "https://exa mple.com"} {
		if _, err := check.Run(context.Background(), base, check.Options{}); err == nil {
			t.Errorf("Run(%q): no error", base)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := check.Run(ctx, "https://example.com", check.Options{Client: checktest.Serve(t, correctHandler(t))}); err == nil {
		t.Error("Run with a cancelled context: no error")
	}
}

func TestRulesTable(t *testing.T) {
	rules := check.Rules()
	if !slices.IsSortedFunc(rules, func(a, b check.Rule) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("Rules is not sorted")
	}
	for i, r := range rules {
		if i > 0 && rules[i-1].Name == r.Name {
			t.Errorf("rule %s twice", r.Name)
		}
		if r.Level != check.LevelMust && r.Level != check.LevelShould || r.Text == "" {
			t.Errorf("rule %+v", r)
		}
	}
}

func sampleReport() *check.Report {
	return &check.Report{
		Base:      "https://example.com",
		Documents: 3,
		Findings: []check.Finding{
			{Rule: "cache.etag", Level: check.LevelShould, Result: check.ResultWarn, URL: "https://example.com/tools", Evidence: "no ETag", Message: "documents should have a strong ETag"},
			{Rule: "mcp-catalog.content-type", Level: check.LevelMust, Result: check.ResultFail, URL: "https://example.com/.well-known/mcp/catalog.json", Evidence: "Content-Type: text/plain", Message: "must be served as application/json"},
			{Rule: "mcp-catalog.media-type", Level: check.LevelMust, Result: check.ResultSkip, URL: "https://other.example/card", Evidence: "mediaType \"application/x\"", Message: "ignored"},
			{Rule: "tools.status", Level: check.LevelMust, Result: check.ResultPass, URL: "https://example.com/tools", Evidence: "status 200", Message: "the tool list answers 200"},
			{Rule: "transport.https", Level: check.LevelMust, Result: check.ResultPass, URL: "https://example.com", Evidence: "https", Message: "served over https"},
		},
	}
}

func TestReportWriteText(t *testing.T) {
	got := textOf(t, sampleReport())
	want := `check https://example.com: 3 documents
warn cache.etag (should)
  warn /tools: documents should have a strong ETag [no ETag]
fail mcp-catalog.content-type (must)
  fail /.well-known/mcp/catalog.json: must be served as application/json [Content-Type: text/plain]
skip mcp-catalog.media-type (must)
  skip https://other.example/card: ignored [mediaType "application/x"]
pass tools.status (must)
  pass /tools: the tool list answers 200 [status 200]
pass transport.https (must)
  pass /: served over https [https]
5 rules: 2 passed, 1 failed, 1 warnings, 1 skipped
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("WriteText (-want +got):\n%s", d)
	}
}

// TestReportWriteTextBrief shows the default text: a rule that did not
// pass at several places is one line with their count and the first of
// them, and passes are not listed.
func TestReportWriteTextBrief(t *testing.T) {
	r := sampleReport()
	for _, p := range []string{"/tools/a", "/tools/b"} {
		r.Findings = append(r.Findings, check.Finding{Rule: "cache.etag", Level: check.LevelShould, Result: check.ResultWarn, URL: "https://example.com" + p, Evidence: "no ETag", Message: "documents should have a strong ETag"})
	}
	slices.SortStableFunc(r.Findings, func(a, b check.Finding) int { return strings.Compare(a.Rule, b.Rule) })
	var b bytes.Buffer
	if err := r.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	want := `check https://example.com: 3 documents
warn cache.etag (should) at 3 places, the first:
  warn /tools: documents should have a strong ETag [no ETag]
fail mcp-catalog.content-type (must)
  fail /.well-known/mcp/catalog.json: must be served as application/json [Content-Type: text/plain]
skip mcp-catalog.media-type (must)
  skip https://other.example/card: ignored [mediaType "application/x"]
pass tools.status (must)
pass transport.https (must)
5 rules: 2 passed, 1 failed, 1 warnings, 1 skipped
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("WriteText (-want +got):\n%s", d)
	}
}

func TestReportWriteJSON(t *testing.T) {
	r := sampleReport()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Base      string
		Documents int
		Failed    bool
		Summary   map[string]int
		Rules     []map[string]string
		Findings  []check.Finding
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.Base != r.Base || got.Documents != 3 || !got.Failed {
		t.Errorf("base, documents, failed = %q, %d, %t", got.Base, got.Documents, got.Failed)
	}
	if d := cmp.Diff(map[string]int{"rules": 5, "passed": 2, "failed": 1, "warnings": 1, "skipped": 1}, got.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if d := cmp.Diff(r.Findings, got.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if len(got.Rules) != 5 || got.Rules[0]["rule"] != "cache.etag" || got.Rules[0]["result"] != "warn" {
		t.Errorf("rules = %v", got.Rules)
	}
	if !strings.Contains(b.String(), `"evidence": "mediaType \"application/x\""`) {
		t.Errorf("JSON not indented or escaped as expected:\n%s", b.String())
	}

	// The report of a real check is valid JSON with every finding.
	real := runOn(t, correctHandler(t), "https://example.com", check.Options{})
	b.Reset()
	if err := real.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	got.Findings = nil
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(real.Findings, got.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

// TestCheckWeakETag checks that a weak ETag passes cache.etag on a
// response compressed on the way, as a CDN that compresses sends it, and
// fails on bytes sent as they are.
func TestWeakETag(t *testing.T) {
	site := correctHandler(t)
	// cdn weakens every ETag, as CloudFront does to what it compresses,
	// and gzips the body when asked and compress is set.
	cdn := func(compress bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gz := compress && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
			r = r.Clone(r.Context())
			r.Header.Del("Accept-Encoding")
			rec := httptest.NewRecorder()
			site.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			if e := w.Header().Get("ETag"); e != "" && !strings.HasPrefix(e, "W/") {
				w.Header().Set("ETag", "W/"+e)
			}
			body := rec.Body.Bytes()
			if gz && len(body) > 0 {
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write(body)
				zw.Close()
				body = b.Bytes()
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Del("Content-Length")
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
	if bad := checktest.Bad(runOn(t, cdn(true), "https://example.com", check.Options{})); len(bad) != 0 {
		t.Errorf("weak ETags on compressed responses: rules not met %v, want none", bad)
	}
	if bad := checktest.Bad(runOn(t, cdn(false), "https://example.com", check.Options{})); !slices.Equal(bad, []string{"cache.etag"}) {
		t.Errorf("weak ETags on uncompressed responses: rules not met %v, want [cache.etag]", bad)
	}
}

// TestDeadline: an origin whose tool documents answer slowly cannot hold the
// check past its deadline; what was not fetched in time is not checked, and
// limits.deadline says so.
func TestDeadline(t *testing.T) {
	site := correctHandler(t)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/tools/") {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Second):
			}
		}
		site.ServeHTTP(w, r)
	})
	start := time.Now()
	r := runOn(t, slow, "https://example.com", check.Options{Deadline: time.Second})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the check took %v with a deadline of 1s", took)
	}
	if got := checktest.Bad(r); !slices.Contains(got, "limits.deadline") {
		t.Errorf("rules not met = %v, want limits.deadline among them", got)
	}
}

// TestEndpointCard: a site that answers the card of a server whose endpoint
// is on its origin beside the endpoint passes card.mcp-url; one that does
// not, or answers other bytes or another type, fails it.
func TestEndpointCard(t *testing.T) {
	b := buildtest.ExampleOnSite(t)
	good, err := serve.NewHandler(t.Context(), b.Sites[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	passed := func(r *check.Report) bool {
		for _, f := range r.Findings {
			if f.Rule == "card.mcp-url" && f.Result == check.ResultPass {
				return true
			}
		}
		return false
	}
	r := runOn(t, good, "https://example.com", check.Options{})
	if bad := checktest.Bad(r); len(bad) > 0 || !passed(r) {
		t.Errorf("rules not met: %v (card.mcp-url passed: %v)\n%s", bad, passed(r), checktest.Problems(r))
	}
	for name, site := range map[string]http.Handler{
		"missing": editResponses(good, matches(buildtest.OnSiteCardRoute, ""), func(status *int, h http.Header, body []byte) []byte {
			*status = http.StatusNotFound
			return body
		}),
		"type": editResponses(good, matches(buildtest.OnSiteCardRoute, ""), func(status *int, h http.Header, body []byte) []byte {
			h.Set("Content-Type", "application/json")
			return body
		}),
		"bytes": editResponses(good, matches(buildtest.OnSiteCardRoute, ""), func(status *int, h http.Header, body []byte) []byte {
			return append(body, ' ')
		}),
	} {
		t.Run(name, func(t *testing.T) {
			r := runOn(t, site, "https://example.com", check.Options{})
			if got := checktest.Bad(r); !slices.Equal(got, []string{"card.mcp-url"}) {
				t.Errorf("rules not met = %v, want [card.mcp-url]\n%s", got, checktest.Problems(r))
			}
		})
	}
}
