package spec

import "testing"

func TestDerive(t *testing.T) {
	for _, tc := range []struct {
		tier, replay, egress string
		want                 Annotations
	}{
		{TierPure, ReplayDeterministic, EgressNone, Annotations{ReadOnlyHint: true, IdempotentHint: true}},
		{TierRead, ReplayIdempotent, EgressInternal, Annotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: true}},
		{TierWrite, ReplayKeyed, EgressInternet, Annotations{DestructiveHint: true, OpenWorldHint: true}},
		{TierExec, ReplayUnsafe, EgressNone, Annotations{DestructiveHint: true}},
	} {
		if got := Derive(tc.tier, tc.replay, tc.egress); got != tc.want {
			t.Errorf("%s/%s/%s: %+v, want %+v", tc.tier, tc.replay, tc.egress, got, tc.want)
		}
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "localhost.": true, "foo.localhost": true, "a.b.Localhost": true,
		"127.0.0.1": true, "127.0.0.2": true, "127.255.255.254": true, "::1": true,
		"localhost.example.com": false, "notlocalhost": false, "128.0.0.1": false, "::": false,
		"0.0.0.0": false, "10.0.0.1": false, "example.com": false, "": false, "::ffff:127.0.0.1": true,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestParseOrigin(t *testing.T) {
	for origin, wantErr := range map[string]string{
		"https://example.com":         "",
		"https://example.com/":        "",
		"https://example.com:8443":    "",
		"http://127.0.0.1:8080":       "",
		"http://127.0.0.2:8080":       "",
		"http://LOCALHOST:8080":       "",
		"http://[::1]:8080":           "",
		"http://foo.localhost":        "",
		"http://example.com":          `origin "http://example.com" must use https: plain http is only for loopback hosts`,
		"ftp://example.com":           `origin "ftp://example.com" must use https`,
		"example.com":                 `origin "example.com" must be an absolute https origin such as https://example.com (a scheme is missing)`,
		"example.com:8443":            `origin "example.com:8443" must be an absolute https origin such as https://example.com:8443 (a scheme is missing)`,
		"example.com/catalog":         `origin "example.com/catalog" is not a URL like https://example.com`,
		"mailto:a@example.com":        `origin "mailto:a@example.com" is not a URL like https://example.com`,
		"https://example.com/catalog": `origin "https://example.com/catalog" must be scheme and host only, like https://example.com`,
		"https://u:p@example.com":     `origin "https://…@example.com" must be scheme and host only, like https://example.com`,
		"https://ghp_x@example.com/p": `origin "https://…@example.com/p" must be scheme and host only, like https://example.com`,
		"https://example.com?":        `origin "https://example.com?" must be scheme and host only, like https://example.com`,
		"https://example.com#x":       `origin "https://example.com#x" must be scheme and host only, like https://example.com`,
	} {
		_, err := ParseOrigin(origin)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != wantErr {
			t.Errorf("ParseOrigin(%q): %q, want %q", origin, got, wantErr)
		}
	}
}

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"https://example.com/a@b":           "https://example.com/a@b",
		"https://user:secret@example.com/x": "https://…@example.com/x",
		"https://a@b@example.com":           "https://…@example.com",
		"http://tok@127.0.0.1:8080?q=a@b":   "http://…@127.0.0.1:8080?q=a@b",
		"not a url with user@example.com":   "not a url with user@example.com",
		"{base}/mcp":                        "{base}/mcp",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestRequest(t *testing.T) {
	for _, tc := range []struct{ route, view, want string }{
		{"/tools", "", "/tools"},
		{"/tools", ViewStandard, "/tools"},
		{"/tools", ViewCompact, "/tools?view=compact"},
		{"/tools/get_issue", ViewCompact, "/tools/get_issue?view=compact"},
	} {
		if got := Request(tc.route, tc.view); got != tc.want {
			t.Errorf("Request(%q, %q) = %q, want %q", tc.route, tc.view, got, tc.want)
		}
	}
}
