package build

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// diffBase is a small catalog with two tenants, a local and a cross-host
// server, and two tools, one scoped to a tenant.
var diffBase = map[string]string{
	"signpost.yaml": `site: {origin: https://example.com, publisher: example.com}
tenants: [acme, globex]
`,
	"servers.yaml": `servers:
  - name: com.example/weather
    version: 1.0.0
    description: Weather.
    remotes:
      - {type: streamable-http, url: https://mcp.example.com/weather}
  - name: com.example/helpdesk
    cardUrl: https://vendor.example.net/card.json
`,
	"tools.yaml": `tools:
  - toolId: get_forecast
    description: Forecast. For a place.
    server: com.example/weather
    source: host-extension
    safetyTier: read
    replayPolicy: deterministic
    egress: internal
  - toolId: delete_thing
    description: Deletes a thing.
    source: host-extension
    safetyTier: write
    replayPolicy: keyed
    egress: none
    tenants: [acme]
`,
}

// diffCatalog writes files, with each edit ("FILE": old → new) applied,
// into a new folder and compiles it.
func diffCatalog(t *testing.T, files map[string]string, edits ...[3]string) *Build {
	t.Helper()
	files = maps.Clone(files)
	for _, e := range edits {
		if e[1] == "" {
			files[e[0]] += e[2]
			continue
		}
		if !strings.Contains(files[e[0]], e[1]) {
			t.Fatalf("edit: %s does not contain %q", e[0], e[1])
		}
		files[e[0]] = strings.Replace(files[e[0]], e[1], e[2], 1)
	}
	return compiled(t, writeCatalog(t, files))
}

// diffLines is a change as short lines, one per risk and per item.
func diffLines(c *Change) []string {
	out := []string{}
	for _, r := range c.Risks {
		out = append(out, fmt.Sprintf("risk %s %s: %s", r.Kind, r.subject(), r.Message))
	}
	for _, t := range c.Tenants.Added {
		out = append(out, "tenant + "+t)
	}
	for _, t := range c.Tenants.Removed {
		out = append(out, "tenant - "+t)
	}
	for _, v := range c.Tenants.CompactView {
		out = append(out, fmt.Sprintf("tenant ~ %s compact %s -> %s", v.Tenant, onOff(v.Old), onOff(v.New)))
	}
	for _, t := range c.Tools.Added {
		out = append(out, "tool + "+t.ToolID+" ("+t.describe()+")")
	}
	for _, t := range c.Tools.Removed {
		out = append(out, "tool - "+t.ToolID+" ("+t.describe()+")")
	}
	for _, t := range c.Tools.Changed {
		out = append(out, "tool ~ "+t.ToolID+": "+strings.Join(t.details(), "; "))
	}
	for _, s := range c.Servers.Added {
		out = append(out, "server + "+s.Name+" ("+s.describe()+")")
	}
	for _, s := range c.Servers.Removed {
		out = append(out, "server - "+s.Name+" ("+s.describe()+")")
	}
	for _, s := range c.Servers.Changed {
		out = append(out, "server ~ "+s.Name+": "+strings.Join(s.details(), "; "))
	}
	return out
}

