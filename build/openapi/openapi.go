// Package openapi reads the operations of an OpenAPI document (3.0 or 3.1,
// YAML or JSON) as tool declarations: for each operation, its name,
// description, group and the JSON Schemas of its arguments and result, or
// the reason it cannot be a tool. The loader (an openapi: import of a
// catalog) and signpost import openapi both read documents through it, so
// that what one accepts the other does.
//
// The document is parsed by build/source (its size, depth and alias limits,
// and positions for syntax errors), then checked and resolved by
// kin-openapi, given bytes only: an external $ref (another file, a URL)
// refuses the whole document, and nothing is ever read from a disk or a
// network. The library is given each $ref to a component schema as a
// marker, so that it reads each schema once, where it is written, rather
// than again at every use; this package resolves those $refs itself.
//
// # Arguments
//
// An operation's inputSchema is an object with one property per path, query
// and header parameter (path-item parameters included, the operation's
// overriding them), named as the parameter is, required when the parameter
// is; and, when the operation takes a request body, one property "body"
// holding the body's schema, required when the body is. The body is never
// merged into the parameters: a body's properties could collide with a
// parameter's name, and keeping it apart tells a caller unambiguously what
// goes where. Cookie parameters are not arguments (a note says so): a tool
// call carries no cookies. Nor are the header parameters Accept,
// Content-Type and Authorization, which OpenAPI says to ignore. A body must be JSON (application/json or a +json
// type) or a form (application/x-www-form-urlencoded, whose fields are the
// body's properties); an operation whose body is only multipart, binary or
// text is left out.
//
// # Security
//
// A parameter that carries the credential of a security scheme the
// document defines is never an argument, with a note: an apiKey scheme's
// parameter (header, query or cookie, by its name; a header's name in any
// case), the Authorization header of an http, oauth2 or openIdConnect
// scheme, and the query parameter access_token (RFC 6750) of a bearer
// scheme. That holds whether the operation's security names the scheme,
// the document's applies, or the operation's security: [] takes it away:
// a credential is the caller's to supply, never the model's, and the note
// then says that the operation does not require the scheme. What the
// operation's security asks (its own, else the document's) is Tool.Security,
// each scheme as components/securitySchemes defines it.
//
// # Text
//
// The summary is the title and leads the description, so that a
// description cut to its first sentence keeps it; the description alone
// when it already starts with the summary, the summary alone without one.
// An operation's x-signpost extension ({safetyTier, replayPolicy}) is read
// into Tool.Declared, for an importer to take or not; the loader's openapi:
// import classifies by its declaration only.
//
// # Results
//
// The outputSchema is the schema of the first 2xx response (by status code,
// ranges such as 2XX last) that has content, when that content is JSON and
// an object; an array, a scalar, a stream (text/event-stream,
// application/x-ndjson, ...) or a non-JSON response gets no outputSchema,
// with a note.
//
// # Schemas
//
// A schema is taken as the document writes it, then made a self-contained
// JSON Schema: every $ref to #/components/schemas/NAME becomes
// #/$defs/NAME, with that component (and every one it reaches) in the
// $defs of the tool's schema root. A $ref to a schema inside a component,
// such as #/components/schemas/Pet/properties/status, becomes a definition
// of its own, $defs "Pet/properties/status": that schema alone, not the
// component around it. A $ref to anything else leaves the operation out. Each component is converted once for the document, and
// the $defs of every operation that reaches it hold the same map: the
// schemas of a Document are read-only. OpenAPI 3.0 forms are rewritten as their JSON Schema
// equivalents: nullable adds "null" to the type, a boolean exclusiveMinimum
// or exclusiveMaximum becomes the bound, and example becomes examples (in
// 3.1 documents too). OpenAPI's own annotations (discriminator, xml,
// externalDocs) and x- extensions are dropped: they mean nothing to a JSON
// Schema validator.
//
// # Bounds
//
// Nothing is expanded before it is measured. A document is refused when,
// with its $refs to components other than schemas written out where they
// are used (as the library reads it), it is larger than MaxExpanded; when
// a cycle of component schemas, each a $ref to the next, never reaches a
// schema; and when the schemas of its operations together, each counting
// every component it reaches, pass Options.MaxSchemas: each component is
// measured once, and the total is checked before an operation's schemas
// get their $defs.
//
// # What is left out
//
// An operation is left out, with its reason, when it is deprecated, has a
// name from which no toolId can be derived, has two arguments of the same name, takes a body that is not
// JSON or a form, or has a schema that cannot be bundled. Webhooks (3.1)
// are requests the API sends, not ones a client makes: each is listed, left
// out. Callbacks of an operation are ignored, with a note: the operation is
// still a tool.
package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/toolid"
)

