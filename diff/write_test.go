package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build"
)

// TestDiffWrite checks each format of one change byte for byte.
func TestDiffWrite(t *testing.T) {
	old := diffCatalog(t, diffBase)
	new := diffCatalog(t, diffBase,
		[3]string{tools, "safetyTier: read", "safetyTier: write"},
		[3]string{tools, "    tenants: [acme]\n", "    status: planned\n"},
		[3]string{servers, "1.0.0", "1.1.0"},
	)
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	c.Old, c.New = "main", "."
	want := map[string]string{
		build.FormatText: `signpost diff main -> .
2 risks; tools 1 removed, 1 changed; servers 1 changed; documents 3 changed

RISKS
  tier-raised   tool get_forecast  safetyTier read -> write
  tool-removed  tool delete_thing  no longer published

TOOLS
  - delete_thing (host-extension, write, keyed, egress none; tenants acme)
  ~ get_forecast
      safetyTier read -> write
      digest sha256:37d815c772f1bade… -> sha256:b35e5e0c982268ae…: clients that pinned the tool see a new definition
      compact descriptor changed

SERVERS
  ~ com.example/weather
      version 1.0.0 -> 1.1.0

DOCUMENTS
  ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)
  ~ /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)
  ~ /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)
`,
		FormatMarkdown: "## signpost diff: `main` → `.`\n\n" +
			"2 risks; tools 1 removed, 1 changed; servers 1 changed; documents 3 changed.\n\n" +
			"### Risks\n\n" +
			"| risk | subject | change |\n|---|---|---|\n" +
			"| tier-raised | tool `get_forecast` | safetyTier read -> write |\n" +
			"| tool-removed | tool `delete_thing` | no longer published |\n\n" +
			"### Tools\n\n" +
			"**Removed (1)**\n\n- `delete_thing`: host-extension, write, keyed, egress none; tenants acme\n\n" +
			"**Changed (1)**\n\n- `get_forecast`: safetyTier read -> write; digest sha256:37d815c772f1bade… -> sha256:b35e5e0c982268ae…: clients that pinned the tool see a new definition; compact descriptor changed\n\n" +
			"### Servers\n\n" +
			"**Changed (1)**\n\n- `com.example/weather`: version 1.0.0 -> 1.1.0\n\n" +
			"### Documents\n\n" +
			"**Changed (3)**\n\n" +
			"- `/.well-known/ai-catalog.json`: application/ai-catalog+json; tenants acme, globex\n" +
			"- `/.well-known/mcp/server-cards/com.example/weather.json`: application/mcp-server-card+json; tenants acme, globex\n" +
			"- `/.well-known/mcp/servers/com.example/weather.json`: application/mcp-server+json; tenants acme, globex\n\n",
	}
	for format, w := range want {
		var b strings.Builder
		if err := c.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(w, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", format, diff)
		}
	}

	// JSON: the documented field names, every list present.
	var b bytes.Buffer
	if err := c.Write(&b, build.FormatJSON); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"documents", "format", "new", "old", "oldEmpty", "risks", "servers", "tenants", "tools"}, slices.Sorted(maps.Keys(got))); diff != "" {
		t.Errorf("JSON keys (-want +got):\n%s", diff)
	}
	wantRisk := map[string]any{"kind": "tier-raised", "toolId": "get_forecast", "old": "read", "new": "write", "message": "safetyTier read -> write"}
	if diff := cmp.Diff(wantRisk, got["risks"].([]any)[0]); diff != "" {
		t.Errorf("JSON risk (-want +got):\n%s", diff)
	}
	wantServers := map[string]any{"added": []any{}, "removed": []any{}, "changed": []any{map[string]any{
		"name": "com.example/weather", "fields": []any{map[string]any{"field": "version", "old": "1.0.0", "new": "1.1.0"}},
		"remotesAdded": []any{}, "remotesRemoved": []any{}, "remotesReplaced": []any{}, "remotesChanged": []any{},
	}}}
	if diff := cmp.Diff(wantServers, got["servers"]); diff != "" {
		t.Errorf("JSON servers (-want +got):\n%s", diff)
	}
	wantDoc := map[string]any{"route": "/.well-known/mcp/servers/com.example/weather.json", "view": "standard", "contentType": "application/mcp-server+json", "tenants": []any{"acme", "globex"}}
	if diff := cmp.Diff(wantDoc, got["documents"].(map[string]any)["changed"].([]any)[2]); diff != "" {
		t.Errorf("JSON document (-want +got):\n%s", diff)
	}
	// The digests whole, which the text shortens.
	digest, _ := got["tools"].(map[string]any)["changed"].([]any)[0].(map[string]any)["digest"].(map[string]any)
	for k, prefix := range map[string]string{"old": "sha256:37d815c772f1bade", "new": "sha256:b35e5e0c982268ae"} {
		if d, _ := digest[k].(string); len(d) != len("sha256:")+64 || !strings.HasPrefix(d, prefix) {
			t.Errorf("JSON tools.changed[0].digest.%s = %q, want %s and 48 more hex digits", k, d, prefix)
		}
	}
	if got["oldEmpty"] != false {
		t.Errorf("JSON oldEmpty = %v", got["oldEmpty"])
	}

	// An old side without a catalog is named so in every heading.
	c.OldEmpty = true
	for format, want := range map[string]string{
		build.FormatText: "signpost diff main (no catalog) -> .\n",
		FormatMarkdown:   "## signpost diff: `main` (no catalog) → `.`\n",
		build.FormatJSON: "  \"oldEmpty\": true,\n",
	} {
		b.Reset()
		if err := c.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s with OldEmpty lacks %q:\n%s", format, want, b.String())
		}
	}

	if err := c.Write(&b, "yaml"); err == nil {
		t.Error("Write accepted format yaml")
	}
}

// TestDiffMarkdownBounded adds many tools: the markdown folds long lists in
// <details> and stops listing at its bound.
func TestDiffMarkdownBounded(t *testing.T) {
	var decl strings.Builder
	for i := range 80 {
		fmt.Fprintf(&decl, "  - {toolId: tool_%02d, description: T., source: openapi, safetyTier: read, replayPolicy: idempotent, egress: internet}\n", i)
	}
	old := diffCatalog(t, diffBase)
	new := diffCatalog(t, diffBase, [3]string{tools, "", decl.String()}, [3]string{tools, "safetyTier: read", "safetyTier: write"})
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.Write(&b, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| tier-raised | tool `get_forecast` |",
		"<details><summary>Added (80)</summary>",
		"- `tool_49`:",
		"- … and 30 more: see `signpost diff --format json`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "tool_50") {
		t.Error("markdown lists more tools than its bound")
	}
	// Risks come before the details.
	if strings.Index(md, "### Risks") > strings.Index(md, "### Tools") {
		t.Error("risks are not first")
	}
}

// TestDiffPrintable keeps control characters from a declaration out of the
// reports.
func TestDiffPrintable(t *testing.T) {
	old := diffCatalog(t, diffBase)
	// A line separator, which a build publishes (escape characters it
	// refuses), and HTML.
	new := diffCatalog(t, diffBase, [3]string{tools, "Forecast. For a place.", `"Forecast.\u2028 For <b>a</b> place."`})
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{build.FormatText, FormatMarkdown} {
		var b strings.Builder
		if err := c.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(b.String(), '\u2028') {
			t.Errorf("%s output holds a raw line separator:\n%s", format, b.String())
		}
		if format == FormatMarkdown && strings.Contains(strings.ReplaceAll(b.String(), `\<`, ""), "<b>") {
			t.Errorf("markdown output holds raw HTML:\n%s", b.String())
		}
	}
}
