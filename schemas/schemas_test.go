package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decode parses JSON the way callers of Validate do: numbers as json.Number.
func decode(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return x
}

var (
	validatorOnce sync.Once
	validator     *Validator
	validatorErr  error
)

func newValidator(t testing.TB) *Validator {
	t.Helper()
	validatorOnce.Do(func() { validator, validatorErr = NewValidator() })
	if validatorErr != nil {
		t.Fatalf("NewValidator: %v", validatorErr)
	}
	return validator
}

var allNames = []string{
	"ai-catalog",
	"build-report",
	"compact-tool-descriptor",
	"compact-tool-list",
	"config",
	"declarations",
	"mcp-catalog",
	"mcp-server-card-draft",
	"registry-server-list",
	"registry-server-response",
	"route-table",
	"tool-catalogue",
	"tool-descriptor",
	"tool-list",
}

func TestNamesAndSource(t *testing.T) {
	if diff := cmp.Diff(allNames, Names()); diff != "" {
		t.Fatalf("Names() (-want +got):\n%s", diff)
	}
	got := Names()
	got[0] = "changed"
	if Names()[0] != allNames[0] {
		t.Error("Names returns a slice that aliases the package's own")
	}
	for _, name := range allNames {
		src, ok := Source(name)
		if !ok {
			t.Errorf("Source(%q): not found", name)
			continue
		}
		disk, err := os.ReadFile(name + ".schema.json")
		if err != nil {
			t.Fatal(err)
		}
		if string(src) != string(disk) {
			t.Errorf("Source(%q) differs from %s.schema.json", name, name)
		}
		if !strings.HasSuffix(string(src), "}\n") {
			t.Errorf("Source(%q) does not end with a newline", name)
		}
	}
	for _, name := range []string{"", "nope", "config.schema.json", "../schemas/config", "Config"} {
		if src, ok := Source(name); ok || src != nil {
			t.Errorf("Source(%q) = %d bytes, %v; want nil, false", name, len(src), ok)
		}
	}
}

// TestSchemaDocuments checks what users read in the schemas: identity, titles, descriptions, and
// the shape rules the schemas promise.
func TestSchemaDocuments(t *testing.T) {
	for _, name := range allNames {
		src, _ := Source(name)
		var doc map[string]any
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := doc["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %v", name, got)
		}
		if got, want := doc["$id"], "https://signpost-dev.github.io/signpost/schemas/v1/"+name+".schema.json"; got != want {
			t.Errorf("%s: $id = %v, want %s", name, got, want)
		}
		for _, kw := range []string{"title", "description"} {
			if s, _ := doc[kw].(string); s == "" {
				t.Errorf("%s: no %s", name, kw)
			}
		}
		walkSchema(doc, "", func(ptr string, sch map[string]any) {
			props, _ := sch["properties"].(map[string]any)
			for p, sub := range props {
				if m, ok := sub.(map[string]any); ok {
					if d, _ := m["description"].(string); d == "" {
						t.Errorf("%s: property %s/properties/%s has no description", name, ptr, p)
					}
				}
			}
			if strings.HasPrefix(ptr, "/$defs/") && strings.Count(ptr, "/") == 2 {
				if s, _ := sch["title"].(string); s == "" {
					t.Errorf("%s: %s has no title", name, ptr)
				}
			}
			// Every object of ours is closed; the schemas a tool brings are not ours.
			// Maps (additionalProperties is a schema, as in variables) and
			// _meta, open by design, are not closed either.
			_, isMap := sch["additionalProperties"].(map[string]any)
			if sch["type"] == "object" && !isMap && !strings.HasSuffix(ptr, "Schema") && !strings.HasSuffix(ptr, "/classify") && !strings.HasSuffix(ptr, "/_meta") {
				if sch["additionalProperties"] != false {
					t.Errorf("%s: %s: object without additionalProperties false", name, ptr)
				}
			}
			if name == "config" || name == "declarations" {
				for _, kw := range []string{"oneOf", "anyOf"} {
					if _, ok := sch[kw]; ok {
						t.Errorf("%s: %s uses %s", name, ptr, kw)
					}
				}
			}
		})
	}
}

// walkSchema calls fn on every schema object of doc that is part of the declared shape, skipping
// the conditions of if/then rules and the compact-schema check.
func walkSchema(x any, ptr string, fn func(string, map[string]any)) {
	sch, ok := x.(map[string]any)
	if !ok {
		return
	}
	fn(ptr, sch)
	for _, kw := range []string{"properties", "$defs"} {
		m, _ := sch[kw].(map[string]any)
		for k, sub := range m {
			if kw == "$defs" && k == "compactSchema" {
				continue
			}
			walkSchema(sub, ptr+"/"+kw+"/"+k, fn)
		}
	}
	for _, kw := range []string{"items", "additionalProperties"} {
		walkSchema(sch[kw], ptr+"/"+kw, fn)
	}
}

// TestPatternsHaveWords makes sure every pattern of our schemas is explained in words, not shown
// as a regular expression, when a value does not match it.
func TestPatternsHaveWords(t *testing.T) {
	var walk func(name string, x any)
	walk = func(name string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if p, ok := e.(string); ok && k == "pattern" {
					if _, ok := patternNames[p]; !ok {
						t.Errorf("%s: pattern %s has no entry in patternNames", name, p)
					}
				}
				walk(name, e)
			}
		case []any:
			for _, e := range x {
				walk(name, e)
			}
		}
	}
	for _, name := range allNames {
		src, _ := Source(name)
		var doc any
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatal(err)
		}
		walk(name, doc)
	}
}

func TestNewValidatorCompilesEverything(t *testing.T) {
	v := newValidator(t)
	for _, name := range allNames {
		if v.schemas[name] == nil {
			t.Errorf("schema %q not compiled", name)
		}
	}
	for _, u := range []string{draft2020, draft2019, draft07} {
		if v.meta[dialectKey(u)] == nil {
			t.Errorf("meta-schema %s not compiled", u)
		}
	}
}

// TestLoaderRefuses shows that a compiler set up like NewValidator's loads nothing from outside: a
// reference to any other URL fails instead of being fetched.
func TestLoaderRefuses(t *testing.T) {
	for _, ref := range []string{"https://example.com/other.json", "file:///etc/passwd", "other.json"} {
		c := jsonschema.NewCompiler()
		c.UseLoader(refuseLoader{})
		doc := map[string]any{"$ref": ref}
		if err := c.AddResource("https://signpost.test/a.json", doc); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile("https://signpost.test/a.json")
		if err == nil || !strings.Contains(err.Error(), "loads no schema from outside the binary") {
			t.Errorf("$ref %q: err = %v, want a refusal", ref, err)
		}
	}
}

