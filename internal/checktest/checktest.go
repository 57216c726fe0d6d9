// Package checktest points the conformance checker at a site in a test: it
// serves any http.Handler as if it were https://example.com, over TLS, with
// the example catalog's cross-host card on its vendor host, and lists what a
// report found wrong. The checker's own tests and the edge tests of publish
// share it, so that both check a site the same way.
package checktest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
)

// VendorHost is the host of the example catalog's cross-host card, which
// does not exist; Serve answers it with the card.
const VendorHost = "mcp.helpdesk-vendor.example.net"

// Serve is ServeTLS with the TLS defaults of Go's server: TLS 1.2 or later.
func Serve(t testing.TB, site http.Handler) *http.Client {
	t.Helper()
	return ServeTLS(t, site, nil)
}

// ServeTLS starts site on 127.0.0.1 twice, over plain http and over TLS
// with config (nil for the defaults; its certificate is set here), and
// returns a client that sends every request there, whatever its URL's host
// (the Host header keeps it): https URLs, which all use port 443 in these
// tests, to the TLS server, others to the plain one. The certificate covers
// example.com, *.example.com, VendorHost and 127.0.0.1, and the client
// trusts it alone. Requests for VendorHost get the example's cross-host
// card instead.
func ServeTLS(t testing.TB, site http.Handler, config *tls.Config) *http.Client {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == VendorHost {
			w.Header().Set("Content-Type", spec.ContentTypeServerCardDraft)
			w.Write([]byte(`{"name":"com.example/helpdesk","version":"1.0.0","description":"Help desk."}`))
			return
		}
		site.ServeHTTP(w, r)
	})
	sc, err := testCert()
	if err != nil {
		t.Fatal(err)
	}
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	secure := httptest.NewUnstartedServer(h)
	if config != nil {
		secure.TLS = config.Clone()
	} else {
		secure.TLS = &tls.Config{}
	}
	secure.TLS.Certificates = []tls.Certificate{sc.cert}
	// The checker's probes of old TLS versions fail on purpose; the server
	// would log each.
	secure.Config.ErrorLog = log.New(io.Discard, "", 0)
	secure.StartTLS()
	t.Cleanup(secure.Close)

	plainAddr, secureAddr := plain.Listener.Addr().String(), secure.Listener.Addr().String()
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			to := plainAddr
			if _, port, _ := net.SplitHostPort(addr); port == "443" {
				to = secureAddr
			}
			var d net.Dialer
			return d.DialContext(ctx, network, to)
		},
		TLSClientConfig: &tls.Config{RootCAs: sc.pool},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// serverCert is a certificate for the TLS servers of ServeTLS, and the
// pool that trusts it.
type serverCert struct {
	cert tls.Certificate
	pool *x509.CertPool
}

// testCert is the certificate of every ServeTLS, made once.
var testCert = sync.OnceValues(newTestCert)

// newTestCert makes a self-signed ECDSA certificate for the hosts of the
// tests.
func newTestCert() (serverCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return serverCert{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "checktest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"example.com", "*.example.com", VendorHost},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return serverCert{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return serverCert{}, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return serverCert{tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool}, nil
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

// SignedRule reports whether the rule name applies to a signed AI catalog
// only: the example is not signed, so a test that holds the example to
// every rule leaves these out (check's TestSignedSite holds a signed
// catalog to them).
func SignedRule(name string) bool {
	return name == "ai-catalog.signature" || name == "ai-catalog.trust-manifest"
}
