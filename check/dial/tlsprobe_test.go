package dial

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// listen starts a TCP listener on 127.0.0.1 whose connections serve runs
// on, and returns its https URL.
func listen(t *testing.T, serve func(net.Conn)) *url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return &url.URL{Scheme: "https", Host: l.Addr().String()}
}

// TestProbeOutcomes: how each way a handshake ends is read. Only a
// completed handshake is an acceptance, and no connection, or no answer,
// is neither acceptance nor refusal.
func TestProbeOutcomes(t *testing.T) {
	h := NewHandshaker(&http.Client{})
	ctx := context.Background()

	closes := listen(t, func(c net.Conn) { c.Close() })
	if r := h.Probe(ctx, closes, tls.VersionTLS10, 5*time.Second); r.Outcome != Refused || !strings.Contains(r.Detail, "closed") {
		t.Errorf("a server that closes the connection: %+v, want a refusal", r)
	}

	silent := listen(t, func(c net.Conn) {
		time.Sleep(2 * time.Second)
		c.Close()
	})
	if r := h.Probe(ctx, silent, tls.VersionTLS10, 100*time.Millisecond); r.Outcome != Unknown || !strings.Contains(r.Detail, "no answer within 100ms") {
		t.Errorf("a server that never answers: %+v, want unknown", r)
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	if r := h.Probe(done, closes, tls.VersionTLS10, 5*time.Second); r.Outcome != Unknown || !strings.Contains(r.Detail, "ran out of time") {
		t.Errorf("after the check's deadline: %+v, want unknown", r)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := &url.URL{Scheme: "https", Host: l.Addr().String()}
	l.Close()
	if r := h.Probe(ctx, gone, tls.VersionTLS10, 5*time.Second); r.Outcome != Unknown || !strings.Contains(r.Detail, "could not connect") {
		t.Errorf("nothing listening: %+v, want unknown", r)
	}

	// The certificate of httptest's server is not trusted by this client:
	// the server still answered the version, so it accepts it.
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS10}
	srv.Config.ErrorLog = discardLog()
	srv.StartTLS()
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	if r := h.Probe(ctx, u, tls.VersionTLS10, 5*time.Second); r.Outcome != Accepted || !strings.Contains(r.Detail, "certificate did not verify") {
		t.Errorf("an untrusted certificate over TLS 1.0: %+v, want accepted", r)
	}
	// With the server's own client, trusted.
	trusted := NewHandshaker(srv.Client())
	for _, v := range ProbeVersions() {
		if r := trusted.Probe(ctx, u, v, 5*time.Second); r.Outcome != Accepted || r.Detail != "accepted" {
			t.Errorf("%s: %+v, want accepted", tls.VersionName(v), r)
		}
	}
	// The address guard of the check's default client applies.
	guarded := NewHandshaker(Guarded(ctx, "93.184.216.34", nil))
	if r := guarded.Probe(ctx, u, tls.VersionTLS10, 5*time.Second); r.Outcome != Unknown || !strings.Contains(r.Detail, "refused to connect to 127.0.0.1") {
		t.Errorf("through the guard of a public origin: %+v, want the guard's refusal", r)
	}
}

func TestNewHandshaker(t *testing.T) {
	if h := NewHandshaker(&http.Client{}); h.Why != "" || h.dial == nil {
		t.Errorf("the default transport: %+v", h)
	}
	other := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, nil })}
	if h := NewHandshaker(other); !strings.Contains(h.Why, "not an *http.Transport") {
		t.Errorf("another RoundTripper: why %q", h.Why)
	}
	own := &http.Client{Transport: &http.Transport{DialTLSContext: func(context.Context, string, string) (net.Conn, error) { return nil, nil }}}
	if h := NewHandshaker(own); !strings.Contains(h.Why, "DialTLSContext") {
		t.Errorf("a transport with DialTLSContext: why %q", h.Why)
	}
}

func TestSuitesFor(t *testing.T) {
	for _, v := range ProbeVersions() {
		got := suitesFor(v)
		for _, want := range []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_128_CBC_SHA} {
			if !slices.Contains(got, want) {
				t.Errorf("%s: no %s in %v", tls.VersionName(v), tls.CipherSuiteName(want), got)
			}
		}
		if slices.Contains(got, tls.TLS_AES_128_GCM_SHA256) || slices.Contains(got, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) {
			t.Errorf("%s: suites of TLS 1.2 or 1.3 offered", tls.VersionName(v))
		}
	}
}

// discardLog is a logger for a server whose handshakes fail on purpose.
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