// Documents that pass, one per schema.
const (
	goodConfig = `{"site": {"origin": "https://example.com", "publisher": "example.com", "displayName": "Example Corp"}, "tenants": ["acme", "globex"]}`

	goodDeclarations = `{
		"tools": [
			{"toolId": "get_forecast", "title": "Forecast", "description": "Seven-day forecast.", "server": "com.example/weather",
			 "source": "host-extension", "safetyTier": "read", "replayPolicy": "deterministic", "egress": "internet",
			 "status": "active", "tenants": ["acme"], "inputSchema": {"file": "schemas/forecast.input.json"}, "outputSchema": {"type": "object"}},
			{"toolId": "run_script", "description": "Runs a script.", "source": "host-extension", "safetyTier": "exec",
			 "replayPolicy": "unsafe", "egress": "none", "inputSchema": {"type": "object", "additionalProperties": false, "properties": {"x": {"type": "string"}}}}
		],
		"mcp": {
			"from": "recorded/github.tools-list.json", "server": "com.example/github", "toolIdPrefix": "gh", "tenants": ["acme"],
			"default": {"safetyTier": "write", "replayPolicy": "unsafe", "egress": "internet"},
			"classify": {
				"get_issue": {"safetyTier": "read", "replayPolicy": "deterministic"},
				"delete_repository": {"status": "hidden"},
				"search_code": {"toolId": "code_search", "safetyTier": "read", "replayPolicy": "idempotent", "egress": "internet", "title": "Search code", "description": "Searches code.", "tenants": ["globex"]}
			}
		}
	}`

	goodDescriptor = `{"toolId": "get_forecast", "title": "Forecast", "description": "Seven-day forecast.", "source": "host-extension",
		"server": "com.example/weather", "safetyTier": "read", "replayPolicy": "deterministic", "egress": "internet",
		"annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
		"inputSchema": {"type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]},
		"outputSchema": {"type": "object"}}`

	goodMCPDescriptor = `{"toolId": "gh_issue_write", "name": "issue_write", "description": "Creates or updates an issue.", "source": "mcp",
		"server": "com.example/github", "safetyTier": "write", "replayPolicy": "unsafe", "egress": "internet",
		"annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true},
		"inputSchema": {"type": "object", "properties": {"type": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "labels": {"$ref": "#/$defs/labels"}}, "$defs": {"labels": {"type": "array"}}}}`

	goodCompact = `{"toolId": "get_forecast", "description": "Seven-day forecast.", "source": "host-extension",
		"safetyTier": "pure", "replayPolicy": "idempotent", "egress": "none",
		"inputSchema": {"type": "object", "properties": {"place": {"type": "string"}, "days": {"type": "array", "items": [{"type": "integer"}, true], "additionalItems": false}},
			"additionalProperties": false, "dependencies": {"days": ["place"]}, "if": {"required": ["days"]}, "then": {"properties": {"place": {"minLength": 1}}}}}`

	goodRoutes = `{"format": 1, "sites": [{"tenant": "", "dir": "public", "routes": [
		{"route": "/tools", "view": "standard", "key": "tools/index.json", "contentType": "application/json", "cacheControl": "public, max-age=3600",
		 "etag": "\"3b1f0c\"", "sha256": "3b1f0c5e2e3f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d", "size": 1234},
		{"route": "/tools", "view": "compact", "key": "tools/_compact/index.json", "contentType": "application/json", "cacheControl": "public, max-age=3600",
		 "etag": "\"abc\"", "sha256": "0000000000000000000000000000000000000000000000000000000000000000", "size": 0},
		{"route": "/.well-known/mcp/catalog.json", "view": "standard", "key": ".well-known/mcp/catalog.json", "contentType": "application/json", "cacheControl": "public, max-age=3600",
		 "etag": "\"abc\"", "sha256": "0000000000000000000000000000000000000000000000000000000000000000", "size": 2}
	]}, {"tenant": "acme", "dir": "tenants/acme", "routes": []}]}`
)

const allowedToolFields = "description, egress, group, idempotencyKey, inputSchema, irreversible, name, outputSchema, replayPolicy, responseSensitivity, safetyTier, security, server, source, status, tenants, title, toolId"

type validateCase struct {
	name     string
	schema   string
	instance string
	want     []Violation
}