// Document is an OpenAPI document read for its operations.
type Document struct {
	// Version is the document's openapi field, such as 3.1.0.
	Version string
	// Title is the API's info.title; it seeds the digests of colliding
	// toolIds, so that they do not change with the file's name.
	Title string
	// Operations are every operation of the document: paths in byte order,
	// and within a path the methods in the order OpenAPI lists them (get,
	// put, post, delete, options, head, patch, trace); then the webhooks.
	Operations []Operation
}

// Operation is one operation of the document, as a tool or left out.
type Operation struct {
	// Pointer is the JSON pointer of the operation object in the document,
	// such as /paths/~1pets~1{id}/get.
	Pointer string
	// Method is the HTTP method in upper case; Path the path template.
	Method, Path string
	// Name is the operation's name at its source: its operationId, or
	// "METHOD /path" when it has none.
	Name string
	// LeftOut says why the operation is not a tool; "" when it is.
	LeftOut string
	// Notes are what the conversion left out or changed, one phrase each.
	Notes []string
	// Tool is the operation as a tool; nil when LeftOut is set.
	Tool *Tool
}

// Tool is what an operation declares about itself as a tool. The safety
// fields are not among them: they are the catalog's decision.
type Tool struct {
	// Title is the operation's summary, when it also has a description.
	Title string
	// Description is its description, or else its summary; "" when it has
	// neither, which the catalog must then supply.
	Description string
	// Group is the operation's first tag, "" without one.
	Group string
	// Read is true for GET and HEAD, the methods HTTP defines as safe: a
	// catalog may choose to take them as reads.
	Read bool
	// Declared is what the operation's x-signpost extension says of its
	// safety, the zero Safety without one.
	Declared Safety
	// Security is what the operation's security asks of a caller: any one
	// requirement suffices. It is nil when the document declares no
	// security for the operation, and empty when the operation's
	// security: [] takes the document's away.
	Security []Requirement
	// InputSchema and OutputSchema are self-contained JSON Schemas;
	// OutputSchema is nil when the operation has no JSON object result.
	InputSchema, OutputSchema map[string]any
}

// Safety is what an operation's x-signpost extension says of its tool,
// for an importer to take or not: the document's claim, as its method is.
type Safety struct {
	// SafetyTier is pure, read or write; ReplayPolicy deterministic,
	// idempotent, keyed or unsafe; "" when the extension does not say.
	SafetyTier, ReplayPolicy string
	// Problem says why the extension cannot be taken (a member it does not
	// have, a value that is not one of these); "" when it can.
	Problem string
}

// Extension is the name of the operation extension Safety is read from.
const Extension = "x-signpost"

// MaxGroupLen is the longest group a tool declaration may have.
const MaxGroupLen = 64

// Error is why a file is not an OpenAPI document this package reads. Line
// and Col are 1-based, 0 when the problem has no position.
type Error struct {
	Line, Col int
	Msg       string
	// Pointer is the JSON pointer of the operation the problem is at,
	// when it is at one (the operations' schemas passing
	// Options.MaxSchemas); "" otherwise.
	Pointer string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// Options bound what reading a document may produce. The zero Options
// takes the defaults.
type Options struct {
	// MaxSchemas bounds the schemas of all the operations of a document
	// together, as a catalog would publish them: each operation's input and
	// output schemas, with every component they reach counted again for each
	// operation that reaches it. Each component is measured once, and the
	// operations' sizes are added up before any is given its components: a
	// document over the bound is refused with an *Error naming the operation
	// that passes it, before its schemas are built. 0 means
	// DefaultMaxSchemas.
	MaxSchemas int64
}

// DefaultMaxSchemas is the bound of Options.MaxSchemas when it is 0: the
// default limit of a catalog's largest document, which a list of every
// tool of a document would be held to.
const DefaultMaxSchemas = 64 << 20

// Parse parses an OpenAPI document, YAML or JSON (a document whose first
// character is "{" is read as JSON), and reads it with the default
// Options. label names the file in nothing but positions' context; the
// error is an *Error.
func Parse(ctx context.Context, label string, data []byte) (*Document, error) {
	return Options{}.Parse(ctx, label, data)
}

// Parse parses an OpenAPI document, as the function Parse does, and reads
// it with these Options.
func (o Options) Parse(ctx context.Context, label string, data []byte) (*Document, error) {
	data = trimBOM(data)
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, &Error{Msg: "the file is empty: an OpenAPI document is an object with openapi, info and paths"}
	}
	var (
		src *source.File
		ps  []source.Problem
	)
	if IsJSON(data) {
		src, ps = source.ParseJSON(label, label, data)
	} else {
		src, ps = source.ParseYAML(label, label, data)
	}
	if len(ps) > 0 {
		return nil, &Error{Line: ps[0].Line, Col: ps[0].Col, Msg: ps[0].Msg}
	}
	return o.Read(ctx, src.Value)
}

