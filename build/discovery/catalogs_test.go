package discovery

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// srvTCatalogServers is a mix of local and cross-host servers, in no order.
func srvTCatalogServers(t testing.TB) []*Server {
	var out []*Server
	for _, item := range []string{
		`{"name": "com.example/weather", "version": "1.4.0", "description": "Forecasts.", "card": {"v1Path": "/cards/weather.json"}}`,
		`{"name": "org.acme/support", "cardUrl": "https://mcp-host.example.net/acme/support/.well-known/mcp-server-card"}`,
		`{"name": "com.example/billing", "version": "2.0.0", "description": "Invoices."}`,
		`{"name": "net.partner/search", "cardUrl": "https://partner.example.org/search/server-card", "cardMediaType": "application/mcp-server-card+json"}`,
		`{"name": "net.partner/weather", "cardUrl": "https://partner.example.org/weather/server-card", "cardMediaType": "application/mcp-server-card+json", "aiCatalogIdentifier": "urn:air:example.com:mcp:net.partner.weather"}`,
	} {
		s, ps := srvTDeclare(srvTJSON(t, item))
		if ps != nil {
			t.Fatal(ps)
		}
		out = append(out, s)
	}
	return out
}

func TestServerCatalogs(t *testing.T) {
	sch := srvTLoadSchemas(t)
	servers := srvTCatalogServers(t)

	wantMCP := srvTJSON(t, `{
	  "specVersion": "draft",
	  "entries": [
	    {"identifier": "urn:mcp:server:com.example/billing", "mediaType": "application/mcp-server+json", "url": "https://example.com/.well-known/mcp/servers/com.example/billing.json"},
	    {"identifier": "urn:mcp:server:com.example/weather", "mediaType": "application/mcp-server+json", "url": "https://example.com/.well-known/mcp/servers/com.example/weather.json"},
	    {"identifier": "urn:mcp:server:org.acme/support", "mediaType": "application/mcp-server+json", "url": "https://mcp-host.example.net/acme/support/.well-known/mcp-server-card"}
	  ]}`)
	mcp := MCPCatalog("https://example.com/", servers)
	if diff := cmp.Diff(wantMCP, srvTRoundTrip(t, mcp)); diff != "" {
		t.Errorf("MCPCatalog (-want +got):\n%s", diff)
	}
	srvTValid(t, sch.byName["mcp-catalog"], "MCP catalog", mcp)

	tools := &ToolCatalogAd{URL: "https://example.com/tools", Catalogue: "https://example.com/tool-catalogue.json", Sources: []string{"mcp", "host-extension", "mcp"}, CompactView: true}
	wantAI := srvTJSON(t, `{
	  "specVersion": "1.0",
	  "host": {"identifier": "example.com", "displayName": "Example Corp"},
	  "entries": [
	    {"identifier": "urn:air:example.com:mcp:billing", "type": "application/mcp-server-card+json", "url": "https://example.com/.well-known/mcp/server-cards/com.example/billing.json", "digest": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
	    {"identifier": "urn:air:example.com:mcp:net.partner.weather", "type": "application/mcp-server-card+json", "url": "https://partner.example.org/weather/server-card"},
	    {"identifier": "urn:air:example.com:mcp:search", "type": "application/mcp-server-card+json", "url": "https://partner.example.org/search/server-card"},
	    {"identifier": "urn:air:example.com:mcp:support", "type": "application/mcp-server-card+json", "url": "https://mcp-host.example.net/acme/support/.well-known/mcp-server-card"},
	    {"identifier": "urn:air:example.com:mcp:weather", "type": "application/mcp-server-card+json", "url": "https://example.com/cards/weather.json"},
	    {"identifier": "urn:air:example.com:tool-catalog:tools", "type": "application/json", "data": {"toolCatalog": {"url": "https://example.com/tools", "sources": ["host-extension", "mcp"], "compactView": true, "catalogue": "https://example.com/tool-catalogue.json"}}}
	  ]}`)
	// The billing card's digest is given; the weather card's is not known
	// here, and a cross-host card's never is.
	sums := map[string]string{"/.well-known/mcp/server-cards/com.example/billing.json": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	ai := AICatalog("https://example.com", "example.com", "Example Corp", servers, tools, sums)
	if diff := cmp.Diff(wantAI, srvTRoundTrip(t, ai)); diff != "" {
		t.Errorf("AICatalog (-want +got):\n%s", diff)
	}
	srvTValid(t, sch.byName["ai-catalog"], "AI catalog", ai)
	if tools.Sources[0] != "mcp" {
		t.Error("AICatalog sorted the caller's sources")
	}

	// A tenant's site names its tool catalog entry after the tenant.
	acme := AICatalog("https://example.com", "example.com", "", nil, &ToolCatalogAd{URL: "https://example.com/tools", Catalogue: "https://example.com/tool-catalogue.json", Tenant: "acme"}, nil)
	if got := srvTRoundTrip(t, acme).(map[string]any)["entries"].([]any)[0].(map[string]any)["identifier"]; got != "urn:air:example.com:tool-catalog:acme" {
		t.Errorf("a tenant's tool catalog identifier = %v, want urn:air:example.com:tool-catalog:acme", got)
	}
	srvTValid(t, sch.byName["ai-catalog"], "a tenant's AI catalog", acme)

	// No display name, no tool catalog, no servers.
	wantEmptyAI := srvTJSON(t, `{"specVersion": "1.0", "host": {"displayName": "example.com", "identifier": "example.com"}, "entries": []}`)
	emptyAI := AICatalog("http://localhost:8080", "example.com", "", nil, nil, nil)
	if diff := cmp.Diff(wantEmptyAI, srvTRoundTrip(t, emptyAI)); diff != "" {
		t.Errorf("empty AICatalog (-want +got):\n%s", diff)
	}
	srvTValid(t, sch.byName["ai-catalog"], "empty AI catalog", emptyAI)
	wantEmptyMCP := srvTJSON(t, `{"specVersion": "draft", "entries": []}`)
	emptyMCP := MCPCatalog("https://example.com", nil)
	if diff := cmp.Diff(wantEmptyMCP, srvTRoundTrip(t, emptyMCP)); diff != "" {
		t.Errorf("empty MCPCatalog (-want +got):\n%s", diff)
	}
	srvTValid(t, sch.byName["mcp-catalog"], "empty MCP catalog", emptyMCP)

	// A tool catalog with no tools still lists an empty array of sources.
	noTools := AICatalog("https://example.com", "example.com", "", nil, &ToolCatalogAd{URL: "https://example.com/tools", Catalogue: "https://example.com/tool-catalogue.json"}, nil)
	srvTValid(t, sch.byName["ai-catalog"], "AI catalog without tools", noTools)
}

// TestServerSchemasReject: the catalog and card schemas say no to what we
// must never publish.
func TestServerSchemasReject(t *testing.T) {
	sch := srvTLoadSchemas(t)
	for _, tc := range []struct{ schema, doc string }{
		{"mcp-catalog", `{"specVersion": "1.0", "entries": []}`},
		{"mcp-catalog", `{"specVersion": "draft"}`},
		{"mcp-catalog", `{"entries": [{"identifier": "com.example/a", "mediaType": "application/mcp-server+json", "url": "https://e.com/a.json"}]}`},
		{"mcp-catalog", `{"entries": [{"identifier": "urn:mcp:server:com.example/a", "mediaType": "application/mcp-server-card+json", "url": "https://e.com/a.json"}]}`},
		{"mcp-catalog", `{"entries": [{"identifier": "urn:mcp:server:com.example/a", "mediaType": "application/mcp-server+json", "url": "/a.json"}]}`},
		{"mcp-catalog", `{"entries": [{"identifier": "urn:mcp:server:com.example/a", "mediaType": "application/mcp-server+json", "url": "https://e.com/a.json", "name": "a"}]}`},
		{"ai-catalog", `{"entries": []}`},
		{"ai-catalog", `{"specVersion": "1.0"}`},
		{"ai-catalog", `{"specVersion": "1.0", "host": {"displayName": "Example", "identifier": "Example.COM"}, "entries": []}`},
		{"ai-catalog", `{"specVersion": "1.0", "host": {"domain": "example.com"}, "entries": []}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:mcp:a", "type": "application/mcp-server-card+json"}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:mcp:a", "type": "application/mcp-server-card+json", "url": "https://e.com/a.json", "data": {}}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:mcp:a", "type": "application/json", "url": "https://e.com/a.json"}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:tool-catalog:tools", "type": "application/json", "url": "https://e.com/tools"}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:tool-catalog:tools", "type": "application/json", "data": {"toolCatalog": {"url": "https://e.com/tools", "sources": ["cli"], "compactView": true, "catalogue": "https://e.com/tool-catalogue.json"}}}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:tool-catalog:tools", "type": "application/json", "data": {"toolCatalog": {"url": "https://e.com/tools", "sources": []}}}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:mcp:com.example/a", "type": "application/mcp-server-card+json", "url": "https://e.com/a.json"}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:tool-catalog", "type": "application/json", "data": {"toolCatalog": {"url": "https://e.com/tools", "sources": ["mcp"], "compactView": true, "catalogue": "https://e.com/tool-catalogue.json"}}}]}`},
		{"ai-catalog", `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:e.com:thing/x", "type": "text/plain", "url": "https://e.com/x"}]}`},
		{"mcp-server-card-draft", `{"version": "1.0.0"}`},
		{"mcp-server-card-draft", `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "name": "com.example/a"}`},
		{"mcp-server-card-draft", `{"name": "com.example/a", "description": "` + strings.Repeat("d", 101) + `"}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1"}`},
		{"servers-fragment", `{"name": "com.example/a", "cardUrl": "https://h.example.net/c", "card": {"v1Path": "/a.json"}}`},
		{"servers-fragment", `{"name": "com.example/a", "cardUrl": "https://h.example.net/c", "remotes": [{"type": "sse", "url": "https://a.example.com"}]}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1", "description": "d", "cardMediaType": "application/mcp-server+json"}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1", "description": "d", "remotes": [{"type": "sse", "url": "https://a.example.com", "supportedProtocolVersions": ["June"]}]}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1", "description": "d", "remotes": [{"type": "ws", "url": "https://a.example.com"}]}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1", "description": "d", "remotes": [{"type": "sse", "url": "https://a.example.com", "headers": [{"name": "Bad Header"}]}]}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1", "description": "d", "icons": [{"src": "javascript:alert(1)"}]}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1", "description": "d", "card": {}}`},
		{"servers-fragment", `{"name": "com.example/a", "version": "1", "description": "d", "extra": true}`},
		{"discovery-fragment", `{"mcpCatalog": "yes"}`},
		{"discovery-fragment", `{"agentCard": true}`},
	} {
		if err := sch.byName[tc.schema].Validate(srvTJSON(t, tc.doc)); err == nil {
			t.Errorf("%s accepts %s", tc.schema, tc.doc)
		}
	}
	for _, tc := range []struct{ schema, doc string }{
		{"servers-fragment", srvTFull},
		{"servers-fragment", srvTBase},
		{"servers-fragment", `{"name": "org.acme/support", "cardUrl": "https://h.example.net/c"}`},
		{"servers-fragment", `{"name": "org.acme/support", "version": "1", "description": "d", "cardUrl": "https://h.example.net/c", "cardMediaType": "application/mcp-server-card+json"}`},
		{"discovery-fragment", `{}`},
		{"discovery-fragment", `{"mcpCatalog": false, "aiCatalog": true}`},
	} {
		if err := sch.byName[tc.schema].Validate(srvTJSON(t, tc.doc)); err != nil {
			t.Errorf("%s rejects %s: %v", tc.schema, tc.doc, err)
		}
	}
}
