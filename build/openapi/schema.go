package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/english"
)

const (
	componentPrefix = "#/components/schemas/"
	defsPrefix      = "#/$defs/"
)

// bundle converts the schemas of one document into JSON Schemas whose
// $refs point into the $defs of the tool's schema. Each component is
// converted once for the whole document, and measured once: the $defs of
// every operation that reaches it hold the same map, which no one changes.
// Before an operation's schemas are given their $defs, what they would
// publish is added up, and the document is refused once the total of its
// operations passes the caller's bound (see Options.MaxSchemas).
type bundle struct {
	r         *reader
	converted map[*openapi3.SchemaRef]component // every schema converted, by the library's value
	raw       map[*openapi3.SchemaRef]any       // components a $ref points into, decoded
	defs      map[string]*component             // converted components by name
	busy      map[string]bool                   // components being converted
	max       int64                             // the bound of spent
	spent     int64                             // the size of the schemas of the operations so far
	op        string                            // the operation being read
	over      *Error                            // why the document is refused: the bound is passed
}

// component is one converted component schema.
type component struct {
	schema map[string]any // nil when it cannot be converted
	msg    string         // why it cannot be
	size   int64          // its encoded size, at least, $refs not followed
	refs   []string       // the components its $refs name, sorted
}

func (r *reader) newBundle(max int64) *bundle {
	return &bundle{r: r, converted: map[*openapi3.SchemaRef]component{}, raw: map[*openapi3.SchemaRef]any{}, defs: map[string]*component{}, busy: map[string]bool{}, max: max}
}

// schema converts one schema of the document, to be placed anywhere in a
// tool's schema; the result is the caller's to change.
func (b *bundle) schema(ref *openapi3.SchemaRef) (map[string]any, string) {
	// A schema the document writes once may serve many operations (one in
	// components/requestBodies, parameters or responses): it is converted
	// once, and each gets a copy of its top level, which the callers
	// change.
	c, done := b.converted[ref]
	if !done {
		c.schema, c.msg = b.convertRef(ref)
		b.converted[ref] = c
	}
	if c.msg != "" {
		return nil, c.msg
	}
	return maps.Clone(c.schema), ""
}

// convertRef converts one schema of the document.
func (b *bundle) convertRef(ref *openapi3.SchemaRef) (map[string]any, string) {
	v, msg := decodeRef(ref)
	if msg != "" {
		return nil, msg
	}
	return b.convertValue(v)
}

