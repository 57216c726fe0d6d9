package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/refs"
)

func parse(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Parse(context.Background(), "api.yaml", []byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// op finds the operation named name.
func op(t *testing.T, d *Document, name string) Operation {
	t.Helper()
	for _, o := range d.Operations {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no operation %q", name)
	return Operation{}
}

// asJSON renders a schema for comparison, keys sorted.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const params = `openapi: 3.0.3
info: {title: Pets, version: "1"}
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, required: true, description: The pet, schema: {type: integer}}
      - {name: verbose, in: query, schema: {type: boolean}}
    get:
      operationId: getPet
      summary: Get a pet
      description: Returns one pet.
      tags: [pets, read]
      parameters:
        - {name: verbose, in: query, required: true, schema: {type: string, nullable: true}}
        - {name: X-Trace, in: header, schema: {type: string}, deprecated: true}
        - {name: session, in: cookie, schema: {type: string}}
      responses:
        "200": {description: ok}
    put:
      summary: Replace a pet
      parameters:
        - {name: id, in: query, schema: {type: string}}
      responses:
        "204": {description: done}
`

func TestParameters(t *testing.T) {
	d := parse(t, params)
	if d.Title != "Pets" || d.Version != "3.0.3" {
		t.Errorf("title, version = %q, %q", d.Title, d.Version)
	}
	get := op(t, d, "getPet")
	if get.Tool == nil {
		t.Fatalf("left out: %s", get.LeftOut)
	}
	if get.Pointer != "/paths/~1pets~1{id}/get" || get.Method != "GET" {
		t.Errorf("pointer, method = %q, %q", get.Pointer, get.Method)
	}
	tool := get.Tool
	if tool.Title != "Get a pet" || tool.Description != "Get a pet. Returns one pet." || tool.Group != "pets" || !tool.Read {
		t.Errorf("tool = %+v", tool)
	}
	// The operation's verbose overrides the path item's; path parameters
	// are required; the header keeps its deprecation; the cookie is not an
	// argument; nullable becomes a null type.
	want := `{"additionalProperties":false,"properties":{"X-Trace":{"deprecated":true,"type":"string"},"id":{"description":"The pet","type":"integer"},"verbose":{"type":["string","null"]}},"required":["id","verbose"],"type":"object"}`
	if got := asJSON(t, tool.InputSchema); got != want {
		t.Errorf("inputSchema\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(strings.Join(get.Notes, ";"), "cookie parameter session is not an argument") {
		t.Errorf("notes = %q", get.Notes)
	}
	if tool.OutputSchema != nil {
		t.Errorf("outputSchema = %v, want none for a response without content", tool.OutputSchema)
	}
	// Without an operationId the name is METHOD /path; a query parameter
	// and a path parameter of one name cannot both be arguments.
	put := op(t, d, "PUT /pets/{id}")
	if put.Tool != nil || !strings.Contains(put.LeftOut, `two arguments named "id"`) {
		t.Errorf("put: tool %v, left out %q", put.Tool, put.LeftOut)
	}
	if put.Tool != nil || put.Method != "PUT" {
		t.Errorf("put = %+v", put)
	}
}

const bodies = `openapi: 3.1.0
info: {title: Shop, version: "2"}
paths:
  /orders:
    post:
      operationId: createOrder
      summary: Create an order
      requestBody:
        required: true
        description: The order
        content:
          application/xml: {schema: {type: object}}
          application/vnd.shop+json: {schema: {$ref: '#/components/schemas/Order'}}
      responses:
        "201":
          description: created
          content:
            application/json: {schema: {$ref: '#/components/schemas/Order'}}
        "200":
          description: an array first
          content:
            application/json: {schema: {type: array}}
  /upload:
    post:
      operationId: upload
      summary: Upload a file
      requestBody:
        content:
          multipart/form-data: {schema: {type: object}}
      responses:
        "200": {description: ok}
  /events:
    get:
      operationId: events
      summary: Stream events
      responses:
        "200":
          description: events
          content:
            text/event-stream: {schema: {type: string}}
  /old:
    get:
      operationId: old
      summary: Old
      deprecated: true
      responses:
        "200": {description: ok}
  /text:
    get:
      operationId: text
      summary: Plain text
      responses:
        2XX:
          description: text
          content:
            text/plain: {schema: {type: string}}
  /body:
    post:
      operationId: clash
      summary: A parameter named body
      parameters: [{name: body, in: query, schema: {type: string}}]
      requestBody:
        content:
          application/json: {schema: {type: object}}
      responses:
        "200": {description: ok}
webhooks:
  newOrder:
    post:
      requestBody:
        content:
          application/json: {schema: {$ref: '#/components/schemas/Order'}}
      responses:
        "200": {description: ok}
components:
  schemas:
    Order:
      type: object
      required: [id]
      properties:
        id: {type: string, example: o-1, x-internal: true}
        lines: {type: array, items: {$ref: '#/components/schemas/Line'}}
        parent: {$ref: '#/components/schemas/Order'}
    Line:
      type: object
      discriminator: {propertyName: kind}
      properties:
        kind: {type: string, const: item}
        qty: {type: integer, exclusiveMinimum: 0}
`

func TestBodyAndResponses(t *testing.T) {
	d := parse(t, bodies)
	create := op(t, d, "createOrder")
	if create.Tool == nil {
		t.Fatalf("left out: %s", create.LeftOut)
	}
	in := create.Tool.InputSchema
	// The JSON type wins over XML; the body is its own argument, required,
	// and the components it reaches are bundled into $defs.
	wantIn := `{"$defs":{"Line":{"properties":{"kind":{"const":"item","type":"string"},"qty":{"exclusiveMinimum":0,"type":"integer"}},"type":"object"},"Order":{"properties":{"id":{"examples":["o-1"],"type":"string"},"lines":{"items":{"$ref":"#/$defs/Line"},"type":"array"},"parent":{"$ref":"#/$defs/Order"}},"required":["id"],"type":"object"}},"additionalProperties":false,"properties":{"body":{"$ref":"#/$defs/Order","description":"The order"}},"required":["body"],"type":"object"}`
	if got := asJSON(t, in); got != wantIn {
		t.Errorf("inputSchema\n got %s\nwant %s", got, wantIn)
	}
	// The first 2xx with content by code is 200, an array: no output.
	if create.Tool.OutputSchema != nil || !strings.Contains(strings.Join(create.Notes, ";"), "the 200 response is an array, not an object") {
		t.Errorf("output %v, notes %q", create.Tool.OutputSchema, create.Notes)
	}
	for _, s := range []map[string]any{in} {
		if ps := refs.Check(s); len(ps) > 0 {
			t.Errorf("refs.Check: %v", ps)
		}
	}
	cases := []struct{ name, leftOut, note string }{
		{"upload", "the request body is multipart/form-data, not JSON", ""},
		{"events", "", "the 200 response is a stream (text/event-stream)"},
		{"old", "deprecated", ""},
		{"text", "", "the 2XX response is text/plain, not JSON"},
		{"clash", `the query parameter "body" collides`, ""},
		{"POST newOrder", "a webhook", ""},
	}
	for _, c := range cases {
		o := op(t, d, c.name)
		if c.leftOut != "" && (o.Tool != nil || !strings.Contains(o.LeftOut, c.leftOut)) {
			t.Errorf("%s: left out %q, want %q", c.name, o.LeftOut, c.leftOut)
		}
		if c.note != "" && (o.Tool == nil || o.Tool.OutputSchema != nil || !strings.Contains(strings.Join(o.Notes, ";"), c.note)) {
			t.Errorf("%s: notes %q, want %q", c.name, o.Notes, c.note)
		}
	}
}

func TestOutputSchemaRoot(t *testing.T) {
	d := parse(t, `openapi: 3.0.0
info: {title: T, version: "1"}
paths:
  /pet:
    get:
      operationId: getPet
      summary: A pet
      responses:
        "200":
          description: ok
          content:
            application/json; charset=utf-8: {schema: {$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Pet:
      allOf:
        - {$ref: '#/components/schemas/Base'}
        - {type: object, properties: {age: {type: integer, minimum: 0, exclusiveMinimum: true, nullable: true}}}
    Base: {type: object, properties: {name: {type: string}}, xml: {name: base}}
`)
	o := op(t, d, "getPet")
	// The root $ref is replaced by the component, which gets type object;
	// 3.0's exclusive boolean and nullable become JSON Schema.
	want := `{"$defs":{"Base":{"properties":{"name":{"type":"string"}},"type":"object"}},"allOf":[{"$ref":"#/$defs/Base"},{"properties":{"age":{"exclusiveMinimum":0,"type":["integer","null"]}},"type":"object"}],"type":"object"}`
	if got := asJSON(t, o.Tool.OutputSchema); got != want {
		t.Errorf("outputSchema\n got %s\nwant %s", got, want)
	}
	if ps := refs.Check(o.Tool.OutputSchema); len(ps) > 0 {
		t.Errorf("refs.Check: %v", ps)
	}
}

func TestRefsNotBundled(t *testing.T) {
	d := parse(t, `openapi: 3.0.0
info: {title: T, version: "1"}
paths:
  /a:
    post:
      operationId: a
      summary: A
      requestBody:
        content:
          application/json: {schema: {$ref: '#/components/requestBodies/X/content/application~1json/schema'}}
      responses: {"200": {description: ok}}
components:
  requestBodies:
    X:
      content:
        application/json: {schema: {type: object}}
`)
	if o := op(t, d, "a"); o.Tool != nil || !strings.Contains(o.LeftOut, "is not to #/components/schemas/NAME") {
		t.Errorf("left out %q", o.LeftOut)
	}
}

const secured = `openapi: 3.0.3
info: {title: Keys, version: "1"}
security: [{key: []}]
paths:
  /items:
    get:
      operationId: listItems
      summary: List items
      parameters:
        - {name: X-API-KEY, in: header, required: true, schema: {type: string}}
        - {name: access_token, in: query, schema: {type: string}}
        - {name: q, in: query, schema: {type: string}}
        - {name: Accept, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
    post:
      operationId: addItem
      summary: Add an item
      security: [{oauth: [items:write]}, {key: [], sid: []}]
      parameters:
        - {name: Authorization, in: header, required: true, schema: {type: string}}
        - {name: sid, in: cookie, schema: {type: string}}
        - {name: tz, in: cookie, schema: {type: string}}
        - {name: token, in: query, schema: {type: string}}
      responses: {"201": {description: ok}}
  /health:
    get:
      operationId: health
      summary: Health
      security: []
      parameters:
        - {name: x-api-key, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
    put:
      operationId: setHealth
      summary: Set health
      security: [{basic: [admin]}]
      responses: {"204": {description: ok}}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
    token: {type: apiKey, in: query, name: token}
    sid: {type: apiKey, in: cookie, name: sid}
    oauth:
      type: oauth2
      flows: {clientCredentials: {tokenUrl: "https://auth.example.com/token", scopes: {"items:write": write}}}
    basic: {type: http, scheme: Basic}
`

// TestSecurity holds the credentials of the document's security schemes
// out of the arguments, wherever the security applies, and reads what each
// operation's security asks.
func TestSecurity(t *testing.T) {
	d := parse(t, secured)
	cases := []struct {
		name, args, notes, auth string
	}{
		{"listItems", `{"q":{"type":"string"}}`,
			"header parameter X-API-KEY is not an argument: it carries the credential of security scheme key; " +
				"query parameter access_token is not an argument: it carries the credential of security scheme oauth, which the operation does not require; " +
				"header parameter Accept is not an argument: OpenAPI ignores a header parameter named Accept",
			`[{"key":{"Type":"apiKey","In":"header","Name":"X-Api-Key","Scheme":"","Scopes":[]}}]`},
		{"addItem", `{}`,
			"header parameter Authorization is not an argument: it carries the credential of security scheme oauth; " +
				"cookie parameter sid is not an argument: it carries the credential of security scheme sid; " +
				"query parameter token is not an argument: it carries the credential of security scheme token, which the operation does not require; " +
				"cookie parameter tz is not an argument: a tool call carries no cookies",
			`[{"oauth":{"Type":"oauth2","In":"header","Name":"Authorization","Scheme":"","Scopes":["items:write"]}},` +
				`{"key":{"Type":"apiKey","In":"header","Name":"X-Api-Key","Scheme":"","Scopes":[]},"sid":{"Type":"apiKey","In":"cookie","Name":"sid","Scheme":"","Scopes":[]}}]`},
		// security: [] takes the document's away; a parameter that carries
		// a scheme's credential is still not an argument.
		{"health", `{}`,
			"header parameter x-api-key is not an argument: it carries the credential of security scheme key, which the operation does not require",
			`[]`},
		{"setHealth", `{}`, "",
			`[{"basic":{"Type":"http","In":"header","Name":"Authorization","Scheme":"basic","Scopes":["admin"]}}]`},
	}
	for _, c := range cases {
		o := op(t, d, c.name)
		if o.Tool == nil {
			t.Fatalf("%s left out: %s", c.name, o.LeftOut)
		}
		props := asJSON(t, o.Tool.InputSchema["properties"])
		if props != c.args {
			t.Errorf("%s: arguments %s, want %s", c.name, props, c.args)
		}
		if _, has := o.Tool.InputSchema["required"]; has && c.args == "{}" {
			t.Errorf("%s: required %v", c.name, o.Tool.InputSchema["required"])
		}
		if got := strings.Join(o.Notes, "; "); got != c.notes {
			t.Errorf("%s: notes\n got %s\nwant %s", c.name, got, c.notes)
		}
		if got := asJSON(t, o.Tool.Security); got != c.auth {
			t.Errorf("%s: auth\n got %s\nwant %s", c.name, got, c.auth)
		}
	}
	// Without security anywhere, Security is nil.
	if o := op(t, parse(t, params), "getPet"); o.Tool.Security != nil {
		t.Errorf("auth %v", o.Tool.Security)
	}
	// An http bearer scheme's token may be the query's access_token too.
	doc := strings.Replace(secured, "basic: {type: http, scheme: Basic}", "bearer: {type: http, scheme: Bearer}", 1)
	doc = strings.Replace(doc, "    oauth:\n      type: oauth2\n      flows: {clientCredentials: {tokenUrl: \"https://auth.example.com/token\", scopes: {\"items:write\": write}}}\n",
		"    oauth: {type: apiKey, in: header, name: X-Other}\n", 1)
	doc = strings.Replace(doc, "{oauth: [items:write]}", "{bearer: []}", 1)
	doc = strings.Replace(doc, "{basic: [admin]}", "{bearer: []}", 1)
	if got := strings.Join(op(t, parse(t, doc), "listItems").Notes, "; "); !strings.Contains(got, "query parameter access_token is not an argument: it carries the credential of security scheme bearer, which") {
		t.Errorf("notes %s", got)
	}
}

// TestText leads the description with the summary, and reads x-signpost.
func TestText(t *testing.T) {
	for _, c := range []struct{ summary, description, want string }{
		{"List pets", "Returns every pet.", "List pets. Returns every pet."},
		{"List pets.", "Returns every pet.", "List pets. Returns every pet."},
		{"Is it up?", "Says whether it is.", "Is it up? Says whether it is."},
		{"List pets", "List pets, newest first.", "List pets, newest first."},
		{"List pets.", "list pets by tag", "list pets by tag"},
	} {
		if got := leadWith(c.summary, c.description); got != c.want {
			t.Errorf("leadWith(%q, %q) = %q, want %q", c.summary, c.description, got, c.want)
		}
	}
	d := parse(t, `openapi: 3.1.0
info: {title: X, version: "1"}
paths:
  /a:
    get: {operationId: plain, summary: A, responses: {"204": {description: ok}}}
    post: {operationId: search, summary: A, x-signpost: {safetyTier: read}, responses: {"204": {description: ok}}}
    put: {operationId: keyed, summary: A, x-signpost: {replayPolicy: keyed}, responses: {"204": {description: ok}}}
    delete: {operationId: exec, summary: A, x-signpost: {safetyTier: exec}, responses: {"204": {description: ok}}}
    patch: {operationId: egress, summary: A, x-signpost: {egress: none}, responses: {"204": {description: ok}}}
    options: {operationId: list, summary: A, x-signpost: [read], responses: {"204": {description: ok}}}
`)
	for name, want := range map[string]Safety{
		"plain":  {},
		"search": {SafetyTier: "read"},
		"keyed":  {ReplayPolicy: "keyed"},
		"exec":   {Problem: `x-signpost.safetyTier is "exec", not pure, read or write`},
		"egress": {Problem: `x-signpost has "egress", which it does not take: only safetyTier and replayPolicy`},
		"list":   {Problem: "x-signpost is not an object"},
	} {
		if got := op(t, d, name).Tool.Declared; got != want {
			t.Errorf("%s: declared %+v, want %+v", name, got, want)
		}
	}
}

// TestRefIntoComponent holds a $ref to a schema inside a component (a
// property's, an item's) to that schema alone: the rest of the component
// is not copied into the tool's schema.
func TestRefIntoComponent(t *testing.T) {
	d := parse(t, `openapi: 3.1.0
info: {title: T, version: "1"}
paths:
  /pets:
    get:
      operationId: findPets
      summary: Find pets
      parameters:
        - {name: status, in: query, schema: {$ref: '#/components/schemas/Pet/properties/status'}}
        - {name: tag, in: query, schema: {$ref: '#/components/schemas/Pet/properties/tags/items'}}
        - {name: first, in: query, schema: {$ref: '#/components/schemas/Pair/prefixItems/0'}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet/properties/owner'}
    post:
      operationId: badPointer
      summary: Bad pointer
      parameters:
        - {name: p, in: query, schema: {$ref: '#/components/schemas/Pet/properties'}}
      responses: {"204": {description: ok}}
components:
  schemas:
    Pet:
      type: object
      description: A pet, with much the tool does not need.
      properties:
        status: {type: string, enum: [available, sold]}
        tags: {type: array, items: {type: string, maxLength: 9}}
        owner: {$ref: '#/components/schemas/Owner'}
        history: {type: array, items: {type: string}, description: Long.}
    Owner:
      type: object
      properties:
        name: {type: string}
        pets: {type: array, items: {$ref: '#/components/schemas/Owner/properties/name'}}
    Pair: {type: array, prefixItems: [{type: integer}, {type: integer}]}
`)
	o := op(t, d, "findPets")
	if o.Tool == nil {
		t.Fatalf("left out: %s", o.LeftOut)
	}
	in := asJSON(t, o.Tool.InputSchema)
	want := `{"$defs":{"Pair/prefixItems/0":{"type":"integer"},"Pet/properties/status":{"enum":["available","sold"],"type":"string"},"Pet/properties/tags/items":{"maxLength":9,"type":"string"}},` +
		`"additionalProperties":false,"properties":{"first":{"$ref":"#/$defs/Pair~1prefixItems~10"},"status":{"$ref":"#/$defs/Pet~1properties~1status"},"tag":{"$ref":"#/$defs/Pet~1properties~1tags~1items"}},"type":"object"}`
	if in != want {
		t.Errorf("inputSchema\n got %s\nwant %s", in, want)
	}
	// A root that is such a $ref is the schema itself, with the
	// components it reaches.
	out := asJSON(t, o.Tool.OutputSchema)
	want = `{"$defs":{"Owner/properties/name":{"type":"string"}},` +
		`"properties":{"name":{"type":"string"},"pets":{"items":{"$ref":"#/$defs/Owner~1properties~1name"},"type":"array"}},"type":"object"}`
	if out != want {
		t.Errorf("outputSchema\n got %s\nwant %s", out, want)
	}
	for _, s := range []map[string]any{o.Tool.InputSchema, o.Tool.OutputSchema} {
		if ps := refs.Check(s); len(ps) > 0 {
			t.Errorf("refs.Check: %v", ps)
		}
		if strings.Contains(asJSON(t, s), "history") {
			t.Errorf("the rest of Pet was copied: %s", asJSON(t, s))
		}
	}
	if o := op(t, d, "badPointer"); o.Tool != nil || !strings.Contains(o.LeftOut, "#/components/schemas/Pet/properties: the pointer names no schema") {
		t.Errorf("left out %q", o.LeftOut)
	}
}

func TestInvalidDocuments(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"syntax", "openapi: 3.0.0\ninfo: [\n", "line 2, column 7: invalid YAML: the [ here is never closed"},
		{"empty", "  \n", "the file is empty"},
		{"swagger", "swagger: '2.0'\ninfo: {title: T, version: '1'}\npaths: {}\n", "a Swagger 2.0 document: convert it to OpenAPI 3 first"},
		{"version", "openapi: 2.5.0\ninfo: {title: T, version: '1'}\npaths: {}\n", "OpenAPI 2.5.0 is not supported"},
		{"no version", "info: {title: T}\n", `it has no "openapi" version string`},
		{"invalid", "openapi: 3.0.0\ninfo: {title: T}\npaths: {}\n", "invalid OpenAPI document: invalid info: value of version must be a non-empty string"},
		{"external", "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok, content: {application/json: {schema: {$ref: 'other.yaml#/Pet'}}}}\n", "refers outside itself"},
		{"dangling", "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Nope'}}}}\n", "not a valid OpenAPI document"},
		{"json", `{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {"/a": 1}}`, "not a valid OpenAPI document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(context.Background(), "api", []byte(c.doc))
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestIsDocument(t *testing.T) {
	for v, want := range map[string]bool{`{"openapi": "3.1.0"}`: true, `{"openapi": {"from": "a.yaml"}}`: false, `[]`: false} {
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			t.Fatal(err)
		}
		if got := IsDocument(x); got != want {
			t.Errorf("IsDocument(%s) = %v", v, got)
		}
	}
}
