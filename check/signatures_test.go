package check_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/serve"
)

// signedHandler serves the signed test catalog signed with the key of
// seed, each document through edit (route, body) when it is not nil. The
// DID document is always the current build's, which lists the current key
// and the previous one: a catalog signed with the previous key is one
// still cached from before a rotation.
func signedHandler(t *testing.T, seed string, edit func(route string, body []byte) []byte) http.Handler {
	t.Helper()
	h, err := serve.NewHandler(t.Context(), buildtest.Signed(t, seed).Sites[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil && seed == "current" {
		return h
	}
	if edit == nil {
		edit = func(_ string, b []byte) []byte { return b }
	}
	var did []byte
	for _, d := range buildtest.Signed(t, "current").Sites[0].Documents {
		if d.Route.Route == spec.RouteDIDDocument {
			did = buildtest.Body(t, d)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		r.Header.Del("Accept-Encoding") // edit the bytes themselves
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if r.URL.Path == spec.RouteDIDDocument {
			body = did
		}
		body = edit(r.URL.Path, body)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.Header().Del("ETag")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

var inAYear = func() time.Time { return buildtest.SignedCommit.Add(24 * time.Hour) }

// results are the results of rule in r, with the evidence of the first
// that is not a pass.
func results(r *check.Report, rule string) (pass, fail int, why string) {
	for _, f := range r.Findings {
		if f.Rule != rule {
			continue
		}
		switch f.Result {
		case check.ResultPass:
			pass++
		case check.ResultFail:
			fail++
			if why == "" {
				why = f.Evidence
			}
		}
	}
	return pass, fail, why
}

// TestSignedSite: the signed test catalog, served as serve serves it,
// passes ai-catalog.signature and ai-catalog.trust-manifest (its 3
// manifests) against its own /.well-known/did.json, and reaches level 3.
func TestSignedSite(t *testing.T) {
	r := runOn(t, signedHandler(t, "current", nil), "http://127.0.0.1:8080", check.Options{Now: inAYear, SameOrigin: true})
	if p, f, why := results(r, "ai-catalog.signature"); p != 1 || f != 0 {
		t.Errorf("ai-catalog.signature: %d passed, %d failed: %s", p, f, why)
	}
	if p, f, why := results(r, "ai-catalog.trust-manifest"); p != 3 || f != 0 {
		t.Errorf("ai-catalog.trust-manifest: %d passed, %d failed: %s", p, f, why)
	}
	if r.AICatalogLevel != 3 || r.AICatalogLevelWhy != "" || r.Failed() {
		t.Errorf("level %d (%s), failed %v", r.AICatalogLevel, r.AICatalogLevelWhy, r.Failed())
	}
	if text := textOf(t, r); !strings.Contains(text, "\nAI Catalog conformance level 3 (Trusted Catalog)\n") {
		t.Errorf("text:\n%s", text)
	}
}

// editSigned decodes body, applies f and encodes it again.
func editSigned(t *testing.T, body []byte, f func(m map[string]any)) []byte {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, _ := json.Marshal(m)
	return out
}

func entry(m map[string]any, i int) map[string]any {
	return m["entries"].([]any)[i].(map[string]any)
}

// TestSignedSiteRefusals: what a consumer must refuse, the check fails:
// a tampered entry, a key the DID document does not authorize, alg none,
// a header kid of another signer, an expired signature, and a catalog
// signed by a previous key once the DID document no longer lists it (it
// passes while it does: a rotation).
func TestSignedSiteRefusals(t *testing.T) {
	onCatalog := func(f func(m map[string]any)) func(string, []byte) []byte {
		return func(route string, body []byte) []byte {
			if route != spec.RouteAICatalog {
				return body
			}
			return editSigned(t, body, f)
		}
	}
	header := func(h string) func(m map[string]any) {
		return func(m map[string]any) {
			sig := m["signature"].(map[string]any)
			_, rest, _ := strings.Cut(sig["jws"].(string), "..")
			sig["jws"] = base64.RawURLEncoding.EncodeToString([]byte(h)) + ".." + rest
		}
	}
	previousDoc := func(route string, body []byte) []byte {
		if route != spec.RouteDIDDocument {
			return body
		}
		// The DID document without its second key, the previous one.
		return editSigned(t, body, func(m map[string]any) {
			m["verificationMethod"] = m["verificationMethod"].([]any)[:1]
			m["assertionMethod"] = m["assertionMethod"].([]any)[:1]
		})
	}
	cases := []struct {
		name, seed string
		edit       func(string, []byte) []byte
		now        func() time.Time
		rule, want string
	}{
		{"tampered entry", "current", onCatalog(func(m map[string]any) { entry(m, 1)["version"] = "9.9.9" }), inAYear, "ai-catalog.trust-manifest", "subject.version"},
		{"tampered entry, catalog", "current", onCatalog(func(m map[string]any) { entry(m, 1)["version"] = "9.9.9" }), inAYear, "ai-catalog.signature", "does not verify"},
		{"alg none", "current", onCatalog(header(`{"alg":"none","kid":"did:web:signed.example#x","typ":"ai-catalog+jws"}`)), inAYear, "ai-catalog.signature", "alg \"none\""},
		{"wrong kid", "current", onCatalog(header(`{"alg":"ES256","kid":"did:web:other.example#x","typ":"ai-catalog+jws"}`)), inAYear, "ai-catalog.signature", "is not the signer"},
		{"unknown kid", "current", onCatalog(header(`{"alg":"ES256","kid":"did:web:signed.example#nope","typ":"ai-catalog+jws"}`)), inAYear, "ai-catalog.signature", "authorizes no key"},
		{"manifest typ", "current", onCatalog(header(`{"alg":"ES256","kid":"did:web:signed.example#x","typ":"ai-catalog-trust-manifest+jws"}`)), inAYear, "ai-catalog.signature", "typ"},
		{"expired", "current", nil, func() time.Time { return buildtest.SignedCommit.Add(366 * 24 * time.Hour) }, "ai-catalog.signature", "expired at 2027-05-01T12:00:00Z"},
		{"host", "current", onCatalog(func(m map[string]any) { m["host"].(map[string]any)["identifier"] = "did:web:other.example" }), inAYear, "ai-catalog.signature", "does not verify"},
		{"rotated out", "previous", previousDoc, inAYear, "ai-catalog.signature", "authorizes no key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runOn(t, signedHandler(t, c.seed, c.edit), "http://127.0.0.1:8080", check.Options{Now: c.now, SameOrigin: true})
			if _, f, why := results(r, c.rule); f == 0 || !strings.Contains(why, c.want) {
				t.Errorf("%s: %d failures, %q, want %q", c.rule, f, why, c.want)
			}
			if r.AICatalogLevel != 2 || !r.Failed() {
				t.Errorf("level %d, failed %v", r.AICatalogLevel, r.Failed())
			}
		})
	}
	// A catalog signed by the previous key verifies while the DID document
	// lists it beside the current one.
	r := runOn(t, signedHandler(t, "previous", nil), "http://127.0.0.1:8080", check.Options{Now: inAYear, SameOrigin: true})
	if p, f, why := results(r, "ai-catalog.signature"); p != 1 || f != 0 || r.AICatalogLevel != 3 {
		t.Errorf("signed by the previous key: %d passed, %d failed (%s), level %d", p, f, why, r.AICatalogLevel)
	}
}
