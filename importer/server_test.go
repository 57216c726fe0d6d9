package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// importCardSchemaURL is the $schema a server card must name.
const importCardSchemaURL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// asSchemaValue turns a decoded value into what the validator expects, by
// way of its JSON encoding (which the published card will be).
func asSchemaValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withCardSchema is a copy of a declaration item with the $schema a
// published card carries: the only field the declaration leaves out.
func withCardSchema(item map[string]any) map[string]any {
	card := map[string]any{"$schema": importCardSchemaURL}
	for k, v := range item {
		if k != "packages" { // the registry's server.json carries them, a card does not
			card[k] = v
		}
	}
	return card
}

// plainJSON normalizes a decoded value (from JSON or YAML) for comparison:
// through JSON, numbers as float64.
func plainJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeJSON decodes as the importer does (numbers as json.Number).
func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("test JSON %s: %v", s, err)
	}
	return v
}

// yamlServers parses a declaration file back and returns its server items.
func yamlServers(t *testing.T, data []byte) []any {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the YAML does not parse: %v\n%s", err, data)
	}
	if len(doc) != 1 {
		t.Fatalf("top-level keys = %v, want servers only", slices.Sorted(maps.Keys(doc)))
	}
	list, ok := doc["servers"].([]any)
	if !ok {
		t.Fatalf("servers = %#v, want a list", doc["servers"])
	}
	return list
}

// Fragments of the documents of the table tests.
const (
	idFields    = `"name": "com.example/weather", "version": "1.4.0", "description": "Forecasts and alerts."`
	remoteField = `"remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/weather"}]`
	wantID      = `"name": "com.example/weather", "version": "1.4.0", "description": "Forecasts and alerts."`
	wantRemote  = `"remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/weather"}]`
)

// obj joins JSON members into an object.
func obj(members ...string) string { return "{" + strings.Join(members, ", ") + "}" }

// manyHeaders is n headers X0, X1, ... as JSON array elements.
func manyHeaders(n int) string {
	var l []string
	for i := range n {
		l = append(l, fmt.Sprintf(`{"name": "X%d"}`, i))
	}
	return strings.Join(l, ", ")
}

// remoteWith is a remotes member whose one remote has more members.
func remoteWith(members ...string) string {
	return `"remotes": [` + obj(append([]string{`"type": "streamable-http"`, `"url": "https://mcp.example.com/weather"`}, members...)...) + `]`
}

// TestDocument imports each document of the table as it says (the corpus
// suite holds the cards to the official schema too, TestCorpusDocumentCards).
func TestDocument(t *testing.T) { testDocument(t, nil) }