// IsJSON reports whether a document's bytes are JSON: its first character,
// after white space, is "{".
func IsJSON(data []byte) bool {
	s := strings.TrimLeftFunc(string(trimBOM(data)), unicode.IsSpace)
	return strings.HasPrefix(s, "{")
}

func trimBOM(data []byte) []byte {
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return data[3:]
	}
	return data
}

// IsDocument reports whether a decoded YAML or JSON value is an OpenAPI
// document rather than a catalog declaration: an object whose openapi
// member is a string (a declaration's openapi member is an object).
func IsDocument(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m["openapi"].(string)
	return ok
}

// Read reads a decoded OpenAPI document (JSON values, as build/source
// decodes them) for its operations, with the default Options. The error is
// an *Error: the value is not an OpenAPI 3.0 or 3.1 document, it is
// invalid, it refers outside itself, or its operations' schemas are larger
// than Options.MaxSchemas.
//
// The schemas of different operations share the maps of the components
// they reach (their $defs members): a caller treats them as read-only,
// and copies what it changes.
func Read(ctx context.Context, v any) (*Document, error) {
	return Options{}.Read(ctx, v)
}

// Read reads a decoded OpenAPI document, as the function Read does, with
// these Options.
func (o Options) Read(ctx context.Context, v any) (doc *Document, err error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Msg: "not an OpenAPI document: expected an object with openapi, info and paths"}
	}
	version, _ := m["openapi"].(string)
	switch {
	case version == "" && m["swagger"] != nil:
		return nil, &Error{Msg: "a Swagger 2.0 document: convert it to OpenAPI 3 first"}
	case version == "":
		return nil, &Error{Msg: `not an OpenAPI document: it has no "openapi" version string`}
	case !strings.HasPrefix(version, "3.0.") && !strings.HasPrefix(version, "3.1.") && version != "3.0" && version != "3.1":
		return nil, &Error{Msg: fmt.Sprintf("OpenAPI %s is not supported: only 3.0 and 3.1 are", version)}
	}
	marked, merr := markRefs(m)
	if merr != nil {
		return nil, merr
	}
	data, err := json.Marshal(marked)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("cannot encode the document: %v", err)}
	}
	defer func() {
		// The library is given hostile input too: a panic in it is an
		// invalid document, not a crash.
		if r := recover(); r != nil {
			doc, err = nil, &Error{Msg: fmt.Sprintf("not a valid OpenAPI document (the parser failed: %v)", r)}
		}
	}()
	loader := openapi3.NewLoader()
	loader.Context = ctx
	loader.IsExternalRefsAllowed = false
	// A custom reader owns the access policy: this one allows nothing, so
	// that no $ref is ever fetched from a disk or a network.
	loader.ReadFromURIFunc = func(*openapi3.Loader, *url.URL) ([]byte, error) {
		return nil, errors.New("external references are not read")
	}
	// Decoded as JSON, which the bytes are: the library's YAML decoder
	// checks a mapping's keys for duplicates in time quadratic in their
	// number, and a JSON object built from a decoded value has none.
	t := &openapi3.T{}
	if err := json.Unmarshal(data, t); err != nil {
		return nil, &Error{Msg: libraryMessage("not a valid OpenAPI document", err)}
	}
	if err := loader.ResolveRefsIn(t, nil); err != nil {
		return nil, &Error{Msg: libraryMessage("not a valid OpenAPI document", err)}
	}
	if err := t.Validate(ctx, openapi3.DisableExamplesValidation(), openapi3.DisableSchemaDefaultsValidation()); err != nil {
		return nil, &Error{Msg: libraryMessage("invalid OpenAPI document", err)}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &reader{doc: t, v31: strings.HasPrefix(version, "3.1"), sec: newSecurity(t)}
	max := o.MaxSchemas
	if max <= 0 {
		max = DefaultMaxSchemas
	}
	r.b = r.newBundle(max)
	doc = &Document{Version: version}
	if t.Info != nil {
		doc.Title = t.Info.Title
	}
	if t.Paths != nil {
		pm := t.Paths.Map()
		for _, p := range slices.Sorted(maps.Keys(pm)) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			item := pm[p]
			for _, method := range methods {
				op := item.GetOperation(method)
				if op == nil {
					continue
				}
				doc.Operations = append(doc.Operations, r.operation(p, method, item, op))
				if r.b.over != nil {
					r.b.over.Pointer = doc.Operations[len(doc.Operations)-1].Pointer
					return nil, r.b.over
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Webhooks)) {
		item := t.Webhooks[name]
		for _, method := range methods {
			if item.GetOperation(method) == nil {
				continue
			}
			doc.Operations = append(doc.Operations, Operation{
				Pointer: source.JoinPointer("/webhooks", name, strings.ToLower(method)),
				Method:  method, Path: name, Name: method + " " + name,
				LeftOut: "a webhook: a request the API sends, not one a client makes",
			})
		}
	}
	return doc, nil
}

// methods are the fixed operations of a path item, in the order OpenAPI
// lists them.
var methods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

// libraryMessage words an error of the OpenAPI library: what it means,
// then the library's own text on one line.
func libraryMessage(what string, err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if strings.Contains(msg, "external reference") {
		return "the document refers outside itself (" + msg + "): bundle every $ref into one document first"
	}
	return what + ": " + msg
}

// reader turns the operations of one document into tools.
type reader struct {
	doc *openapi3.T
	v31 bool
	sec *security // the document's security schemes
	b   *bundle   // the document's components, converted once
}

func (r *reader) operation(p, method string, item *openapi3.PathItem, op *openapi3.Operation) Operation {
	o := Operation{
		Pointer: source.JoinPointer("/paths", p, strings.ToLower(method)),
		Method:  method,
		Path:    p,
		Name:    cmpOr(op.OperationID, method+" "+p),
	}
	leave := func(format string, args ...any) Operation {
		o.LeftOut = fmt.Sprintf(format, args...)
		o.Notes = nil
		return o
	}
	if op.Deprecated {
		return leave("deprecated: the API advises against calling it")
	}
	if toolid.SnakeCase(o.Name) == "" {
		return leave("no toolId can be derived from operationId %q, which has no ASCII letters or digits: declare the tool by hand", o.Name)
	}
	t := &Tool{Read: method == "GET" || method == "HEAD", Declared: declared(op.Extensions[Extension])}
	summary, description := strings.TrimSpace(op.Summary), strings.TrimSpace(op.Description)
	switch {
	case description != "" && summary != "":
		t.Title, t.Description = summary, leadWith(summary, description)
	case description != "":
		t.Description = description
	default:
		t.Description = summary
	}
	if len(op.Tags) > 0 {
		switch g := strings.TrimSpace(op.Tags[0]); {
		case g == "":
		case len(g) > MaxGroupLen:
			o.Notes = append(o.Notes, fmt.Sprintf("no group: its first tag is over %d characters", MaxGroupLen))
		default:
			t.Group = g
		}
	}
	t.Security = r.sec.auth(op, &o.Notes)
	b := r.b
	b.op = o.Name
	in, msg := r.input(b, item, op, &o.Notes)
	if msg != "" {
		return leave("%s", msg)
	}
	out, msg := r.output(b, op, &o.Notes)
	if msg != "" {
		o.Notes = append(o.Notes, "no outputSchema: "+msg)
		out = nil
	}
	if len(op.Callbacks) > 0 {
		o.Notes = append(o.Notes, fmt.Sprintf("callbacks %s ignored: they are requests the API makes, not tools", strings.Join(slices.Sorted(maps.Keys(op.Callbacks)), ", ")))
	}
	t.InputSchema, t.OutputSchema = in, out
	o.Tool = t
	return o
}

// leadWith is an operation's description led by its summary, so that
// what is cut to the first sentence (a compact view) keeps the summary;
// the description as it is when it already starts with the summary.
func leadWith(summary, description string) string {
	lead := strings.TrimRight(summary, ".!?:; ")
	if len(description) >= len(lead) && strings.EqualFold(description[:len(lead)], lead) {
		return description
	}
	if strings.ContainsAny(summary[len(summary)-1:], ".!?") {
		return summary + " " + description
	}
	return summary + ". " + description
}

// declared reads an operation's x-signpost extension.
func declared(v any) Safety {
	if v == nil {
		return Safety{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Safety{Problem: Extension + " is not an object"}
	}
	var s Safety
	for _, k := range slices.Sorted(maps.Keys(m)) {
		val, _ := m[k].(string)
		switch k {
		case "safetyTier":
			if !slices.Contains([]string{spec.TierPure, spec.TierRead, spec.TierWrite}, val) {
				return Safety{Problem: fmt.Sprintf("%s.safetyTier is %s, not pure, read or write", Extension, quoted(m[k]))}
			}
			s.SafetyTier = val
		case "replayPolicy":
			if !slices.Contains(spec.ReplayPolicies(), val) {
				return Safety{Problem: fmt.Sprintf("%s.replayPolicy is %s, not deterministic, idempotent, keyed or unsafe", Extension, quoted(m[k]))}
			}
			s.ReplayPolicy = val
		default:
			return Safety{Problem: fmt.Sprintf("%s has %q, which it does not take: only safetyTier and replayPolicy", Extension, k)}
		}
	}
	return s
}

// quoted words a decoded value in a message.
func quoted(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// input builds the inputSchema of an operation, or says why it cannot.
func (r *reader) input(b *bundle, item *openapi3.PathItem, op *openapi3.Operation, notes *[]string) (map[string]any, string) {
	props := map[string]any{}
	var required []string
	where := map[string]string{} // argument name to where it comes from
	// Path-item parameters apply unless the operation redefines them.
	type key struct{ name, in string }
	var params []*openapi3.Parameter
	own := map[key]bool{}
	for _, pr := range op.Parameters {
		if pr != nil && pr.Value != nil {
			own[key{pr.Value.Name, pr.Value.In}] = true
		}
	}
	for _, pr := range item.Parameters {
		if pr != nil && pr.Value != nil && !own[key{pr.Value.Name, pr.Value.In}] {
			params = append(params, pr.Value)
		}
	}
	for _, pr := range op.Parameters {
		if pr != nil && pr.Value != nil {
			params = append(params, pr.Value)
		}
	}
	var cookies []string
	for _, p := range params {
		if why := r.sec.credential(op, p); why != "" {
			*notes = append(*notes, why)
			continue
		}
		if p.In == openapi3.ParameterInCookie {
			cookies = append(cookies, p.Name)
			continue
		}
		if first, dup := where[p.Name]; dup {
			return nil, fmt.Sprintf("two arguments named %q (%s parameter and %s parameter): a tool's arguments need distinct names", p.Name, first, p.In)
		}
		where[p.Name] = p.In
		s, msg := r.parameterSchema(b, p)
		if msg != "" {
			return nil, fmt.Sprintf("%s parameter %q: %s", p.In, p.Name, msg)
		}
		props[p.Name] = s
		if p.Required || p.In == openapi3.ParameterInPath {
			required = append(required, p.Name)
		}
	}
	if len(cookies) > 0 {
		*notes = append(*notes, fmt.Sprintf("%s %s: a tool call carries no cookies", plural(len(cookies), "cookie parameter", "cookie parameters"), strings.Join(cookies, ", ")+plural(len(cookies), " is not an argument", " are not arguments")))
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		rb := op.RequestBody.Value
		if first, dup := where["body"]; dup {
			return nil, fmt.Sprintf("the %s parameter \"body\" collides with the request body's argument \"body\"", first)
		}
		s, msg := r.bodySchema(b, rb, notes)
		if msg != "" {
			return nil, msg
		}
		props["body"] = s
		if rb.Required {
			required = append(required, "body")
		}
	}
	in := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		in["required"] = toAny(required)
	}
	if msg := b.finish(in); msg != "" {
		return nil, msg
	}
	return in, ""
}

// parameterSchema is the schema of one parameter's argument: its schema
// (or the schema of its one content type), with its description.
func (r *reader) parameterSchema(b *bundle, p *openapi3.Parameter) (map[string]any, string) {
	var ref *openapi3.SchemaRef
	switch {
	case p.Schema != nil:
		ref = p.Schema
	case len(p.Content) > 0:
		for _, mt := range slices.Sorted(maps.Keys(p.Content)) {
			if c := p.Content[mt]; c != nil && c.Schema != nil {
				ref = c.Schema
				break
			}
		}
	}
	s := map[string]any{}
	if ref != nil {
		var msg string
		if s, msg = b.schema(ref); msg != "" {
			return nil, msg
		}
	}
	if d := strings.TrimSpace(p.Description); d != "" {
		if _, has := s["description"]; !has {
			s["description"] = d
		}
	}
	if p.Deprecated {
		s["deprecated"] = true
	}
	return s, ""
}

// bodySchema is the schema of the body argument.
func (r *reader) bodySchema(b *bundle, rb *openapi3.RequestBody, notes *[]string) (map[string]any, string) {
	types := slices.Sorted(maps.Keys(rb.Content))
	mt := ""
	for _, t := range types {
		if isJSONType(t) && (mt == "" || baseType(t) == "application/json") {
			mt = t
		}
	}
	if mt == "" {
		for _, t := range types {
			if baseType(t) == "application/x-www-form-urlencoded" {
				mt = t
				*notes = append(*notes, "body: the fields of an application/x-www-form-urlencoded form")
				break
			}
		}
	}
	if mt == "" {
		if len(types) == 0 {
			return nil, "the request body declares no content"
		}
		return nil, fmt.Sprintf("the request body is %s, not JSON: a tool's arguments are JSON; declare the tool by hand", strings.Join(types, ", "))
	}
	s := map[string]any{}
	if c := rb.Content[mt]; c != nil && c.Schema != nil {
		var msg string
		if s, msg = b.schema(c.Schema); msg != "" {
			return nil, "request body: " + msg
		}
	}
	if d := strings.TrimSpace(rb.Description); d != "" {
		if _, has := s["description"]; !has {
			s["description"] = d
		}
	}
	return s, ""
}

// output builds the outputSchema, or says why there is none ("" and nil
// for an operation whose success has no content).
func (r *reader) output(b *bundle, op *openapi3.Operation, notes *[]string) (map[string]any, string) {
	if op.Responses == nil {
		return nil, ""
	}
	rm := op.Responses.Map()
	var codes []string
	for c := range rm {
		if len(c) == 3 && c[0] == '2' {
			codes = append(codes, c)
		}
	}
	// 200..299 in order, then the 2XX range.
	slices.SortFunc(codes, func(a, b string) int {
		ax, bx := strings.ContainsAny(a, "xX"), strings.ContainsAny(b, "xX")
		if ax != bx {
			if ax {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	for _, code := range codes {
		resp := rm[code]
		if resp == nil || resp.Value == nil || len(resp.Value.Content) == 0 {
			continue
		}
		types := slices.Sorted(maps.Keys(resp.Value.Content))
		mt := ""
		for _, t := range types {
			if isStreamType(t) {
				return nil, fmt.Sprintf("the %s response is a stream (%s)", code, t)
			}
			if isJSONType(t) && (mt == "" || baseType(t) == "application/json") {
				mt = t
			}
		}
		if mt == "" {
			return nil, fmt.Sprintf("the %s response is %s, not JSON", code, strings.Join(types, ", "))
		}
		c := resp.Value.Content[mt]
		if c == nil || c.Schema == nil {
			return nil, fmt.Sprintf("the %s response has no schema", code)
		}
		s, msg := b.root(c.Schema)
		if msg != "" {
			return nil, msg
		}
		if kind := b.objectKind(s); kind != "object" {
			return nil, fmt.Sprintf("the %s response is %s, not an object (a tool's result is an object)", code, kind)
		}
		s["type"] = "object"
		if msg := b.finish(s); msg != "" {
			return nil, msg
		}
		return s, ""
	}
	return nil, ""
}

// isJSONType reports whether a media type is JSON: application/json or a
// +json type, parameters aside.
func isJSONType(mt string) bool {
	t := baseType(mt)
	return t == "application/json" || strings.HasSuffix(t, "+json")
}

// isStreamType reports whether a media type is a stream of values rather
// than one document.
func isStreamType(mt string) bool {
	switch baseType(mt) {
	case "text/event-stream", "application/x-ndjson", "application/ndjson", "application/jsonl",
		"application/x-jsonlines", "application/json-seq", "application/stream+json":
		return true
	}
	return false
}

func baseType(mt string) string {
	t, _, _ := strings.Cut(mt, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
