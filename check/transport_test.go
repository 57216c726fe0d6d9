package check_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/checktest"
)

// tlsFindings are the transport.tls-minimum findings of r, by URL.
func tlsFindings(r *check.Report) map[string]check.Finding {
	out := map[string]check.Finding{}
	for _, f := range r.Findings {
		if f.Rule == "transport.tls-minimum" {
			out[f.URL] = f
		}
	}
	return out
}

// TestTLSMinimum serves the correct site over TLS from servers that accept
// different versions: transport.tls-minimum fails where TLS 1.0 or 1.1 is
// accepted, naming them, on the checked origin and on the card's host.
func TestTLSMinimum(t *testing.T) {
	site := correctHandler(t)
	for _, tc := range []struct {
		name     string
		min      uint16
		result   check.Result
		message  string
		evidence []string
	}{{
		name:     "TLS 1.2 or later",
		min:      tls.VersionTLS12,
		result:   check.ResultPass,
		message:  "refuses TLS 1.0 and 1.1 handshakes",
		evidence: []string{"TLS 1.0: refused with the alert protocol version not supported", "TLS 1.1: refused with the alert protocol version not supported"},
	}, {
		name:     "TLS 1.3 only",
		min:      tls.VersionTLS13,
		result:   check.ResultPass,
		message:  "refuses TLS 1.0 and 1.1 handshakes",
		evidence: []string{"TLS 1.0: refused", "TLS 1.1: refused"},
	}, {
		name:     "TLS 1.0 or later",
		min:      tls.VersionTLS10,
		result:   check.ResultFail,
		message:  "accepts TLS 1.0 and TLS 1.1: must refuse every TLS version before 1.2",
		evidence: []string{"TLS 1.0: accepted", "TLS 1.1: accepted"},
	}, {
		name:     "TLS 1.1 or later",
		min:      tls.VersionTLS11,
		result:   check.ResultFail,
		message:  "accepts TLS 1.1: must refuse every TLS version before 1.2",
		evidence: []string{"TLS 1.0: refused with the alert protocol version not supported", "TLS 1.1: accepted"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			client := checktest.ServeTLS(t, site, &tls.Config{MinVersion: tc.min})
			r, err := check.Run(t.Context(), "https://example.com", check.Options{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if tc.result == check.ResultFail {
				want = []string{"transport.tls-minimum"}
			}
			if got := checktest.Bad(r); !slices.Equal(got, want) {
				t.Errorf("rules not met = %v, want %v\n%s", got, want, checktest.Problems(r))
			}
			if r.Failed() != (tc.result == check.ResultFail) {
				t.Errorf("Failed() = %t", r.Failed())
			}
			fs := tlsFindings(r)
			for _, u := range []string{"https://example.com", "https://" + checktest.VendorHost} {
				f, ok := fs[u]
				if !ok {
					t.Errorf("%s: no transport.tls-minimum finding; findings %v", u, fs)
					continue
				}
				if f.Result != tc.result || f.Message != tc.message || f.Level != check.LevelMust {
					t.Errorf("%s: %s %s %q, want %s must %q", u, f.Result, f.Level, f.Message, tc.result, tc.message)
				}
				for _, e := range tc.evidence {
					if !strings.Contains(f.Evidence, e) {
						t.Errorf("%s: evidence %q, want it to hold %q", u, f.Evidence, e)
					}
				}
			}
			if len(fs) != 2 {
				t.Errorf("findings at %d places, want 2 (the origin and the card's host): %v", len(fs), fs)
			}
		})
	}
}

// TestTLSMinimumNotProbed: plain http on loopback is not probed, and
// neither is an origin reached through a client whose connections the probe
// cannot make again; that is a skip, not a pass.
func TestTLSMinimumNotProbed(t *testing.T) {
	site := correctHandler(t)

	r := runOn(t, site, "http://127.0.0.1:8080", check.Options{})
	if f, ok := tlsFindings(r)["http://127.0.0.1:8080"]; ok {
		t.Errorf("plain http probed: %+v", f)
	}
	if f := tlsFindings(r)["https://"+checktest.VendorHost]; f.Result != check.ResultPass {
		t.Errorf("the card's https host: %+v, want a pass", f)
	}

	inner := checktest.Serve(t, site)
	wrapped := &http.Client{Transport: roundTripper(func(req *http.Request) (*http.Response, error) {
		return inner.Transport.RoundTrip(req)
	})}
	r, err := check.Run(context.Background(), "https://example.com", check.Options{Client: wrapped})
	if err != nil {
		t.Fatal(err)
	}
	f := tlsFindings(r)["https://example.com"]
	if f.Result != check.ResultSkip || !strings.Contains(f.Message, "not probed: the check's client is not an *http.Transport") {
		t.Errorf("through another RoundTripper: %+v, want a skip that says why", f)
	}
	if bad := checktest.Bad(r); len(bad) > 0 {
		t.Errorf("rules not met: %v\n%s", bad, checktest.Problems(r))
	}
}

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
