package check

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestGuardedClientLoopbackOrigin: checking a site on 127.0.0.1 with the
// default client reaches it: the origin's own class is allowed.
func TestGuardedClientLoopbackOrigin(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	r, err := Run(context.Background(), srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if strings.Contains(f.Evidence+f.Message, "refused to connect") {
			t.Errorf("%s: %s %s", f.Rule, f.Evidence, f.Message)
		}
	}
	if r.Documents == 0 {
		t.Error("nothing fetched")
	}
}

// TestOriginOfZone: the origin of a URL with an IPv6 zone parses back, so
// that the rules of its origin can read it.
func TestOriginOfZone(t *testing.T) {
	u, err := url.Parse("https://[fe80::1%25eth0]:8443/card")
	if err != nil {
		t.Fatal(err)
	}
	o := originOf(u)
	back, err := url.Parse(o)
	if err != nil || back.Hostname() != "fe80::1%eth0" || back.Port() != "8443" {
		t.Errorf("originOf = %q, parsed back %v, %v", o, back, err)
	}
}
