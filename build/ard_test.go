package build

import (
	"context"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/jcs"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// ardServers are two servers, one with representative queries and a
// policy of its own, one another host serves, and the tools of the first.
const ardServers = `servers:
  - name: com.example/weather
    version: 1.0.0
    title: Weather
    description: Forecasts.
    representativeQueries: ["will it rain in Lyon tomorrow", "  wind speed in Oslo  "]
    termsOfServiceUrl: https://example.com/weather/terms
    remotes:
      - {type: streamable-http, url: https://mcp.example.com/weather}
  - name: com.other/maps
    cardUrl: https://other.example/maps.json
tools:
  - {toolId: get_forecast, name: get_forecast, server: com.example/weather, description: Forecast., source: mcp, safetyTier: read, replayPolicy: deterministic, egress: internet}
  - {toolId: get_alerts, name: alerts, server: com.example/weather, description: Alerts., source: mcp, safetyTier: read, replayPolicy: deterministic, egress: internet}
`

// TestARD: discovery.ard publishes /.well-known/ard.json, an entry per
// server in the bytes given here, and the site's Link; the AI catalog's
// entries carry the policy-urls extension, the site's unless the server
// has its own.
func TestARD(t *testing.T) {
	dir := catalogtest.Write(t, map[string]string{
		ConfigFile: "site: {origin: https://example.com, publisher: example.com, displayName: Example Corp, privacyPolicyUrl: https://example.com/privacy}\n" +
			"discovery: {ard: true}\n",
		"servers.yaml": ardServers,
	})
	cat, diags := Load(context.Background(), dir)
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	b, err := Compile(t.Context(), cat)
	if err != nil {
		t.Fatal(err)
	}
	s := b.Sites[0]
	docs := map[string]string{}
	types := map[string]string{}
	for _, d := range s.Documents {
		docs[d.Route.Route] = string(bodyOf(t, d))
		types[d.Route.Route] = d.ContentType
	}
	want := `{"entries":[{"displayName":"com.other/maps","identifier":"urn:air:example.com:mcp:maps","type":"application/mcp-server-card+json","url":"https://other.example/maps.json"},` +
		`{"capabilities":["alerts","get_forecast"],"description":"Forecasts.","displayName":"Weather","identifier":"urn:air:example.com:mcp:weather","representativeQueries":["will it rain in Lyon tomorrow","wind speed in Oslo"],"type":"application/mcp-server-card+json","url":"https://example.com/.well-known/mcp/server-cards/com.example/weather.json"}],` +
		`"host":{"displayName":"Example Corp"},"specVersion":"1.0"}` + "\n"
	if got := docs[spec.RouteARD]; got != want {
		t.Errorf("%s:\n%s\nwant\n%s", spec.RouteARD, got, want)
	}
	if types[spec.RouteARD] != spec.ContentTypeJSON {
		t.Errorf("%s is served as %s, want %s", spec.RouteARD, types[spec.RouteARD], spec.ContentTypeJSON)
	}
	if got := s.Link(); got != `</.well-known/ard.json>; rel="ard", </.well-known/ai-catalog.json>; rel="ai-catalog"` {
		t.Errorf("Link %q", got)
	}
	ai := docs[spec.RouteAICatalog]
	if canon, err := jcs.Transform([]byte(ai)); err != nil || string(canon) != ai {
		t.Errorf("the AI catalog is not its JCS form (%v)", err)
	}
	for _, w := range []string{
		`"extensions":{"https://ai-catalog.org/extensions/policy-urls":{"privacyPolicyUrl":"https://example.com/privacy","termsOfServiceUrl":"https://example.com/weather/terms"}}`,
		`"extensions":{"https://ai-catalog.org/extensions/policy-urls":{"privacyPolicyUrl":"https://example.com/privacy"}},"identifier":"urn:air:example.com:mcp:maps"`,
	} {
		if !strings.Contains(ai, w) {
			t.Errorf("AI catalog lacks %s:\n%s", w, ai)
		}
	}
}

// TestARDOff: without discovery.ard, no manifest and no Link.
func TestARDOff(t *testing.T) {
	dir := catalogtest.Write(t, map[string]string{ConfigFile: testConfig, "servers.yaml": ardServers})
	cat, diags := Load(context.Background(), dir)
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	b, err := Compile(t.Context(), cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range b.Sites[0].Documents {
		if d.Route.Route == spec.RouteARD {
			t.Errorf("%s published with discovery.ard off", spec.RouteARD)
		}
	}
	if l := b.Sites[0].Link(); l != "" {
		t.Errorf("Link %q with discovery.ard off", l)
	}
}

// TestARDRules: what a declaration or signpost.yaml gets wrong of ARD and
// the policies, each at its place.
func TestARDRules(t *testing.T) {
	server := func(extra string) string {
		return "servers:\n  - name: com.example/weather\n    version: 1.0.0\n    description: Forecasts.\n" + extra
	}
	for _, c := range []struct {
		name, config, servers, want string
	}{
		{"one query", testConfig, server("    representativeQueries: [just one]\n"), "servers.yaml:5:28: must have at least 2 items"},
		{"invisible", testConfig, server("    representativeQueries: [\"rain\\u200b in Lyon\", wind]\n"), "servers.yaml:5:29: representativeQueries holds U+200B"},
		{"credential", testConfig, server("    representativeQueries: [\"use ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\", wind]\n"), "servers.yaml:5:29: contains a GitHub token"},
		{"http policy", testConfig, server("    privacyPolicyUrl: http://example.com/privacy\n"), "servers.yaml:5:23: must be an absolute https URL"},
		{"site http policy", "site: {origin: https://example.com, publisher: example.com, termsOfServiceUrl: http://example.com/t}\n", server(""), "signpost.yaml:1:80: must be an absolute https URL"},
		{"ard without ai catalog", testConfig + "discovery: {ard: true, aiCatalog: false}\n", server(""), "discovery.ard needs the AI catalog"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, lines := loadDiags(t, map[string]string{ConfigFile: c.config, "servers.yaml": c.servers})
			if !strings.Contains(strings.Join(lines, "\n"), c.want) {
				t.Errorf("diagnostics:\n%s\nwant one with %q", strings.Join(lines, "\n"), c.want)
			}
		})
	}
}
