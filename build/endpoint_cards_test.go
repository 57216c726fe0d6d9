package build

import (
	"context"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// onSite is a server whose Streamable HTTP endpoint is at url.
func onSite(name, url string) string {
	return "  - name: com.example/" + name + "\n    version: 1.0.0\n    description: On site.\n" +
		"    remotes:\n      - {type: streamable-http, url: " + url + "}\n"
}

// TestEndpointCards: the card of a server whose endpoint is on the site's
// origin is also answered beside it, with the same bytes and media type as
// at its v1 path; an endpoint on another origin gets nothing; and the
// route stays that of the declared origin when the build names another.
func TestEndpointCards(t *testing.T) {
	dir := catalogtest.Write(t, map[string]string{
		ConfigFile: testConfig,
		"servers.yaml": "servers:\n" + onSite("weather", "https://example.com/mcp/weather/") +
			onSite("maps", "https://mcp.example.com/maps") + onSite("port", "https://example.com:8443/mcp/port"),
	})
	cat, diags := Load(context.Background(), dir)
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	cat.Config.SetOrigin("http://127.0.0.1:8080")
	b, err := Compile(t.Context(), cat)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	types := map[string]string{}
	for _, d := range b.Sites[0].Documents {
		docs[d.Route.Route] = string(bodyOf(t, d))
		types[d.Route.Route] = d.ContentType
	}
	card, ok := docs["/mcp/weather/server-card"]
	if !ok {
		t.Fatalf("no card at /mcp/weather/server-card; routes %v", keys(docs))
	}
	if want := docs["/.well-known/mcp/server-cards/com.example/weather.json"]; card != want {
		t.Errorf("card beside the endpoint:\n%s\nwant the v1 card's bytes:\n%s", card, want)
	}
	if types["/mcp/weather/server-card"] != spec.ContentTypeServerCardV1 {
		t.Errorf("Content-Type %s, want %s", types["/mcp/weather/server-card"], spec.ContentTypeServerCardV1)
	}
	for r := range docs {
		if strings.HasSuffix(r, "/server-card") && r != "/mcp/weather/server-card" {
			t.Errorf("unexpected card route %s: its endpoint is on another origin", r)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestEndpointCardCollisions: an endpoint on the origin whose card's route
// collides with a document's is refused at its URL.
func TestEndpointCardCollisions(t *testing.T) {
	_, got := loadDiags(t, map[string]string{
		ConfigFile: testConfig,
		"servers.yaml": "servers:\n" + onSite("a", "https://example.com/tools") + onSite("b", "https://example.com/mcp") +
			onSite("c", "https://EXAMPLE.com/MCP") + onSite("d", "https://example.com/.well-known/ai-catalog.json") +
			onSite("e", "https://example.com/v0.1/mcp") + onSite("f", "https://example.com/a%20b") +
			onSite("g", "https://example.com/.well-known/mcp/server-cards/com.example"),
	})
	want := []string{
		"servers.yaml:6:38: the card of this endpoint would be answered at https://example.com/tools/server-card, but /tools/server-card is the tool catalog's (/tools and below): move the endpoint",
		"servers.yaml:16:38: the card of this endpoint would be answered at https://EXAMPLE.com/MCP/server-card, but that is already the card of server \"com.example/b\", whose endpoint https://example.com/mcp has the same path: each server needs an endpoint of its own, ignoring case",
		"servers.yaml:21:38: the card of this endpoint would be answered at https://example.com/.well-known/ai-catalog.json/server-card, but that lies inside /.well-known/ai-catalog.json: a file cannot also be a folder on static hosts; move the endpoint or the card",
		"servers.yaml:26:38: the card of this endpoint would be answered at https://example.com/v0.1/mcp/server-card, but /v0.1/mcp/server-card is the MCP registry's (/v0.1/ and below): move the endpoint",
		"servers.yaml:31:38: the card of this endpoint would be answered at https://example.com/a%20b/server-card, but its path has a character other than letters, digits, '.', '_', '-' and '~' between its slashes, which no host serves as a document's path: serve the card at a card path (card.v1Path) and let the MCP server answer /server-card",
	}
	errs := got
	if strings.Join(errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
}
