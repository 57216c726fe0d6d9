package check_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/serve"
)

// gatedHandler serves the example's first site gated as access says, with
// one key for its tenant; it returns the handler and a token.
func gatedHandler(t *testing.T, access gate.Access) (http.Handler, string) {
	t.Helper()
	b := buildtest.Example(t)
	s := b.Sites[0]
	s.Access = access
	keys := gate.Keys{gate.StoreKey(s.Tenant, "k1"): gate.NewSecret()}
	h, err := serve.NewHandler(t.Context(), s, keys)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := gate.Mint(keys, s.Tenant, "k1", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return h, tok
}

// TestGatedSite checks a gated site with its token: every rule passes,
// the refusals without the token included, and what the gate protects is
// private.
func TestGatedSite(t *testing.T) {
	for _, access := range []gate.Access{{Token: true}, {Token: true, PublicDiscovery: true}} {
		h, tok := gatedHandler(t, access)
		r := runOn(t, h, "https://example.com", check.Options{Token: tok})
		if bad := checktest.Bad(r); len(bad) > 0 || r.Failed() {
			t.Errorf("%+v: rules not met: %v\n%s", access, bad, checktest.Problems(r))
		}
		passes, copilot := 0, false
		for _, f := range r.Findings {
			if f.Rule == "access.gate" && f.Result == check.ResultPass {
				passes++
			}
			// The registry is behind the gate: Copilot CLI, which sends no
			// token, is refused, as the gate means.
			copilot = copilot || f.Rule == "registry.lookup" && f.Result == check.ResultSkip && f.Evidence == "without Authorization: status 401" &&
				strings.Contains(f.Message, "Copilot CLI, which sends no token, would refuse every server")
			if f.Rule == "cache.control" && f.Result == check.ResultPass && strings.Contains(f.URL, "/tools") && !strings.Contains(f.Evidence, "private, max-age=3600") {
				t.Errorf("%+v: %s passed cache.control with %s", access, f.URL, f.Evidence)
			}
		}
		if !copilot {
			t.Errorf("%+v: no registry.lookup skip for Copilot CLI without the token\n%s", access, textOf(t, r))
		}
		if passes != 5 {
			t.Errorf("%+v: access.gate passed %d times, want 5 (3 refusals, 2 catalogs)", access, passes)
		}
	}
}

// TestGateOpen checks that a token given to a site that does not gate
// fails access.gate: the list a token should protect is public.
func TestGateOpen(t *testing.T) {
	r := runOn(t, correctHandler(t), "https://example.com", check.Options{Token: "x.y.z"})
	text := textOf(t, r)
	if !r.Failed() || !strings.Contains(text, "access.gate") || !strings.Contains(text, "the gate is open") {
		t.Errorf("an open site passed with a token:\n%s", text)
	}
}

// TestGateWrongToken checks that a token the site does not accept fails
// the check: every document is refused.
func TestGateWrongToken(t *testing.T) {
	h, _ := gatedHandler(t, gate.Access{Token: true})
	r := runOn(t, h, "https://example.com", check.Options{Token: "e30.e30.e30"})
	if !r.Failed() {
		t.Errorf("a wrong token passed:\n%s", textOf(t, r))
	}
}
