package discovery

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/signpost-dev/signpost/build/spec"
)

// Paths of the files these tests read, relative to this package's folder.
var (
	// serversSchemaDir holds the schemas of this change: mcp-catalog,
	// ai-catalog, mcp-server-card-draft and the two fragments.
	serversSchemaDir = filepath.Join("..", "..", "schemas")
	// serversDeclarationsSchemaPath and serversConfigSchemaPath are the
	// schemas the fragments are spliced into.
	serversDeclarationsSchemaPath = filepath.Join("..", "..", "schemas", "declarations.schema.json")
	serversConfigSchemaPath       = filepath.Join("..", "..", "schemas", "config.schema.json")
)

const serversSchemaIDPrefix = "https://signpost-dev.github.io/signpost/schemas/v1/"

// serversSchemaNames are the schemas of this change, in serversSchemaDir.
var serversSchemaNames = []string{"servers-fragment", "discovery-fragment", "mcp-catalog", "ai-catalog", "mcp-server-card-draft"}

// srvTJSON decodes a JSON literal the way the loader produces values.
func srvTJSON(t testing.TB, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// srvTDeclare decodes a server item and declares it, as the loader does.
func srvTDeclare(item any) (*Server, []Problem) {
	d := DecodeDecl(item)
	return Declare(&d)
}

// srvTBase is a valid local server with only the required fields.
const srvTBase = `{"name": "com.example/weather", "version": "1.4.0", "description": "Forecasts and alerts."}`

// srvTWith returns srvTBase with the members of patch set (a null member is
// removed).
func srvTWith(t testing.TB, patch string) map[string]any {
	t.Helper()
	m := srvTJSON(t, srvTBase).(map[string]any)
	for k, v := range srvTJSON(t, patch).(map[string]any) {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

// srvTFill is hex filler: letters and digits, varied, no placeholder words.
func srvTFill(seed string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		h := sha256.Sum256([]byte(fmt.Sprint(seed, i)))
		b.WriteString(hex.EncodeToString(h[:]))
	}
	return b.String()[:n]
}

// srvTFull is a server with every field.
const srvTFull = `{
  "name": "com.example/weather",
  "version": "1.4.0",
  "description": "  Forecasts and alerts.\n",
  "title": "Weather",
  "websiteUrl": "https://example.com/weather",
  "repository": {"url": "https://github.com/example/weather", "source": "github", "subfolder": "servers/weather", "id": "abc"},
  "icons": [{"src": "https://example.com/weather.svg", "mimeType": "image/svg+xml", "sizes": ["any"], "theme": "light"}],
  "remotes": [
    {
      "type": "streamable-http",
      "url": "https://mcp.example.com/weather/{region}",
      "headers": [
        {"name": "Authorization", "description": "Bearer token from the portal", "isRequired": true, "isSecret": true,
         "value": "Bearer {token}", "variables": {"token": {"description": "Token from the portal", "isRequired": true, "isSecret": true}}},
        {"name": "X-Units", "description": "Units", "choices": ["metric", "imperial"], "default": "metric", "format": "string", "placeholder": "metric"}
      ],
      "variables": {"region": {"description": "Data region", "default": "eu", "choices": ["eu", "us"]}},
      "supportedProtocolVersions": ["2025-06-18", "2025-11-25"]
    },
    {"type": "sse", "url": "http://localhost:8080/sse"}
  ],
  "packages": [
    {
      "registryType": "npm", "registryBaseUrl": "https://registry.npmjs.org", "identifier": "@example/weather-mcp", "version": "1.4.0",
      "runtimeHint": "npx", "transport": {"type": "stdio"},
      "runtimeArguments": [{"type": "named", "name": "-y"}],
      "packageArguments": [{"type": "positional", "value": "--units={units}", "variables": {"units": {"choices": ["metric", "imperial"]}}}],
      "environmentVariables": [{"name": "WEATHER_TOKEN", "description": "Token", "isSecret": true, "isRequired": true}]
    }
  ],
  "_meta": {"com.example/owner": "weather-team", "com.example/tier": {"level": 2}},
  "card": {"draftPath": "/.well-known/mcp/servers/com.example/weather.json", "v1Path": "/cards/weather.json"}
}`

func TestDecodeServerFull(t *testing.T) {
	item := srvTJSON(t, srvTFull).(map[string]any)
	s, ps := srvTDeclare(item)
	if ps != nil {
		t.Fatalf("problems: %v", ps)
	}
	want := &Server{
		Name:        "com.example/weather",
		Version:     "1.4.0",
		Description: "Forecasts and alerts.",
		Title:       "Weather",
		WebsiteURL:  "https://example.com/weather",
		Repository:  item["repository"].(map[string]any),
		Icons:       item["icons"].([]any),
		Remotes:     item["remotes"].([]any),
		Meta:        item["_meta"].(map[string]any),
		Packages:    item["packages"].([]any),
		Locals: []*Package{{
			RegistryType: Str{Value: "npm", Set: true}, RegistryBaseURL: Str{Value: "https://registry.npmjs.org", Set: true},
			Identifier: Str{Value: "@example/weather-mcp", Set: true}, Version: Str{Value: "1.4.0", Set: true},
			RuntimeHint: Str{Value: "npx", Set: true}, HasTransport: true, TransportType: Str{Value: "stdio", Set: true},
			RuntimeArguments: []*Argument{{Type: Str{Value: "named", Set: true}, Name: Str{Value: "-y", Set: true}}},
			PackageArguments: []*Argument{{
				Type: Str{Value: "positional", Set: true}, Input: Input{Value: Str{Value: "--units={units}", Set: true}},
				Variables: []Var{{Name: "units", Input: &Input{HasChoices: true, Choices: []Str{{Value: "metric", Set: true}, {Value: "imperial", Set: true}}}}},
			}},
			EnvironmentVariables: []*Header{{
				Name:  Str{Value: "WEATHER_TOKEN", Set: true},
				Input: Input{IsSecret: true, IsRequired: true, Description: Str{Value: "Token", Set: true}},
			}},
		}},
		Endpoints: []*Remote{
			{
				Type: Str{Value: "streamable-http", Set: true},
				URL:  Str{Value: "https://mcp.example.com/weather/{region}", Set: true},
				Variables: []Var{{Name: "region", Input: &Input{
					Description: Str{Value: "Data region", Set: true},
					Default:     Str{Value: "eu", Set: true}, HasChoices: true,
					Choices: []Str{{Value: "eu", Set: true}, {Value: "us", Set: true}},
				}}},
				Headers: []*Header{
					{
						Name:      Str{Value: "Authorization", Set: true},
						Input:     Input{IsSecret: true, IsRequired: true, Value: Str{Value: "Bearer {token}", Set: true}, Description: Str{Value: "Bearer token from the portal", Set: true}},
						Variables: []Var{{Name: "token", Input: &Input{IsSecret: true, IsRequired: true, Description: Str{Value: "Token from the portal", Set: true}}}},
					},
					{
						Name: Str{Value: "X-Units", Set: true},
						Input: Input{
							Description: Str{Value: "Units", Set: true},
							Default:     Str{Value: "metric", Set: true}, HasChoices: true,
							Choices: []Str{{Value: "metric", Set: true}, {Value: "imperial", Set: true}},
						},
					},
				},
			},
			{Type: Str{Value: "sse", Set: true}, URL: Str{Value: "http://localhost:8080/sse", Set: true}},
		},
		DraftPath: "/.well-known/mcp/servers/com.example/weather.json",
		V1Path:    "/cards/weather.json",
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}

func TestDecodeServerDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		item string
		want *Server
	}{
		{"local server gets the default card paths", srvTBase, &Server{
			Name: "com.example/weather", Version: "1.4.0", Description: "Forecasts and alerts.",
			DraftPath: "/.well-known/mcp/servers/com.example/weather.json",
			V1Path:    "/.well-known/mcp/server-cards/com.example/weather.json",
		}},
		{"one declared path, one default", `{"name": "com.example/weather", "version": "1", "description": "d", "card": {"v1Path": "/w.json"}}`, &Server{
			Name: "com.example/weather", Version: "1", Description: "d",
			DraftPath: "/.well-known/mcp/servers/com.example/weather.json", V1Path: "/w.json",
		}},
		{"cross-host server: draft media type by default, version optional", `{"name": "org.acme/support", "cardUrl": "https://mcp-host.example.net/acme/support/.well-known/mcp-server-card"}`, &Server{
			Name: "org.acme/support", CardURL: "https://mcp-host.example.net/acme/support/.well-known/mcp-server-card",
			CardMediaType: spec.ContentTypeServerCardDraft,
		}},
		{"cross-host server with a v1 card, version and description", `{"name": "org.acme/support", "version": "2.0.0", "description": "Support desk.", "cardUrl": "https://h.example.net/c.json", "cardMediaType": "application/mcp-server-card+json"}`, &Server{
			Name: "org.acme/support", Version: "2.0.0", Description: "Support desk.", CardURL: "https://h.example.net/c.json",
			CardMediaType: spec.ContentTypeServerCardV1,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ps := srvTDeclare(srvTJSON(t, tc.item))
			if ps != nil {
				t.Fatalf("problems: %v", ps)
			}
			if diff := cmp.Diff(tc.want, s); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeServerRules(t *testing.T) {
	ghToken := "ghp_" + srvTFill("gh", 36)
	bearer := srvTFill("bearer", 40)
	apiKey := srvTFill("apikey", 32)
	type P = Problem
	const secretValue = "a secret input must not carry a value: clients prompt for it"
	const secretHeaderValue = secretValue + `; put the secret in a variable, as in "Bearer {token}"`
	const secretDefault = "a secret input must not carry a default: clients prompt for it"
	remote := func(url, vars string) string {
		if vars == "" {
			return fmt.Sprintf(`{"remotes": [{"type": "streamable-http", "url": %q}]}`, url)
		}
		return fmt.Sprintf(`{"remotes": [{"type": "streamable-http", "url": %q, "variables": %s}]}`, url, vars)
	}
	header := func(h string) string {
		return `{"remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/mcp", "headers": [` + h + `]}]}`
	}
	pkg := func(fields string) string {
		return `{"packages": [{` + fields + `, "transport": {"type": "stdio"}}]}`
	}
	for _, tc := range []struct {
		name  string
		patch string // applied to srvTBase
		want  []P
	}{
		// The base and the full server are valid.
		{"minimal", `{}`, nil},

		// Required fields and the name.
		{"missing name", `{"name": null}`, []P{{"", `missing required field "name"`}}},
		{"missing version and description", `{"version": null, "description": null}`, []P{
			{"", `missing required field "description"`}, {"", `missing required field "version"`}}},
		{"name without a slash", `{"name": "weather"}`, []P{{"/name", `name "weather" must be reverse-DNS/name, such as com.example/weather: letters, digits, '.' and '-', one '/', then letters, digits, '.', '_' and '-'`}}},
		{"name with two slashes", `{"name": "com.example/a/b"}`, []P{{"/name", `name "com.example/a/b" must be reverse-DNS/name, such as com.example/weather: letters, digits, '.' and '-', one '/', then letters, digits, '.', '_' and '-'`}}},
		{"name too long", `{"name": "com.example/` + strings.Repeat("a", 189) + `"}`, []P{{"/name", `name "com.example/` + strings.Repeat("a", 189) + `" must be 3 to 200 characters long`}}},
		{"name of 200 characters", `{"name": "com.example/` + strings.Repeat("a", 188) + `"}`, nil},
		{"name of the wrong type", `{"name": 7}`, []P{{"/name", "must be a string, got a number"}}},

		// Versions: exact ones pass, ranges and tags do not.
		{"version with pre-release", `{"version": "2.1.0-alpha.1"}`, nil},
		{"version with build metadata", `{"version": "1.0.0+build.5"}`, nil},
		{"version pre-release x", `{"version": "1.0.0-x"}`, nil},
		{"version non-semantic", `{"version": "2024.06.01"}`, nil},
		{"version two parts", `{"version": "1.2"}`, nil},
		{"version with v", `{"version": "v2"}`, nil},
		{"version caret", `{"version": "^1.2"}`, []P{{"/version", `version "^1.2" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version tilde", `{"version": "~1.2"}`, []P{{"/version", `version "~1.2" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version at least", `{"version": ">=1"}`, []P{{"/version", `version ">=1" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version less than", `{"version": "<2.0.0"}`, []P{{"/version", `version "<2.0.0" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version equals", `{"version": "=1.0.0"}`, []P{{"/version", `version "=1.0.0" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version 1.x", `{"version": "1.x"}`, []P{{"/version", `version "1.x" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version 1.2.X", `{"version": "1.2.X"}`, []P{{"/version", `version "1.2.X" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version 1.*", `{"version": "1.*"}`, []P{{"/version", `version "1.*" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version star", `{"version": "*"}`, []P{{"/version", `version "*" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version latest", `{"version": "latest"}`, []P{{"/version", `version "latest" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version hyphen range", `{"version": "1.2 - 1.4"}`, []P{{"/version", `version "1.2 - 1.4" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version alternatives", `{"version": "1.0.0||2.0.0"}`, []P{{"/version", `version "1.0.0||2.0.0" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"version empty", `{"version": ""}`, []P{{"/version", "version must not be empty: give the exact version the server runs, such as 1.4.0"}}},

		// Description and title: characters, not bytes.
		{"description of 100 two-byte characters", `{"description": "` + strings.Repeat("é", 100) + `"}`, nil},
		{"description of 101 characters", `{"description": "` + strings.Repeat("é", 101) + `"}`, []P{{"/description", "description is 101 characters long; a server card allows at most 100"}}},
		{"description trimmed to 100", `{"description": "  ` + strings.Repeat("a", 100) + `\n"}`, nil},
		{"description blank", `{"description": "   "}`, []P{{"/description", "description must not be blank"}}},
		{"title too long", `{"title": "` + strings.Repeat("t", 101) + `"}`, []P{{"/title", "title is 101 characters long; a server card allows at most 100"}}},

		// Remote URLs.
		{"remote https", remote("https://mcp.example.com/mcp", ""), nil},
		{"remote http localhost", remote("http://localhost:8080/mcp", ""), nil},
		{"remote http 127.0.0.0/8", remote("http://127.1.2.3/mcp", ""), nil},
		{"remote http ::1", remote("http://[::1]:9000/mcp", ""), nil},
		{"remote http *.localhost, any case", remote("http://Dev.LOCALHOST:9000/mcp", ""), nil},
		{"remote http localhost lookalike", remote("http://localhost.example.com/mcp", ""), []P{{"/remotes/0/url", `url "http://localhost.example.com/mcp" must use https: plain http is only for loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1)`}}},
		{"remote http elsewhere", remote("http://mcp.example.com/mcp", ""), []P{{"/remotes/0/url", `url "http://mcp.example.com/mcp" must use https: plain http is only for loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1)`}}},
		{"remote http with a variable host", remote("http://{host}/mcp", `{"host": {"default": "localhost"}}`), []P{{"/remotes/0/url", `url "http://{host}/mcp" must use https: plain http is only for loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1)`}}},
		{"remote other scheme", remote("ftp://mcp.example.com/mcp", ""), []P{{"/remotes/0/url", `url "ftp://mcp.example.com/mcp" must be an absolute https URL`}}},
		{"remote scheme from a variable", remote("{base}/mcp", `{"base": {"default": "https://mcp.example.com"}}`), []P{{"/remotes/0/url", `url "{base}/mcp" must start with https://: a variable cannot stand for the scheme and host`}}},
		{"remote with a space", remote("https://mcp.example.com/a b", ""), []P{{"/remotes/0/url", `url "https://mcp.example.com/a b" must not contain whitespace`}}},
		{"remote user information", remote("https://user@mcp.example.com/mcp", ""), []P{{"/remotes/0/url", `url "https://…@mcp.example.com/mcp" must not carry user information (user:password@)`}}},
		{"remote templated host and port", remote("https://{tenant}.example.com:{port}/mcp", `{"tenant": {}, "port": {"default": "443"}}`), nil},

		// URL templates and variables.
		{"remote variable undeclared", remote("https://mcp.example.com/{region}", ""), []P{{"/remotes/0/url", "url uses {region}, but variables does not declare it"}}},
		{"remote variable unused", remote("https://mcp.example.com/mcp", `{"region": {"default": "eu"}}`), []P{{"/remotes/0/variables/region", `variable "region" is not used in url: use it as {region} or remove it`}}},
		{"remote variable with a bad name", remote("https://mcp.example.com/mcp", `{"a-b": {}}`), []P{{"/remotes/0/variables/a-b", `variable name "a-b" must be letters, digits and _, not starting with a digit`}}},
		{"header variable with a bad name", header(`{"name": "X-Team", "value": "x", "variables": {"1x": {}}}`), []P{{"/remotes/0/headers/0/variables/1x", `variable name "1x" must be letters, digits and _, not starting with a digit`}}},
		{"remote variable used twice", remote("https://{r}.example.com/{r}", `{"r": {}}`), nil},
		{"remote bad placeholder", remote("https://mcp.example.com/{a-b}", ""), []P{{"/remotes/0/url", `url "https://mcp.example.com/{a-b}" has "{" or "}" outside a {variable} reference: a variable name is letters, digits and _, not starting with a digit`}}},
		{"remote unmatched brace", remote("https://mcp.example.com/a}", ""), []P{{"/remotes/0/url", `url "https://mcp.example.com/a}" has "{" or "}" outside a {variable} reference: a variable name is letters, digits and _, not starting with a digit`}}},
		{"header value variable undeclared", header(`{"name": "X-Team", "value": "team-{team}"}`), []P{{"/remotes/0/headers/0/value", "value uses {team}, but this header's variables does not declare it"}}},
		{"header value variable unused", header(`{"name": "X-Team", "value": "x", "variables": {"team": {}}}`), []P{{"/remotes/0/headers/0/variables/team", `variable "team" is not used in value: use it as {team} or remove it`}}},
		{"header variables without value", header(`{"name": "X-Team", "variables": {"team": {}}}`), []P{{"/remotes/0/headers/0/variables/team", `variable "team" is not used in value: use it as {team} or remove it`}}},
		{"header value bad placeholder", header(`{"name": "X-Team", "value": "{team"}`), []P{{"/remotes/0/headers/0/value", `value has "{" or "}" outside a {variable} reference: a variable name is letters, digits and _, not starting with a digit`}}},
		{"header declared twice", header(`{"name": "X-Team"}, {"name": "x-team"}`), []P{{"/remotes/0/headers/1/name", `header "x-team" is already declared by header 0 of this remote: declare each header once`}}},

		// Secret inputs.
		{"secret header prompted", header(`{"name": "Authorization", "isSecret": true}`), nil},
		{"secret header with a template", header(`{"name": "Authorization", "isSecret": true, "value": "Bearer {token}", "variables": {"token": {"isSecret": true}}}`), nil},
		{"secret header with a partly fixed template", header(`{"name": "Authorization", "isSecret": true, "value": "{scheme} {token}", "variables": {"scheme": {"default": "Bearer"}, "token": {}}}`), nil},
		{"secret header with a literal value", header(`{"name": "X-Key", "isSecret": true, "value": "k"}`), []P{{"/remotes/0/headers/0/value", secretHeaderValue}}},
		{"secret header whose template is all filled in", header(`{"name": "X-Key", "isSecret": true, "value": "{a}", "variables": {"a": {"default": "k"}}}`), []P{{"/remotes/0/headers/0/value", secretHeaderValue}}},
		{"secret header whose variable has choices", header(`{"name": "X-Key", "isSecret": true, "value": "{a}", "variables": {"a": {"choices": ["k1", "k2"]}}}`), []P{{"/remotes/0/headers/0/value", secretHeaderValue}}},
		{"secret header with a default", header(`{"name": "X-Key", "isSecret": true, "default": "k"}`), []P{{"/remotes/0/headers/0/default", secretDefault}}},
		{"secret header with choices", header(`{"name": "X-Key", "isSecret": true, "choices": ["k1"]}`), []P{{"/remotes/0/headers/0/choices", "a secret input must not list choices: they would publish the secret"}}},
		{"secret header variable with a value", header(`{"name": "Authorization", "isSecret": true, "value": "Bearer {token}", "variables": {"token": {"isSecret": true, "value": "t"}}}`), []P{
			{"/remotes/0/headers/0/value", secretHeaderValue},
			{"/remotes/0/headers/0/variables/token/value", secretValue}}},
		{"secret url variable with a default", remote("https://mcp.example.com/{key}", `{"key": {"isSecret": true, "default": "k"}}`), []P{{"/remotes/0/variables/key/default", secretDefault}}},
		{"secret url variable with a value", remote("https://mcp.example.com/{key}", `{"key": {"isSecret": true, "value": "k"}}`), []P{{"/remotes/0/variables/key/value", secretValue}}},

		// Credential headers that are not marked secret.
		{"authorization template", header(`{"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {}}}`), nil},
		{"authorization literal", header(`{"name": "authorization", "value": "Token abc"}`), []P{{"/remotes/0/headers/0/value", `header "authorization" must not carry a literal credential: put the secret in a variable, as in "Bearer {token}", and mark the header isSecret`}}},
		{"cookie default", header(`{"name": "Cookie", "default": "session=1"}`), []P{{"/remotes/0/headers/0/default", `header "Cookie" must not have a default: clients prompt for the credential`}}},

		// Credential material.
		{"bearer token in a header value", header(`{"name": "Authorization", "value": "Bearer ` + bearer + `"}`), []P{{"/remotes/0/headers/0/value", "contains an HTTP Bearer credential (" + bearer[:4] + "…): remove it; published documents are public"}}},
		{"bearer token in a secret header value", header(`{"name": "Authorization", "isSecret": true, "value": "Bearer ` + bearer + `"}`), []P{{"/remotes/0/headers/0/value", "contains an HTTP Bearer credential (" + bearer[:4] + "…): remove it; published documents are public"}}},
		{"API key in an X-API-Key value", header(`{"name": "X-API-Key", "value": "` + apiKey + `"}`), []P{{"/remotes/0/headers/0/value", `value of header "X-API-Key" looks like a credential: remove it; published documents are public`}}},
		{"API key in a variable default", remote("https://mcp.example.com/{api_key}", `{"api_key": {"default": "`+apiKey+`"}}`), []P{{"/remotes/0/variables/api_key/default", `default of variable "api_key" looks like a credential: remove it; published documents are public`}}},
		{"API key among choices", remote("https://mcp.example.com/{token}", `{"token": {"choices": ["`+apiKey+`"]}}`), []P{{"/remotes/0/variables/token/choices/0", `a choice of variable "token" looks like a credential: remove it; published documents are public`}}},
		{"secret-named variable with a placeholder default", remote("https://mcp.example.com/{token}", `{"token": {"default": "your-token"}}`), nil},
		// A variable is judged by what its value becomes a part of, too: a
		// credential's query parameter or header, whatever it is called.
		{"API key in the default of a query's variable", remote("https://mcp.example.com/mcp?access_token={t}", `{"t": {"default": "`+apiKey+`"}}`), []P{{"/remotes/0/variables/t/default", `default of variable "t", which fills "access_token", looks like a credential: remove it; published documents are public`}}},
		{"API key in the default of an Authorization variable", header(`{"name": "Authorization", "value": "Bearer {b}", "variables": {"b": {"default": "` + apiKey + `"}}}`), []P{{"/remotes/0/headers/0/variables/b/default", `default of variable "b", which fills "Authorization", looks like a credential: remove it; published documents are public`}}},
		{"API key in the value of an X-Api-Key variable", header(`{"name": "X-Api-Key", "value": "{k}", "variables": {"k": {"value": "` + apiKey + `"}}}`), []P{{"/remotes/0/headers/0/variables/k/value", `value of variable "k", which fills "X-Api-Key", looks like a credential: remove it; published documents are public`}}},
		{"a query's variable whose parameter holds no credential", remote("https://mcp.example.com/mcp?region={r}", `{"r": {"default": "`+apiKey+`"}}`), nil},
		{"an Authorization scheme in a variable", header(`{"name": "Authorization", "value": "{scheme} {token}", "variables": {"scheme": {"default": "Bearer"}, "token": {}}}`), nil},
		{"GitHub token in the description", `{"description": "use ` + ghToken + `"}`, []P{{"/description", "contains a GitHub token (ghp_…): remove it; published documents are public"}}},
		{"GitHub token in _meta", `{"_meta": {"com.example/ci": {"token": "` + ghToken + `"}}}`, []P{{"/_meta/com.example~1ci/token", "looks like a GitHub token (ghp_…): remove it; published documents are public"}}},
		{"password in the website URL", `{"websiteUrl": "https://admin:` + srvTFill("pw", 12) + `@example.com/"}`, []P{{"/websiteUrl", "looks like a URL with a password (host example.com): remove it; published documents are public"}}},

		// Repository and _meta.
		{"subfolder clean", `{"repository": {"url": "https://github.com/e/w", "source": "github", "subfolder": "a/b"}}`, nil},
		{"subfolder escapes", `{"repository": {"url": "https://github.com/e/w", "source": "github", "subfolder": "../b"}}`, []P{{"/repository/subfolder", `subfolder "../b" must be a clean relative path inside the repository, such as servers/weather`}}},
		{"subfolder absolute", `{"repository": {"url": "https://github.com/e/w", "source": "github", "subfolder": "/b"}}`, []P{{"/repository/subfolder", `subfolder "/b" must be a clean relative path inside the repository, such as servers/weather`}}},
		{"subfolder unclean", `{"repository": {"url": "https://github.com/e/w", "source": "github", "subfolder": "a//b/"}}`, []P{{"/repository/subfolder", `subfolder "a//b/" must be a clean relative path inside the repository, such as servers/weather`}}},
		{"_meta keys", `{"_meta": {"com.example/owner": 1, "plain": 2, "com.example/": 3, "com.example.mcp/ok": 4}}`, nil},
		{"_meta reserved prefix", `{"_meta": {"io.modelcontextprotocol.registry/official": {}, "tools.MCP.com/x": 1}}`, []P{
			{"/_meta/io.modelcontextprotocol.registry~1official", `_meta key "io.modelcontextprotocol.registry/official" uses the prefix "io.modelcontextprotocol.registry/", which MCP reserves: use a prefix of your own domain, such as com.example/`},
			{"/_meta/tools.MCP.com~1x", `_meta key "tools.MCP.com/x" uses the prefix "tools.MCP.com/", which MCP reserves: use a prefix of your own domain, such as com.example/`}}},
		{"_meta bad key", `{"_meta": {"-com.example/x": 1}}`, []P{{"/_meta/-com.example~1x", `_meta key "-com.example/x" must be NAME or PREFIX/NAME, such as com.example/owner: PREFIX is dot-separated labels of letters, digits and '-', NAME letters, digits, '.', '_' and '-', each starting and ending with a letter or digit`}}},

		// Card paths.
		{"card paths", `{"card": {"draftPath": "/mcp/weather~1.json", "v1Path": "/.well-known/mcp/server-cards/w.json"}}`, nil},
		{"card path relative", `{"card": {"draftPath": "w.json"}}`, []P{{"/card/draftPath", `draftPath "w.json" must be absolute: start it with /`}}},
		{"card path with a query", `{"card": {"draftPath": "/w.json?x=1"}}`, []P{{"/card/draftPath", `draftPath "/w.json?x=1" must not have a query or a fragment`}}},
		{"card path not .json", `{"card": {"v1Path": "/w"}}`, []P{{"/card/v1Path", `v1Path "/w" must end in .json`}}},
		{"card path with ..", `{"card": {"v1Path": "/a/../w.json"}}`, []P{{"/card/v1Path", `v1Path "/a/../w.json" must not have "." or ".." segments`}}},
		{"card path with .", `{"card": {"v1Path": "/./w.json"}}`, []P{{"/card/v1Path", `v1Path "/./w.json" must not have "." or ".." segments`}}},
		{"card path of the manifest", `{"card": {"v1Path": "/.signpost-manifest.json"}}`, []P{{"/card/v1Path", `v1Path "/.signpost-manifest.json" must not have a segment starting with .signpost-: publish keeps its own objects under such names`}}},
		{"card path in the reserved names", `{"card": {"draftPath": "/cards/.SIGNPOST-404.json"}}`, []P{{"/card/draftPath", `draftPath "/cards/.SIGNPOST-404.json" must not have a segment starting with .signpost-: publish keeps its own objects under such names`}}},
		{"card path with //", `{"card": {"v1Path": "//w.json"}}`, []P{{"/card/v1Path", `v1Path "//w.json" must not have empty segments (//)`}}},
		{"card path with an escape", `{"card": {"v1Path": "/a%20b.json"}}`, []P{{"/card/v1Path", `v1Path "/a%20b.json" may have only letters, digits, '.', '_', '-' and '~' between its slashes`}}},
		{"default card path from a .. namespace", `{"name": "../weather"}`, []P{
			{"/name", `the default draft card path "/.well-known/mcp/servers/../weather.json" must not have "." or ".." segments: set card.draftPath`},
			{"/name", `the default v1 card path "/.well-known/mcp/server-cards/../weather.json" must not have "." or ".." segments: set card.v1Path`}}},
		{"declared paths make a .. namespace publishable", `{"name": "../weather", "card": {"draftPath": "/a.json", "v1Path": "/b.json"}}`, nil},

		// Cross-host servers.
		{"cross-host minimal", `{"version": null, "description": null, "cardUrl": "https://h.example.net/card"}`, nil},
		{"cross-host loopback http", `{"cardUrl": "http://127.0.0.1:8080/card"}`, nil},
		{"cross-host http", `{"cardUrl": "http://h.example.net/card"}`, []P{{"/cardUrl", `cardUrl "http://h.example.net/card" must use https: plain http is only for loopback hosts (localhost, *.localhost, 127.0.0.0/8, ::1)`}}},
		{"cross-host URL not I-JSON", `{"cardUrl": "https://vendor.example.net/\ufdd0"}`, []P{{"/cardUrl", `cardUrl "https://vendor.example.net/\ufdd0" has the noncharacter U+FDD0 at byte 27, which I-JSON forbids: the AI catalog that lists it must be valid input to JSON canonicalization (RFC 8785), which takes I-JSON only; write the URL in ASCII, percent-encoding what is not`}}},
		{"cross-host placeholder", `{"cardUrl": "https://{host}/card"}`, []P{{"/cardUrl", `cardUrl "https://{host}/card" must not contain {placeholders}: clients fetch it as it is`}}},
		{"cross-host not a URL", `{"cardUrl": "card.json"}`, []P{{"/cardUrl", `cardUrl "card.json" must be an absolute https URL`}}},
		{"cross-host with card paths", `{"cardUrl": "https://h.example.net/card", "card": {"v1Path": "/x.json"}}`, []P{{"/card", "card cannot be set on a server with cardUrl: its card is served by another host"}}},
		{"cross-host with local-card fields", `{"cardUrl": "https://h.example.net/card", "title": "T", "remotes": [], "_meta": {}}`, []P{
			{"/_meta", "_meta cannot be set on a server with cardUrl: its card is served by another host"},
			{"/remotes", "remotes cannot be set on a server with cardUrl: its card is served by another host"},
			{"/title", "title cannot be set on a server with cardUrl: its card is served by another host"}}},
		{"cross-host version is still exact", `{"version": "^2", "cardUrl": "https://h.example.net/card"}`, []P{{"/version", `version "^2" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`}}},
		{"cross-host media type", `{"cardUrl": "https://h.example.net/card", "cardMediaType": "application/json"}`, []P{{"/cardMediaType", `cardMediaType "application/json" must be application/mcp-server+json or application/mcp-server-card+json`}}},
		{"media type without cardUrl", `{"cardMediaType": "application/mcp-server+json"}`, []P{{"/cardMediaType", "cardMediaType needs cardUrl: it is the media type of a card another host serves"}}},

		// Packages.
		{"npm package", pkg(`"registryType": "npm", "identifier": "@example/w", "version": "1.4.0"`), nil},
		{"packages only, no remote", `{"remotes": null, "packages": [{"registryType": "pypi", "identifier": "w", "version": "2.0.0", "transport": {"type": "stdio"}}]}`, nil},
		{"npm without version", pkg(`"registryType": "npm", "identifier": "@example/w"`), []P{{"/packages/0", `missing required field "version": a npm package runs the version given, and without one clients run whatever is newest`}}},
		{"package version range", pkg(`"registryType": "pypi", "identifier": "w", "version": ">=1"`), []P{{"/packages/0/version", `version ">=1" is a range or a tag, not an exact version: give the version clients run, such as 1.4.0`}}},
		{"package version latest", pkg(`"registryType": "nuget", "identifier": "W", "version": "latest"`), []P{{"/packages/0/version", `version "latest" is a range or a tag, not an exact version: give the version clients run, such as 1.4.0`}}},
		{"oci tag in identifier", pkg(`"registryType": "oci", "identifier": "ghcr.io/example/w:1.4.0"`), nil},
		{"oci digest", pkg(`"registryType": "oci", "identifier": "ghcr.io/example/w@sha256:` + strings.Repeat("ab", 32) + `"`), nil},
		{"oci version", pkg(`"registryType": "oci", "identifier": "localhost:5000/w", "version": "1.4.0"`), nil},
		{"oci without tag", pkg(`"registryType": "oci", "identifier": "localhost:5000/w"`), []P{{"/packages/0/identifier", `identifier "localhost:5000/w" names no tag or digest: add one, as in localhost:5000/w:1.4.0, or give version`}}},
		{"oci latest", pkg(`"registryType": "oci", "identifier": "w:latest"`), []P{{"/packages/0/identifier", `identifier "w:latest" is tagged latest, which is not one image: give the tag of the image clients run, such as 1.4.0`}}},
		{"oci tag and version", pkg(`"registryType": "oci", "identifier": "w:1", "version": "1"`), []P{{"/packages/0/version", `version is set, and identifier "w:1" already carries the tag or digest "1": give one of them`}}},
		{"mcpb", pkg(`"registryType": "mcpb", "identifier": "https://example.com/w.mcpb", "fileSha256": "` + strings.Repeat("0a", 32) + `"`), nil},
		{"mcpb without hash, over http", pkg(`"registryType": "mcpb", "identifier": "http://example.com/w.mcpb"`), []P{
			{"/packages/0", `missing required field "fileSha256": clients check an mcpb bundle against its SHA-256`},
			{"/packages/0/identifier", `identifier "http://example.com/w.mcpb" must be the https URL of the bundle`}}},
		{"unknown registry type", pkg(`"registryType": "cargo", "identifier": "w", "version": "1"`), []P{{"/packages/0/registryType", `registryType "cargo" must be npm, pypi, oci, nuget or mcpb`}}},
		{"no transport", `{"packages": [{"registryType": "npm", "identifier": "w", "version": "1"}]}`, []P{{"/packages/0", `missing required field "transport": {type: stdio} for a server that speaks over standard input and output`}}},
		{"http transport without url", `{"packages": [{"registryType": "npm", "identifier": "w", "version": "1", "transport": {"type": "sse"}}]}`, []P{{"/packages/0/transport", `missing required field "url": where the package, once running, serves sse`}}},
		{"stdio with url", `{"packages": [{"registryType": "npm", "identifier": "w", "version": "1", "transport": {"type": "stdio", "url": "http://localhost:1/"}}]}`, []P{{"/packages/0/transport/url", "a stdio transport has no url"}}},
		{"http transport with a password", `{"packages": [{"registryType": "npm", "identifier": "w", "version": "1", "transport": {"type": "streamable-http", "url": "http://svc:MySecretPass99@localhost:{port}/mcp"}}]}`, []P{
			{"/packages/0/transport/url", `url "http://…@localhost:{port}/mcp" must not carry user information (user:password@): put a credential in a header clients prompt for`}}},
		{"http transport with a port variable", `{"packages": [{"registryType": "npm", "identifier": "w", "version": "1", "transport": {"type": "streamable-http", "url": "http://localhost:{port}/mcp"}}]}`, nil},
		{"arguments", pkg(`"registryType": "npm", "identifier": "w", "version": "1", "packageArguments": [
			{"type": "named", "name": "--port", "value": "{port}", "variables": {"port": {"default": "8080"}}},
			{"type": "named"}, {"type": "positional"}, {"type": "positional", "name": "x", "value": "v"}, {"type": "flag"},
			{"type": "positional", "value": "{dir}"}]`), []P{
			{"/packages/0/packageArguments/1", `missing required field "name": the flag, such as --port`},
			{"/packages/0/packageArguments/2", "a positional argument needs a value or a valueHint"},
			{"/packages/0/packageArguments/3/name", "a positional argument has no name: use valueHint to label it"},
			{"/packages/0/packageArguments/4/type", `argument type "flag" must be positional or named`},
			{"/packages/0/packageArguments/5/value", "value uses {dir}, but this argument's variables does not declare it"}}},
		{"secret environment variable with a value", pkg(`"registryType": "npm", "identifier": "w", "version": "1", "environmentVariables": [
			{"name": "W_TOKEN", "isSecret": true, "value": "x", "default": "y"}, {"name": "W_TOKEN"}]`), []P{
			{"/packages/0/environmentVariables/0/default", secretDefault},
			{"/packages/0/environmentVariables/0/value", secretValue},
			{"/packages/0/environmentVariables/1/name", `environment variable "W_TOKEN" is already declared by environment variable 0 of this package: declare each once`}}},
		{"credential in an environment variable", pkg(`"registryType": "npm", "identifier": "w", "version": "1", "environmentVariables": [{"name": "API_KEY", "value": "` + apiKey + `"}]`), []P{
			{"/packages/0/environmentVariables/0/value", `value of environment variable "API_KEY" looks like a credential: remove it; published documents are public`}}},
		{"credential in the variable of an environment variable", pkg(`"registryType": "npm", "identifier": "w", "version": "1", "environmentVariables": [{"name": "API_KEY", "value": "{k}", "variables": {"k": {"default": "` + apiKey + `"}}}]`), []P{
			{"/packages/0/environmentVariables/0/variables/k/default", `default of variable "k", which fills "API_KEY", looks like a credential: remove it; published documents are public`}}},
		{"credential in the variable of an argument", pkg(`"registryType": "npm", "identifier": "w", "version": "1", "packageArguments": [{"type": "named", "name": "--token", "value": "{t}", "variables": {"t": {"default": "` + apiKey + `"}}}]`), []P{
			{"/packages/0/packageArguments/0/variables/t/default", `default of variable "t", which fills "--token", looks like a credential: remove it; published documents are public`}}},
		{"credential in an argument", pkg(`"registryType": "npm", "identifier": "w", "version": "1", "packageArguments": [{"type": "named", "name": "--token", "value": "` + ghToken + `"}]`), []P{
			{"/packages/0/packageArguments/0/value", "looks like a GitHub token (ghp_…): remove it; published documents are public"}}},
		{"cross-host with packages", `{"cardUrl": "https://h.example.net/card", "packages": []}`, []P{{"/packages", "packages cannot be set on a server with cardUrl: its card is served by another host"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := srvTDeclare(srvTWith(t, tc.patch))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeServerNil(t *testing.T) {
	_, got := srvTDeclare(nil)
	want := []Problem{{"", "a server must be an object with at least a name"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestDecodeServerNeverEchoesSecrets: a message about a header or input
// value does not repeat it.
func TestDecodeServerNeverEchoesSecrets(t *testing.T) {
	secret := srvTFill("echo", 40)
	item := srvTWith(t, `{"remotes": [{"type": "sse", "url": "https://m.example.com/", "headers": [
		{"name": "X-Key", "isSecret": true, "value": "`+secret+`", "default": "`+secret+`", "choices": ["`+secret+`"]},
		{"name": "Authorization", "value": "`+secret+`", "default": "`+secret+`"},
		{"name": "X-Other", "value": "{`+secret+`"}]}]}`)
	_, ps := srvTDeclare(item)
	if len(ps) < 5 {
		t.Fatalf("want at least 5 problems, got %v", ps)
	}
	for _, p := range ps {
		if strings.Contains(p.Message, secret[:8]) {
			t.Errorf("%s: message repeats the value: %s", p.Pointer, p.Message)
		}
	}
}

func TestCheckServers(t *testing.T) {
	local := func(name string) *Server {
		s, ps := srvTDeclare(srvTWith(t, `{"name": "`+name+`"}`))
		if ps != nil {
			t.Fatalf("%s: %v", name, ps)
		}
		return s
	}
	withPaths := func(name, draft, v1 string) *Server {
		s := local(name)
		if draft != "" {
			s.DraftPath = draft
		}
		if v1 != "" {
			s.V1Path = v1
		}
		return s
	}
	cross := func(name string) *Server {
		return &Server{Name: name, CardURL: "https://h.example.net/" + name, CardMediaType: spec.ContentTypeServerCardDraft}
	}
	type P = Problem
	for _, tc := range []struct {
		name    string
		servers []*Server
		want    map[int][]P
	}{
		{"distinct servers", []*Server{local("com.example/a"), local("com.example/b"), cross("org.acme/c"), nil}, nil},
		{"same name", []*Server{local("com.example/a"), local("com.example/b"), local("com.example/a")}, map[int][]P{
			2: {{"/name", `server "com.example/a" is already declared: names must be unique, ignoring case`}}}},
		{"same name but for case", []*Server{local("com.example/a"), cross("com.Example/A")}, map[int][]P{
			1: {{"/name", `server "com.Example/A" is already declared as "com.example/a": names must be unique, ignoring case`}}}},
		{"declared path clashes with a default path", []*Server{local("com.example/a"), withPaths("com.example/b", "/.well-known/mcp/servers/com.example/A.json", "")}, map[int][]P{
			1: {{"/card/draftPath", `draft card path "/.well-known/mcp/servers/com.example/A.json" is already the draft card path of server "com.example/a": card paths must be unique, ignoring case`}}}},
		{"draft path of one is the v1 path of another", []*Server{withPaths("com.example/a", "/a.json", "/b.json"), withPaths("com.example/b", "/b.json", "/c.json")}, map[int][]P{
			1: {{"/card/draftPath", `draft card path "/b.json" is already the v1 card path of server "com.example/a": card paths must be unique, ignoring case`}}}},
		{"one server's two cards at one path", []*Server{withPaths("com.example/a", "/a.json", "/A.json")}, map[int][]P{
			0: {{"/card/v1Path", `v1 card path "/A.json" is also this server's draft card path: each card needs a path of its own, since each is served with its own media type`}}}},
		{"reserved routes", []*Server{
			withPaths("com.example/a", "/tools/a.json", "/.well-known/mcp/catalog.json"),
			withPaths("com.example/b", "/.well-known/AI-catalog.json", "/Tools/b.json")}, map[int][]P{
			0: {
				{"/card/draftPath", `draft card path "/tools/a.json" is reserved for the tool catalog`},
				{"/card/v1Path", `v1 card path "/.well-known/mcp/catalog.json" is reserved for the MCP catalog`}},
			1: {
				{"/card/draftPath", `draft card path "/.well-known/AI-catalog.json" is reserved for the AI catalog`},
				{"/card/v1Path", `v1 card path "/Tools/b.json" is reserved for the tool catalog`}}}},
		{"the tool lists' objects", []*Server{withPaths("com.example/a", "/tools.json", "/Tools.compact.json")}, map[int][]P{
			0: {
				{"/card/draftPath", `draft card path "/tools.json" is reserved for the tool catalog`},
				{"/card/v1Path", `v1 card path "/Tools.compact.json" is reserved for the tool catalog`}}}},
		{"the MCP registry's folder", []*Server{withPaths("com.example/a", "/v0.1/servers.json", "/V0.1/x/a.json")}, map[int][]P{
			0: {
				{"/card/draftPath", `draft card path "/v0.1/servers.json" is reserved for the MCP registry`},
				{"/card/v1Path", `v1 card path "/V0.1/x/a.json" is reserved for the MCP registry`}}}},
		{"a path inside another server's path", []*Server{withPaths("com.example/a", "/x/a.json/b.json", ""), withPaths("com.example/b", "/x/a.json", "")}, map[int][]P{
			0: {{"/card/draftPath", `draft card path "/x/a.json/b.json" lies inside the draft card path "/x/a.json" of server "com.example/b": a file cannot also be a folder on static hosts`}}}},
		{"a path inside the same server's path", []*Server{withPaths("com.example/a", "/a.json", "/a.json/v1.json")}, map[int][]P{
			0: {{"/card/v1Path", `v1 card path "/a.json/v1.json" lies inside the draft card path "/a.json" of this server: a file cannot also be a folder on static hosts`}}}},
		{"a path inside a catalog", []*Server{withPaths("com.example/a", "/.well-known/ai-catalog.json/a.json", "")}, map[int][]P{
			0: {{"/card/draftPath", `draft card path "/.well-known/ai-catalog.json/a.json" lies inside /.well-known/ai-catalog.json (the AI catalog): a file cannot also be a folder on static hosts`}}}},
		{"the default path written out points at the name", []*Server{local("com.example/a"), withPaths("com.example/a", "/.well-known/mcp/servers/com.example/a.json", "/z.json")}, map[int][]P{
			1: {{"/name", `server "com.example/a" is already declared: names must be unique, ignoring case`}}}},
		{"the default path written out clashes", []*Server{local("com.example/a"), withPaths("com.example/b", "/.well-known/mcp/servers/com.example/b.json", "/.well-known/mcp/server-cards/com.example/a.json")}, map[int][]P{
			1: {{"/card/v1Path", `v1 card path "/.well-known/mcp/server-cards/com.example/a.json" is already the v1 card path of server "com.example/a": card paths must be unique, ignoring case`}}}},
		{"cross-host servers have no paths", []*Server{cross("com.example/a"), withPaths("com.example/b", "/.well-known/mcp/servers/com.example/a.json", "")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Check("example.com", tc.servers)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// srvTSchemas compiles the schemas of this change, without touching the
// network. A fragment that is not in serversSchemaDir is taken from the
// schema it was spliced into.
type srvTSchemas struct {
	byName map[string]*jsonschema.Schema
	docs   map[string]any
}

func srvTLoadSchemas(t testing.TB) *srvTSchemas {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(srvTNoLoader{})
	add := func(url, file string) any {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := c.AddResource(url, doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		return doc
	}
	out := &srvTSchemas{byName: map[string]*jsonschema.Schema{}, docs: map[string]any{}}
	// Once spliced, a fragment is a part of declarations or config.
	spliced := map[string]string{
		"servers-fragment":   serversSchemaIDPrefix + "declarations.schema.json#/$defs/serverDeclaration",
		"discovery-fragment": serversSchemaIDPrefix + "config.schema.json#/properties/discovery",
	}
	locs := map[string]string{}
	for _, name := range serversSchemaNames {
		f := filepath.Join(serversSchemaDir, name+".schema.json")
		if _, err := os.Stat(f); err != nil && spliced[name] != "" {
			locs[name] = spliced[name]
			continue
		}
		doc := add(serversSchemaIDPrefix+name+".schema.json", f)
		if id, _ := doc.(map[string]any)["$id"].(string); id != serversSchemaIDPrefix+name+".schema.json" {
			t.Errorf("%s: $id %q, want %q", f, id, serversSchemaIDPrefix+name+".schema.json")
		}
		out.docs[name] = doc
		locs[name] = serversSchemaIDPrefix + name + ".schema.json"
	}
	if len(out.docs) < len(serversSchemaNames) {
		add(serversSchemaIDPrefix+"declarations.schema.json", serversDeclarationsSchemaPath)
		add(serversSchemaIDPrefix+"config.schema.json", serversConfigSchemaPath)
	}
	for name, loc := range locs {
		sch, err := c.Compile(loc)
		if err != nil {
			t.Fatalf("compiling %s: %v", name, err)
		}
		out.byName[name] = sch
	}
	return out
}

type srvTNoLoader struct{}

func (srvTNoLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("no network in tests: %s", url)
}

// srvTRoundTrip encodes v and decodes it again, as a client would see it.
func srvTRoundTrip(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return srvTJSON(t, string(b))
}

func srvTValid(t testing.TB, sch *jsonschema.Schema, what string, v any) {
	t.Helper()
	if err := sch.Validate(srvTRoundTrip(t, v)); err != nil {
		t.Errorf("%s is invalid: %v", what, err)
	}
}

// TestServerCards: the cards of a server, held to signpost's own schema of
// the draft card (the corpus suite holds the v1 cards to the official
// schema, TestCorpusServerCardsOfficial).
func TestServerCards(t *testing.T) {
	sch := srvTLoadSchemas(t)
	item := srvTJSON(t, srvTFull).(map[string]any)
	s, ps := srvTDeclare(item)
	if ps != nil {
		t.Fatal(ps)
	}
	// The cards describe remote endpoints: the packages are only in the
	// registry's server.json (ServerDetail).
	wantDraft := srvTJSON(t, srvTFull).(map[string]any)
	delete(wantDraft, "card")
	delete(wantDraft, "packages")
	wantDraft["description"] = "Forecasts and alerts."
	wantV1 := srvTJSON(t, srvTFull).(map[string]any)
	delete(wantV1, "card")
	delete(wantV1, "packages")
	wantV1["description"] = "Forecasts and alerts."
	wantV1["$schema"] = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

	v1, draft := V1Card(s), DraftCard(s)
	if diff := cmp.Diff(wantV1, srvTRoundTrip(t, v1)); diff != "" {
		t.Errorf("V1Card (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantDraft, srvTRoundTrip(t, draft)); diff != "" {
		t.Errorf("DraftCard (-want +got):\n%s", diff)
	}
	srvTValid(t, sch.byName["mcp-server-card-draft"], "draft card against mcp-server-card-draft", draft)
	detail := srvTJSON(t, srvTFull).(map[string]any)
	delete(detail, "card")
	detail["description"] = "Forecasts and alerts."
	detail["$schema"] = spec.ServerJSONSchema
	if diff := cmp.Diff(detail, srvTRoundTrip(t, ServerDetail(s))); diff != "" {
		t.Errorf("ServerDetail (-want +got):\n%s", diff)
	}

	// The minimal card too.
	min, _ := srvTDeclare(srvTWith(t, `{}`))
	srvTValid(t, sch.byName["mcp-server-card-draft"], "minimal draft card", DraftCard(min))
	wantMin := map[string]any{"$schema": serverCardSchemaURI, "name": "com.example/weather", "version": "1.4.0", "description": "Forecasts and alerts."}
	if diff := cmp.Diff(wantMin, V1Card(min)); diff != "" {
		t.Errorf("minimal V1Card (-want +got):\n%s", diff)
	}

	// Cards share nothing with the declaration.
	v1.(map[string]any)["remotes"].([]any)[0].(map[string]any)["url"] = "changed"
	if s.Remotes[0].(map[string]any)["url"] == "changed" {
		t.Error("changing a card changed the server")
	}

	// A cross-host server has no local card.
	c := &Server{Name: "org.acme/support", CardURL: "https://h.example.net/c"}
	if V1Card(c) != nil || DraftCard(c) != nil || V1Card(nil) != nil || DraftCard(nil) != nil {
		t.Error("cards for a cross-host or nil server")
	}
}

// TestServerSchemasStyle: descriptions on every property and definition,
// and closed objects, as in the other schemas of signpost.
func TestServerSchemasStyle(t *testing.T) {
	sch := srvTLoadSchemas(t)
	// Spliced fragments are checked with the schema they joined.
	open := map[string]bool{ // objects whose members are not ours
		"servers-fragment:/properties/_meta":                       true,
		"mcp-server-card-draft:/properties/_meta":                  true,
		"servers-fragment:/$defs/serverVariables":                  true,
		"mcp-server-card-draft:/$defs/remote/properties/variables": true,
		"mcp-server-card-draft:/$defs/header/properties/variables": true,
	}
	for name, doc := range sch.docs {
		root := doc.(map[string]any)
		if root["description"] == nil || root["title"] == nil {
			t.Errorf("%s: no title or description", name)
		}
		var walk func(ptr string, v any, needDesc bool)
		walk = func(ptr string, v any, needDesc bool) {
			m, ok := v.(map[string]any)
			if !ok {
				return
			}
			if needDesc && m["description"] == nil {
				t.Errorf("%s:%s has no description", name, ptr)
			}
			if m["type"] == "object" && m["additionalProperties"] == nil && !open[name+":"+ptr] {
				t.Errorf("%s:%s is an object without additionalProperties", name, ptr)
			}
			for k, sub := range m {
				switch k {
				case "properties", "$defs":
					for pk, pv := range sub.(map[string]any) {
						walk(ptr+"/"+k+"/"+pk, pv, pv != false)
					}
				case "items", "additionalProperties", "propertyNames", "then", "else":
					// Not "if": it only tests, so its subschemas need no description.
					walk(ptr+"/"+k, sub, false)
				}
			}
		}
		walk("", root, true)
	}
}

// TestServersDeterministic: the same declarations give the same bytes,
// whatever their order.
func TestServersDeterministic(t *testing.T) {
	encode := func(servers []*Server) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, v := range []any{
			MCPCatalog("https://example.com", servers),
			AICatalog("https://example.com", "example.com", "Example", servers, &ToolCatalogAd{URL: "https://example.com/tools", Sources: []string{"openapi", "mcp"}}, nil),
		} {
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range servers {
			for _, v := range []any{V1Card(s), DraftCard(s)} {
				if err := enc.Encode(v); err != nil {
					t.Fatal(err)
				}
			}
		}
		return b.Bytes()
	}
	full, _ := srvTDeclare(srvTJSON(t, srvTFull))
	servers := append(srvTCatalogServers(t), full)
	servers[len(servers)-1].Name = "com.example/full"
	// Cards are written per server: order them by name for comparison.
	byName := func(ss []*Server) []byte {
		sorted := slices.Clone(ss)
		slices.SortFunc(sorted, func(a, b *Server) int { return strings.Compare(a.Name, b.Name) })
		return encode(sorted)
	}
	want := byName(servers)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		shuffled := slices.Clone(servers)
		r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		if got := byName(shuffled); !bytes.Equal(got, want) {
			t.Fatalf("order %d: bytes differ:\n%s\n%s", i, got, want)
		}
		cat := func(ss []*Server) []byte {
			b, _ := json.Marshal(AICatalog("https://example.com", "example.com", "", ss, nil, nil))
			return b
		}
		if !bytes.Equal(cat(shuffled), cat(servers)) {
			t.Fatalf("order %d: AI catalog depends on declaration order", i)
		}
		mc := func(ss []*Server) []byte {
			b, _ := json.Marshal(MCPCatalog("https://example.com", ss))
			return b
		}
		if !bytes.Equal(mc(shuffled), mc(servers)) {
			t.Fatalf("order %d: MCP catalog depends on declaration order", i)
		}
	}
	// Decoding the same item twice gives the same problems, in the same order.
	item := srvTWith(t, `{"version": "^1", "title": "", "remotes": [{"type": "sse", "url": "http://e.com/{a}/{b}", "variables": {"c": {}, "d": {"isSecret": true, "default": "x"}}}], "_meta": {"-a": 1, "-b": 2}}`)
	_, p1 := srvTDeclare(item)
	for i := 0; i < 10; i++ {
		if _, p2 := srvTDeclare(item); !cmp.Equal(p1, p2) {
			t.Fatalf("problems differ between runs:\n%v\n%v", p1, p2)
		}
	}
}

// TestServersSplice checks the integration recipe: the servers fragment
// spliced into declarations.schema.json and the discovery fragment into
// config.schema.json validate declarations as Decode expects them.
// Once the fragments are part of those schemas, the test uses them as they
// are.
func TestServersSplice(t *testing.T) {
	load := func(file string) map[string]any {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("cannot read %s: %v", file, err)
		}
		return srvTJSON(t, string(b)).(map[string]any)
	}
	decl, conf := load(serversDeclarationsSchemaPath), load(serversConfigSchemaPath)
	if decl["properties"].(map[string]any)["servers"] == nil {
		serverSplice(decl, load(filepath.Join(serversSchemaDir, "servers-fragment.schema.json")))
	}
	if conf["properties"].(map[string]any)["discovery"] == nil {
		disc := load(filepath.Join(serversSchemaDir, "discovery-fragment.schema.json"))
		props := conf["properties"].(map[string]any)
		delete(disc, "$schema")
		delete(disc, "$id")
		delete(disc, "title")
		props["discovery"] = disc
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(srvTNoLoader{})
	if err := c.AddResource(decl["$id"].(string), decl); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(conf["$id"].(string), conf); err != nil {
		t.Fatal(err)
	}
	ds, err := c.Compile(decl["$id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Compile(conf["$id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	good := srvTJSON(t, `{"servers": [`+srvTFull+`, {"name": "org.acme/support", "cardUrl": "https://h.example.net/c"}],
		"tools": [{"toolId": "get_forecast", "description": "d", "server": "com.example/weather", "source": "mcp", "safetyTier": "read", "replayPolicy": "deterministic", "egress": "internet"}]}`)
	if err := ds.Validate(good); err != nil {
		t.Errorf("declarations with servers rejected: %v", err)
	}
	if err := ds.Validate(srvTJSON(t, `{"servers": [{"name": "com.example/a"}]}`)); err == nil {
		t.Error("a server without version and description accepted")
	}
	if err := cs.Validate(srvTJSON(t, `{"site": {"origin": "https://example.com", "publisher": "example.com"}, "discovery": {"mcpCatalog": false}}`)); err != nil {
		t.Errorf("config with discovery rejected: %v", err)
	}
	if err := cs.Validate(srvTJSON(t, `{"site": {"origin": "https://example.com", "publisher": "example.com"}, "discovery": {"agentCards": true}}`)); err == nil {
		t.Error("unknown discovery field accepted")
	}
}

// serverSplice puts the servers fragment into a declarations schema: the
// item becomes $defs/serverDeclaration, its own $defs join the schema's, and
// servers is an array of it.
func serverSplice(decl, frag map[string]any) {
	defs := decl["$defs"].(map[string]any)
	for k, v := range frag["$defs"].(map[string]any) {
		defs[k] = v
	}
	item := map[string]any{}
	for k, v := range frag {
		switch k {
		case "$schema", "$id", "$defs":
		default:
			item[k] = v
		}
	}
	defs["serverDeclaration"] = item
	decl["properties"].(map[string]any)["servers"] = map[string]any{
		"description": "MCP servers: each gets a server card on this site, or is listed with the card another host serves, and appears in the discovery catalogs.",
		"type":        "array",
		"items":       map[string]any{"$ref": "#/$defs/serverDeclaration"},
	}
}

// TestDeclFromCard: a v1 card is a server declaration once its $schema is
// dropped, and back to the same card; a card that names no $schema, or
// another one, is refused with the pointer to it.
func TestDeclFromCard(t *testing.T) {
	s, ps := srvTDeclare(srvTJSON(t, srvTFull))
	if ps != nil {
		t.Fatal(ps)
	}
	card := srvTRoundTrip(t, V1Card(s))
	decl, ps := declFromCard(card)
	if ps != nil {
		t.Fatalf("the v1 card of a server refused: %v", ps)
	}
	back, ps := Declare(&decl)
	if ps != nil {
		t.Fatalf("the item of a v1 card does not decode: %v", ps)
	}
	if diff := cmp.Diff(card, srvTRoundTrip(t, V1Card(back))); diff != "" {
		t.Errorf("v1 card after a round trip (-card +again):\n%s", diff)
	}
	with := func(schema any) map[string]any {
		m := map[string]any{"name": "com.example/weather", "version": "1.4.0"}
		if schema != nil {
			m["$schema"] = schema
		}
		return m
	}
	for _, tt := range []struct {
		name string
		card any
		want []Problem
	}{
		{"no $schema", with(nil), []Problem{{Message: `missing required field "$schema": a v1 server card names ` + serverCardSchemaURI}}},
		{"another schema", with("https://static.modelcontextprotocol.io/schemas/v1/server.schema.json"), []Problem{{Pointer: "/$schema",
			Message: `$schema "https://static.modelcontextprotocol.io/schemas/v1/server.schema.json" is not the v1 server card schema ` + serverCardSchemaURI}}},
		{"a number for $schema", with(1.0), []Problem{{Pointer: "/$schema", Message: "$schema a number is not the v1 server card schema " + serverCardSchemaURI}}},
		{"not an object", []any{}, []Problem{{Message: "a server card must be a JSON object, got an array"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, got := declFromCard(tt.card)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