// testDocument runs the table of TestDocument; each server card imported is
// held to card too, when not nil.
func testDocument(t *testing.T, card *jsonschema.Schema) {
	t.Helper()
	tests := []struct {
		name       string
		doc        string // one document
		wantStatus string
		wantReason string
		wantServer string // JSON of the item, "" for none
	}{{
		name:       "minimal",
		doc:        obj(idFields, remoteField),
		wantStatus: Imported,
		wantServer: obj(wantID, wantRemote),
	}, {
		name: "every card field kept",
		doc: obj(`"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"`, idFields,
			`"title": "Weather"`, `"websiteUrl": "https://example.com/weather"`,
			`"repository": {"url": "https://github.com/example/weather", "source": "github", "subfolder": "servers/weather", "id": "b94b5f7e"}`,
			`"icons": [{"src": "https://example.com/w.png", "mimeType": "image/png", "sizes": ["48x48", "any"], "theme": "dark"}]`,
			`"remotes": [{"type": "sse", "url": "https://mcp.example.com/{region}/sse",
				"headers": [{"name": "X-Units", "description": "Units", "format": "string", "isRequired": false, "isSecret": false,
					"value": "{units}", "default": "metric", "placeholder": "metric", "choices": ["metric", "imperial"],
					"variables": {"units": {"description": "Unit system", "default": "metric"}}}],
				"variables": {"region": {"description": "Region", "default": "eu", "choices": ["eu", "us"], "isRequired": true}},
				"supportedProtocolVersions": ["2025-06-18"]}]`,
			`"_meta": {"com.example/build": {"tool": "publisher-cli", "n": 3}, "team": "forecasting"}`),
		wantStatus: Imported,
		wantServer: obj(wantID, `"title": "Weather"`, `"websiteUrl": "https://example.com/weather"`,
			`"repository": {"url": "https://github.com/example/weather", "source": "github", "subfolder": "servers/weather", "id": "b94b5f7e"}`,
			`"icons": [{"src": "https://example.com/w.png", "mimeType": "image/png", "sizes": ["48x48", "any"], "theme": "dark"}]`,
			`"remotes": [{"type": "sse", "url": "https://mcp.example.com/{region}/sse",
				"headers": [{"name": "X-Units", "description": "Units", "format": "string", "isRequired": false, "isSecret": false,
					"value": "{units}", "default": "metric", "placeholder": "metric", "choices": ["metric", "imperial"],
					"variables": {"units": {"description": "Unit system", "default": "metric"}}}],
				"variables": {"region": {"description": "Region", "default": "eu", "choices": ["eu", "us"], "isRequired": true}},
				"supportedProtocolVersions": ["2025-06-18"]}]`,
			`"_meta": {"com.example/build": {"tool": "publisher-cli", "n": 3}, "team": "forecasting"}`),
	}, {
		name:       "description cut at a word boundary",
		doc:        obj(idFields, `"description": "Forecasts and alerts for every city on Earth: hourly detail, radar maps, pollen counts, tide tables and marine warnings for sailors."`, remoteField),
		wantStatus: Imported,
		wantReason: "description cut from 132 to 100 characters",
		wantServer: obj(`"name": "com.example/weather", "version": "1.4.0"`, `"description": "Forecasts and alerts for every city on Earth: hourly detail, radar maps, pollen counts, tide tables…"`, wantRemote),
	}, {
		name:       "description cut drops dangling punctuation",
		doc:        obj(idFields, `"description": "Weather data, forecasts, alerts, radar maps and historical observations for ninety-two countries, xxxxxxxxxx"`, remoteField),
		wantStatus: Imported,
		wantReason: "description cut from 108 to 97 characters",
		wantServer: obj(`"name": "com.example/weather", "version": "1.4.0"`, `"description": "Weather data, forecasts, alerts, radar maps and historical observations for ninety-two countries…"`, wantRemote),
	}, {
		name:       "description of exactly 100 characters kept",
		doc:        obj(idFields, `"description": "`+strings.Repeat("é", 100)+`"`, remoteField),
		wantStatus: Imported,
		wantServer: obj(`"name": "com.example/weather", "version": "1.4.0"`, `"description": "`+strings.Repeat("é", 100)+`"`, wantRemote),
	}, {
		name:       "title cut",
		doc:        obj(idFields, `"title": "`+strings.Repeat("Weather ", 15)+`"`, remoteField),
		wantStatus: Imported,
		wantReason: "title cut from 120 to 96 characters",
		wantServer: obj(wantID, `"title": "`+strings.TrimSpace(strings.Repeat("Weather ", 12))+`…"`, wantRemote),
	}, {
		name:       "empty title dropped",
		doc:        obj(idFields, `"title": " "`, remoteField),
		wantStatus: Imported,
		wantReason: "dropped empty title",
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "websiteUrl not a URL dropped",
		doc:        obj(idFields, `"websiteUrl": "example.com/weather"`, remoteField),
		wantStatus: Imported,
		wantReason: `dropped websiteUrl "example.com/weather": not an absolute URL`,
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "empty repository dropped",
		doc:        obj(idFields, `"repository": {}`, remoteField),
		wantStatus: Imported,
		wantReason: "dropped empty repository {}",
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "incomplete repository dropped",
		doc:        obj(idFields, `"repository": {"url": "https://github.com/example/weather"}`, remoteField),
		wantStatus: Imported,
		wantReason: "dropped repository: no source",
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "repository with a bad url dropped",
		doc:        obj(idFields, `"repository": {"url": "github.com/example/weather", "source": "github"}`, remoteField),
		wantStatus: Imported,
		wantReason: `dropped repository: url "github.com/example/weather" is not an absolute URL`,
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "repository extra field dropped",
		doc:        obj(idFields, `"repository": {"url": "https://github.com/example/weather", "source": "github", "branch": "main"}`, remoteField),
		wantStatus: Imported,
		wantReason: "dropped repository.branch: not a card field",
		wantServer: obj(wantID, `"repository": {"url": "https://github.com/example/weather", "source": "github"}`, wantRemote),
	}, {
		name: "bad icons dropped",
		doc: obj(idFields, `"icons": [{"mimeType": "image/png"}, {"src": "ftp://example.com/w.png"},
			{"src": "data:image/png;base64,AAAA", "theme": "blue"}]`, remoteField),
		wantStatus: Imported,
		wantReason: `dropped icons[0]: no src; dropped icons[1]: src "ftp://example.com/w.png" is not an http(s) or data: URL; dropped icons[2].theme "blue": not light or dark`,
		wantServer: obj(wantID, `"icons": [{"src": "data:image/png;base64,AAAA"}]`, wantRemote),
	}, {
		name:       "transport type http mapped",
		doc:        obj(idFields, `"remotes": [{"type": "http", "url": "https://mcp.example.com/weather"}]`),
		wantStatus: Imported,
		wantReason: `remotes[0].type "http" mapped to streamable-http`,
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "transport type SSE mapped",
		doc:        obj(idFields, `"remotes": [{"type": "SSE", "url": "https://mcp.example.com/sse"}]`),
		wantStatus: Imported,
		wantReason: `remotes[0].type "SSE" mapped to sse`,
		wantServer: obj(wantID, `"remotes": [{"type": "sse", "url": "https://mcp.example.com/sse"}]`),
	}, {
		name: "first registry format mapped",
		doc: `{"name": "com.example/weather", "description": "Forecasts and alerts.", "version_detail": {"version": "1.4.0", "is_latest": true},
			"website_url": "https://example.com", "remotes": [{"transport_type": "streamable", "url": "https://mcp.example.com/weather",
			"headers": [{"name": "Authorization", "is_required": true, "is_secret": true, "value": "Bearer {token}"}]}]}`,
		wantStatus: Imported,
		wantReason: "version_detail.version mapped to version; website_url mapped to websiteUrl; " +
			`remotes[0].transport_type "streamable" mapped to type streamable-http; ` +
			"remotes[0].headers[0].is_required mapped to isRequired; remotes[0].headers[0].is_secret mapped to isSecret; " +
			"declared remotes[0].headers[0].variables.token as a secret: the value uses {token}",
		wantServer: obj(wantID, `"websiteUrl": "https://example.com"`,
			`"remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/weather", "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true,
				"value": "Bearer {token}", "variables": {"token": {"isSecret": true}}}]}]`),
	}, {
		// The registry allows it; a card's remote must name its scheme and
		// host, as the loader requires.
		name:       "URL starting with a template variable",
		doc:        obj(idFields, `"remotes": [{"type": "streamable-http", "url": "{baseUrl}/mcp", "variables": {"baseUrl": {"description": "Your tenant URL"}}}]`),
		wantStatus: Invalid,
		wantReason: `remotes[0].url "{baseUrl}/mcp" must start with https://: a variable cannot stand for the scheme and host`,
	}, {
		name:       "secret header default dropped, template value kept",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "Authorization", "isSecret": true, "isRequired": true, "value": "Bearer {smithery_api_key}", "default": "Bearer x"}]`)),
		wantStatus: Imported,
		wantReason: "dropped the default of secret header Authorization (remotes[0].headers[0]): a secret must not be published; " +
			"declared remotes[0].headers[0].variables.smithery_api_key as a secret: the value uses {smithery_api_key}",
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "Authorization", "isRequired": true, "isSecret": true,
			"value": "Bearer {smithery_api_key}", "variables": {"smithery_api_key": {"isSecret": true}}}]`)),
	}, {
		name:       "secret header literal value dropped",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "Authorization", "isSecret": true, "value": "Bearer abc"}]`)),
		wantStatus: Imported,
		wantReason: "dropped the value of secret header Authorization (remotes[0].headers[0]): a secret must not be published",
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "Authorization", "isSecret": true}]`)),
	}, {
		name:       "secret variable default and choices dropped",
		doc:        obj(idFields, `"remotes": [{"type": "sse", "url": "https://mcp.example.com/{key}/sse", "variables": {"key": {"isSecret": true, "default": "k-1", "choices": ["k-1", "k-2"], "description": "Key"}}}]`),
		wantStatus: Imported,
		wantReason: "dropped the default and choices of secret variable key (remotes[0].variables.key): a secret must not be published",
		wantServer: obj(wantID, `"remotes": [{"type": "sse", "url": "https://mcp.example.com/{key}/sse", "variables": {"key": {"isSecret": true, "description": "Key"}}}]`),
	}, {
		name:       "secret header template and its variables kept",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "Authorization", "isSecret": true, "value": "Bearer {token}", "variables": {"token": {"description": "Token"}}}]`)),
		wantStatus: Imported,
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "Authorization", "isSecret": true, "value": "Bearer {token}", "variables": {"token": {"description": "Token"}}}]`)),
	}, {
		name: "template variables declared and unused ones dropped",
		doc: obj(idFields, `"remotes": [{"type": "sse", "url": "https://{tenant}.example.com/{region}/sse", "variables": {"region": {"default": "eu"}, "zone": {}},
			"headers": [{"name": "X-Units", "value": "{units}-{units}"}, {"name": "X-Api-Key", "value": "Key {api_key}"}, {"name": "X-Plain", "variables": {"v": {}}}]}]`),
		wantStatus: Imported,
		wantReason: "declared remotes[0].headers[0].variables.units: the value uses {units}; " +
			"declared remotes[0].headers[1].variables.api_key as a secret: the value uses {api_key}; " +
			"dropped remotes[0].headers[2].variables.v: the value does not use it; " +
			"declared remotes[0].variables.tenant: the url uses {tenant}; dropped remotes[0].variables.zone: the url does not use it",
		wantServer: obj(wantID, `"remotes": [{"type": "sse", "url": "https://{tenant}.example.com/{region}/sse", "variables": {"region": {"default": "eu"}, "tenant": {}},
			"headers": [{"name": "X-Units", "value": "{units}-{units}", "variables": {"units": {}}}, {"name": "X-Api-Key", "value": "Key {api_key}", "variables": {"api_key": {"isSecret": true}}}, {"name": "X-Plain"}]}]`),
	}, {
		name:       "repeated header dropped",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "X-Units", "value": "metric"}, {"name": "x-units", "value": "imperial"}]`)),
		wantStatus: Imported,
		wantReason: "dropped remotes[0].headers[1]: header x-units is already declared by remotes[0].headers[0]",
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "X-Units", "value": "metric"}]`)),
	}, {
		name:       "secret header variable value dropped",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isSecret": true, "value": "t0k3n"}}}]`)),
		wantStatus: Imported,
		wantReason: "dropped the value of secret variable token (remotes[0].headers[0].variables.token): a secret must not be published",
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isSecret": true}}}]`)),
	}, {
		name:       "literal credential in a header not marked secret dropped",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "X-API-Key", "value": "a1b2c3d4e5"}, {"name": "Authorization", "value": "Bearer {token}"}, {"name": "X-Region", "value": "eu"}]`)),
		wantStatus: Imported,
		wantReason: "dropped the value of header X-API-Key (remotes[0].headers[0]): a literal credential must not be published; declare it isSecret without a value; " +
			"declared remotes[0].headers[1].variables.token as a secret: the value uses {token}",
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "X-API-Key"}, {"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isSecret": true}}}, {"name": "X-Region", "value": "eu"}]`)),
	}, {
		name:       "isSecret as a string read",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "X-Token", "isSecret": "true"}]`)),
		wantStatus: Imported,
		wantReason: `remotes[0].headers[0].isSecret "true" read as true`,
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "X-Token", "isSecret": true}]`)),
	}, {
		name:       "header without a name dropped",
		doc:        obj(idFields, remoteWith(`"headers": [{"description": "Token", "isSecret": true}, {"name": 7}]`)),
		wantStatus: Imported,
		wantReason: "dropped remotes[0].headers[0]: no name; dropped remotes[0].headers[1]: name is a number, not a string",
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "bad input fields dropped",
		doc:        obj(idFields, remoteWith(`"headers": [{"name": "X-Units", "format": "enum", "isRequired": 1, "choices": ["a", 2], "description": null, "example": "x"}]`)),
		wantStatus: Imported,
		wantReason: "dropped remotes[0].headers[0].choices: not an array of strings; dropped remotes[0].headers[0].description: it is null, not a string; " +
			`dropped remotes[0].headers[0].format "enum": not boolean, filepath, number or string; dropped remotes[0].headers[0].isRequired: it is a number, not a boolean; ` +
			"dropped remotes[0].headers[0].example: not a card field",
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "X-Units"}]`)),
	}, {
		name: "registry and MCP-reserved metadata dropped",
		doc: obj(idFields, remoteField, `"_meta": {"io.modelcontextprotocol.registry/official": {"status": "deprecated", "isLatest": true},
			"io.modelcontextprotocol.registry/publisher-provided": {"tool": "ci"}, "dev.mcp.tools/x": 1, "modelcontextprotocol.io/y": 2,
			"com.example/ok": 3, "com.example.mcp/fine": 4, "bad key": 5, "-x/y": 6, "a/b/c": 7, "": 8, "plain": 9}`),
		wantStatus: Imported,
		wantReason: `dropped _meta -x/y: not a _meta key ([PREFIX/]NAME); ` +
			"dropped _meta a/b/c: not a _meta key ([PREFIX/]NAME); " + `dropped _meta "bad key": not a _meta key ([PREFIX/]NAME); ` +
			"dropped _meta dev.mcp.tools/x: its prefix is reserved for MCP; to publish it, move it under a prefix of your own domain; " +
			"dropped _meta io.modelcontextprotocol.registry/official: the registry's own bookkeeping; the registry marks this server deprecated; " +
			"dropped _meta io.modelcontextprotocol.registry/publisher-provided: its prefix is reserved for MCP; to publish it, move it under a prefix of your own domain; " +
			"dropped _meta modelcontextprotocol.io/y: its prefix is reserved for MCP; to publish it, move it under a prefix of your own domain",
		wantServer: obj(wantID, wantRemote, `"_meta": {"com.example/ok": 3, "com.example.mcp/fine": 4, "plain": 9, "": 8}`),
	}, {
		name:       "_meta not an object dropped",
		doc:        obj(idFields, remoteField, `"_meta": []`),
		wantStatus: Imported,
		wantReason: "dropped _meta: it is an array, not an object",
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "fields a card does not have dropped",
		doc:        obj(idFields, remoteWith(`"timeout": 30`), `"status": "active"`, `"x-publisher": {}`),
		wantStatus: Imported,
		wantReason: "dropped remotes[0].timeout: not a card field; dropped status, x-publisher: not card fields",
		wantServer: obj(wantID, wantRemote),
	}, {
		name: "packages kept next to remotes",
		doc: obj(idFields, remoteField, `"packages": [{"registryType": "npm", "identifier": "@example/weather", "version": "1.4.0", "transport": {"type": "stdio"},
			"packageArguments": [{"type": "named", "name": "--units", "value": "metric", "isRepeated": false}],
			"environmentVariables": [{"name": "WEATHER_TOKEN", "isSecret": true, "value": "abc"}], "extra": 1}]`),
		wantStatus: Imported,
		wantReason: `dropped the value of secret environment variable WEATHER_TOKEN (packages[0].environmentVariables[0]): a secret must not be published; dropped packages[0].extra: not a card field`,
		wantServer: obj(wantID, wantRemote, `"packages": [{"registryType": "npm", "identifier": "@example/weather", "version": "1.4.0", "transport": {"type": "stdio"},
			"packageArguments": [{"type": "named", "name": "--units", "value": "metric", "isRepeated": false}],
			"environmentVariables": [{"name": "WEATHER_TOKEN", "isSecret": true}]}]`),
	}, {
		name:       "packages that do not pin what they run dropped",
		doc:        obj(idFields, remoteField, `"packages": [{"registryType": "npm", "identifier": "@example/weather", "transport": {"type": "stdio"}}, {"registryType": "oci", "identifier": "example/weather"}, {"registryType": "cargo", "identifier": "w"}]`),
		wantStatus: Imported,
		wantReason: `dropped packages[0] ("@example/weather"): missing required field "version": a npm package runs the version given, and without one clients run whatever is newest; ` +
			`dropped packages[1] ("example/weather"): missing required field "transport": {type: stdio} for a server that speaks over standard input and output; identifier "example/weather" names no tag or digest: add one, as in example/weather:1.4.0, or give version; ` +
			`dropped packages[2] ("w"): registryType "cargo" is not one of npm, pypi, oci, nuget, mcpb`,
		wantServer: obj(wantID, wantRemote),
	}, {
		name:       "local packages only",
		doc:        obj(idFields, `"packages": [{"registryType": "oci", "identifier": "ghcr.io/example/weather:1.4.0", "transport": {"type": "stdio"}}]`),
		wantStatus: Imported,
		wantServer: obj(wantID, `"packages": [{"registryType": "oci", "identifier": "ghcr.io/example/weather:1.4.0", "transport": {"type": "stdio"}}]`),
	}, {
		name:       "no package signpost can declare",
		doc:        obj(idFields, `"remotes": []`, `"packages": [{"registryType": "pypi", "identifier": "weather", "version": "latest", "transport": {"type": "stdio"}}]`),
		wantStatus: NoRemotes,
		wantReason: `no remotes, and no package signpost can declare: nothing to publish`,
	}, {
		name:       "no remotes and no packages",
		doc:        obj(idFields, `"repository": {}`),
		wantStatus: NoRemotes,
		wantReason: "no remotes and no packages: nothing to publish",
	}, {
		name:       "missing identity",
		doc:        obj(remoteField),
		wantStatus: Invalid,
		wantReason: "missing name; missing version; missing description",
	}, {
		name:       "identity of the wrong types",
		doc:        obj(`"name": 1, "version": 1.2, "description": ["Forecasts"]`, remoteField),
		wantStatus: Invalid,
		wantReason: "name is a number, not a string; version is a number, not a string; description is an array, not a string",
	}, {
		name:       "bad name",
		doc:        obj(idFields, `"name": "weather server"`, remoteField),
		wantStatus: Invalid,
		wantReason: `name "weather server" is not of the form reverse-DNS/name, such as com.example/weather`,
	}, {
		name:       "name too long",
		doc:        obj(idFields, `"name": "com.example/`+strings.Repeat("w", 190)+`"`, remoteField),
		wantStatus: Invalid,
		wantReason: "name is 202 characters; at most 200",
	}, {
		name:       "empty description",
		doc:        obj(idFields, `"description": ""`, remoteField),
		wantStatus: Invalid,
		wantReason: "description is empty",
	}, {
		name:       "unknown transport",
		doc:        obj(idFields, `"remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/weather"}, {"type": "stdio", "url": "https://mcp.example.com/x"}]`),
		wantStatus: Invalid,
		wantReason: `remotes[1].type "stdio" is not a remote transport: streamable-http or sse`,
	}, {
		name:       "remote without type or url",
		doc:        obj(idFields, `"remotes": [{}]`),
		wantStatus: Invalid,
		wantReason: "remotes[0] has no type; remotes[0] has no url",
	}, {
		name:       "remote URL not a URL",
		doc:        obj(idFields, `"remotes": [{"type": "sse", "url": "mcp.example.com/sse"}, {"type": "sse", "url": "ftp://mcp.example.com/sse"}, {"type": "sse", "url": "https://"}, {"type": "sse", "url": "https://mcp.example.com/a b"}]`),
		wantStatus: Invalid,
		wantReason: `remotes[0].url "mcp.example.com/sse" must be an absolute https URL; remotes[1].url "ftp://mcp.example.com/sse" must be an absolute https URL; ` +
			`remotes[2].url "https://" is not an absolute URL with a host; remotes[3].url "https://mcp.example.com/a b" must not contain whitespace`,
	}, {
		name:       "remote over plain http",
		doc:        obj(idFields, `"remotes": [{"type": "sse", "url": "http://mcp.example.com/sse"}, {"type": "sse", "url": "http://127.0.0.1:8080/sse"}]`),
		wantStatus: Invalid,
		wantReason: `remotes[0].url "http://mcp.example.com/sse" must use https: plain http is only for loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1)`,
	}, {
		name:       "remotes of the wrong types",
		doc:        obj(idFields, `"remotes": [1, {"type": true, "url": 2}]`),
		wantStatus: Invalid,
		wantReason: "remotes[0] is a number, not an object; remotes[1].type is a boolean, not a string; remotes[1].url is a number, not a string",
	}, {
		name:       "many notes shortened",
		doc:        obj(idFields, remoteWith(`"headers": [`+manyHeaders(25)+`, `+strings.TrimSuffix(strings.Repeat(`{},`, 25), ",")+`]`)),
		wantStatus: Imported,
		wantReason: strings.Join(func() []string {
			var notes []string
			for i := 25; i < 45; i++ {
				notes = append(notes, fmt.Sprintf("dropped remotes[0].headers[%d]: no name", i))
			}
			return notes
		}(), "; ") + "; and 5 more",
		wantServer: obj(wantID, remoteWith(`"headers": [`+manyHeaders(25)+`]`)),
	}, {
		name: "odd names quoted in notes",
		doc: obj(idFields, remoteWith(`"headers": [{"name": "X-Token\nY", "isSecret": true, "value": "v"}]`, `"variables": {"a b": {"isSecret": true, "default": "d"}}`),
			`"packages": [{"registryType": "npm\u2028"}]`),
		wantStatus: Imported,
		wantReason: `dropped the value of secret header "X-Token\nY" (remotes[0].headers[0]): a secret must not be published; ` +
			`dropped the default of secret variable "a b" (remotes[0].variables."a b"): a secret must not be published; ` +
			`dropped remotes[0].variables."a b": the url does not use it; ` +
			`dropped packages[0]: registryType "npm\u2028" is not one of npm, pypi, oci, nuget, mcpb`,
		wantServer: obj(wantID, remoteWith(`"headers": [{"name": "X-Token\nY", "isSecret": true}]`)),
	}, {
		name:       "remotes not an array",
		doc:        obj(idFields, `"remotes": {"type": "sse"}`),
		wantStatus: Invalid,
		wantReason: "remotes is an object, not an array",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := importServers("s.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("%d outcomes, want 1", len(got))
			}
			name, _ := decodeJSON(t, tt.doc).(map[string]any)["name"].(string)
			want := importedServer{Source: "s.json", Name: name, Status: tt.wantStatus, Reason: tt.wantReason}
			if tt.wantServer != "" {
				want.Server = decodeJSON(t, tt.wantServer).(map[string]any)
			}
			if diff := cmp.Diff(want, got[0]); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got[0].Server != nil && card != nil {
				if err := card.Validate(asSchemaValue(t, withCardSchema(got[0].Server))); err != nil {
					t.Errorf("not a valid server card: %v", err)
				}
			}
		})
	}
}

func TestVersionProblem(t *testing.T) {
	tests := map[string]string{
		"1.4.0":                  "",
		"0.1.143-main.2b1":       "",
		"v17.1.7-3":              "",
		"2025.1.2830393":         "",
		"1.0.0-beta.x":           "",
		"1.0.0+build.x":          "",
		"":                       "version is empty",
		"  ":                     "version is empty",
		"^1.2.3":                 `version "^1.2.3" is a range, not an exact version`,
		"~1.2":                   `version "~1.2" is a range, not an exact version`,
		">=1.2.3":                `version ">=1.2.3" is a range, not an exact version`,
		"<2":                     `version "<2" is a range, not an exact version`,
		"=1.0.0":                 `version "=1.0.0" is a range, not an exact version`,
		"1.x":                    `version "1.x" is a range, not an exact version`,
		"1.2.*":                  `version "1.2.*" is a range, not an exact version`,
		"V1.X":                   `version "V1.X" is a range, not an exact version`,
		"*":                      `version "*" is a range, not an exact version`,
		"1.0.0 - 2.0.0":          `version "1.0.0 - 2.0.0" is a range, not an exact version`,
		"1.0.0 || 2.0.0":         `version "1.0.0 || 2.0.0" is a range, not an exact version`,
		"latest":                 `version "latest" is not an exact version`,
		strings.Repeat("1", 256): "version is 256 characters; at most 255",
	}
	for v, want := range tests {
		if got := versionProblem(v); got != want {
			t.Errorf("versionProblem(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestCutText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("a", 100), strings.Repeat("a", 100)},
		// No space at all: cut in the word.
		{strings.Repeat("A", 150), strings.Repeat("A", 99) + "…"},
		// The only space is too early to cut there.
		{"Short " + strings.Repeat("B", 120), "Short " + strings.Repeat("B", 93) + "…"},
		// A cut right before a space keeps the whole last word.
		{strings.Repeat("word ", 19) + "word tail", strings.Repeat("word ", 19) + "word…"},
		// Dangling punctuation goes.
		{strings.Repeat("abcdefghi ", 8) + "end of it, — " + strings.Repeat("x", 20), strings.Repeat("abcdefghi ", 8) + "end of it…"},
		// Characters, not bytes.
		{strings.Repeat("日本語", 40), strings.Repeat("日本語", 33) + "…"},
	}
	for _, tt := range tests {
		got := cutAtWord(tt.in, 100)
		if got != tt.want {
			t.Errorf("cutAtWord(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
		if n := len([]rune(got)); n > 100 {
			t.Errorf("cutAtWord(%q) is %d characters", tt.in, n)
		}
	}
}

func TestServersShapes(t *testing.T) {
	doc := func(name string) string {
		return obj(`"name": "`+name+`", "version": "1.0.0", "description": "D."`, remoteField)
	}
	sources := func(list []importedServer) []string {
		var out []string
		for _, s := range list {
			out = append(out, s.Source+" "+s.Name+" "+s.Status)
		}
		return out
	}
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"one document", doc("com.example/a"), []string{"f.json com.example/a imported"}},
		{"with a byte order mark", "\uFEFF" + doc("com.example/a"), []string{"f.json com.example/a imported"}},
		{"array", "[" + doc("com.example/a") + ", 3, " + doc("com.example/b") + "]",
			[]string{"f.json#/0 com.example/a imported", "f.json#/1  invalid", "f.json#/2 com.example/b imported"}},
		{"registry list response", `{"servers": [{"server": ` + doc("com.example/a") + `, "_meta": {}}, ` + doc("com.example/b") + `], "metadata": {"count": 2}}`,
			[]string{"f.json#/servers/0 com.example/a imported", "f.json#/servers/1 com.example/b imported"}},
		{"registry entry", `{"server": ` + doc("com.example/a") + `}`, []string{"f.json com.example/a imported"}},
		{"object without a name", `{"description": "D."}`, []string{"f.json  invalid"}},
		{"empty array", `[]`, nil},
		{"empty list response", `{"servers": []}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := importServers("f.json", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, sources(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestServersReasonsOfEntries(t *testing.T) {
	got, err := importServers("f.json", []byte(`[3, null, {"server": "x"}, {"server": {"name": "com.example/a", "version": "1", "description": "D.", `+remoteField+`},
		"_meta": {"io.modelcontextprotocol.registry/official": {"status": "deleted"}}, "etag": "x"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []importedServer{
		{Source: "f.json#/0", Status: Invalid, Reason: "not a server.json object but a number"},
		{Source: "f.json#/1", Status: Invalid, Reason: "not a server.json object but null"},
		{Source: "f.json#/2", Status: Invalid, Reason: `"server" is a string, not a server.json object`},
		{Source: "f.json#/3", Name: "com.example/a", Status: Imported,
			Reason: "dropped the registry entry's _meta (io.modelcontextprotocol.registry/official): the registry's own bookkeeping; " +
				"the registry marks this server deleted; dropped the registry entry's etag: not part of a server",
			Server: decodeJSON(t, obj(`"name": "com.example/a", "version": "1", "description": "D."`, wantRemote)).(map[string]any)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestServersErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"empty", "", "f.json: no JSON value: the file is empty"},
		{"blank", " \n", "f.json: no JSON value: the file is empty"},
		{"syntax", "[\n  {\"name\": }\n]", "f.json: line 2, column 12: not valid JSON: invalid character '}' looking for beginning of value"},
		{"truncated", `[{"name": "a"`, "f.json: not valid JSON: the file ends inside a value"},
		{"two values", "{}\n{}", "f.json: line 2, column 1: a second JSON value after the document; import one value per file"},
		{"garbage after", "{} x", "f.json: line 1, column 4: not valid JSON: invalid character 'x' looking for beginning of value"},
		{"string", `"com.example/a"`, "f.json: the JSON value is a string, not a server.json object, an array of them or a registry server list"},
		{"servers not a list", `{"servers": {}}`, `f.json: "servers" is an object, not an array of registry entries`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := importServers("f.json", []byte(tt.data))
			if err == nil {
				t.Fatalf("no error; got %v", got)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n %s\nwant\n %s", err, tt.want)
			}
		})
	}
}

func TestServersDuplicates(t *testing.T) {
	doc := func(version string) string {
		return obj(`"name": "com.example/a", "version": "`+version+`", "description": "D."`, remoteField)
	}
	got, err := importServers("f.json", []byte("["+doc("1.0.0")+","+obj(`"name": "com.example/a"`)+","+doc("1.1.0")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	statuses := []string{got[0].Status, got[1].Status, got[2].Status}
	if diff := cmp.Diff([]string{Imported, Invalid, Invalid}, statuses); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	if got[1].Reason != "missing version; missing description" {
		t.Errorf("an invalid document with a repeated name: reason %q", got[1].Reason)
	}
	want := `duplicate: f.json#/0 already imports com.example/a (version "1.0.0"), and a catalog declares each server once`
	if got[2].Reason != want || got[2].Server != nil {
		t.Errorf("duplicate: reason %q, server %v; want reason %q and no server", got[2].Reason, got[2].Server, want)
	}

	// Across files, through the exported API.
	a, err := Servers("a.json", []byte(doc("1.0.0")))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Servers("b.json", []byte(doc("2.0.0")))
	if err != nil {
		t.Fatal(err)
	}
	all := MarkDuplicates(append(a, b...))
	if all[0].Status != Imported || all[1].Status != Invalid ||
		all[1].Reason != `duplicate: a.json already imports com.example/a (version "1.0.0"), and a catalog declares each server once` {
		t.Errorf("across files: %+v", all)
	}
}

func TestServersYAML(t *testing.T) {
	list, err := importServers("imports/registry.json", []byte(`[
		{"name": "com.example/weather", "version": "1.0", "description": "yes", "title": "Weather: forecasts",
		 "repository": {},
		 "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/{region}",
			"headers": [{"name": "Authorization", "isSecret": true, "isRequired": true, "value": "Bearer {key}"}],
			"variables": {"region": {"default": "eu", "choices": ["eu", "us"]}},
			"supportedProtocolVersions": ["2025-06-18", "2025-11-25"]}],
		 "icons": [{"src": "https://example.com/w.png", "sizes": ["48x48"]}],
		 "_meta": {"com.example/build": {"n": 3, "f": 1.50, "e": 2E-3, "big": 12345678901234567890, "bigger": 123456789012345678901234567890, "on": true, "list": ["a", "b"], "none": null, "<<": "merge"}, "com.example/huge": [1e400]}},
		{"name": "com.example/local", "version": "2.0.0", "description": "Local.", "packages": [{"registryType": "npm", "identifier": "x"}]},
		{"name": "com.example/bad", "version": "^2", "description": "Bad.", "remotes": [{"type": "sse", "url": "https://x.example.com"}]}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := serversYAML(list)
	if err != nil {
		t.Fatal(err)
	}
	want := "# MCP servers imported by `signpost import server` from MCP registry\n" +
		"# server.json documents. Each one is published as a server card: review\n" +
		"# the import notes, then edit freely.\n" +
		"# imports/registry.json: 3 documents, 1 imported, 1 not publishable, 1 invalid\n" +
		"\n" +
		"servers:\n" +
		"  # source: imports/registry.json#/0\n" +
		"  # import notes: dropped empty repository {}; declared remotes[0].headers[0].variables.key as a secret: the value uses {key}; " +
		"dropped _meta com.example/huge: it holds the number \"1e400\", beyond the range of a 64-bit float\n" +
		"  - name: com.example/weather\n" +
		"    version: \"1.0\"\n" +
		"    description: \"yes\"\n" +
		"    title: 'Weather: forecasts'\n" +
		"    icons:\n" +
		"      - src: https://example.com/w.png\n" +
		"        sizes: [48x48]\n" +
		"    remotes:\n" +
		"      - type: streamable-http\n" +
		"        url: https://mcp.example.com/{region}\n" +
		"        headers:\n" +
		"          - name: Authorization\n" +
		"            isRequired: true\n" +
		"            isSecret: true\n" +
		"            value: Bearer {key}\n" +
		"            variables:\n" +
		"              key:\n" +
		"                isSecret: true\n" +
		"        variables:\n" +
		"          region:\n" +
		"            default: eu\n" +
		"            choices: [eu, us]\n" +
		"        supportedProtocolVersions: [\"2025-06-18\", \"2025-11-25\"]\n" +
		"    _meta:\n" +
		"      com.example/build:\n" +
		"        \"<<\": merge\n" +
		"        big: 12345678901234567890\n" +
		"        bigger: 123456789012345678901234567890\n" +
		"        e: 2E-3\n" +
		"        f: 1.50\n" +
		"        list:\n" +
		"          - a\n" +
		"          - b\n" +
		"        \"n\": 3\n" +
		"        none: null\n" +
		"        \"on\": true\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(plainJSON(t, []any{list[0].Server}), plainJSON(t, yamlServers(t, got))); diff != "" {
		t.Errorf("does not parse back (-want +got):\n%s", diff)
	}

	// Through the exported API: the same bytes.
	exported, err := Servers("imports/registry.json", []byte(`[{"name": "com.example/weather", "version": "1.0", "description": "yes", `+remoteField+`}]`))
	if err != nil {
		t.Fatal(err)
	}
	y1, err := ServersYAML(exported)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := serversYAML(unexportImported(exported))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(y1, y2) {
		t.Error("ServersYAML and serversYAML differ")
	}
}

func TestServersYAMLEmpty(t *testing.T) {
	for _, list := range [][]importedServer{nil, {{Source: "a.json", Status: NoRemotes, Reason: "r"}}} {
		got, err := serversYAML(list)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(got, []byte("\nservers: []\n")) {
			t.Errorf("no servers:\n%s", got)
		}
		if n := len(yamlServers(t, got)); n != 0 {
			t.Errorf("%d servers", n)
		}
	}
}

// TestServersYAMLRoundTrip renders strings YAML could misread and checks
// they come back as written.
func TestServersYAMLRoundTrip(t *testing.T) {
	tricky := []string{"1.0", "true", "no", "Off", "y", "null", "~", "2025-06-18", "0x1F", "1e3", ".inf", "- x", "a: b", "#x", "a #b",
		"{x}", "[x]", "*anchor", "&a", "!tag", "|", ">", "%", "@", "`", "'q'", `"dq"`, " lead", "trail ", "", "line\nbreak", "tab\there",
		"\x01ctrl", "\u2028", "日本語", "…", "<<", "=", "a,b", strings.Repeat("long words ", 30)}
	meta := map[string]any{}
	var headers []any
	for i, s := range tricky {
		meta[s] = s
		headers = append(headers, map[string]any{"name": "H" + strconv.Itoa(i), "value": s, "choices": []any{s, "x"}})
	}
	item := map[string]any{"name": "com.example/t", "version": "1.0", "description": "no",
		"remotes": []any{map[string]any{"type": "sse", "url": "https://x.example.com", "headers": headers}},
		"_meta":   meta}
	list := []importedServer{{Source: "a\nb.json#/0", Name: "com.example/t", Status: Imported, Reason: "note\nwith a line break", Server: item}}
	got, err := serversYAML(list)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plainJSON(t, []any{item}), plainJSON(t, yamlServers(t, got))); diff != "" {
		t.Errorf("(-want +got):\n%s\n%s", diff, got)
	}
	if !bytes.Contains(got, []byte(`# source: "a\nb.json#/0"`)) || !bytes.Contains(got, []byte(`# import notes: "note\nwith a line break"`)) {
		t.Errorf("comments not kept on one line:\n%s", got)
	}
}

// TestServersYAMLDeterministic renders the same list many times: map
// iteration order must not show.
func TestServersYAMLDeterministic(t *testing.T) {
	meta := map[string]any{}
	for i := range 50 {
		meta[fmt.Sprintf("k%02d", i)] = map[string]any{"a": json.Number(strconv.Itoa(i)), "b": []any{"x"}}
	}
	vars := map[string]any{}
	for _, k := range []string{"zone", "area", "mode", "b", "a"} {
		vars[k] = map[string]any{"default": k, "description": "d", "isRequired": true}
	}
	item := map[string]any{"_meta": meta, "name": "com.example/t", "version": "1", "description": "d",
		"remotes": []any{map[string]any{"variables": vars, "url": "https://x.example.com/{zone}", "type": "sse"}}}
	list := []importedServer{{Source: "a.json", Name: "com.example/t", Status: Imported, Server: item}}
	first, err := serversYAML(list)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := serversYAML(list)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("different output:\n%s\n---\n%s", first, again)
		}
	}
	var keys []string
	for line := range strings.SplitSeq(string(first), "\n") {
		if strings.HasPrefix(line, "  k") || strings.HasPrefix(line, "      k") {
			keys = append(keys, strings.TrimSpace(line))
		}
	}
	if !sort.StringsAreSorted(keys) || len(keys) != 50 {
		t.Errorf("_meta keys not sorted: %v", keys)
	}
}

func TestServersYAMLRejectsUnrenderable(t *testing.T) {
	list := []importedServer{{Source: "a.json", Status: Imported, Server: map[string]any{"name": "com.example/t", "x": struct{}{}}}}
	if _, err := serversYAML(list); err == nil || err.Error() != "a.json: cannot render a struct {} in YAML" {
		t.Errorf("error = %v", err)
	}
	list = []importedServer{{Source: "a.json", Status: Imported}}
	if _, err := serversYAML(list); err == nil || err.Error() != "a.json: imported without a server" {
		t.Errorf("error = %v", err)
	}
}

// FuzzImportServers: any bytes give an error or one outcome per document,
// never a panic, and what is imported renders to YAML that reads back.
func FuzzImportServers(f *testing.F) {
	f.Add([]byte(obj(idFields, remoteField)))
	f.Add([]byte(`{"servers": [{"server": {"name": "a.b/c", "version": "1", "description": "d", "remotes": [{"type": "http", "url": "{u}"}]}, "_meta": {"x": 1}}]}`))
	f.Add([]byte(`[1, {"name": "a.b/c", "version": "^1", "remotes": {}}, {"name": "a.b/c", "version": "1", "description": "` + strings.Repeat("é ", 80) + `", "remotes": [{"type": "sse", "url": "https://x", "headers": [{"name": "Authorization", "is_secret": "true", "value": "k", "variables": {"v": {"isSecret": true, "default": "d"}}}]}], "_meta": {"on": [null, 1e400, -0, "y"]}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := importServers("f.json", data)
		if err != nil {
			return
		}
		var items []any
		for _, s := range list {
			switch s.Status {
			case Imported:
				if s.Server == nil {
					t.Fatalf("%s: imported without a server", s.Source)
				}
				items = append(items, s.Server)
			case NoRemotes, Invalid:
				if s.Server != nil || s.Reason == "" {
					t.Fatalf("%s: %s with server %v, reason %q", s.Source, s.Status, s.Server != nil, s.Reason)
				}
			default:
				t.Fatalf("%s: status %q", s.Source, s.Status)
			}
			if strings.ContainsAny(s.Reason, "\n\r") {
				t.Fatalf("%s: reason on several lines: %q", s.Source, s.Reason)
			}
		}
		out, err := serversYAML(list)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("the YAML does not parse: %v\n%s", err, out)
		}
		got, _ := doc["servers"].([]any)
		if len(got) != len(items) {
			t.Fatalf("%d servers in the YAML, %d imported", len(got), len(items))
		}
	})
}
