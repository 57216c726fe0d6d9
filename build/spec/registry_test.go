package spec

import (
	"strings"
	"testing"
)

// TestParseRegistryPath reads every form of a registry path the clients
// send (VS Code's encodeURIComponent, a literal '/', %2B and a literal '+'
// in a version, a trailing slash) as the canonical route, and refuses the
// paths that are not the registry's.
func TestParseRegistryPath(t *testing.T) {
	for path, want := range map[string]string{
		"/v0.1/servers":  "/v0.1/servers",
		"/v0.1/servers/": "/v0.1/servers",
		"/v0.1/servers/com.example%2Fweather/versions":                   "/v0.1/servers/com.example%2Fweather/versions",
		"/v0.1/servers/com.example%2fweather/versions/":                  "/v0.1/servers/com.example%2Fweather/versions",
		"/v0.1/servers/com.example/weather/versions":                     "/v0.1/servers/com.example%2Fweather/versions",
		"/v0.1/servers/com.example%2Fweather/versions/latest":            "/v0.1/servers/com.example%2Fweather/versions/latest",
		"/v0.1/servers/com.example/weather/versions/latest/":             "/v0.1/servers/com.example%2Fweather/versions/latest",
		"/v0.1/servers/com.example%2Fweather/versions/2.3.1":             "/v0.1/servers/com.example%2Fweather/versions/2.3.1",
		"/v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7":   "/v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7",
		"/v0.1/servers/com.example/weather/versions/1.0.0+build.7":       "/v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7",
		"/v0.1/servers/%63om.example%2Fweather/versions/1.0.0%2bbuild.7": "/v0.1/servers/com.example%2Fweather/versions/1.0.0%2Bbuild.7",
		"/v0.1/servers/com.example%2Fweather/versions/1.0%2F2":           "/v0.1/servers/com.example%2Fweather/versions/1.0%2F2",
		// Not the registry's.
		"/v0.1/serversx":                                   "",
		"/v0.1/servers/com.example%2Fweather":              "",
		"/v0.1/servers/com.example/weather":                "",
		"/v0.1/servers/com.example/weather/version":        "",
		"/v0.1/servers/weather/versions":                   "",
		"/v0.1/servers/a%2Fb%2Fc/versions":                 "",
		"/v0.1/servers/a/b/c/versions":                     "",
		"/v0.1/servers/com.example%2Fweather/versions/1/2": "",
		"/v0.1/servers/com.example%2Fweather/versions//":   "",
		"/v0.1/servers/com.example%2Fweather/versions/%zz": "",
		"/v0.1/servers/com.example%2Fweather/versions/1%2": "",
		"/v0.1/servers//versions":                          "",
		"/v0/servers":                                      "",
		"/tools":                                           "",
	} {
		r, ok := ParseRegistryPath(path)
		got := ""
		if ok {
			got = r.Route()
		}
		if got != want {
			t.Errorf("ParseRegistryPath(%q) = %q (%+v), want %q", path, got, r, want)
		}
	}
}

// TestRegistryKey gives each registry document a key of its own on any
// filesystem: lower case, no '+', '%' or leading '.', one per name and
// version even ignoring case.
func TestRegistryKey(t *testing.T) {
	for route, want := range map[string]string{
		RouteRegistry: "v0.1/servers.json",
		RegistryVersionsRoute("com.example/weather"):                "v0.1/servers/com.example/weather/versions.json",
		RegistryVersionRoute("com.example/weather", RegistryLatest): "v0.1/servers/com.example/weather/versions/latest.json",
		RegistryVersionRoute("com.example/weather", "2.3.1"):        "v0.1/servers/com.example/weather/versions/2.3.1.json",
		RegistryVersionRoute("com.example/weather", "1.0.0+x.Y"):    "v0.1/servers/com.example/weather/versions/1.0.0_2bx._59.json",
		RegistryVersionRoute("Com.Example/My_Server", "1.0.0-RC1"):  "v0.1/servers/_43om._45xample/_4dy_5f_53erver/versions/1.0.0-_52_431.json",
		RegistryVersionRoute("../..", ".."):                         "v0.1/servers/_2e./_2e./versions/_2e..json",
	} {
		got, ok := RegistryKey(route)
		if !ok || got != want {
			t.Errorf("RegistryKey(%q) = %q, %v, want %q", route, got, ok, want)
		}
	}
	for _, route := range []string{"/v0.1/servers/com.example/weather/versions", "/v0.1/servers/com.example%2fweather/versions", "/tools"} {
		if key, ok := RegistryKey(route); ok {
			t.Errorf("RegistryKey(%q) = %q for a route that is not canonical", route, key)
		}
	}
	seen := map[string]string{}
	for _, v := range []string{"1.0.0", "1.0.0+a", "1.0.0+A", "1.0.0_2ba", "1.0.0-rc1", "1.0.0-RC1", "latest.x", "Latest", "_", "._", ".", "%2B"} {
		k := strings.ToLower(KeySegment(v))
		if other, dup := seen[k]; dup {
			t.Errorf("versions %q and %q share the key segment %q", v, other, k)
		}
		seen[k] = v
		if strings.ContainsAny(k, "+%/\\ ") || strings.HasPrefix(k, ".") || k != KeySegment(v) {
			t.Errorf("KeySegment(%q) = %q", v, KeySegment(v))
		}
	}
}

// TestURIComponent escapes as encodeURIComponent does.
func TestURIComponent(t *testing.T) {
	for in, want := range map[string]string{
		"com.example/weather":  "com.example%2Fweather",
		"1.0.0+build":          "1.0.0%2Bbuild",
		"a-b_c.d!e~f*g'h(i)j":  "a-b_c.d!e~f*g'h(i)j",
		"a b%c?d#e&f=g:h@i$j,": "a%20b%25c%3Fd%23e%26f%3Dg%3Ah%40i%24j%2C",
		"é":                    "%C3%A9",
	} {
		if got := URIComponent(in); got != want {
			t.Errorf("URIComponent(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRegistryIndexLevel publishes a version before the lists that name
// it, and after the tool list and the cards it names.
func TestRegistryIndexLevel(t *testing.T) {
	for route, want := range map[string]int{
		RouteRegistry:                                         3,
		RegistryVersionsRoute("com.example/a"):                3,
		RegistryVersionRoute("com.example/a", "1.0.0"):        2,
		RegistryVersionRoute("com.example/a", RegistryLatest): 2,
	} {
		if got := IndexLevel(route); got != want || got > MaxIndexLevel || got <= IndexLevel(RouteTools) {
			t.Errorf("IndexLevel(%s) = %d, want %d", route, got, want)
		}
	}
	if got := string(RegistryErrorBody(RegistryServerNotFound)); got != "{\"error\":\"Server not found\"}\n" {
		t.Errorf("RegistryErrorBody = %q", got)
	}
}
