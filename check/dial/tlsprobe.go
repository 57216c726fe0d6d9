package dial

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// ProbeVersions are the versions transport.tls-minimum offers, each on its
// own connection and alone: the spec wants TLS 1.2 or later, so an origin
// must refuse both.
func ProbeVersions() []uint16 { return []uint16{tls.VersionTLS10, tls.VersionTLS11} }

// Handshaker makes the handshakes of transport.tls-minimum the way the
// check's client connects: with its dialer (so with the address guard of
// dial.go) and its TLS settings (so with the certificates it trusts).
type Handshaker struct {
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	config *tls.Config // the client's TLSClientConfig; nil for the defaults
	proxy  func(*http.Request) (*url.URL, error)
	// Why, when set, says why the client's connections cannot be made
	// again here; the rule is then skipped with it.
	Why string
}

// NewHandshaker reads how client connects.
func NewHandshaker(client *http.Client) Handshaker {
	rt := client.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, ok := rt.(*http.Transport)
	switch {
	case !ok:
		return Handshaker{Why: "the check's client is not an *http.Transport, so its connections cannot be made again for the probe"}
	case t.DialTLSContext != nil:
		return Handshaker{Why: "the check's client makes its TLS connections itself (DialTLSContext), so the probe cannot choose their version"}
	}
	h := Handshaker{dial: t.DialContext, config: t.TLSClientConfig, proxy: t.Proxy}
	if h.dial == nil {
		var d net.Dialer
		h.dial = d.DialContext
	}
	return h
}

// Outcome is what one probing handshake showed.
type Outcome int

// The outcomes of a probing handshake: the origin refused the version, or
// accepted it.
const (
	Refused Outcome = iota
	Accepted
	// Unknown: no connection, no answer in time, or a handshake that
	// could not even be offered; it says nothing of the origin's versions.
	Unknown
)

// ProbeResult is one probing handshake.
type ProbeResult struct {
	Version uint16
	Outcome Outcome
	Detail  string // what happened, for the evidence
}

// Probe offers origin (an https URL) a handshake of exactly version, within
// timeout. A completed handshake, or one whose only fault is a certificate
// the client does not trust, means the origin accepts the version: it
// answered with a ServerHello of it. A handshake the server ends, with an
// alert (protocol version, handshake failure, ...), by closing the
// connection or by answering another version, is a refusal.
func (h Handshaker) Probe(ctx context.Context, origin *url.URL, version uint16, timeout time.Duration) ProbeResult {
	res := ProbeResult{Version: version, Outcome: Unknown}
	if ctx.Err() != nil {
		res.Detail = "not probed: the check ran out of time first"
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	host, port := origin.Hostname(), origin.Port()
	if port == "" {
		port = "443"
	}
	raw, err := h.dial(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		res.Detail = "could not connect: " + ErrText(err, timeout)
		return res
	}
	conn := &countingConn{Conn: raw}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	cfg := &tls.Config{}
	if h.config != nil {
		cfg = h.config.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host // as http.Transport does
	}
	cfg.MinVersion, cfg.MaxVersion = version, version
	cfg.CipherSuites = suitesFor(version)
	cfg.NextProtos = nil
	cfg.ClientSessionCache = nil // a full handshake, never a resumed one
	err = tls.Client(conn, cfg).HandshakeContext(ctx)

	var cert *tls.CertificateVerificationError
	var op *net.OpError
	switch {
	case err == nil:
		res.Outcome, res.Detail = Accepted, "accepted"
	case errors.As(err, &cert):
		res.Outcome, res.Detail = Accepted, "accepted (its certificate did not verify: "+cert.Err.Error()+")"
	case ctx.Err() != nil || isTimeout(err):
		res.Detail = "no answer within " + timeout.String()
	case errors.As(err, &op) && op.Op == "remote error":
		res.Outcome, res.Detail = Refused, "refused with the alert "+strings.TrimPrefix(op.Err.Error(), "tls: ")
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		res.Outcome, res.Detail = Refused, "refused: the connection was closed"
	case conn.read.Load() == 0:
		// Nothing came from the server: the handshake failed here (a
		// crypto/tls that no longer offers the version, for one).
		res.Detail = "the handshake could not be offered: " + err.Error()
	default:
		res.Outcome, res.Detail = Refused, "refused: "+strings.TrimPrefix(err.Error(), "tls: ")
	}
	return res
}

// Proxied names the proxy the check's client sends requests for u through,
// "" when it connects directly: the probe connects directly only.
func (h Handshaker) Proxied(u *url.URL) string {
	if h.proxy == nil {
		return ""
	}
	p, err := h.proxy(&http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}, Host: u.Host})
	switch {
	case err != nil:
		return "proxy: " + err.Error()
	case p != nil:
		return "proxy " + p.Redacted()
	}
	return ""
}

// ErrText shortens a request's or a connection's error for a finding: no
// method and URL, which the finding has already, and a deadline as the
// timeout it was.
func ErrText(err error, timeout time.Duration) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out after " + timeout.String()
	}
	return err.Error()
}

// suitesFor are the cipher suites crypto/tls can offer in a handshake of
// version, insecure ones included: the probe asks whether the origin
// accepts the version at all, and Go's defaults leave some out (RSA key
// exchange, 3DES) that an old server may insist on. No data is sent.
func suitesFor(version uint16) []uint16 {
	var ids []uint16
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if slices.Contains(s.SupportedVersions, version) {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// countingConn counts the bytes read from the server, to tell a
// handshake the server refused from one that never left.
type countingConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.read.Add(int64(n))
	return n, err
}