// decodeRef decodes one schema of the document as JSON values, the
// markers of its $refs in place.
func decodeRef(ref *openapi3.SchemaRef) (any, string) {
	data, err := json.Marshal(ref)
	if err != nil {
		return nil, fmt.Sprintf("cannot encode a schema: %v", err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Sprintf("cannot decode a schema: %v", err)
	}
	return v, ""
}

// convertValue converts one decoded schema: an object, or a boolean.
func (b *bundle) convertValue(v any) (map[string]any, string) {
	m, ok := v.(map[string]any)
	if !ok {
		// A boolean schema (3.1): true accepts anything.
		if v == false {
			return map[string]any{"not": map[string]any{}}, ""
		}
		return map[string]any{}, ""
	}
	if msg := b.convert(m, 1); msg != "" {
		return nil, msg
	}
	return m, ""
}

// root converts the schema at a tool schema's root: a bare $ref to a
// component is replaced by a copy of the component, so that the root's own
// keywords (its type) are visible.
func (b *bundle) root(ref *openapi3.SchemaRef) (map[string]any, string) {
	s, msg := b.schema(ref)
	if msg != "" {
		return nil, msg
	}
	for range 8 {
		r, isRef := s["$ref"].(string)
		name, isDef := strings.CutPrefix(r, defsPrefix)
		if len(s) != 1 || !isRef || !isDef || strings.Contains(name, "/") {
			break
		}
		def := b.defs[unescape(name)]
		if def == nil || def.schema == nil {
			break
		}
		// The root's own members change (its type, its $defs): its
		// subschemas are the component's, shared.
		s = maps.Clone(def.schema)
	}
	return s, ""
}

// convert rewrites one schema object and its subschemas in place: OpenAPI
// forms as JSON Schema ones, $refs into components as $refs into $defs.
func (b *bundle) convert(m map[string]any, depth int) string {
	if depth > refs.MaxDepth {
		return fmt.Sprintf("a schema is nested more than %d levels deep", refs.MaxDepth)
	}
	if r, ok := m[refMarker].(string); ok {
		delete(m, refMarker)
		m["$ref"] = r
	}
	if r, ok := m["$ref"].(string); ok {
		name, rest, msg := componentRef(r)
		if msg != "" {
			return msg
		}
		// A $ref into a component (#/components/schemas/Pet/properties/id)
		// is a definition of its own, the schema it names and nothing
		// else of the component: "Pet/properties/id" (a component's name
		// has no "/").
		key := name + rest
		if msg := b.component(key); msg != "" {
			return msg
		}
		m["$ref"] = defsPrefix + source.EscapePointer(key)
	}
	for k := range m {
		switch {
		case strings.HasPrefix(k, "x-"), k == "discriminator", k == "xml", k == "externalDocs":
			delete(m, k)
		}
	}
	if ex, ok := m["example"]; ok {
		if _, has := m["examples"]; !has {
			m["examples"] = []any{ex}
		}
		delete(m, "example")
	}
	if !b.r.v31 {
		convert30(m)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch x := m[k]; refs.KeywordKind(k) {
		case refs.Schema:
			if msg := b.sub(x, depth); msg != "" {
				return msg
			}
		case refs.SchemaMap, refs.Dependencies:
			if mm, ok := x.(map[string]any); ok {
				for _, kk := range slices.Sorted(maps.Keys(mm)) {
					if msg := b.sub(mm[kk], depth); msg != "" {
						return msg
					}
				}
			}
		case refs.SchemaList, refs.Items:
			list, ok := x.([]any)
			if !ok {
				list = []any{x}
			}
			for _, e := range list {
				if msg := b.sub(e, depth); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

func (b *bundle) sub(v any, depth int) string {
	if m, ok := v.(map[string]any); ok {
		return b.convert(m, depth+1)
	}
	return ""
}

// convert30 rewrites the OpenAPI 3.0 forms of one schema object: nullable
// and boolean exclusive bounds.
func convert30(m map[string]any) {
	if n, ok := m["nullable"].(bool); ok {
		delete(m, "nullable")
		switch t := m["type"].(type) {
		case string:
			if n {
				m["type"] = []any{t, "null"}
			}
		case []any:
			if n && !slices.Contains(t, any("null")) {
				m["type"] = append(t, "null")
			}
		}
	}
	for _, bound := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		excl, ok := m[bound[0]].(bool)
		if !ok {
			continue
		}
		if v, has := m[bound[1]]; excl && has {
			m[bound[0]] = v
			delete(m, bound[1])
		} else {
			delete(m, bound[0])
		}
	}
}

// componentRef splits a $ref into #/components/schemas/NAME and the rest of
// its pointer, or says why it cannot be bundled.
func componentRef(r string) (name, rest, msg string) {
	after, ok := strings.CutPrefix(r, componentPrefix)
	if !ok || after == "" {
		if !strings.HasPrefix(r, "#") {
			return "", "", fmt.Sprintf("$ref %q refers outside the document: bundle it into the document", r)
		}
		return "", "", fmt.Sprintf("$ref %q is not to #/components/schemas/NAME, the only references a tool's schema can carry", r)
	}
	seg, rest, _ := strings.Cut(after, "/")
	if rest != "" {
		rest = "/" + rest
	}
	return unescape(seg), rest, ""
}

// unescape decodes one JSON pointer segment (~1, ~0).
func unescape(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}

// component converts the component schema name, or the schema a pointer
// names inside one ("Pet/properties/id", the pointer as the $ref writes
// it), once for the document, and returns why it cannot be ("" when it
// can).
func (b *bundle) component(name string) string {
	if c := b.defs[name]; c != nil {
		return c.msg
	}
	if b.busy[name] {
		return ""
	}
	base, rest, _ := strings.Cut(name, "/")
	var ref *openapi3.SchemaRef
	if c := b.r.doc.Components; c != nil {
		ref = c.Schemas[base]
	}
	if ref == nil {
		return fmt.Sprintf("$ref %q names no schema of components/schemas", componentPrefix+source.EscapePointer(base))
	}
	b.busy[name] = true
	var (
		s   map[string]any
		msg string
	)
	if rest == "" {
		s, msg = b.schema(ref)
	} else {
		s, msg = b.subschema(ref, "/"+rest)
	}
	delete(b.busy, name)
	c := &component{schema: s}
	if msg != "" {
		where := "components/schemas/" + name
		if rest != "" {
			where = componentPrefix + source.EscapePointer(base) + "/" + rest
		}
		c.schema, c.msg = nil, fmt.Sprintf("%s: %s", where, msg)
	} else {
		names := map[string]bool{}
		c.size = measure(s, names)
		c.refs = slices.Sorted(maps.Keys(names))
	}
	b.defs[name] = c
	return c.msg
}

// subschema converts the schema at ptr inside a component: only it, and
// the components its own $refs reach.
func (b *bundle) subschema(ref *openapi3.SchemaRef, ptr string) (map[string]any, string) {
	path, ok := schemaPath(ptr)
	if !ok {
		return nil, "the pointer names no schema: point at one (a property's, the items', one of allOf's, ...)"
	}
	// The component is decoded once for every pointer into it; each
	// pointer's schema is a copy, which convert changes.
	v, done := b.raw[ref]
	if !done {
		var msg string
		if v, msg = decodeRef(ref); msg != "" {
			return nil, msg
		}
		b.raw[ref] = v
	}
	for _, s := range path {
		m, _ := v.(map[string]any)
		v = m[s.key]
		if s.in != "" {
			m, _ := v.(map[string]any)
			v = m[s.in]
		}
		if s.index >= 0 {
			list, _ := v.([]any)
			v = nil
			if s.index < len(list) {
				v = list[s.index]
			}
		}
		if v == nil {
			return nil, "the pointer names nothing"
		}
	}
	return b.convertValue(deepCopy(v))
}

// deepCopy copies the objects and arrays of a decoded value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// step is one step from a schema to one of its subschemas: the keyword,
// then the name within its map (in) or the index within its list (-1 for
// none).
type step struct {
	key, in string
	index   int
}

// schemaPath splits a pointer inside a schema into steps from schema to
// subschema; ok is false when it does not end at a schema (such as
// /properties, or /enum/0).
func schemaPath(ptr string) (path []step, ok bool) {
	segs := source.SplitPointer(ptr)
	for i := 0; i < len(segs); i++ {
		s := step{key: segs[i], index: -1}
		switch kind := refs.KeywordKind(segs[i]); kind {
		case refs.Schema:
		case refs.SchemaMap, refs.Dependencies:
			if i+1 == len(segs) {
				return nil, false
			}
			i++
			s.in = segs[i]
		case refs.SchemaList, refs.Items:
			if i+1 < len(segs) {
				if n, err := strconv.Atoi(segs[i+1]); err == nil && n >= 0 && strconv.Itoa(n) == segs[i+1] {
					i++
					s.index = n
				}
			}
			if s.index < 0 && kind == refs.SchemaList {
				return nil, false
			}
		default:
			return nil, false
		}
		path = append(path, s)
	}
	return path, len(path) > 0
}

// measure returns the encoded size of a converted schema, at least (every
// string its bytes and quotes, no escapes), and adds to names the
// components its $refs name.
func measure(v any, names map[string]bool) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x)) + 2
	case map[string]any:
		n := 2 + int64(len(x))
		for k, e := range x {
			if r, ok := e.(string); ok && k == "$ref" {
				if name, ok := strings.CutPrefix(r, defsPrefix); ok {
					name, _, _ = strings.Cut(name, "/")
					names[unescape(name)] = true
				}
			}
			n += int64(len(k)) + 2 + measure(e, names)
		}
		return n
	case []any:
		n := 2 + int64(len(x))
		for _, e := range x {
			n += measure(e, names)
		}
		return n
	case fmt.Stringer:
		return int64(len(x.String()))
	}
	return 4 // true, null: false is longer
}

