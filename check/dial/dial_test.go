package dial

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestAddressClass(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "::ffff:127.0.0.2": "loopback",
		"10.1.2.3": "private", "172.16.0.1": "private", "192.168.1.1": "private", "fd00::1": "private",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"224.0.0.1": "multicast", "ff02::1": "multicast",
		"0.0.0.0": "unspecified", "::": "unspecified",
		"100.100.100.200": "shared (carrier-grade NAT)", "100.64.0.1": "shared (carrier-grade NAT)", "0.1.2.3": "this-network",
		"192.0.0.170": "special-purpose", "192.0.2.1": "documentation", "198.18.0.1": "benchmarking", "240.0.0.1": "reserved",
		"255.255.255.255": "reserved", "2001:db8::1": "documentation", "100::1": "discard-only", "2001::1": "special-purpose",
		"64:ff9b::a9fe:a9fe": "link-local", "64:ff9b::a00:1": "private", "2002:a9fe:a9fe::1": "link-local", "2002:5db8:d822::1": "",
		"93.184.216.34": "", "2606:2800:220:1::": "", "8.8.8.8": "", "100.128.0.1": "",
	} {
		if got := addressClass(netip.MustParseAddr(addr)); got != want {
			t.Errorf("addressClass(%s) = %q, want %q", addr, got, want)
		}
	}
}

// TestDialGuard calls the guard as the dialer would, with resolved
// addresses; nothing is dialed.
func TestDialGuard(t *testing.T) {
	public := &dialGuard{allowed: map[string]bool{}}
	local := &dialGuard{allowed: map[string]bool{"loopback": true}}
	for _, tc := range []struct {
		guard   *dialGuard
		address string
		refused string
	}{
		{public, "93.184.216.34:443", ""},
		{public, "10.0.0.1:80", "refused to connect to 10.0.0.1: a private address"},
		{public, "169.254.169.254:80", "refused to connect to 169.254.169.254: a link-local address"},
		{public, "127.0.0.1:8080", "refused to connect to 127.0.0.1: a loopback address"},
		{public, "[::ffff:192.168.0.1]:80", "refused to connect to ::ffff:192.168.0.1: a private address"},
		{local, "127.0.0.1:8080", ""},
		{local, "[::1]:8080", ""},
		{local, "10.0.0.1:80", "a private address"},
	} {
		err := tc.guard.control("tcp", tc.address, nil)
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.address, err)
		case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("%s: %v, want a refusal with %q", tc.address, err, tc.refused)
		}
	}
}

// TestGuardedClientRefuses: the default client of a check of a public
// origin does not connect to a loopback server a catalog might name.
func TestGuardedClientRefuses(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c := Guarded(context.Background(), "93.184.216.34", nil) // a public origin, as a literal: no lookup
	resp, err := c.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("the guarded client reached a loopback server for a public origin")
	}
	if !strings.Contains(err.Error(), "refused to connect to 127.0.0.1: a loopback address") {
		t.Errorf("error %v, want the refusal", err)
	}
}
