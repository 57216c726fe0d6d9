package discoverydocs

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
)

// servers declares a local server with an endpoint on the site's origin,
// another without one, and a cross-host server, as the loader does.
func servers(t *testing.T) []*discovery.Server {
	t.Helper()
	var out []*discovery.Server
	for _, item := range []string{
		`{"name": "com.example/billing", "version": "2.0.0", "description": "Invoices.", "remotes": [{"type": "streamable-http", "url": "https://example.com/mcp/billing"}]}`,
		`{"name": "com.example/weather", "version": "1.4.0", "description": "Forecasts."}`,
		`{"name": "net.partner/search", "cardUrl": "https://partner.example.org/search/server-card", "cardMediaType": "application/mcp-server-card+json"}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(item), &v); err != nil {
			t.Fatal(err)
		}
		d := discovery.DecodeDecl(v)
		s, problems := discovery.Declare(&d)
		if len(problems) > 0 {
			t.Fatalf("declare %s: %v", item, problems)
		}
		out = append(out, s)
	}
	return out
}

func routes(docs []output.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.Route.Route+" "+d.ContentType)
	}
	return out
}

// TestDocumentsFollowTheSite: each catalog setting adds its documents and
// no other; a cross-host server has no card here.
func TestDocumentsFollowTheSite(t *testing.T) {
	srv := servers(t)
	tools := []*tool.Tool{{ToolID: "get_invoice", Name: "get_invoice", Source: "mcp", Server: "com.example/billing"}}
	base := Site{Origin: "https://example.com/", EndpointOrigin: "https://example.com", Publisher: "example.com", DisplayName: "Example"}
	for _, tc := range []struct {
		name     string
		set      func(*Site)
		cards    []string
		catalogs []string
		endpoint []string
	}{
		{name: "none", set: func(*Site) {}},
		{
			name:     "MCP catalog",
			set:      func(s *Site) { s.MCPCatalog = true },
			cards:    []string{"/.well-known/mcp/servers/com.example/billing.json " + spec.ContentTypeServerCardDraft, "/.well-known/mcp/servers/com.example/weather.json " + spec.ContentTypeServerCardDraft},
			catalogs: []string{spec.RouteMCPCatalog + " " + spec.ContentTypeJSON},
		},
		{
			name:     "AI catalog and ARD",
			set:      func(s *Site) { s.AICatalog, s.ARD = true, true },
			cards:    []string{srv[0].V1Route() + " " + spec.ContentTypeServerCardV1, srv[1].V1Route() + " " + spec.ContentTypeServerCardV1},
			catalogs: []string{spec.RouteAICatalog + " " + spec.ContentTypeAICatalog, spec.RouteARD + " " + spec.ContentTypeJSON},
			endpoint: []string{"/mcp/billing/server-card " + spec.ContentTypeServerCardV1},
		},
		{
			name:  "ARD without the AI catalog",
			set:   func(s *Site) { s.ARD = true },
			cards: nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := base
			tc.set(&site)
			cards, err := Cards(site, srv)
			if err != nil {
				t.Fatal(err)
			}
			catalogs, err := Catalogs(context.Background(), site, srv, tools, nil)
			if err != nil {
				t.Fatal(err)
			}
			endpoint, err := EndpointCards(site, srv, cards)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.cards, routes(cards)); diff != "" {
				t.Errorf("cards (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.catalogs, routes(catalogs)); diff != "" {
				t.Errorf("catalogs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.endpoint, routes(endpoint)); diff != "" {
				t.Errorf("endpoint cards (-want +got):\n%s", diff)
			}
			for _, d := range endpoint {
				if !d.Body.Equal(cards[0].Body) {
					t.Errorf("%s: not the bytes of the v1 card at %s", d.Route.Route, cards[0].Route.Route)
				}
			}
		})
	}
}

// TestSignedCatalogNamesVersions: a signed AI catalog comes with the DID
// document of its signer, and each local server's entry names the
// server's version, which its manifest binds; the cross-host server's
// entry and the tool catalog's name none.
func TestSignedCatalogNamesVersions(t *testing.T) {
	key, err := signing.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{7}, 256)))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signing.NewKeySigner(key)
	if err != nil {
		t.Fatal(err)
	}
	srv := servers(t)
	site := Site{
		Origin: "https://example.com/", EndpointOrigin: "https://example.com", Publisher: "example.com", AICatalog: true,
		Sign: &Signing{Signer: signer, Options: signing.Options{Domain: "example.com", IssuedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
	}
	docs, err := Catalogs(context.Background(), site, srv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{spec.RouteDIDDocument + " " + spec.ContentTypeJSON, spec.RouteAICatalog + " " + spec.ContentTypeAICatalog}, routes(docs)); diff != "" {
		t.Fatalf("documents (-want +got):\n%s", diff)
	}
	body, err := docs[1].Body.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Entries []struct {
			Identifier string `json:"identifier"`
			Version    string `json:"version"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(body, &cat); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range cat.Entries {
		got[e.Identifier] = e.Version
	}
	ids, _ := discovery.AIIdentifiers(site.Publisher, srv)
	want := map[string]string{ids[0]: "2.0.0", ids[1]: "1.4.0", ids[2]: "", "urn:air:example.com:tool-catalog:tools": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries' versions (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(body), `"signature":{`) || !strings.Contains(string(body), `"jws":"`) {
		t.Errorf("the AI catalog carries no signature:\n%s", body)
	}
}