// finish adds to root's $defs every component its $refs reach, directly or
// through other components: the components' own maps, shared. Before it
// does, it adds the size of root with those $defs to what the document's
// operations spend, and refuses the document when that passes the bound.
func (b *bundle) finish(root map[string]any) string {
	names := map[string]bool{}
	// The schemas an operation writes itself are at most the document
	// with its $refs to other components written out (MaxExpanded).
	size := measure(root, names)
	reached := map[string]bool{}
	queue := slices.Sorted(maps.Keys(names))
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		c := b.defs[name]
		if reached[name] || c == nil || c.schema == nil {
			continue
		}
		reached[name] = true
		size += int64(len(name)) + 4 + c.size
		queue = append(queue, c.refs...)
	}
	if b.spent += size; b.spent > b.max {
		b.over = &Error{Msg: b.overMessage(reached)}
		return b.over.Msg
	}
	if len(reached) == 0 {
		return ""
	}
	own, _ := root["$defs"].(map[string]any)
	defs := maps.Clone(own) // the root's own $defs may be a component's
	if defs == nil {
		defs = map[string]any{}
	}
	for _, name := range slices.Sorted(maps.Keys(reached)) {
		if _, clash := defs[name]; clash {
			return fmt.Sprintf("the schema's own $defs and components/schemas both define %q", name)
		}
		defs[name] = b.defs[name].schema
	}
	root["$defs"] = defs
	return ""
}