const (
	tools   = "tools.yaml"
	servers = "servers.yaml"
	config  = "signpost.yaml"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name  string
		base  map[string]string
		edits [][3]string
		want  []string
	}{
		{name: "identical", want: []string{}},
		{
			name: "tool added",
			edits: [][3]string{{tools, "", `  - toolId: run_code
    description: Runs code.
    source: host-extension
    safetyTier: exec
    replayPolicy: unsafe
    egress: internet
    tenants: [globex]
`}},
			want: []string{"tool + run_code (host-extension, exec, unsafe, egress internet; tenants globex)"},
		},
		{
			name:  "tool removed",
			edits: [][3]string{{tools, "tenants: [acme]", "tenants: [acme]\n    status: hidden"}},
			want: []string{
				"risk tool-removed tool delete_thing: no longer published",
				"tool - delete_thing (host-extension, write, keyed, egress none; tenants acme)",
			},
		},
		{
			name:  "tool changed without risk",
			edits: [][3]string{{tools, "Forecast. For a place.", "Forecast. For any place."}, {tools, "egress: internal", "egress: internal\n    inputSchema: {type: object, properties: {days: {type: integer}}}"}},
			want:  []string{`tool ~ get_forecast: description "Forecast. For a place." -> "Forecast. For any place."; inputSchema changed; compact descriptor changed`},
		},
		{
			name:  "tier raised",
			edits: [][3]string{{tools, "safetyTier: read", "safetyTier: write"}},
			want: []string{
				"risk tier-raised tool get_forecast: safetyTier read -> write",
				"tool ~ get_forecast: safetyTier read -> write; compact descriptor changed",
			},
		},
		{
			name:  "tier lowered",
			edits: [][3]string{{tools, "safetyTier: write", "safetyTier: pure"}},
			want:  []string{"tool ~ delete_thing: safetyTier write -> pure; compact descriptor changed"},
		},
		{
			name:  "egress widened",
			edits: [][3]string{{tools, "egress: internal", "egress: internet"}, {tools, "egress: none", "egress: internal"}},
			want: []string{
				"risk egress-widened tool delete_thing: egress none -> internal",
				"risk egress-widened tool get_forecast: egress internal -> internet",
				"tool ~ delete_thing: egress none -> internal; compact descriptor changed",
				"tool ~ get_forecast: egress internal -> internet; compact descriptor changed",
			},
		},
		{
			name:  "egress narrowed",
			edits: [][3]string{{tools, "egress: internal", "egress: none"}},
			want:  []string{"tool ~ get_forecast: egress internal -> none; compact descriptor changed"},
		},
		{
			name:  "replay loosened and tightened",
			edits: [][3]string{{tools, "replayPolicy: deterministic", "replayPolicy: idempotent"}, {tools, "replayPolicy: keyed", "replayPolicy: idempotent"}},
			want: []string{
				"risk replay-loosened tool get_forecast: replayPolicy deterministic -> idempotent",
				"tool ~ delete_thing: replayPolicy keyed -> idempotent; compact descriptor changed",
				"tool ~ get_forecast: replayPolicy deterministic -> idempotent; compact descriptor changed",
			},
		},
		{
			name:  "replay loosened to unsafe",
			edits: [][3]string{{tools, "replayPolicy: keyed", "replayPolicy: unsafe"}},
			want: []string{
				"risk replay-loosened tool delete_thing: replayPolicy keyed -> unsafe",
				"tool ~ delete_thing: replayPolicy keyed -> unsafe; compact descriptor changed",
			},
		},
		{
			name:  "reassigned to another server",
			edits: [][3]string{{tools, "server: com.example/weather", "server: com.example/helpdesk"}},
			want: []string{
				"risk tool-reassigned tool get_forecast: now names host-extension com.example/helpdesk (was host-extension com.example/weather)",
				`tool ~ get_forecast: server "com.example/weather" -> "com.example/helpdesk"`,
			},
		},
		{
			name:  "reassigned to another source",
			edits: [][3]string{{tools, "source: host-extension\n    safetyTier: write", "source: openapi\n    safetyTier: write"}},
			want: []string{
				"risk tool-reassigned tool delete_thing: now names openapi (was host-extension)",
				"tool ~ delete_thing: source host-extension -> openapi; compact descriptor changed",
			},
		},
		{
			name:  "tenant scope widened",
			edits: [][3]string{{tools, "    tenants: [acme]\n", ""}},
			want: []string{
				"risk tenant-widened tool delete_thing: now published to tenant globex",
				"tool ~ delete_thing: now published to globex",
			},
		},
		{
			name:  "tenant scope narrowed",
			edits: [][3]string{{tools, "egress: internal", "egress: internal\n    tenants: [globex]"}},
			want: []string{
				"risk tool-removed tool get_forecast: no longer published to tenant acme",
				"tool ~ get_forecast: no longer published to acme",
			},
		},
		{
			name:  "new tenant",
			edits: [][3]string{{config, "[acme, globex]", "[acme, globex, initech]"}},
			want: []string{
				"risk tenant-widened tenant initech: new site, publishing 1 tool",
				"tenant + initech",
			},
		},
		{
			name:  "tenant removed",
			edits: [][3]string{{config, "[acme, globex]", "[acme]"}},
			want: []string{
				"risk tool-removed tenant globex: site removed, with the 1 tool it published",
				"tenant - globex",
			},
		},
		{
			name:  "tenants introduced",
			base:  map[string]string{config: "site: {origin: https://example.com, publisher: example.com}\n", tools: strings.Replace(diffBase[tools], "    tenants: [acme]\n", "", 1)},
			edits: [][3]string{{config, "", "tenants: [acme]\n"}},
			want: []string{
				"risk tool-removed site: site removed, with the 2 tools it published",
				"risk tenant-widened tenant acme: new site, publishing 2 tools",
				"tenant + acme",
				"tenant - ",
			},
		},
		{
			name:  "without tenants",
			base:  map[string]string{config: "site: {origin: https://example.com, publisher: example.com}\n", tools: strings.Replace(diffBase[tools], "    tenants: [acme]\n", "", 1)},
			edits: [][3]string{{tools, "safetyTier: read", "safetyTier: exec"}},
			want: []string{
				"risk tier-raised tool get_forecast: safetyTier read -> exec",
				"tool ~ get_forecast: safetyTier read -> exec; compact descriptor changed",
			},
		},
		{
			name:  "compact view switched off",
			edits: [][3]string{{config, "", "toolCatalog: {compactView: false}\n"}},
			want: []string{
				"risk compact-changed tenant acme: compact view switched off for tenant acme",
				"risk compact-changed tenant globex: compact view switched off for tenant globex",
				"tenant ~ acme compact on -> off",
				"tenant ~ globex compact on -> off",
			},
		},
		{
			name:  "server added",
			edits: [][3]string{{servers, "", "  - name: com.example/docs\n    version: 2.0.0\n    description: Docs.\n    remotes: [{type: sse, url: https://mcp.example.com/docs}]\n"}},
			want:  []string{"server + com.example/docs (version 2.0.0; remotes sse https://mcp.example.com/docs)"},
		},
		{
			name:  "server removed",
			edits: [][3]string{{servers, "  - name: com.example/helpdesk\n    cardUrl: https://vendor.example.net/card.json\n", ""}},
			want: []string{
				"risk server-removed server com.example/helpdesk: no longer published",
				"server - com.example/helpdesk (card https://vendor.example.net/card.json)",
			},
		},
		{
			name:  "server version changed",
			edits: [][3]string{{servers, "1.0.0", "1.1.0"}, {servers, "description: Weather.", "description: Weather.\n    title: Weather"}},
			want:  []string{`server ~ com.example/weather: title (none) -> "Weather"; version 1.0.0 -> 1.1.0`},
		},
		{
			name:  "server remote changed",
			edits: [][3]string{{servers, "https://mcp.example.com/weather", "https://weather.example.net/mcp"}},
			want: []string{
				"risk server-remote-changed server com.example/weather: new endpoint streamable-http https://weather.example.net/mcp; endpoint removed streamable-http https://mcp.example.com/weather",
				"server ~ com.example/weather: new remote streamable-http https://weather.example.net/mcp; remote removed streamable-http https://mcp.example.com/weather",
			},
		},
		{
			name:  "cross-host card moved",
			edits: [][3]string{{servers, "https://vendor.example.net/card.json", "https://other.example.org/card.json"}},
			want: []string{
				"risk server-remote-changed server com.example/helpdesk: card URL https://vendor.example.net/card.json -> https://other.example.org/card.json",
				`server ~ com.example/helpdesk: cardUrl "https://vendor.example.net/card.json" -> "https://other.example.org/card.json"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := cmpOrMap(tt.base, diffBase)
			old := diffCatalog(t, base)
			new := diffCatalog(t, base, tt.edits...)
			c, err := Diff(old, new)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, diffLines(c)); diff != "" {
				t.Errorf("diff (-want +got):\n%s", diff)
			}
			if c.Empty() != (len(tt.want) == 0) {
				t.Errorf("Empty() = %v with %d lines", c.Empty(), len(tt.want))
			}
			// Every risk a --fail-on can name is found by it.
			for _, r := range c.Risks {
				if !c.HasRisk(r.Kind) || !c.HasRisk(RiskAny) {
					t.Errorf("HasRisk misses %s", r.Kind)
				}
			}
		})
	}
}

func cmpOrMap(m, def map[string]string) map[string]string {
	if m == nil {
		return def
	}
	out := maps.Clone(def)
	maps.Copy(out, m)
	return out
}

// TestDiffCompactOnly changes a compact descriptor and nothing else, as a
// change of the compact projection would: the one case the declarations
// cannot produce on their own.
func TestDiffCompactOnly(t *testing.T) {
	old := diffCatalog(t, diffBase)
	new := diffCatalog(t, diffBase)
	for _, s := range new.Sites {
		for i, d := range s.Documents {
			if d.Route.Route == "/tools/get_forecast" && d.View == ViewCompact {
				s.Documents[i].Body = bytes.Replace(d.Body, []byte(`"toolId"`), []byte(`"x":1,"toolId"`), 1)
			}
		}
	}
	c, err := Diff(old, new)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"risk compact-changed tool get_forecast: the compact descriptor changed while the standard one did not",
		"tool ~ get_forecast: compact descriptor changed",
	}
	if diff := cmp.Diff(want, diffLines(c)); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
}

// TestDiffMalformed gives Diff documents that signpost does not write: it
// reports them, naming the side and the route, and never panics.
func TestDiffMalformed(t *testing.T) {
	good := diffCatalog(t, diffBase)
	tests := []struct {
		name        string
		route, view string
		contentType string
		body        string
		want        string
	}{
		{"not JSON", "/tools/get_forecast", ViewStandard, ContentTypeJSON, "{", "diff: new side: tenant acme /tools/get_forecast: not a tool descriptor"},
		{"wrong toolId", "/tools/get_forecast", ViewStandard, ContentTypeJSON, `{"toolId":"other"}`, `the descriptor's toolId is "other"`},
		{"card without name", "/card.json", ViewStandard, ContentTypeServerCardV1, `{"version":"1"}`, "a server card without a name"},
		{"bad remotes", "/card.json", ViewStandard, ContentTypeServerCardV1, `{"name":"a/b","remotes":{}}`, "remotes are not a list"},
		{"bad catalog", RouteAICatalog, ViewStandard, ContentTypeAICatalog, `[]`, "not a discovery catalog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := &Build{Sites: []*Site{{Tenant: "acme", Documents: []Document{{Route: Route{Route: tt.route, View: tt.view, ContentType: tt.contentType}, Body: []byte(tt.body)}}}}}
			_, err := Diff(good, bad)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := Diff(nil, good); err != nil {
		t.Errorf("Diff(nil, build): %v", err)
	}
}

func TestParseRiskKinds(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "tier-raised", want: []string{"tier-raised"}},
		{in: " tier-raised , egress-widened,tier-raised", want: []string{"tier-raised", "egress-widened"}},
		{in: "any", want: []string{"any"}},
		{in: "tier-raised,bogus", wantErr: `unknown risk kind "bogus": use any or tier-raised, egress-widened`},
		{in: ",", wantErr: "no risk kind"},
	}
	for _, tt := range tests {
		got, err := ParseRiskKinds(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRiskKinds(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseRiskKinds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	c := &Change{Risks: []Risk{{Kind: RiskTierRaised}}}
	if c.HasRisk(RiskToolRemoved) || !c.HasRisk(RiskToolRemoved, RiskTierRaised) || !c.HasRisk(RiskAny) {
		t.Error("HasRisk")
	}
	if (&Change{}).HasRisk(RiskAny) {
		t.Error("HasRisk(any) without risks")
	}
}

// TestDiffWrite checks each format of one change byte for byte.
func TestDiffWrite(t *testing.T) {
	old := diffCatalog(t, diffBase)
	new := diffCatalog(t, diffBase,
		[3]string{tools, "safetyTier: read", "safetyTier: write"},
		[3]string{tools, "    tenants: [acme]\n", "    status: planned\n"},
		[3]string{servers, "1.0.0", "1.1.0"},
	)
	c, err := Diff(old, new)
	if err != nil {
		t.Fatal(err)
	}
	c.Old, c.New = "main", "."
	want := map[string]string{
		FormatText: `signpost diff main -> .
2 risks; tools 1 removed, 1 changed; servers 1 changed

RISKS
  tier-raised   tool get_forecast  safetyTier read -> write
  tool-removed  tool delete_thing  no longer published

TOOLS
  - delete_thing (host-extension, write, keyed, egress none; tenants acme)
  ~ get_forecast
      safetyTier read -> write
      compact descriptor changed

SERVERS
  ~ com.example/weather
      version 1.0.0 -> 1.1.0
`,
		FormatMarkdown: "## signpost diff: `main` → `.`\n\n" +
			"2 risks; tools 1 removed, 1 changed; servers 1 changed.\n\n" +
			"### Risks\n\n" +
			"| risk | subject | change |\n|---|---|---|\n" +
			"| tier-raised | tool `get_forecast` | safetyTier read -> write |\n" +
			"| tool-removed | tool `delete_thing` | no longer published |\n\n" +
			"### Tools\n\n" +
			"**Removed (1)**\n\n- `delete_thing`: host-extension, write, keyed, egress none; tenants acme\n\n" +
			"**Changed (1)**\n\n- `get_forecast`: safetyTier read -> write; compact descriptor changed\n\n" +
			"### Servers\n\n" +
			"**Changed (1)**\n\n- `com.example/weather`: version 1.0.0 -> 1.1.0\n\n",
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
	if err := c.Write(&b, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"format", "new", "old", "risks", "servers", "tenants", "tools"}, slices.Sorted(maps.Keys(got))); diff != "" {
		t.Errorf("JSON keys (-want +got):\n%s", diff)
	}
	wantRisk := map[string]any{"kind": "tier-raised", "toolId": "get_forecast", "old": "read", "new": "write", "message": "safetyTier read -> write"}
	if diff := cmp.Diff(wantRisk, got["risks"].([]any)[0]); diff != "" {
		t.Errorf("JSON risk (-want +got):\n%s", diff)
	}
	wantServers := map[string]any{"added": []any{}, "removed": []any{}, "changed": []any{map[string]any{
		"name": "com.example/weather", "fields": []any{map[string]any{"field": "version", "old": "1.0.0", "new": "1.1.0"}},
		"remotesAdded": []any{}, "remotesRemoved": []any{},
	}}}
	if diff := cmp.Diff(wantServers, got["servers"]); diff != "" {
		t.Errorf("JSON servers (-want +got):\n%s", diff)
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
	c, err := Diff(old, new)
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
	new := diffCatalog(t, diffBase, [3]string{tools, "Forecast. For a place.", `"Forecast.\u001b[2J For <b>a</b> place."`})
	c, err := Diff(old, new)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{FormatText, FormatMarkdown} {
		var b strings.Builder
		if err := c.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(b.String(), '\x1b') {
			t.Errorf("%s output holds an escape character:\n%s", format, b.String())
		}
		if format == FormatMarkdown && strings.Contains(strings.ReplaceAll(b.String(), `\<`, ""), "<b>") {
			t.Errorf("markdown output holds raw HTML:\n%s", b.String())
		}
	}
}

// tarOf builds a tar archive of the given headers, each with its body.
func tarOf(t *testing.T, entries ...tar.Header) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, h := range entries {
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg && h.Size > 0 {
			if _, err := tw.Write(make([]byte, h.Size)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return &b
}

func TestExtractTar(t *testing.T) {
	ok := []tar.Header{
		{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": "abc"}},
		{Typeflag: tar.TypeDir, Name: "tools/", Mode: 0o755},
		{Typeflag: tar.TypeReg, Name: "tools/a.yaml", Size: 3, Mode: 0o644},
		{Typeflag: tar.TypeReg, Name: "signpost.yaml", Size: 1, Mode: 0o644},
	}
	dir := t.TempDir()
	if err := extractTar(context.Background(), tarOf(t, ok...), dir); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, dir); len(got) != 2 || len(got["tools/a.yaml"]) != 3 {
		t.Errorf("extracted %v", slices.Sorted(maps.Keys(got)))
	}

	tests := []struct {
		name string
		h    tar.Header
		want string
	}{
		{"parent", tar.Header{Typeflag: tar.TypeReg, Name: "../evil.yaml"}, "not a path inside the catalog folder"},
		{"absolute", tar.Header{Typeflag: tar.TypeReg, Name: "/etc/evil.yaml"}, "not a path inside the catalog folder"},
		{"unclean", tar.Header{Typeflag: tar.TypeReg, Name: "tools/../../evil.yaml"}, "not a path inside the catalog folder"},
		{"symlink", tar.Header{Typeflag: tar.TypeSymlink, Name: "link.yaml", Linkname: "/etc/passwd"}, "a link"},
		{"hard link", tar.Header{Typeflag: tar.TypeLink, Name: "link.yaml", Linkname: "signpost.yaml"}, "a link"},
		{"device", tar.Header{Typeflag: tar.TypeChar, Name: "dev"}, "not a regular file or folder"},
		{"oversize", tar.Header{Typeflag: tar.TypeReg, Name: "big.json", Size: revisionMaxEntry + 1}, "more than the 16777216 a declaration may have"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			err := extractTar(context.Background(), tarOf(t, tt.h), dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), "evil.yaml")); err == nil {
				t.Error("an entry landed outside the folder")
			}
		})
	}
}

// TestExtractRevision extracts a catalog from a commit of a real
// repository and compares it with the working copy.
func TestExtractRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=signpost", "-c", "user.email=signpost@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	for name, body := range diffBase {
		p := filepath.Join(repo, "catalogs", "demo", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", ".")
	run("commit", "-q", "-m", "demo")

	ctx := context.Background()
	sub := filepath.Join(repo, "catalogs", "demo")
	prefix, err := GitPrefix(ctx, sub)
	if err != nil || prefix != "catalogs/demo" {
		t.Fatalf("GitPrefix = %q, %v", prefix, err)
	}
	rc, err := ExtractRevision(ctx, sub, "HEAD", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readTree(t, sub), readTree(t, rc.Dir)); diff != "" {
		t.Errorf("extracted catalog differs (-want +got):\n%s", diff)
	}
	if len(rc.Commit) < 40 || rc.Path != "catalogs/demo" {
		t.Errorf("commit %q, path %q", rc.Commit, rc.Path)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rc.Dir); err == nil {
		t.Error("Close left the folder")
	}

	for _, tt := range []struct{ rev, path, want string }{
		{"nope", prefix, `"nope" is neither a path nor a revision`},
		{"HEAD", "catalogs/other", `revision HEAD has no folder "catalogs/other"`},
		{"HEAD", "catalogs/demo/signpost.yaml", `has no folder`},
		{"HEAD", "../outside", "must be a folder inside the repository"},
		{"--output=/tmp/x", prefix, "is neither a path nor a revision"},
	} {
		if _, err := ExtractRevision(ctx, repo, tt.rev, tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ExtractRevision(%q, %q) = %v, want %q", tt.rev, tt.path, err, tt.want)
		}
	}
	if _, err := GitPrefix(ctx, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not inside a Git repository") {
		t.Errorf("GitPrefix outside a repository: %v", err)
	}
}