var validateCases = []validateCase{
	// Good documents.
	{"config ok", "config", goodConfig, nil},
	{"config minimal", "config", `{"site": {"origin": "http://127.0.0.1:8080", "publisher": "localhost"}}`, nil},
	{"declarations ok", "declarations", goodDeclarations, nil},
	{"declarations tools only", "declarations", `{"tools": []}`, nil},
	{"declarations mcp only", "declarations", `{"mcp": {"from": "x.json"}}`, nil},
	{"descriptor ok", "tool-descriptor", goodDescriptor, nil},
	{"mcp descriptor ok", "tool-descriptor", goodMCPDescriptor, nil},
	{"tool list ok", "tool-list", "[" + goodDescriptor + "," + goodMCPDescriptor + "]", nil},
	{"empty tool list", "tool-list", `[]`, nil},
	{"compact ok", "compact-tool-descriptor", goodCompact, nil},
	{"compact list ok", "compact-tool-list", `{"tools": [` + goodCompact + `]}`, nil},
	{"routes ok", "route-table", goodRoutes, nil},

	// config
	{"config unknown field", "config", `{"site": {"origin": "https://example.com", "publisher": "example.com", "colour": "red"}, "publish": {}}`, []Violation{
		{"/publish", `unknown field "publish"; allowed: discovery, limits, signing, site, targets, tenants, toolCatalog`},
		{"/site/colour", `unknown field "colour"; allowed: displayName, origin, privacyPolicyUrl, publisher, termsOfServiceUrl`},
	}},
	{"config missing site", "config", `{"tenants": []}`, []Violation{
		{"", `missing required field "site"`},
	}},
	{"config bad values", "config", `{"site": {"origin": "example.com", "publisher": "Example.com", "displayName": 7}, "tenants": ["acme", "Globex", "acme", "-x"]}`, []Violation{
		{"/site/displayName", "must be a string, got number"},
		{"/site/origin", `must be a valid uri (relative url); got "example.com"`},
		{"/site/publisher", `must be a domain name in lower case, such as example.com; got "Example.com"`},
		{"/tenants/1", `must be a tenant id (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters); got "Globex"`},
		// A tenant declared twice is Load's to report, as "tenant acme is
		// declared twice": an item may be an id or an object.
		{"/tenants/3", `must be a tenant id (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters); got "-x"`},
	}},
	{"config bad tenant", "config", `{"site": {"origin": "https://example.com", "publisher": "example.com"}, "tenants": [7, {"id": "acme", "gate": "cookie"}, {"origin": "https://a.example.com"}]}`, []Violation{
		{"/tenants/0", "must be a string or an object, got number"},
		{"/tenants/1/gate", `must be token; got "cookie"`},
		{"/tenants/2", `missing required field "id"`},
	}},
	{"config not an object", "config", `["site"]`, []Violation{
		{"", "must be an object, got array"},
	}},

	// declarations
	{"declarations empty", "declarations", `{}`, []Violation{
		{"", "must not be empty; expected at least one of: mcp, openapi, servers, tools"},
	}},
	{"declarations unknown top-level field", "declarations", `{"tool": []}`, []Violation{
		{"/tool", `unknown field "tool"; allowed: mcp, openapi, servers, tools`},
	}},
	{"tool: unknown field, wrong type, bad enum, missing required", "declarations", `{"tools": [
		{"toolId": "get_forecast", "colour": "red", "description": 5, "source": "host-extension", "safetyTier": "readonly", "egress": "none", "inputSchema": true}
	]}`, []Violation{
		{"/tools/0", `missing required field "replayPolicy"`},
		{"/tools/0/colour", `unknown field "colour"; allowed: ` + allowedToolFields},
		{"/tools/0/description", "must be a string, got number"},
		{"/tools/0/inputSchema", "must be an object, got boolean"},
		{"/tools/0/safetyTier", `must be one of pure, read, write, exec; got "readonly"`},
	}},
	{"tool: more problems", "declarations", `{"tools": [
		{"toolId": "GetForecast", "description": "", "server": "weather", "source": "local", "safetyTier": "read", "replayPolicy": "always",
		 "egress": "world", "status": "draft", "tenants": ["acme", "acme"], "outputSchema": "none", "title": ""}
	]}`, []Violation{
		{"/tools/0/description", "must not be empty"},
		{"/tools/0/egress", `must be one of none, internal, internet; got "world"`},
		{"/tools/0/outputSchema", "must be an object, got string"},
		{"/tools/0/replayPolicy", `must be one of deterministic, idempotent, keyed, unsafe; got "always"`},
		{"/tools/0/server", `must be a server name of the form reverse-DNS/name, such as com.example/weather; got "weather"`},
		{"/tools/0/source", `must be one of host-extension, mcp, openapi; got "local"`},
		{"/tools/0/status", `must be one of active, planned, hidden; got "draft"`},
		{"/tools/0/tenants/1", "duplicate of item 0; items must be unique"},
		{"/tools/0/title", "must not be empty"},
	}},
	{"tools sorted numerically", "declarations", `{"tools": [{},{},{},{},{},{},{},{},{},{},{"toolId": "x"}, 3]}`, func() []Violation {
		var out []Violation
		for i := 0; i < 12; i++ {
			p := fmt.Sprintf("/tools/%d", i)
			switch i {
			case 10:
				for _, f := range []string{"description", "egress", "replayPolicy", "safetyTier", "source"} {
					out = append(out, Violation{p, fmt.Sprintf("missing required field %q", f)})
				}
			case 11:
				out = append(out, Violation{p, "must be an object, got number"})
			default:
				for _, f := range []string{"description", "egress", "replayPolicy", "safetyTier", "source", "toolId"} {
					out = append(out, Violation{p, fmt.Sprintf("missing required field %q", f)})
				}
			}
		}
		return out
	}()},
	{"mcp import problems", "declarations", `{"mcp": {
		"toolIdPrefix": "GitHub_tools_prefix", "server": "x", "tenants": "acme",
		"default": {"safetyTier": "read", "replayPolicy": "sometimes", "status": "hidden"},
		"classify": {"get_issue": {"safetyTier": "exec", "toolId": 3, "colour": 1}, "x": "read"}
	}}`, []Violation{
		{"/mcp", `missing required field "from"`},
		{"/mcp/classify/get_issue/colour", `unknown field "colour"; allowed: description, egress, replayPolicy, safetyTier, status, tenants, title, toolId`},
		{"/mcp/classify/get_issue/safetyTier", `must be one of pure, read, write; got "exec"`},
		{"/mcp/classify/get_issue/toolId", "must be a string, got number"},
		{"/mcp/classify/x", "must be an object, got string"},
		{"/mcp/default/replayPolicy", `must be one of deterministic, idempotent, keyed, unsafe; got "sometimes"`},
		{"/mcp/default/safetyTier", `must be write; got "read"`},
		{"/mcp/default/status", `unknown field "status"; allowed: egress, replayPolicy, safetyTier`},
		{"/mcp/server", `must be a server name of the form reverse-DNS/name, such as com.example/weather; got "x"`},
		{"/mcp/tenants", "must be an array, got string"},
		{"/mcp/toolIdPrefix", `must be ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter); got "GitHub_tools_prefix"`},
		{"/mcp/toolIdPrefix", "must be at most 16 characters long; got 19"},
	}},
	{"toolId pattern is left to the Go code", "declarations", `{"tools": [{"toolId": "Not Snake", "description": "d", "source": "mcp", "safetyTier": "read", "replayPolicy": "keyed", "egress": "none"}]}`, nil},
	{"field names with / and ~ are escaped", "declarations", `{"tools": [{"a/b": 1, "c~d": 2, "toolId": "x", "description": "d", "source": "mcp", "safetyTier": "read", "replayPolicy": "keyed", "egress": "none"}]}`, []Violation{
		{"/tools/0/a~1b", `unknown field "a/b"; allowed: ` + allowedToolFields},
		{"/tools/0/c~0d", `unknown field "c~d"; allowed: ` + allowedToolFields},
	}},

	// tool-descriptor
	{"descriptor: exec without host-extension", "tool-descriptor", descriptor("mcp", "exec", "keyed", "internal", false, true, false, true), []Violation{
		{"/source", `must be host-extension when safetyTier is exec; got "mcp"`},
	}},
	{"descriptor: annotations not derived", "tool-descriptor", descriptor("host-extension", "read", "keyed", "none", false, true, true, true), []Violation{
		{"/annotations/destructiveHint", "must be false when safetyTier is read; got true"},
		{"/annotations/idempotentHint", "must be false when replayPolicy is keyed; got true"},
		{"/annotations/openWorldHint", "must be false when egress is none; got true"},
		{"/annotations/readOnlyHint", "must be true when safetyTier is read; got false"},
	}},
	{"descriptor: annotations shape", "tool-descriptor", `{"toolId": "x", "description": "d", "source": "mcp", "safetyTier": "write", "replayPolicy": "unsafe", "egress": "internet",
		"annotations": {"readOnlyHint": "no", "destructiveHint": true, "title": "X"}, "inputSchema": {"type": "object"}}`, []Violation{
		{"/annotations", `missing required field "idempotentHint"`},
		{"/annotations", `missing required field "openWorldHint"`},
		{"/annotations/readOnlyHint", "must be a boolean, got string"},
		{"/annotations/title", `unknown field "title"; allowed: destructiveHint, idempotentHint, openWorldHint, readOnlyHint`},
	}},
	{"descriptor: fields", "tool-descriptor", `{"toolId": "get_forecast_for_a_place_with_a_very_long_name_indeed", "description": "", "source": "mcp",
		"safetyTier": "read", "replayPolicy": "idempotent", "egress": "internal", "name": "",
		"annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
		"inputSchema": {"properties": {}}, "outputSchema": {"type": "array"}, "status": "active"}`, []Violation{
		{"/description", "must not be empty"},
		{"/inputSchema", `missing required field "type"`},
		{"/name", "must not be empty"},
		{"/outputSchema/type", `must be object; got "array"`},
		{"/status", `unknown field "status"; allowed: _meta, annotations, description, egress, inputSchema, name, outputSchema, replayPolicy, safetyTier, server, source, title, toolId`},
		{"/toolId", "must be at most 48 characters long; got 53"},
	}},
	{"descriptor: toolId pattern", "tool-descriptor", strings.Replace(goodDescriptor, `"toolId": "get_forecast"`, `"toolId": "get__forecast"`, 1), []Violation{
		{"/toolId", `must be ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter); got "get__forecast"`},
	}},
	{"descriptor: missing everything", "tool-descriptor", `{}`, []Violation{
		{"", `missing required field "annotations"`},
		{"", `missing required field "description"`},
		{"", `missing required field "egress"`},
		{"", `missing required field "inputSchema"`},
		{"", `missing required field "replayPolicy"`},
		{"", `missing required field "safetyTier"`},
		{"", `missing required field "source"`},
		{"", `missing required field "toolId"`},
	}},
	{"tool list item", "tool-list", "[" + goodDescriptor + `, {"toolId": "x"}]`, []Violation{
		{"/1", `missing required field "annotations"`},
		{"/1", `missing required field "description"`},
		{"/1", `missing required field "egress"`},
		{"/1", `missing required field "inputSchema"`},
		{"/1", `missing required field "replayPolicy"`},
		{"/1", `missing required field "safetyTier"`},
		{"/1", `missing required field "source"`},
	}},
	{"tool list is an array", "tool-list", `{"tools": []}`, []Violation{
		{"", "must be an array, got object"},
	}},

	// compact
	{"compact: anyOf three levels deep", "compact-tool-descriptor", compact(`{"type": "object", "properties": {
		"filter": {"type": "object", "properties": {"range": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}}}}`), []Violation{
		{"/inputSchema/properties/filter/properties/range/items/anyOf", `"anyOf" is not allowed in a compact schema, at any depth (none of $ref, oneOf, allOf, anyOf, not, patternProperties, dependentSchemas)`},
	}},
	{"compact: every forbidden keyword, every position", "compact-tool-descriptor", compact(`{"type": "object", "$ref": "#/$defs/a",
		"$defs": {"a": {"oneOf": []}}, "definitions": {"b": {"allOf": []}},
		"properties": {"p": {"not": {}}}, "additionalProperties": {"patternProperties": {}},
		"items": [{"dependentSchemas": {}}], "prefixItems": [true, {"$ref": "#"}], "contains": {"anyOf": []},
		"propertyNames": {"not": {}}, "if": {"not": {}}, "then": {"not": {}}, "else": {"not": {}},
		"unevaluatedProperties": {"not": {}}, "unevaluatedItems": {"not": {}}, "dependencies": {"x": {"not": {}}, "y": ["x"]},
		"additionalItems": {"not": {}}, "contentSchema": {"not": {}}}`), func() []Violation {
		msg := func(kw string) string {
			return fmt.Sprintf("%q is not allowed in a compact schema, at any depth (none of $ref, oneOf, allOf, anyOf, not, patternProperties, dependentSchemas)", kw)
		}
		return []Violation{
			{"/inputSchema/$defs/a/oneOf", msg("oneOf")},
			{"/inputSchema/$ref", msg("$ref")},
			{"/inputSchema/additionalItems/not", msg("not")},
			{"/inputSchema/additionalProperties/patternProperties", msg("patternProperties")},
			{"/inputSchema/contains/anyOf", msg("anyOf")},
			{"/inputSchema/contentSchema/not", msg("not")},
			{"/inputSchema/definitions/b/allOf", msg("allOf")},
			{"/inputSchema/dependencies/x/not", msg("not")},
			{"/inputSchema/else/not", msg("not")},
			{"/inputSchema/if/not", msg("not")},
			{"/inputSchema/items/0/dependentSchemas", msg("dependentSchemas")},
			{"/inputSchema/prefixItems/1/$ref", msg("$ref")},
			{"/inputSchema/properties/p/not", msg("not")},
			{"/inputSchema/propertyNames/not", msg("not")},
			{"/inputSchema/then/not", msg("not")},
			{"/inputSchema/unevaluatedItems/not", msg("not")},
			{"/inputSchema/unevaluatedProperties/not", msg("not")},
		}
	}()},
	{"compact: property names that look like keywords are fine", "compact-tool-descriptor", compact(`{"type": "object", "properties": {"not": {"type": "boolean"}, "$ref": {"type": "string"}, "anyOf": false}, "required": ["not", "anyOf"]}`), nil},
	{"compact: no outputSchema, short description", "compact-tool-descriptor", strings.Replace(goodCompact, `"description": "Seven-day forecast."`, `"outputSchema": {"type": "object"}, "description": "`+strings.Repeat("é", 161)+`"`, 1), []Violation{
		{"/description", "must be at most 160 characters long; got 161"},
		{"/outputSchema", `unknown field "outputSchema"; allowed: description, egress, inputSchema, replayPolicy, safetyTier, source, toolId`},
	}},
	{"compact: rules as in the standard view", "compact-tool-descriptor", strings.Replace(compact(`{"type": "object"}`), `"source": "host-extension", "safetyTier": "pure"`, `"source": "openapi", "safetyTier": "exec"`, 1), []Violation{
		{"/source", `must be host-extension when safetyTier is exec; got "openapi"`},
	}},
	{"compact list", "compact-tool-list", `{"tools": [` + goodCompact + `, ` + goodDescriptor + `], "next": null}`, []Violation{
		{"/next", `unknown field "next"; allowed: tools`},
		{"/tools/1/annotations", `unknown field "annotations"; allowed: description, egress, inputSchema, replayPolicy, safetyTier, source, toolId`},
		{"/tools/1/outputSchema", `unknown field "outputSchema"; allowed: description, egress, inputSchema, replayPolicy, safetyTier, source, toolId`},
		{"/tools/1/server", `unknown field "server"; allowed: description, egress, inputSchema, replayPolicy, safetyTier, source, toolId`},
		{"/tools/1/title", `unknown field "title"; allowed: description, egress, inputSchema, replayPolicy, safetyTier, source, toolId`},
	}},
	{"compact list needs tools", "compact-tool-list", `{}`, []Violation{
		{"", `missing required field "tools"`},
	}},

	// route-table
	{"routes: bad values", "route-table", `{"format": 2, "sites": [{"tenant": "Acme", "dir": "../x", "routes": [
		{"route": "tools", "view": "full", "key": "/tools/index.json", "contentType": "", "cacheControl": 1,
		 "etag": "W/\"abc\"", "sha256": "ABC", "size": -1},
		{"route": "/tools", "view": "standard", "key": "tools/../index.json", "contentType": "application/json", "cacheControl": "x",
		 "etag": "\"a\"", "sha256": "0000000000000000000000000000000000000000000000000000000000000000", "size": 1.5, "extra": true}
	]}]}`, []Violation{
		{"/format", "must be 1; got 2"},
		{"/sites/0/dir", `must be a relative folder of letters, digits, '.', '_' and '-' written with '/', such as tenants/acme; got "../x"`},
		{"/sites/0/routes/0/cacheControl", "must be a string, got number"},
		{"/sites/0/routes/0/contentType", "must not be empty"},
		{"/sites/0/routes/0/etag", `must be a strong ETag: a non-empty string in double quotes, such as "\"abc\""; got "W/\"abc\""`},
		{"/sites/0/routes/0/key", `must be a relative key written with '/', without empty, '.' or '..' segments or backslashes; got "/tools/index.json"`},
		{"/sites/0/routes/0/route", `must start with "/"; got "tools"`},
		{"/sites/0/routes/0/sha256", `must be 64 lower-case hexadecimal digits; got "ABC"`},
		{"/sites/0/routes/0/size", "must be at least 0; got -1"},
		{"/sites/0/routes/0/view", `must be one of standard, compact; got "full"`},
		{"/sites/0/routes/1/extra", `unknown field "extra"; allowed: cacheControl, contentType, etag, key, route, sha256, size, variants, view`},
		{"/sites/0/routes/1/key", `must be a relative key written with '/', without empty, '.' or '..' segments or backslashes; got "tools/../index.json"`},
		{"/sites/0/routes/1/size", "must be an integer, got number"},
		{"/sites/0/tenant", `must be empty or a tenant id (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters); got "Acme"`},
	}},
	{"routes: missing fields", "route-table", `{"sites": [{"routes": [{}]}]}`, []Violation{
		{"", `missing required field "format"`},
		{"/sites/0", `missing required field "dir"`},
		{"/sites/0", `missing required field "tenant"`},
		{"/sites/0/routes/0", `missing required field "cacheControl"`},
		{"/sites/0/routes/0", `missing required field "contentType"`},
		{"/sites/0/routes/0", `missing required field "etag"`},
		{"/sites/0/routes/0", `missing required field "key"`},
		{"/sites/0/routes/0", `missing required field "route"`},
		{"/sites/0/routes/0", `missing required field "sha256"`},
		{"/sites/0/routes/0", `missing required field "size"`},
		{"/sites/0/routes/0", `missing required field "view"`},
	}},

	// names
	{"unknown schema", "tool", `{}`, []Violation{
		{"", `unknown schema "tool"; known: ai-catalog, build-report, compact-tool-descriptor, compact-tool-list, config, declarations, mcp-catalog, mcp-server-card-draft, registry-server-list, registry-server-response, route-table, tool-catalogue, tool-descriptor, tool-list`},
	}},
}

