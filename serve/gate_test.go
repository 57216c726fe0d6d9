package serve

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// TestGate serves the example's acme site gated, discovery public, and
// asks it with acme's token, globex's, a token of acme's key for globex,
// and none: what passes, what is refused, and the headers of each.
func TestGate(t *testing.T) {
	b := buildtest.Example(t)
	s := b.Sites[0]
	if s.Tenant != "acme" {
		t.Fatalf("first site %s, want acme", s.Tenant)
	}
	s.Access = gate.Access{Token: true, PublicDiscovery: true}
	keys := gate.Keys{"acme/k1": gate.NewSecret(), "globex/k1": gate.NewSecret()}
	h, err := NewHandler(t.Context(), s, keys)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	now := time.Now()
	mint := func(k gate.Keys, tenant string) string {
		tok, err := gate.Mint(k, tenant, "k1", now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + tok
	}
	acme, globex := mint(keys, "acme"), mint(keys, "globex")
	// acme's key signing a token for globex: aud names another tenant.
	crossed := mint(gate.Keys{"globex/k1": keys["acme/k1"]}, "globex")

	cors := map[string]string{}
	for _, kv := range spec.CORSHeaders() {
		cors[kv[0]] = kv[1]
	}
	for _, c := range []struct {
		name, path, auth string
		status           int
		cache, challenge string
	}{
		{"acme's token", "/tools", acme, 200, "private, max-age=3600", ""},
		{"acme's token, a tool", "/tools/get_forecast", acme, 200, "private, max-age=3600", ""},
		{"acme's token, the catalogue", "/tool-catalogue.json", acme, 200, "private, max-age=3600", ""},
		{"public discovery", "/.well-known/ai-catalog.json", "", 200, spec.CacheControl, ""},
		{"public discovery with a token", "/.well-known/ai-catalog.json", acme, 200, spec.CacheControl, ""},
		{"no token", "/tools", "", 401, "no-store", `Bearer realm="acme"`},
		{"no token, unknown path", "/nope", "", 401, "no-store", `Bearer realm="acme"`},
		{"no token, a tool", "/tools/get_forecast", "", 401, "no-store", `Bearer realm="acme"`},
		{"globex's token", "/tools", globex, 401, "no-store", `Bearer realm="acme", error="invalid_token"`},
		{"another tenant's audience", "/tools", crossed, 403, "no-store", ""},
		{"another tenant's audience, a tool", "/tools/get_forecast", crossed, 404, "no-store", ""},
		{"acme's token, unknown tool", "/tools/no_such_tool", acme, 404, "no-store", ""},
	} {
		hdr := map[string]string{}
		if c.auth != "" {
			hdr["Authorization"] = c.auth
		}
		resp, body := do(t, srv, exchange{path: c.path, header: hdr})
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d %s, want %d", c.name, resp.StatusCode, body, c.status)
			continue
		}
		if got := resp.Header.Get("Cache-Control"); got != c.cache {
			t.Errorf("%s: Cache-Control %q, want %q", c.name, got, c.cache)
		}
		if got := resp.Header.Get("WWW-Authenticate"); got != c.challenge {
			t.Errorf("%s: WWW-Authenticate %q, want %q", c.name, got, c.challenge)
		}
		for k, v := range cors {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s: %s %q, want %q", c.name, k, got, v)
			}
		}
	}
	// A preflight carries no credentials, and gets its answer.
	if resp, _ := do(t, srv, exchange{method: http.MethodOptions, path: "/tools"}); resp.StatusCode != http.StatusNoContent {
		t.Errorf("OPTIONS /tools: %d, want 204", resp.StatusCode)
	}
	// The refusal is the same whatever the path.
	_, a := do(t, srv, exchange{path: "/tools"})
	_, b2 := do(t, srv, exchange{path: "/tools/no_such_tool"})
	if string(a) != string(b2) {
		t.Errorf("refusals differ by path:\n%s\n%s", a, b2)
	}
}

// TestGateWithoutKeys checks that a gated site without a key of its
// tenant is not served at all: it would refuse every request.
func TestGateWithoutKeys(t *testing.T) {
	s := buildtest.Example(t).Sites[0]
	s.Access = gate.Access{Token: true}
	for _, keys := range []gate.Keys{nil, {"globex/k1": gate.NewSecret()}} {
		if _, err := NewHandler(t.Context(), s, keys); !errors.Is(err, ErrNoKeys) || !strings.Contains(err.Error(), "tenant acme: the site is gated, and no key opens it: add a key for acme") {
			t.Errorf("keys %v: %v", keys, err)
		}
	}
}
