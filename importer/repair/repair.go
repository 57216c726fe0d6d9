// Package repair makes the mechanical changes that let the loader accept
// a JSON Schema written elsewhere (a recorded MCP tool's, an OpenAPI
// operation's), each said in a note: draft-04 forms made draft-07, a
// credential-looking default or example removed. It then holds the schema
// to the loader's own rules (build.SchemaProblems, the nesting a
// declaration file allows), and says why one it cannot repair is left out.
package repair

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/schemas"
)

// draft07 is the $schema a converted draft-04 or draft-06 schema gets:
// draft-07 keeps their other rules ($ref beside other keywords, items as an
// array, dependencies), so nothing else changes meaning.
const draft07 = "http://json-schema.org/draft-07/schema#"

// Output repairs an output schema as Schema does, adding its
// notes to notes. The output schema is optional: a tool is still usable
// without one, so one that cannot be repaired is left out, with a note.
func Output(valid *schemas.Validator, out map[string]any, notes []string) (map[string]any, []string) {
	if out == nil {
		return nil, notes
	}
	fixed, problem := Schema(valid, "outputSchema", out)
	if problem != "" {
		return nil, append(notes, "outputSchema left out: "+problem)
	}
	return out, append(notes, fixed...)
}

// Schema makes the mechanical changes that let the loader accept a
// recorded schema, in place, and then checks it as the loader does. It
// returns what it changed, or the problem that leaves the schema out.
func Schema(valid *schemas.Validator, field string, schema map[string]any) (notes []string, problem string) {
	if n := convertDraft04(schema); n != "" {
		notes = append(notes, field+": "+n)
	}
	// A credential in default or examples is an annotation: removing it
	// leaves what the schema accepts unchanged. Elsewhere (const, enum, a
	// description) the tool cannot be published as it is.
	found := map[string]bool{}
	for _, s := range append(secrets.FindInSchema(schema), secrets.Find(schema)...) {
		if found[s.Pointer] {
			continue
		}
		found[s.Pointer] = true
		kw, ok := removeSchemaAnnotation(schema, s.Pointer)
		if !ok {
			return nil, fmt.Sprintf("%s: %s; published documents are public", schemaAt(field, s.Pointer), s.Reason)
		}
		notes = append(notes, fmt.Sprintf("%s: removed a credential-looking %s (%s)", schemaAt(field, s.Pointer), kw, s.Reason))
	}
	if ps := build.SchemaProblems(valid, field, schema); len(ps) > 0 {
		msg := ps[0].Message
		if ps[0].Pointer != "" {
			msg = schemaAt(field, ps[0].Pointer) + ": " + strings.TrimPrefix(msg, field+": ")
		}
		if len(ps) > 1 {
			return nil, fmt.Sprintf("%s (and %d more)", msg, len(ps)-1)
		}
		return nil, msg
	}
	// The YAML file nests the schema three levels deep (tools, the item,
	// the field); the loader refuses files nested deeper than source.MaxDepth.
	if d := nesting(schema); d+3 > source.MaxDepth {
		return nil, fmt.Sprintf("%s is nested %d levels deep; a declaration file allows %d", field, d, source.MaxDepth-3)
	}
	return notes, ""
}

// schemaAt names a place in a tool's schema for a message.
func schemaAt(field, pointer string) string {
	if pointer == "" {
		return field
	}
	return field + " at " + pointer
}