// descriptor builds a standard tool descriptor with the given classification and annotations.
func descriptor(source, tier, replay, egress string, readOnly, destructive, idempotent, openWorld bool) string {
	return fmt.Sprintf(`{"toolId": "some_tool", "description": "d", "source": %q, "safetyTier": %q, "replayPolicy": %q, "egress": %q,
		"annotations": {"readOnlyHint": %t, "destructiveHint": %t, "idempotentHint": %t, "openWorldHint": %t},
		"inputSchema": {"type": "object"}}`, source, tier, replay, egress, readOnly, destructive, idempotent, openWorld)
}

// compact builds a valid compact tool descriptor around inputSchema.
func compact(inputSchema string) string {
	return `{"toolId": "t", "description": "d", "source": "host-extension", "safetyTier": "pure", "replayPolicy": "idempotent", "egress": "none",
		"inputSchema": ` + inputSchema + `}`
}

func TestValidate(t *testing.T) {
	v := newValidator(t)
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			got := v.Validate(tc.schema, decode(t, tc.instance))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate(%s) (-want +got):\n%s", tc.schema, diff)
			}
		})
	}
}

// TestAnnotationRules walks every classification: derived annotations pass, and each wrong hint is
// reported alone, at its pointer, with the field that decides it.
func TestAnnotationRules(t *testing.T) {
	v := newValidator(t)
	for _, tier := range []string{"pure", "read", "write", "exec"} {
		for _, replay := range []string{"deterministic", "idempotent", "keyed", "unsafe"} {
			for _, egress := range []string{"none", "internal", "internet"} {
				hints := []bool{
					tier == "pure" || tier == "read",
					tier == "write" || tier == "exec",
					replay == "deterministic" || replay == "idempotent",
					egress != "none",
				}
				build := func(h []bool) string {
					return descriptor("host-extension", tier, replay, egress, h[0], h[1], h[2], h[3])
				}
				for _, schema := range []string{"tool-descriptor"} {
					if got := v.Validate(schema, decode(t, build(hints))); got != nil {
						t.Errorf("%s %s/%s/%s: derived annotations rejected: %v", schema, tier, replay, egress, got)
					}
				}
				names := []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
				because := []string{"safetyTier is " + tier, "safetyTier is " + tier, "replayPolicy is " + replay, "egress is " + egress}
				for i := range hints {
					wrong := slices.Clone(hints)
					wrong[i] = !wrong[i]
					want := []Violation{{
						Pointer: "/annotations/" + names[i],
						Message: fmt.Sprintf("must be %t when %s; got %t", hints[i], because[i], wrong[i]),
					}}
					got := v.Validate("tool-descriptor", decode(t, build(wrong)))
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s/%s/%s with %s flipped (-want +got):\n%s", tier, replay, egress, names[i], diff)
					}
				}
			}
		}
	}
}

