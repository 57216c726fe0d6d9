package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/source"
)

const (
	componentPrefix = "#/components/schemas/"
	defsPrefix      = "#/$defs/"
)

// bundle converts the schemas of one document into JSON Schemas whose
// $refs point into the $defs of the tool's schema, and keeps the converted
// components, each converted once.
type bundle struct {
	r    *reader
	defs map[string]map[string]any // converted components by name
	busy map[string]bool           // components being converted
}

func (r *reader) newBundle() *bundle {
	return &bundle{r: r, defs: map[string]map[string]any{}, busy: map[string]bool{}}
}

// schema converts one schema of the document, to be placed anywhere in a
// tool's schema; the result is the caller's to change.
func (b *bundle) schema(ref *openapi3.SchemaRef) (map[string]any, string) {
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
		if def == nil {
			break
		}
		s = deepCopy(def).(map[string]any)
	}
	return s, ""
}

// convert rewrites one schema object and its subschemas in place: OpenAPI
// forms as JSON Schema ones, $refs into components as $refs into $defs.
func (b *bundle) convert(m map[string]any, depth int) string {
	if depth > refs.MaxDepth {
		return fmt.Sprintf("a schema is nested more than %d levels deep", refs.MaxDepth)
	}
	if r, ok := m["$ref"].(string); ok {
		name, rest, msg := componentRef(r)
		if msg != "" {
			return msg
		}
		if msg := b.component(name); msg != "" {
			return msg
		}
		m["$ref"] = defsPrefix + source.EscapePointer(name) + rest
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

// component converts the component schema name, once.
func (b *bundle) component(name string) string {
	if b.defs[name] != nil || b.busy[name] {
		return ""
	}
	var ref *openapi3.SchemaRef
	if c := b.r.doc.Components; c != nil {
		ref = c.Schemas[name]
	}
	if ref == nil {
		return fmt.Sprintf("$ref %q names no schema of components/schemas", componentPrefix+name)
	}
	b.busy[name] = true
	s, msg := b.schema(ref)
	delete(b.busy, name)
	if msg != "" {
		return fmt.Sprintf("components/schemas/%s: %s", name, msg)
	}
	b.defs[name] = s
	return ""
}

// finish adds to root's $defs a copy of every component its $refs reach,
// directly or through other components.
func (b *bundle) finish(root map[string]any) string {
	reached := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(r, defsPrefix); ok {
					name, _, _ = strings.Cut(name, "/")
					name = unescape(name)
					if !reached[name] && b.defs[name] != nil {
						reached[name] = true
						visit(b.defs[name])
					}
				}
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				visit(x[k])
			}
		case []any:
			for _, e := range x {
				visit(e)
			}
		}
	}
	visit(root)
	if len(reached) == 0 {
		return ""
	}
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	for _, name := range slices.Sorted(maps.Keys(reached)) {
		if _, clash := defs[name]; clash {
			return fmt.Sprintf("the schema's own $defs and components/schemas both define %q", name)
		}
		defs[name] = deepCopy(b.defs[name])
	}
	root["$defs"] = defs
	return ""
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
				if def := b.defs[unescape(name)]; def != nil {
					if k := kind(def, depth+1); k == "object" {
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

// deepCopy copies a JSON value, so that two tools never share a map.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}