// convertDraft04 rewrites the draft-04 forms of a schema as draft-07 ones,
// in place, and says what it did ("" for nothing). Boolean
// exclusiveMinimum and exclusiveMaximum become the bound itself, wherever
// they are (servers send them without $schema too); when $schema names
// draft-04, "id" becomes "$id", and a draft-04 or draft-06 $schema becomes
// draft-07, whose rules are otherwise the same.
func convertDraft04(root map[string]any) string {
	dialect := ""
	if s, ok := root["$schema"].(string); ok {
		dialect = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "http://"), "https://"), "#")
	}
	draft04 := dialect == "json-schema.org/draft-04/schema"
	bounds, ids := 0, 0
	walkSchemaObjects(root, 0, func(m map[string]any) {
		for _, b := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
			excl, ok := m[b[0]].(bool)
			if !ok {
				continue
			}
			bounds++
			bound, isNumber := m[b[1]].(json.Number)
			switch {
			case excl && isNumber:
				m[b[0]] = bound
				delete(m, b[1])
			default:
				// false, or true without a bound to make exclusive:
				// either way it constrains nothing.
				delete(m, b[0])
			}
		}
		if id, ok := m["id"].(string); ok && draft04 {
			if _, has := m["$id"]; !has {
				m["$id"] = id
				delete(m, "id")
				ids++
			}
		}
	})
	var did []string
	if bounds > 0 {
		did = append(did, fmt.Sprintf("%d boolean exclusiveMinimum/exclusiveMaximum made numbers (draft-04)", bounds))
	}
	if ids > 0 {
		did = append(did, fmt.Sprintf("%d \"id\" renamed \"$id\"", ids))
	}
	if draft04 || dialect == "json-schema.org/draft-06/schema" {
		root["$schema"] = draft07
		did = append(did, "$schema "+strings.TrimSuffix(strings.TrimPrefix(dialect, "json-schema.org/"), "/schema")+" changed to draft-07")
	}
	return strings.Join(did, ", ")
}

// walkSchemaObjects calls fn on every schema object of a schema document:
// the root and the members of keywords that hold subschemas, never instance
// data (enum, default, ...) or a property's name. fn may change the keys of
// the object it is given; it runs before that object's subschemas are
// visited.
func walkSchemaObjects(v any, depth int, fn func(map[string]any)) {
	m, ok := v.(map[string]any)
	if !ok || depth > refs.MaxDepth {
		return
	}
	fn(m)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch x := m[k]; refs.KeywordKind(k) {
		case refs.Schema:
			walkSchemaObjects(x, depth+1, fn)
		case refs.SchemaMap, refs.Dependencies:
			if mm, ok := x.(map[string]any); ok {
				for _, kk := range slices.Sorted(maps.Keys(mm)) {
					walkSchemaObjects(mm[kk], depth+1, fn)
				}
			}
		case refs.SchemaList, refs.Items:
			if list, ok := x.([]any); ok {
				for _, e := range list {
					walkSchemaObjects(e, depth+1, fn)
				}
			} else {
				walkSchemaObjects(x, depth+1, fn)
			}
		}
	}
}

// removeSchemaAnnotation removes the default, examples or example keyword of
// a schema object that holds the value at pointer, and returns the keyword.
// ok is false when the value is not inside one (a const, an enum, a
// description, a property's name).
func removeSchemaAnnotation(root map[string]any, pointer string) (string, bool) {
	var cur any = root
	inSchema := true
	for _, seg := range source.SplitPointer(pointer) {
		if !inSchema {
			// A member of a keyword that holds subschemas.
			switch c := cur.(type) {
			case map[string]any:
				cur = c[seg]
			case []any:
				i, ok := refs.ArrayIndex(seg)
				if !ok || i >= len(c) {
					return "", false
				}
				cur = c[i]
			default:
				return "", false
			}
			inSchema = true
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false
		}
		next, ok := m[seg]
		if !ok {
			return "", false
		}
		switch seg {
		case "default", "examples", "example":
			delete(m, seg)
			return seg, true
		}
		switch refs.KeywordKind(seg) {
		case refs.Schema:
		case refs.Items:
			_, isList := next.([]any)
			inSchema = !isList
		case refs.SchemaMap, refs.SchemaList, refs.Dependencies:
			inSchema = false
		default:
			return "", false
		}
		cur = next
	}
	return "", false
}

// nesting is how many levels of objects and arrays v holds below itself.
func nesting(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, 1+nesting(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, 1+nesting(e))
		}
	}
	return d
}