func TestCheckSchema(t *testing.T) {
	const convert = `convert the schema to draft 2020-12 (remove "$schema" or set it to "https://json-schema.org/draft/2020-12/schema")`
	tests := []struct {
		name   string
		schema string
		want   []Violation
	}{
		{"2020-12 with $defs, $ref and anyOf", `{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"properties": {
				"owner": {"type": "string", "pattern": "^[A-Za-z0-9-]+$"},
				"labels": {"type": "array", "items": {"$ref": "#/$defs/label"}, "uniqueItems": true},
				"milestone": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
				"tree": {"$ref": "#/$defs/node"}
			},
			"required": ["owner"],
			"additionalProperties": false,
			"$defs": {
				"label": {"type": "string", "minLength": 1},
				"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
			}
		}`, nil},
		{"no $schema", `{"type": "object"}`, nil},
		{"2020-12 over http with #", `{"$schema": "http://json-schema.org/draft/2020-12/schema#", "type": "object"}`, nil},
		{"2019-09", `{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object", "$defs": {"a": {"$recursiveAnchor": true}}}`, nil},
		{"draft-07", `{
			"$schema": "http://json-schema.org/draft-07/schema#",
			"type": "object",
			"properties": {
				"tags": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
				"n": {"type": "number", "exclusiveMinimum": 0},
				"ref": {"$ref": "#/definitions/r"}
			},
			"dependencies": {"n": ["tags"]},
			"definitions": {"r": {"type": "string"}}
		}`, nil},
		{"draft-07 over https without #", `{"$schema": "https://json-schema.org/draft-07/schema", "type": "object"}`, nil},
		{"ECMA-262 pattern Go cannot compile", `{"type": "object", "properties": {"p": {"type": "string", "pattern": "^(?!admin)\\w+\\u0041$"}}}`, nil},
		{"draft-04", `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}}`, []Violation{
			{"/$schema", `draft-04 schemas are not supported; ` + convert + `: exclusiveMinimum and exclusiveMaximum are numbers, not booleans that modify minimum and maximum; "id" is spelled "$id"; "definitions" becomes "$defs" and an array-valued "items" becomes "prefixItems"`},
		}},
		{"draft-06", `{"$schema": "https://json-schema.org/draft-06/schema", "type": "object"}`, []Violation{
			{"/$schema", `draft-06 schemas are not supported; ` + convert + `: "definitions" becomes "$defs", an array-valued "items" becomes "prefixItems" and "dependencies" becomes "dependentRequired" or "dependentSchemas"; parts kept from draft-04 need exclusiveMinimum and exclusiveMaximum as numbers, not booleans, and "$id" instead of "id"`},
		}},
		{"unknown $schema", `{"$schema": "https://example.com/my-dialect", "type": "object"}`, []Violation{
			{"/$schema", `unsupported $schema "https://example.com/my-dialect"; use "https://json-schema.org/draft/2020-12/schema" (the default), "https://json-schema.org/draft/2019-09/schema" or "http://json-schema.org/draft-07/schema#"`},
		}},
		{"$schema not a string", `{"$schema": 7}`, []Violation{
			{"/$schema", "must be a string, got number"},
		}},
		{"type 5", `{"type": 5}`, []Violation{
			{"/type", "must be one of array, boolean, integer, null, number, object, string, or an array; got 5"},
		}},
		{"misspelt type", `{"type": "object", "properties": {"a": {"type": "strng"}, "b": {"type": ["string", "nul"]}}}`, []Violation{
			{"/properties/a/type", `must be one of array, boolean, integer, null, number, object, string; got "strng"`},
			{"/properties/b/type/1", `must be one of array, boolean, integer, null, number, object, string; got "nul"`},
		}},
		{"wrong keyword types", `{"type": "object", "required": "a", "properties": {"n": {"minimum": "0", "exclusiveMinimum": true, "enum": {}}, "s": {"pattern": "(a"}}, "additionalProperties": 1}`, []Violation{
			{"/additionalProperties", "must be a boolean or an object, got number"},
			{"/properties/n/enum", "must be an array, got object"},
			{"/properties/n/exclusiveMinimum", "must be a number, got boolean (a draft-04 habit: since draft-06 it is the bound itself)"},
			{"/properties/n/minimum", "must be a number, got string"},
			{"/properties/s/pattern", "must be a valid regex (error parsing regexp: missing closing ): `(a`); got \"(a\""},
			{"/required", "must be an array, got string"},
		}},
		{"draft-07 keyword rules", `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "items": [{"type": 3}], "required": ["a", "a"]}`, []Violation{
			{"/items/0/type", "must be one of array, boolean, integer, null, number, object, string, or an array; got 3"},
			{"/required/1", "duplicate of item 0; items must be unique"},
		}},
		{"line break in a bad pattern", `{"pattern": "(a\nb"}`, []Violation{
			{"/pattern", "must be a valid regex (error parsing regexp: missing closing ): `(a\\nb`); got \"(a\\nb\""},
		}},
		{"not an object", `true`, []Violation{
			{"", "a tool's schema must be a JSON object, got boolean"},
		}},
		{"array", `[{"type": "object"}]`, []Violation{
			{"", "a tool's schema must be a JSON object, got array"},
		}},
	}
	v := newValidator(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := v.CheckSchema(decode(t, tc.schema))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CheckSchema (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHostileValues feeds values no JSON decoder produces: none may panic or hang.
func TestHostileValues(t *testing.T) {
	cyclic := map[string]any{"tools": nil}
	cyclic["tools"] = []any{cyclic}
	deep := any(map[string]any{})
	for range 5000 {
		deep = map[string]any{"tools": []any{deep}}
	}
	tests := []struct {
		name     string
		instance any
		want     []Violation
	}{
		{"nil", nil, []Violation{{"", "must be an object, got null"}}},
		{"cyclic", cyclic, nil},
		{"deep", deep, nil},
		{"NaN", map[string]any{"tools": []any{math.NaN()}}, []Violation{{"/tools/0", "NaN is not a JSON number"}}},
		{"infinity", []any{float32(math.Inf(1))}, []Violation{{"/0", "+Inf is not a JSON number"}}},
		{"bad json.Number", map[string]any{"mcp": map[string]any{"from": json.Number("12abc")}}, []Violation{{"/mcp/from", `"12abc" is not a JSON number`}}},
		{"Go types", map[string]any{"tools": []string{"a"}}, []Violation{{"/tools", "invalid jsonType []string"}}},
		{"Go numbers", map[string]any{"format": 1, "sites": []any{}}, nil},
	}
	v := newValidator(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := "declarations"
			if tc.name == "Go numbers" {
				schema = "route-table"
			}
			got := v.Validate(schema, tc.instance)
			if tc.want == nil && (tc.name == "cyclic" || tc.name == "deep") {
				if len(got) != 1 || !strings.Contains(got[0].Message, "nested more than 1000 levels deep") {
					t.Errorf("got %v, want one violation about nesting", got)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			_ = v.CheckSchema(tc.instance) // must not panic either
		})
	}
	for _, s := range []any{nil, 5, "x", []any{}, map[string]any{"$schema": nil}, map[string]any{"properties": map[string]any{"a": math.Inf(-1)}}, cyclic} {
		_ = v.CheckSchema(s)
	}
}

// TestCheckSchemaHostileValues: a schema the fast path would otherwise accept, but whose values
// checkValue refuses, gets checkValue's violation, wherever the value is.
func TestCheckSchemaHostileValues(t *testing.T) {
	cyclic := map[string]any{"type": "object"}
	cyclic["x-self"] = cyclic
	deep := any(map[string]any{"type": "string"})
	for range maxDepth {
		deep = map[string]any{"type": "object", "properties": map[string]any{"p": deep}}
	}
	v := newValidator(t)
	for _, tc := range []struct {
		name   string
		schema map[string]any
		want   Violation
	}{
		{"leading zero", map[string]any{"maxLength": json.Number("007")}, Violation{"/maxLength", `"007" is not a JSON number`}},
		{"fraction", map[string]any{"multipleOf": json.Number("1/2")}, Violation{"/multipleOf", `"1/2" is not a JSON number`}},
		{"NaN minimum", map[string]any{"minimum": math.NaN()}, Violation{"/minimum", "NaN is not a JSON number"}},
		{"in enum", map[string]any{"enum": []any{"a", math.Inf(1)}}, Violation{"/enum/1", "+Inf is not a JSON number"}},
		{"in const", map[string]any{"const": map[string]any{"n": json.Number("x")}}, Violation{"/const/n", `"x" is not a JSON number`}},
		{"in a property", map[string]any{"properties": map[string]any{"a": map[string]any{"default": json.Number("-")}}}, Violation{"/properties/a/default", `"-" is not a JSON number`}},
		{"unknown keyword", map[string]any{"x-count": json.Number("1e")}, Violation{"/x-count", `"1e" is not a JSON number`}},
		{"cyclic", cyclic, Violation{Message: "nested more than 1000 levels deep"}},
		{"deep", deep.(map[string]any), Violation{Message: "nested more than 1000 levels deep"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := v.CheckSchema(tc.schema)
			if len(got) != 1 || got[0].Message != tc.want.Message || tc.want.Pointer != "" && got[0].Pointer != tc.want.Pointer {
				t.Errorf("CheckSchema = %v, want [%v]", got, tc.want)
			}
			if plainValid2020(tc.schema) {
				t.Error("the fast path accepts it")
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	v := newValidator(t)
	bad := decode(t, `{"tools": [{"toolId": "x", "colour": 1}]}`)
	want := v.Validate("declarations", bad)
	schema := decode(t, benchSchema)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if got := v.Validate("declarations", bad); !reflect.DeepEqual(got, want) {
					t.Errorf("concurrent Validate differs: %v", got)
					return
				}
				if got := v.CheckSchema(schema); got != nil {
					t.Errorf("concurrent CheckSchema: %v", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// benchSchema is a realistic tool input schema of about 40 schema nodes.
const benchSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"description": "Create or update an issue.",
	"properties": {
		"method": {"type": "string", "enum": ["create", "update"], "description": "What to do."},
		"owner": {"type": "string", "description": "Repository owner.", "pattern": "^[A-Za-z0-9-]+$"},
		"repo": {"type": "string", "description": "Repository name.", "minLength": 1, "maxLength": 100},
		"issue_number": {"type": "integer", "minimum": 1, "description": "Issue to update."},
		"title": {"type": "string", "description": "Issue title."},
		"body": {"type": "string", "description": "Issue body, Markdown."},
		"state": {"type": "string", "enum": ["open", "closed"]},
		"state_reason": {"anyOf": [{"type": "string", "enum": ["completed", "not_planned", "duplicate"]}, {"type": "null"}]},
		"duplicate_of": {"type": "integer", "minimum": 1},
		"labels": {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": true},
		"assignees": {"type": "array", "items": {"$ref": "#/$defs/login"}, "maxItems": 10},
		"milestone": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
		"type": {"type": "string", "description": "Issue type."},
		"fields": {
			"type": "array",
			"items": {
				"type": "object",
				"properties": {
					"field_id": {"type": "integer"},
					"text_value": {"type": "string"},
					"number_value": {"type": "number"},
					"date_value": {"type": "string", "format": "date"},
					"single_select_option_id": {"type": "string"},
					"delete": {"type": "boolean", "default": false}
				},
				"required": ["field_id"],
				"additionalProperties": false
			}
		},
		"lock_reason": {"type": "string", "enum": ["off-topic", "too heated", "resolved", "spam"]},
		"parent": {
			"type": "object",
			"properties": {"owner": {"$ref": "#/$defs/login"}, "number": {"type": "integer", "minimum": 1}},
			"required": ["number"]
		},
		"reactions": {
			"type": "object",
			"properties": {"plus_one": {"type": "integer"}, "heart": {"type": "integer"}},
			"additionalProperties": false
		},
		"options": {
			"type": "object",
			"properties": {
				"notify": {"type": "boolean"},
				"dry_run": {"type": "boolean"},
				"timeout_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 600}
			},
			"additionalProperties": false
		}
	},
	"required": ["method", "owner", "repo"],
	"additionalProperties": false,
	"$defs": {
		"login": {"type": "string", "pattern": "^[A-Za-z0-9-]{1,39}$", "description": "A GitHub login."}
	}
}`

// countNodes counts the schema objects in a schema (the root, subschemas and their branches).
func countNodes(x any) int {
	n := 0
	switch x := x.(type) {
	case map[string]any:
		n++
		for k, e := range x {
			switch k {
			case "properties", "$defs":
				for _, s := range e.(map[string]any) {
					n += countNodes(s)
				}
			case "items", "additionalProperties", "not":
				n += countNodes(e)
			case "anyOf", "oneOf", "allOf":
				for _, s := range e.([]any) {
					n += countNodes(s)
				}
			}
		}
	}
	return n
}

func TestBenchSchemaIsRealistic(t *testing.T) {
	v := newValidator(t)
	s := decode(t, benchSchema)
	if n := countNodes(s); n < 35 || n > 45 {
		t.Errorf("benchSchema has %d schema nodes, want about 40", n)
	}
	if got := v.CheckSchema(s); got != nil {
		t.Errorf("benchSchema: %v", got)
	}
}

func BenchmarkCheckSchema(b *testing.B) {
	v := newValidator(b)
	s := decode(b, benchSchema)
	b.ReportAllocs()
	for b.Loop() {
		if v.CheckSchema(s) != nil {
			b.Fatal("benchSchema rejected")
		}
	}
}

// BenchmarkCheckSchemaSlowPath measures what BenchmarkCheckSchema costs without the fast path: the
// library validating against the meta-schema, as for draft-07 and 2019-09 schemas and for every
// schema the fast path leaves to it.
func BenchmarkCheckSchemaSlowPath(b *testing.B) {
	v := newValidator(b)
	for _, d := range []struct{ name, url string }{{"2020-12", draft2020}, {"2019-09", draft2019}, {"draft-07", draft07 + "#"}} {
		s := decode(b, strings.Replace(benchSchema, draft2020, d.url, 1))
		meta, _ := v.dialect(d.url)
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if v.validate(meta, s, nil) != nil {
					b.Fatal("benchSchema rejected")
				}
			}
		})
	}
}

// benchDeclarations is a declarations file of 100 tools, each with an inline input schema.
func benchDeclarations(b *testing.B) any {
	var sb strings.Builder
	sb.WriteString(`{"tools": [`)
	tiers := []string{"pure", "read", "write", "exec"}
	for i := range 100 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"toolId": "tool_%d", "title": "Tool %d", "description": "Does thing number %d for the caller.",
			"server": "com.example/tools", "source": "host-extension", "safetyTier": %q, "replayPolicy": "idempotent",
			"egress": "internet", "status": "active", "tenants": ["acme", "globex"],
			"inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}}, "required": ["id"]}}`,
			i, i, i, tiers[i%4])
	}
	sb.WriteString(`]}`)
	return decode(b, sb.String())
}

func BenchmarkValidateDeclarations(b *testing.B) {
	v := newValidator(b)
	doc := benchDeclarations(b)
	b.ReportAllocs()
	for b.Loop() {
		if v.Validate("declarations", doc) != nil {
			b.Fatal("declarations rejected")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/tool")
}

// keywordValues are values to try under every keyword the fast path knows: right and wrong types,
// edge numbers, references, patterns, schema lists and maps of each.
var keywordValues = []string{
	`null`, `true`, `false`, `0`, `-1`, `1`, `1.5`, `2.0`, `1e2`, `-0`, `0.0`, `18446744073709551616`,
	`""`, `"string"`, `"strng"`, `"object"`, `"#"`, `"#/a"`, `"#/$defs/x"`, `"#/a b"`, `"#/%zz"`, `"https://x"`,
	`"a b"`, `"#foo"`, `"foo"`, `"_a-1.b"`, `"1a"`, `"(a"`, `"^a$"`, `"[]"`, `"a{1,2000}"`, `"(?=a)"`, `"\\"`,
	`"https://json-schema.org/draft/2020-12/schema"`, `"http://json-schema.org/draft-07/schema#"`, `"json-schema.org/draft/2020-12/schema"`,
	`[]`, `["a"]`, `["a", "a"]`, `["a", 1]`, `["string", "null"]`, `["string", "string"]`, `["strng"]`, `[1]`,
	`[{}]`, `[true]`, `[{"type": 5}]`, `[{"type": "string"}, false]`,
	`{}`, `{"type": "string"}`, `{"type": 5}`, `{"a": {"type": "string"}}`, `{"a": ["b"]}`, `{"a": {"type": 5}}`,
	`{"a": [1]}`, `{"a": ["x", "x"]}`, `{"(a": {}}`, `{"a": true}`, `{"a": 1}`, `{"a": {"minLength": -1}}`,
	`{"https://x": true}`, `{"a b": true}`,
}

// metaKeywords are the keywords the draft 2020-12 meta-schemas constrain, and a few they do not.
var metaKeywords = []string{
	"$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
	"prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
	"dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
	"unevaluatedItems", "unevaluatedProperties",
	"type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
	"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
	"maxProperties", "minProperties", "required", "dependentRequired",
	"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
	"format", "contentEncoding", "contentMediaType", "contentSchema",
	"definitions", "dependencies", "$recursiveAnchor", "$recursiveRef",
	"additionalItems", "id", "x-vendor", "nullable",
}

// TestFastPathAgrees holds the fast path to the meta-schema: whatever it accepts, the meta-schema
// accepts too, for every keyword with every sample value, alone and nested (and on the corpus's
// schemas in the corpus suite, TestCorpusFastPathAgrees).
func TestFastPathAgrees(t *testing.T) {
	v := newValidator(t)
	fast, total := 0, 0
	check := func(label string, s any) {
		t.Helper()
		total++
		if !plainValid2020(s) {
			return
		}
		fast++
		if err := v.meta20.Validate(s); err != nil {
			t.Errorf("%s: fast path accepts what the meta-schema rejects: %v", label, err)
		}
	}
	for _, kw := range metaKeywords {
		for _, val := range keywordValues {
			x := decode(t, val)
			check(kw+"="+val, map[string]any{kw: x})
			check("nested "+kw+"="+val, map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{kw: x}}})
			check("in anyOf "+kw+"="+val, map[string]any{"anyOf": []any{map[string]any{kw: x}}})
		}
	}
	t.Logf("fast path accepted %d of %d schemas", fast, total)
}

// FuzzFastPath looks for a schema the fast path accepts and checkValue or the meta-schema rejects.
func FuzzFastPath(f *testing.F) {
	f.Add(benchSchema)
	f.Add(`{"type": ["string", "null"], "minLength": 1, "pattern": "^[a-z]+$", "$ref": "#/$defs/a", "$defs": {"a": true}}`)
	f.Add(`{"dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "dependentRequired": {"x": []}, "multipleOf": 0.5}`)
	f.Add(`{"$anchor": "a", "$recursiveAnchor": "b", "$schema": "https://json-schema.org/draft/2020-12/schema#"}`)
	v := newValidator(f)
	f.Fuzz(func(t *testing.T, s string) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var x any
		if d.Decode(&x) != nil {
			return
		}
		if plainValid2020(x) && checkValue(x) != nil {
			t.Errorf("fast path accepts %s; checkValue says %v", s, checkValue(x))
		}
		if checkValue(x) != nil {
			return
		}
		if plainValid2020(x) {
			if err := v.meta20.Validate(x); err != nil {
				t.Errorf("fast path accepts %s; the meta-schema says %v", s, err)
			}
		}
	})
}

// FuzzNoPanic feeds arbitrary JSON to every schema and to CheckSchema.
func FuzzNoPanic(f *testing.F) {
	for _, tc := range validateCases {
		f.Add(tc.instance)
	}
	f.Add(benchSchema)
	f.Add(`{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": 3}], "dependencies": {"a": 5}}`)
	f.Add(`{"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": "x", "anyOf": [{"type": "strng"}, 3]}`)
	v := newValidator(f)
	f.Fuzz(func(t *testing.T, s string) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var x any
		if d.Decode(&x) != nil {
			return
		}
		for _, name := range allNames {
			for _, viol := range v.Validate(name, x) {
				if viol.Message == "" || strings.Contains(viol.Message, "\n") || strings.HasPrefix(viol.Message, "cannot validate") {
					t.Errorf("Validate(%s, %s): bad violation %+v", name, s, viol)
				}
			}
		}
		for _, viol := range v.CheckSchema(x) {
			if viol.Message == "" || strings.Contains(viol.Message, "\n") || strings.HasPrefix(viol.Message, "cannot validate") {
				t.Errorf("CheckSchema(%s): bad violation %+v", s, viol)
			}
		}
	})
}
