package live

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRedirectRefused: an endpoint that redirects is not followed, even
// to its own origin.
func TestRedirectRefused(t *testing.T) {
	srv := httptest.NewServer(http.RedirectHandler("/elsewhere?token=abcdefghijklmnop1234", http.StatusTemporaryRedirect))
	defer srv.Close()
	_, err := List(context.Background(), Endpoint{URL: srv.URL + "/mcp"}, Options{AllowPrivate: true, Deadline: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "refused to follow a redirect") {
		t.Fatalf("got %v, want a refused redirect", err)
	}
}

// TestPrivateRefused: without AllowPrivate, a loopback endpoint is refused
// before any request.
func TestPrivateRefused(t *testing.T) {
	hit := false
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit = true }))
	defer srv.Close()
	_, err := List(context.Background(), Endpoint{URL: srv.URL + "/mcp"}, Options{Deadline: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "refused to connect to 127.0.0.1: a loopback address") || hit {
		t.Fatalf("got %v (request made: %v), want a refusal", err, hit)
	}
}

// TestScrub: no header value survives in a message, whole or without its
// scheme, and the scrubbed error does not lead back to the original.
func TestScrub(t *testing.T) {
	h := http.Header{"Authorization": {"Bearer hunter2hunter2"}, "X-Key": {"abc"}}
	err := scrub(errors.New("server said: Bearer hunter2hunter2 and hunter2hunter2 and abc"), h)
	if got, want := err.Error(), "server said: [header value] and [header value] and abc"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if errors.Unwrap(err) != nil {
		t.Error("the scrubbed error wraps the original")
	}
}

func TestEndpointCheck(t *testing.T) {
	for _, e := range []Endpoint{
		{},
		{URL: "http://a.example/mcp", Command: []string{"x"}},
		{URL: "file:///etc/passwd"},
		{URL: "https://user:pw@a.example/mcp"},
		{URL: "https://a.example/mcp", Header: http.Header{"Mcp-Session-Id": {"x"}}},
		{Command: []string{"x"}, Header: http.Header{"Authorization": {"x"}}},
		{Command: []string{""}},
	} {
		if err := e.Check(); err == nil {
			t.Errorf("%+v was accepted", e)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("%+v: the message repeats the password: %v", e, err)
		}
	}
	if got := (Endpoint{Command: []string{"/usr/local/bin/server", "--token", "x"}}).Label(); got != "stdio:server" {
		t.Errorf("label %q", got)
	}
}
