// Package checktest points the conformance checker at a site in a test: it
// serves any http.Handler as if it were https://example.com, with the
// example catalog's cross-host card on its vendor host, and lists what a
// report found wrong. The checker's own tests and the edge tests of publish
// share it, so that both check a site the same way.
package checktest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/publish/check"
)

// VendorHost is the host of the example catalog's cross-host card, which
// does not exist; Serve answers it with the card.
const VendorHost = "mcp.helpdesk-vendor.example.net"

// Serve starts site on 127.0.0.1 and returns a client that sends every
// request there, whatever its URL's scheme and host (the Host header keeps
// the URL's host). Requests for VendorHost get the example's cross-host
// card instead.
func Serve(t testing.TB, site http.Handler) *http.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == VendorHost {
			w.Header().Set("Content-Type", spec.ContentTypeServerCardDraft)
			w.Write([]byte(`{"name":"com.example/helpdesk","version":"1.0.0","description":"Help desk."}`))
			return
		}
		site.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: plainHTTP{tr}}
}

// plainHTTP sends https requests as plain http, so that a test server
// without TLS answers https://example.com.
type plainHTTP struct{ rt http.RoundTripper }

func (p plainHTTP) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme == "https" {
		r = r.Clone(r.Context())
		r.URL.Scheme = "http"
	}
	return p.rt.RoundTrip(r)
}

// Bad returns the rules of r that failed or warned, sorted.
func Bad(r *check.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Result == check.ResultFail || f.Result == check.ResultWarn {
			out = append(out, f.Rule)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Problems lists the findings of r that failed or warned, one a line, for
// a test's failure message.
func Problems(r *check.Report) string {
	var b strings.Builder
	for _, f := range r.Findings {
		if f.Result == check.ResultFail || f.Result == check.ResultWarn {
			b.WriteString("  " + string(f.Result) + " " + f.Rule + " " + f.URL + ": " + f.Message + " [" + f.Evidence + "]\n")
		}
	}
	return b.String()
}