// overMessage says that the schemas of the operations up to the current
// one are larger than the bound, and names the largest component the
// current one reaches.
func (b *bundle) overMessage(reached map[string]bool) string {
	spent, max := english.Bytes(b.spent), english.Bytes(b.max)
	if spent == max {
		// Rounded alike, they would read as the same size.
		spent, max = fmt.Sprintf("%d bytes", b.spent), fmt.Sprintf("%d bytes", b.max)
	}
	msg := fmt.Sprintf("the schemas of the operations up to %q are at least %s, more than the %s an OpenAPI document's operations may have together",
		b.op, spent, max)
	big := ""
	for _, name := range slices.Sorted(maps.Keys(reached)) {
		if big == "" || b.defs[name].size > b.defs[big].size {
			big = name
		}
	}
	if big != "" {
		msg += fmt.Sprintf(": each operation's schema holds a copy of every component it reaches, and %q reaches components/schemas/%s, of %s", b.op, big, english.Bytes(b.defs[big].size))
	}
	return msg + "; share less, or split the document"
}

// objectKind says what a tool schema root accepts: "object", or a phrase
// for anything else ("an array", "a string", "a value of any type").
func (b *bundle) objectKind(s map[string]any) string {
	seen := map[string]bool{}
	var kind func(m map[string]any, depth int) string
	kind = func(m map[string]any, depth int) string {
		if depth > 16 {
			return "a value of any type"
		}
		switch t := m["type"].(type) {
		case string:
			if t == "object" {
				return "object"
			}
			return article(t)
		case []any:
			names := make([]string, len(t))
			for i, e := range t {
				names[i] = fmt.Sprint(e)
			}
			if slices.Equal(names, []string{"object"}) {
				return "object"
			}
			return "a value of type " + strings.Join(names, " or ")
		}
		for _, k := range []string{"properties", "additionalProperties", "patternProperties", "required"} {
			if _, ok := m[k]; ok {
				return "object"
			}
		}
		if r, ok := m["$ref"].(string); ok {
			if name, ok := strings.CutPrefix(r, defsPrefix); ok && !strings.Contains(name, "/") && !seen[name] {
				seen[name] = true
				if def := b.defs[unescape(name)]; def != nil && def.schema != nil {
					if k := kind(def.schema, depth+1); k == "object" {
						return k
					}
				}
			}
		}
		if all, ok := m["allOf"].([]any); ok {
			for _, e := range all {
				if em, ok := e.(map[string]any); ok && kind(em, depth+1) == "object" {
					return "object"
				}
			}
		}
		return "a value of any type"
	}
	return kind(s, 0)
}

func article(t string) string {
	switch t {
	case "array", "integer":
		return "an " + t
	}
	return "a " + t
}
