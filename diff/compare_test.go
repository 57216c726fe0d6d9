package diff

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// withFile returns files with name set to body.
func withFile(files map[string]string, name, body string) map[string]string {
	out := maps.Clone(files)
	out[name] = body
	return out
}

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
func diffCatalog(t *testing.T, files map[string]string, edits ...[3]string) *output.Build {
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
	return buildtest.Compile(t, catalogtest.Write(t, files))
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
		// The digests, hashes of the definitions, are said by their shape.
		d := t
		d.Digest = nil
		line := "tool ~ " + t.ToolID + ": " + strings.Join(d.details(), "; ")
		if t.Digest != nil {
			line += " [digest " + digestShape(*t.Digest) + "]"
		}
		out = append(out, line)
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
	for _, d := range c.Documents.Added {
		out = append(out, "doc + "+d.describe())
	}
	for _, d := range c.Documents.Removed {
		out = append(out, "doc - "+d.describe())
	}
	for _, d := range c.Documents.Changed {
		out = append(out, "doc ~ "+d.describe())
	}
	return out
}

// diffRemoteServers replaces the servers of diffBase: the weather server,
// and one whose remote has a URL variable and a header.
const diffRemoteServers = `servers:
  - name: com.example/weather
    version: 1.0.0
    description: Weather.
    remotes:
      - {type: streamable-http, url: https://mcp.example.com/weather}
  - name: com.example/billing
    version: 1.0.0
    description: Billing.
    remotes:
      - type: streamable-http
        url: https://{region}.mcp.example.com/billing
        variables:
          region: {description: Data region, default: eu, choices: [eu, us]}
        headers:
          - {name: Authorization, description: Bearer token, isRequired: true, isSecret: true}
`

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
			want: []string{
				"risk tool-added tool run_code: new exec tool for tenant globex",
				"tool + run_code (host-extension, exec, unsafe, egress internet; tenants globex)",
			},
		},
		{
			name: "write tool added",
			edits: [][3]string{{tools, "", `  - toolId: update_thing
    description: Updates a thing.
    source: host-extension
    safetyTier: write
    replayPolicy: idempotent
    egress: none
`}},
			want: []string{
				"risk tool-added tool update_thing: new write tool for tenants acme, globex",
				"tool + update_thing (host-extension, write, idempotent, egress none; tenants acme, globex)",
			},
		},
		{
			name: "read tool added",
			edits: [][3]string{{tools, "", `  - toolId: list_things
    description: Lists things.
    source: openapi
    safetyTier: read
    replayPolicy: deterministic
    egress: none
`}},
			want: []string{
				"tool + list_things (openapi, read, deterministic, egress none; tenants acme, globex)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
			},
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
			want:  []string{`tool ~ get_forecast: description "Forecast. For a place." -> "Forecast. For any place."; inputSchema changed; compact descriptor changed: inputSchema (properties added: days) [digest changed]`},
		},
		{
			name:  "breaking schema change",
			edits: [][3]string{{tools, "egress: internal", "egress: internal\n    inputSchema: {type: object, properties: {days: {type: integer}}, required: [days]}"}},
			want:  []string{`tool ~ get_forecast: inputSchema changed, breaking (refuses inputs it accepted: property days now required); compact descriptor changed: inputSchema (properties added: days) [digest changed]`},
		},
		{
			name:  "tier raised",
			edits: [][3]string{{tools, "safetyTier: read", "safetyTier: write"}},
			want: []string{
				"risk tier-raised tool get_forecast: safetyTier read -> write",
				"tool ~ get_forecast: safetyTier read -> write; compact descriptor changed [digest changed]",
			},
		},
		{
			name:  "tier lowered",
			edits: [][3]string{{tools, "safetyTier: write", "safetyTier: pure"}},
			want:  []string{"tool ~ delete_thing: safetyTier write -> pure; compact descriptor changed [digest changed]"},
		},
		{
			name:  "egress widened",
			edits: [][3]string{{tools, "egress: internal", "egress: internet"}, {tools, "egress: none", "egress: internal"}},
			want: []string{
				"risk egress-widened tool delete_thing: egress none -> internal",
				"risk egress-widened tool get_forecast: egress internal -> internet",
				"tool ~ delete_thing: egress none -> internal; compact descriptor changed [digest changed]",
				"tool ~ get_forecast: egress internal -> internet; compact descriptor changed [digest changed]",
			},
		},
		{
			name:  "egress narrowed",
			edits: [][3]string{{tools, "egress: internal", "egress: none"}},
			want:  []string{"tool ~ get_forecast: egress internal -> none; compact descriptor changed [digest changed]"},
		},
		{
			name:  "replay loosened and tightened",
			edits: [][3]string{{tools, "replayPolicy: deterministic", "replayPolicy: idempotent"}, {tools, "replayPolicy: keyed", "replayPolicy: idempotent"}},
			want: []string{
				"risk replay-loosened tool get_forecast: replayPolicy deterministic -> idempotent",
				"risk reserved-changed tool delete_thing: reserved idempotency key idempotencyKey removed",
				"tool ~ delete_thing: replayPolicy keyed -> idempotent; inputSchema changed; compact descriptor changed: inputSchema (properties removed: idempotencyKey) [digest changed]",
				"tool ~ get_forecast: replayPolicy deterministic -> idempotent; compact descriptor changed [digest changed]",
			},
		},
		{
			name:  "replay loosened to unsafe",
			edits: [][3]string{{tools, "replayPolicy: keyed", "replayPolicy: unsafe"}},
			want: []string{
				"risk replay-loosened tool delete_thing: replayPolicy keyed -> unsafe",
				"risk reserved-changed tool delete_thing: reserved idempotency key idempotencyKey removed",
				"tool ~ delete_thing: replayPolicy keyed -> unsafe; inputSchema changed; compact descriptor changed: inputSchema (properties removed: idempotencyKey) [digest changed]",
			},
		},
		{
			name:  "reassigned to another server",
			edits: [][3]string{{tools, "server: com.example/weather", "server: com.example/helpdesk"}},
			want: []string{
				"risk tool-reassigned tool get_forecast: now names host-extension com.example/helpdesk (was host-extension com.example/weather)",
				"risk group-moved tool get_forecast: group weather -> helpdesk",
				`tool ~ get_forecast: server "com.example/weather" -> "com.example/helpdesk" [digest changed]`,
			},
		},
		{
			name:  "reassigned to another source",
			edits: [][3]string{{tools, "source: host-extension\n    safetyTier: write", "source: openapi\n    safetyTier: write"}},
			want: []string{
				"risk tool-reassigned tool delete_thing: now names openapi (was host-extension)",
				"risk group-moved tool delete_thing: group host_extension -> openapi",
				"tool ~ delete_thing: source host-extension -> openapi; compact descriptor changed [digest changed]",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme)",
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
				"risk registry-removed server com.example/weather: no longer in the registry of tenant acme: Copilot CLI refuses it, and clients that installed it lose it",
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
			name:  "gate removed",
			base:  withFile(diffBase, config, "site: {origin: https://example.com, publisher: example.com}\ntenants: [acme, {id: globex, gate: token}]\n"),
			edits: [][3]string{{config, "{id: globex, gate: token}", "globex"}},
			want: []string{
				"risk access-opened tenant globex: tenant globex is gated no more: anyone can read its tools",
			},
		},
		{
			name:  "discovery made public",
			base:  withFile(diffBase, config, "site: {origin: https://example.com, publisher: example.com}\ntenants: [acme, {id: globex, gate: token}]\n"),
			edits: [][3]string{{config, "gate: token}", "gate: token, publicDiscovery: true}"}},
			want: []string{
				"risk access-opened tenant globex: the discovery catalogs and server cards of tenant globex are now public",
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
				"tool ~ get_forecast: safetyTier read -> exec; compact descriptor changed [digest changed]",
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
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
			},
		},
		{
			name:  "server added",
			edits: [][3]string{{servers, "", "  - name: com.example/docs\n    version: 2.0.0\n    description: Docs.\n    remotes: [{type: sse, url: https://mcp.example.com/docs}]\n"}},
			want: []string{
				"risk server-added server com.example/docs: new server: clients connect to sse https://mcp.example.com/docs",
				"risk registry-added server com.example/docs: now in the registry: VS Code and Copilot offer it, Copilot CLI allows it",
				"server + com.example/docs (version 2.0.0; remotes sse https://mcp.example.com/docs)",
				"doc + /.well-known/mcp/server-cards/com.example/docs.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc + /.well-known/mcp/servers/com.example/docs.json (application/mcp-server+json; tenants acme, globex)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			name:  "cross-host server added",
			edits: [][3]string{{servers, "", "  - name: com.example/crm\n    cardUrl: https://crm.example.org/card.json\n"}},
			want: []string{
				"risk server-added server com.example/crm: new server, its card at https://crm.example.org/card.json",
				"server + com.example/crm (card https://crm.example.org/card.json)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			name:  "server removed",
			edits: [][3]string{{servers, "  - name: com.example/helpdesk\n    cardUrl: https://vendor.example.net/card.json\n", ""}},
			want: []string{
				"risk server-removed server com.example/helpdesk: no longer published",
				"server - com.example/helpdesk (card https://vendor.example.net/card.json)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			name:  "local server removed",
			edits: [][3]string{{servers, "  - name: com.example/weather\n    version: 1.0.0\n    description: Weather.\n    remotes:\n      - {type: streamable-http, url: https://mcp.example.com/weather}\n", ""}, {tools, "    server: com.example/weather\n", ""}},
			want: []string{
				"risk tool-reassigned tool get_forecast: now names host-extension (was host-extension com.example/weather)",
				"risk server-removed server com.example/weather: no longer published",
				"risk registry-removed server com.example/weather: no longer in the registry: Copilot CLI refuses it, and clients that installed it lose it",
				"risk route-removed route /.well-known/mcp/server-cards/com.example/weather.json: the v1 card of server com.example/weather is no longer published",
				"risk route-removed route /.well-known/mcp/servers/com.example/weather.json: the draft card of server com.example/weather is no longer published",
				"risk group-moved tool get_forecast: group weather -> host_extension",
				`tool ~ get_forecast: server "com.example/weather" -> (none) [digest changed]`,
				"server - com.example/weather (version 1.0.0; remotes streamable-http https://mcp.example.com/weather)",
				"doc - /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc - /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			name:  "server version changed",
			edits: [][3]string{{servers, "1.0.0", "1.1.0"}, {servers, "description: Weather.", "description: Weather.\n    title: Weather"}},
			want: []string{
				`server ~ com.example/weather: title (none) -> "Weather"; version 1.0.0 -> 1.1.0`,
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "server version backwards",
			edits: [][3]string{{servers, "1.0.0", "0.9.9-rc.1"}},
			want: []string{
				"risk version-backwards server com.example/weather: latest version 1.0.0 -> 0.9.9-rc.1 in the registry: an older version than before",
				"server ~ com.example/weather: version 1.0.0 -> 0.9.9-rc.1",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "server version forwards, build metadata aside",
			edits: [][3]string{{servers, "1.0.0", "1.0.0+build.2"}},
			want: []string{
				"server ~ com.example/weather: version 1.0.0 -> 1.0.0+build.2",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "server renamed",
			edits: [][3]string{{servers, "com.example/weather\n", "com.example/forecasts\n"}, {tools, "com.example/weather", "com.example/forecasts"}},
			want: []string{
				"risk tool-reassigned tool get_forecast: now names host-extension com.example/forecasts (was host-extension com.example/weather)",
				"risk server-added server com.example/forecasts: new server: clients connect to streamable-http https://mcp.example.com/weather",
				"risk server-removed server com.example/weather: no longer published",
				"risk registry-renamed server com.example/forecasts: renamed com.example/weather -> com.example/forecasts in the registry: Copilot CLI refuses the old name, and clients that installed it lose it",
				"risk route-removed route /.well-known/mcp/server-cards/com.example/weather.json: the v1 card of server com.example/weather is no longer published",
				"risk route-removed route /.well-known/mcp/servers/com.example/weather.json: the draft card of server com.example/weather is no longer published",
				"risk group-moved tool get_forecast: group weather -> forecasts",
				`tool ~ get_forecast: server "com.example/weather" -> "com.example/forecasts" [digest changed]`,
				"server + com.example/forecasts (version 1.0.0; remotes streamable-http https://mcp.example.com/weather)",
				"server - com.example/weather (version 1.0.0; remotes streamable-http https://mcp.example.com/weather)",
				"doc + /.well-known/mcp/server-cards/com.example/forecasts.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc + /.well-known/mcp/servers/com.example/forecasts.json (application/mcp-server+json; tenants acme, globex)",
				"doc - /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc - /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			name:  "registry switched off",
			edits: [][3]string{{config, "", "discovery: {registry: false}\n"}},
			want: []string{
				"risk registry-removed server com.example/weather: no longer in the registry: Copilot CLI refuses it, and clients that installed it lose it",
			},
		},
		{
			name:  "server remote changed",
			edits: [][3]string{{servers, "https://mcp.example.com/weather", "https://weather.example.net/mcp"}},
			want: []string{
				"risk server-remote-changed server com.example/weather: endpoint streamable-http https://mcp.example.com/weather -> https://weather.example.net/mcp",
				"server ~ com.example/weather: remote streamable-http https://mcp.example.com/weather -> https://weather.example.net/mcp",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "server remote added beside one of its type",
			edits: [][3]string{{servers, "      - {type: streamable-http, url: https://mcp.example.com/weather}\n", "      - {type: streamable-http, url: https://mcp.example.com/weather}\n      - {type: streamable-http, url: https://eu.example.com/weather}\n"}},
			want: []string{
				"risk server-remote-changed server com.example/weather: new endpoint streamable-http https://eu.example.com/weather",
				"server ~ com.example/weather: new remote streamable-http https://eu.example.com/weather",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "remote variable default changed",
			base:  map[string]string{servers: diffRemoteServers},
			edits: [][3]string{{servers, "default: eu", "default: us"}},
			want: []string{
				"risk server-remote-changed server com.example/billing: remote streamable-http https://{region}.mcp.example.com/billing: variables changed",
				"server ~ com.example/billing: remote streamable-http https://{region}.mcp.example.com/billing: variables changed",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/billing.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/billing.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "remote variable choices changed",
			base:  map[string]string{servers: diffRemoteServers},
			edits: [][3]string{{servers, "choices: [eu, us]", "choices: [eu, us, evil]"}},
			want: []string{
				"risk server-remote-changed server com.example/billing: remote streamable-http https://{region}.mcp.example.com/billing: variables changed",
				"server ~ com.example/billing: remote streamable-http https://{region}.mcp.example.com/billing: variables changed",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/billing.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/billing.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name: "remote header added and secret flipped",
			base: map[string]string{servers: diffRemoteServers},
			edits: [][3]string{
				{servers, "isSecret: true}", "isSecret: false}\n          - {name: X-Tenant, description: Tenant, isRequired: false}"},
				{servers, "https://mcp.example.com/weather}", "https://mcp.example.com/weather, headers: [{name: X-Region, value: eu}]}"},
			},
			want: []string{
				"risk server-remote-changed server com.example/billing: remote streamable-http https://{region}.mcp.example.com/billing: headers changed",
				"risk server-remote-changed server com.example/weather: remote streamable-http https://mcp.example.com/weather: headers changed",
				"server ~ com.example/billing: remote streamable-http https://{region}.mcp.example.com/billing: headers changed",
				"server ~ com.example/weather: remote streamable-http https://mcp.example.com/weather: headers changed",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/billing.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/billing.json (application/mcp-server+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "AI catalog switched off",
			edits: [][3]string{{config, "", "discovery: {aiCatalog: false}\n"}},
			want: []string{
				"risk route-removed route /.well-known/ai-catalog.json: the AI catalog is no longer published",
				"risk route-removed route /.well-known/mcp/server-cards/com.example/weather.json: the v1 card of server com.example/weather is no longer published",
				"doc - /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc - /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
			},
		},
		{
			name:  "MCP catalog switched off",
			edits: [][3]string{{config, "", "discovery: {mcpCatalog: false}\n"}},
			want: []string{
				"risk route-removed route /.well-known/mcp/catalog.json: the MCP catalog is no longer published",
				"risk route-removed route /.well-known/mcp/servers/com.example/weather.json: the draft card of server com.example/weather is no longer published",
				"doc - /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
				"doc - /.well-known/mcp/servers/com.example/weather.json (application/mcp-server+json; tenants acme, globex)",
			},
		},
		{
			name:  "card moved",
			edits: [][3]string{{servers, "description: Weather.", "description: Weather.\n    card: {v1Path: /cards/weather.json}"}},
			want: []string{
				"risk route-removed route /.well-known/mcp/server-cards/com.example/weather.json: the v1 card of server com.example/weather moved to /cards/weather.json",
				"doc + /cards/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc - /.well-known/mcp/server-cards/com.example/weather.json (application/mcp-server-card+json; tenants acme, globex)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
			},
		},
		{
			name:  "origin changed",
			edits: [][3]string{{config, "origin: https://example.com", "origin: https://tools.example.com"}},
			want: []string{
				"risk origin-changed site: origin https://example.com -> https://tools.example.com",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			name:  "publisher changed",
			edits: [][3]string{{config, "publisher: example.com", "publisher: example.org"}},
			want: []string{
				"risk origin-changed site: publisher example.com -> example.org",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
			},
		},
		{
			name:  "origin changed, MCP catalog only",
			base:  map[string]string{config: diffBase[config] + "discovery: {aiCatalog: false}\n"},
			edits: [][3]string{{config, "origin: https://example.com", "origin: https://tools.example.com"}, {config, "publisher: example.com", "publisher: example.org"}},
			want: []string{
				"risk origin-changed site: origin https://example.com -> https://tools.example.com",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			// Nothing published carries the origin: nothing a client sees
			// changed with it.
			name:  "origin changed, no discovery",
			base:  map[string]string{config: diffBase[config] + "discovery: {aiCatalog: false, mcpCatalog: false}\n"},
			edits: [][3]string{{config, "origin: https://example.com", "origin: https://tools.example.com"}},
			want:  []string{},
		},
		{
			name:  "AI catalog identifier declared",
			edits: [][3]string{{servers, "cardUrl: https://vendor.example.net/card.json\n", "cardUrl: https://vendor.example.net/card.json\n    aiCatalogIdentifier: urn:air:example.com:mcp:vendor-helpdesk\n"}},
			want: []string{
				"risk identifier-changed server com.example/helpdesk: AI catalog identifier urn:air:example.com:mcp:helpdesk -> urn:air:example.com:mcp:vendor-helpdesk",
				`server ~ com.example/helpdesk: aiCatalogIdentifier "urn:air:example.com:mcp:helpdesk" -> "urn:air:example.com:mcp:vendor-helpdesk"`,
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
			},
		},
		{
			// A generic name is qualified by its namespace whatever other
			// servers there are: a second one renames nobody.
			name:  "a second generic server name renames nobody",
			base:  map[string]string{servers: diffBase[servers] + "  - name: com.gitlab/mcp\n    cardUrl: https://gitlab.example.org/card.json\n"},
			edits: [][3]string{{servers, "", "  - name: com.webflow/mcp\n    cardUrl: https://webflow.example.org/card.json\n"}},
			want: []string{
				"risk server-added server com.webflow/mcp: new server, its card at https://webflow.example.org/card.json",
				"server + com.webflow/mcp (card https://webflow.example.org/card.json)",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
		{
			// A site built before generic names were qualified: the old
			// side's identifier stands in for the old derivation.
			name:  "generic server name qualified by a newer signpost",
			base:  map[string]string{servers: diffBase[servers] + "  - name: com.gitlab/mcp\n    cardUrl: https://gitlab.example.org/card.json\n    aiCatalogIdentifier: urn:air:example.com:mcp:mcp\n"},
			edits: [][3]string{{servers, "    aiCatalogIdentifier: urn:air:example.com:mcp:mcp\n", ""}},
			want: []string{
				"risk identifier-changed server com.gitlab/mcp: AI catalog identifier urn:air:example.com:mcp:mcp -> urn:air:example.com:mcp:com.gitlab.mcp: signpost now qualifies a generic server name by its namespace; to keep the identifier clients know, declare aiCatalogIdentifier: urn:air:example.com:mcp:mcp",
				`server ~ com.gitlab/mcp: aiCatalogIdentifier "urn:air:example.com:mcp:mcp" -> "urn:air:example.com:mcp:com.gitlab.mcp"`,
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
			},
		},
		{
			// A new publisher is one risk, not one per identifier.
			name:  "publisher changed",
			edits: [][3]string{{config, "publisher: example.com", "publisher: example.org"}},
			want: []string{
				"risk origin-changed site: publisher example.com -> example.org",
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
			},
		},
		{
			name:  "cross-host card moved",
			edits: [][3]string{{servers, "https://vendor.example.net/card.json", "https://other.example.org/card.json"}},
			want: []string{
				"risk server-remote-changed server com.example/helpdesk: card URL https://vendor.example.net/card.json -> https://other.example.org/card.json",
				`server ~ com.example/helpdesk: cardUrl "https://vendor.example.net/card.json" -> "https://other.example.org/card.json"`,
				"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
				"doc ~ /.well-known/mcp/catalog.json (application/json; tenants acme, globex)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := cmpOrMap(tt.base, diffBase)
			old := diffCatalog(t, base)
			new := diffCatalog(t, base, tt.edits...)
			c, err := Compare(old, new)
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
			if d.Route.Route == "/tools/get_forecast" && d.View == spec.ViewCompact {
				body := bytes.Replace(buildtest.Body(t, d), []byte(`"toolId"`), []byte(`"x":1,"toolId"`), 1)
				s.Documents[i] = buildtest.Document(t, d.Route.Route, d.View, d.ContentType, body)
			}
		}
	}
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"risk compact-changed tool get_forecast: the compact descriptor changed while the standard one did not: x",
		"tool ~ get_forecast: compact descriptor changed: x",
	}
	if diff := cmp.Diff(want, diffLines(c)); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
}

// TestCompactFields names the fields of a compact descriptor that changed,
// and the properties of its inputSchema added, removed and changed.
func TestCompactFields(t *testing.T) {
	old := `{"description":"A.","inputSchema":{"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"type":"object"},"toolId":"t"}`
	new := `{"description":"B.","inputSchema":{"properties":{"a":{"type":"integer"},"c":{"type":"string"},"d":{"type":"string"}},"type":"object"},"toolId":"t"}`
	got := compactFields([]byte(old), []byte(new))
	if want := "description, inputSchema (properties added: d; removed: b; changed: a)"; describeCompact(got) != want {
		t.Errorf("describeCompact = %q, want %q", describeCompact(got), want)
	}
	got = compactFields([]byte(`{"inputSchema":{"properties":{"a":{}}}}`), []byte(`{"inputSchema":{"properties":{}}}`))
	if want := "inputSchema (properties removed: a)"; describeCompact(got) != want {
		t.Errorf("describeCompact = %q, want %q", describeCompact(got), want)
	}
	if got := compactFields([]byte(`[`), []byte(`{}`)); len(got) != 0 {
		t.Errorf("compactFields of malformed JSON = %v", got)
	}
}

// TestDiffMalformed gives Compare documents that signpost does not write: it
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
		{"not JSON", "/tools/get_forecast", spec.ViewStandard, spec.ContentTypeJSON, "{", "diff: new side: tenant acme /tools/get_forecast: not a tool descriptor"},
		{"wrong toolId", "/tools/get_forecast", spec.ViewStandard, spec.ContentTypeJSON, `{"toolId":"other"}`, `the descriptor's toolId is "other"`},
		{"card without name", "/card.json", spec.ViewStandard, spec.ContentTypeServerCardV1, `{"version":"1"}`, "a server card without a name"},
		{"bad remotes", "/card.json", spec.ViewStandard, spec.ContentTypeServerCardV1, `{"name":"a/b","remotes":{}}`, "remotes are not a list"},
		{"bad catalog", spec.RouteAICatalog, spec.ViewStandard, spec.ContentTypeAICatalog, `[]`, "not a discovery catalog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := &output.Build{Sites: []*output.Site{{Tenant: "acme", Documents: []output.Document{{Route: output.Route{Route: tt.route, View: tt.view, ContentType: tt.contentType}, Body: content.New([]byte(tt.body))}}}}}
			_, err := Compare(good, bad)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
			var malformed *MalformedError
			if !errors.As(err, &malformed) || malformed.Side != "new" {
				t.Errorf("err = %#v, want a *MalformedError of the new side", err)
			}
		})
	}
	if _, err := Compare(nil, good); err != nil {
		t.Errorf("Compare(nil, build): %v", err)
	}
}

// TestDiffFromEmpty compares a catalog with nothing, as for the change that
// adds a catalog: everything is new, and the risks say what a reviewer
// should look at.
func TestDiffFromEmpty(t *testing.T) {
	c, err := Compare(&output.Build{}, diffCatalog(t, diffBase))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"risk tool-added tool delete_thing: new write tool for tenant acme",
		"risk tenant-widened tenant acme: new site, publishing 2 tools",
		"risk tenant-widened tenant globex: new site, publishing 1 tool",
		"risk server-added server com.example/helpdesk: new server, its card at https://vendor.example.net/card.json",
		"risk server-added server com.example/weather: new server: clients connect to streamable-http https://mcp.example.com/weather",
		"tenant + acme",
		"tenant + globex",
		"tool + delete_thing (host-extension, write, keyed, egress none; tenants acme)",
		"tool + get_forecast (host-extension, read, deterministic, egress internal; server com.example/weather; tenants acme, globex)",
		"server + com.example/helpdesk (card https://vendor.example.net/card.json)",
		"server + com.example/weather (version 1.0.0; remotes streamable-http https://mcp.example.com/weather)",
	}
	if diff := cmp.Diff(want, diffLines(c)); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
}

// TestDiffDocumentsOneTenant removes a route from one tenant's site only, as
// a built site could: the risk names the tenant.
func TestDiffDocumentsOneTenant(t *testing.T) {
	old := diffCatalog(t, diffBase)
	new := diffCatalog(t, diffBase)
	for _, s := range new.Sites {
		if s.Tenant == "acme" {
			s.Documents = slices.DeleteFunc(s.Documents, func(d output.Document) bool { return d.Route.Route == spec.RouteAICatalog })
		}
	}
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"risk route-removed route /.well-known/ai-catalog.json: the AI catalog is no longer published for tenant acme",
		"doc - /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme)",
	}
	if diff := cmp.Diff(want, diffLines(c)); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
	// The publisher is still read from globex's catalog: no origin risk.
	if c.HasRisk(RiskOriginChanged) {
		t.Error("origin-changed without a change of origin")
	}
}

// TestDiffPublisherCase: a site published with its publisher in capitals
// (urn:air:Example.com:...), as AI Catalog identifiers kept it before they
// were held to lower case, shows the one-time change of each identifier as
// a risk with its reason, and no change of origin.
func TestDiffPublisherCase(t *testing.T) {
	new := diffCatalog(t, diffBase)
	old := diffCatalog(t, diffBase)
	for i, site := range old.Sites {
		for j, d := range site.Documents {
			if d.Route.Route != spec.RouteAICatalog {
				continue
			}
			body := bytes.ReplaceAll(buildtest.Body(t, d), []byte("urn:air:example.com:"), []byte("urn:air:Example.com:"))
			body = bytes.ReplaceAll(body, []byte(`"domain":"example.com"`), []byte(`"domain":"Example.com"`))
			old.Sites[i].Documents[j] = buildtest.Document(t, d.Route.Route, d.View, d.ContentType, body)
		}
	}
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	if c.HasRisk(RiskOriginChanged) {
		t.Error("origin-changed for a publisher whose case alone changed")
	}
	reason := ": its publisher segment is now in lower case, as AI Catalog 1.0 requires of an identifier its publisher signs (did:web domain rules); a one-time change, clients that key on the old identifier see a new entry"
	want := []string{
		"risk identifier-changed tenant acme: the AI catalog identifier of the tool catalog of tenant acme urn:air:Example.com:tool-catalog:acme -> urn:air:example.com:tool-catalog:acme" + reason,
		"risk identifier-changed tenant globex: the AI catalog identifier of the tool catalog of tenant globex urn:air:Example.com:tool-catalog:globex -> urn:air:example.com:tool-catalog:globex" + reason,
		"risk identifier-changed server com.example/helpdesk: AI catalog identifier urn:air:Example.com:mcp:helpdesk -> urn:air:example.com:mcp:helpdesk" + reason,
		"risk identifier-changed server com.example/weather: AI catalog identifier urn:air:Example.com:mcp:weather -> urn:air:example.com:mcp:weather" + reason,
		`server ~ com.example/helpdesk: aiCatalogIdentifier "urn:air:Example.com:mcp:helpdesk" -> "urn:air:example.com:mcp:helpdesk"`,
		`server ~ com.example/weather: aiCatalogIdentifier "urn:air:Example.com:mcp:weather" -> "urn:air:example.com:mcp:weather"`,
		"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
	}
	if diff := cmp.Diff(want, diffLines(c)); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
}

// TestDiffIdentifierForms: a site built in the older form of the AI
// catalog's identifiers (urn:air:PUBLISHER:mcp:NAMESPACE/NAME, and a tool
// catalog entry without a name) is compared server by server, and every
// changed identifier is a risk.
func TestDiffIdentifierForms(t *testing.T) {
	new := diffCatalog(t, diffBase)
	old := diffCatalog(t, diffBase)
	for i, site := range old.Sites {
		for j, d := range site.Documents {
			if d.Route.Route != spec.RouteAICatalog {
				continue
			}
			body := bytes.ReplaceAll(buildtest.Body(t, d), []byte(":tool-catalog:"+site.Tenant+`"`), []byte(`:tool-catalog"`))
			body = bytes.ReplaceAll(body, []byte(":mcp:"), []byte(":mcp:com.example/"))
			old.Sites[i].Documents[j] = buildtest.Document(t, d.Route.Route, d.View, d.ContentType, body)
		}
	}
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"risk identifier-changed tenant acme: the AI catalog identifier of the tool catalog of tenant acme urn:air:example.com:tool-catalog -> urn:air:example.com:tool-catalog:acme",
		"risk identifier-changed tenant globex: the AI catalog identifier of the tool catalog of tenant globex urn:air:example.com:tool-catalog -> urn:air:example.com:tool-catalog:globex",
		"risk identifier-changed server com.example/helpdesk: AI catalog identifier urn:air:example.com:mcp:com.example/helpdesk -> urn:air:example.com:mcp:helpdesk",
		"risk identifier-changed server com.example/weather: AI catalog identifier urn:air:example.com:mcp:com.example/weather -> urn:air:example.com:mcp:weather",
		`server ~ com.example/helpdesk: aiCatalogIdentifier "urn:air:example.com:mcp:com.example/helpdesk" -> "urn:air:example.com:mcp:helpdesk"`,
		`server ~ com.example/weather: aiCatalogIdentifier "urn:air:example.com:mcp:com.example/weather" -> "urn:air:example.com:mcp:weather"`,
		"doc ~ /.well-known/ai-catalog.json (application/ai-catalog+json; tenants acme, globex)",
	}
	if diff := cmp.Diff(want, diffLines(c)); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
	if !c.HasRisk(RiskIdentifierChanged) {
		t.Error("no identifier-changed risk")
	}
}

// digestShape says how a digest changed: "changed" from one well-formed
// digest to another, "added" or "removed", else what is wrong.
func digestShape(d DigestChange) string {
	wellFormed := func(s string) bool {
		hex, ok := strings.CutPrefix(s, "sha256:")
		return ok && len(hex) == 64 && strings.Trim(hex, "0123456789abcdef") == ""
	}
	switch {
	case d.Old == "" && wellFormed(d.New):
		return "added"
	case d.New == "" && wellFormed(d.Old):
		return "removed"
	case wellFormed(d.Old) && wellFormed(d.New) && d.Old != d.New:
		return "changed"
	}
	return fmt.Sprintf("malformed: %q -> %q", d.Old, d.New)
}
