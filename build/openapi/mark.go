package openapi

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/english"
)

// refMarker is the member that stands for a $ref to a component schema in
// the copy of the document the OpenAPI library reads.
//
// The library resolves and validates a $ref again at every use: a chain of
// component schemas each referring to the next, or one large component
// referred to by thousands of operations, costs it time in the product of
// the two. Given markers, which it takes for extensions, it reads and
// validates each schema once, where it is written; bundle.convert turns a
// marker back into its $ref.
const refMarker = "x-signpost-component-ref"

// markRefs returns the copy of a decoded OpenAPI document the library is
// given: within every schema, a $ref to #/components/schemas/... that names
// a value of the document replaced by a marker. A $ref that names nothing
// is left to the library, which refuses it. The document is not changed;
// the copy shares its strings and numbers.
//
// A cycle of component schemas that are each a $ref to the next never
// reaches a schema: it is the error, which the library would report as a
// $ref it cannot resolve. So is a document larger than MaxExpanded with
// its other $refs written out, which the library would take long to read.
func markRefs(doc map[string]any) (map[string]any, *Error) {
	if msg := aliasCycle(doc); msg != "" {
		return nil, &Error{Msg: "invalid OpenAPI document: " + msg}
	}
	m := &marker{doc: doc}
	marked := m.object(doc, "").(map[string]any)
	if msg := expansion(marked); msg != "" {
		return nil, &Error{Msg: msg}
	}
	return marked, nil
}

// MaxExpanded bounds the size of a document as the OpenAPI library reads
// it: with every $ref other than to a component schema written out where
// it is used. The library resolves and validates such a component (a
// request body, a response, a parameter) again at each use, in time and
// memory that grow with the size it reaches; 16 MiB take it under a
// second.
const MaxExpanded = 16 << 20

// expansion says why the marked document is too large once its $refs to
// components other than schemas are written out, or returns "". Each
// $ref's target is measured once: the time is linear in the document's
// size.
func expansion(doc map[string]any) string {
	e := &expander{doc: doc, sizes: map[string]int64{}, uses: map[string]int{}}
	if e.size(doc) <= MaxExpanded {
		return ""
	}
	msg := fmt.Sprintf("the document, with each $ref to a component written out where it is used, is larger than the %s the OpenAPI library is given", english.Bytes(MaxExpanded))
	biggest := ""
	for _, r := range slices.Sorted(maps.Keys(e.uses)) {
		if biggest == "" || weight(e.sizes[r], e.uses[r]) > weight(e.sizes[biggest], e.uses[biggest]) {
			biggest = r
		}
	}
	if biggest != "" && e.uses[biggest] > 1 {
		msg += fmt.Sprintf(": %s, of %s, is used %d times; put its schema in components/schemas and refer to it there, which costs nothing at each use", biggest, english.Bytes(e.sizes[biggest]), e.uses[biggest])
	}
	return msg
}

// weight is what a $ref's uses add to the document, saturated.
func weight(size int64, uses int) int64 {
	if size > 0 && int64(uses) > math.MaxInt64/size {
		return math.MaxInt64
	}
	return size * int64(uses)
}

type expander struct {
	doc   map[string]any
	sizes map[string]int64 // the written-out size of each $ref's target
	uses  map[string]int   // how many times each $ref is written
}

// capped adds two sizes, saturating past MaxExpanded: the targets of
// $refs that use each other several times can double at each level.
func capped(a, b int64) int64 {
	return min(a+b, MaxExpanded+1)
}

// size returns the size of v with its $refs written out, at least, capped
// past MaxExpanded.
func (e *expander) size(v any) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x)) + 2
	case map[string]any:
		if r, ok := x["$ref"].(string); ok && strings.HasPrefix(r, "#/") {
			return e.ref(r)
		}
		n := 2 + int64(len(x))
		for k, v := range x {
			n = capped(n, int64(len(k))+2+e.size(v))
		}
		return n
	case []any:
		n := 2 + int64(len(x))
		for _, v := range x {
			n = capped(n, e.size(v))
		}
		return n
	}
	return 4
}

// ref returns the size of the target of a local $ref, measured once; a
// $ref reached again while its target is being measured (a cycle, which
// the library leaves a reference) counts as the $ref alone.
func (e *expander) ref(r string) int64 {
	e.uses[r]++
	n, seen := e.sizes[r]
	if !seen {
		e.sizes[r] = int64(len(r)) + 10
		n = int64(len(r)) + 10
		if target, ok := lookup(e.doc, r); ok {
			n = e.size(target)
		}
		e.sizes[r] = n
	}
	return n
}

// aliasCycle finds the first cycle of component schemas each a $ref to the
// next (by name, in byte order), in time linear in their number, and says
// what it is; "" when there is none.
func aliasCycle(doc map[string]any) string {
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	alias := map[string]string{}
	for name, v := range schemas {
		s, _ := v.(map[string]any)
		r, _ := s["$ref"].(string)
		if target, ok := strings.CutPrefix(r, componentPrefix); ok && target != "" && !strings.Contains(target, "/") {
			alias[name] = unescape(target)
		}
	}
	const (
		walking = 1 // on the path being followed
		done    = 2 // reaches a schema, or a cycle already found
	)
	state := map[string]int{}
	for _, start := range slices.Sorted(maps.Keys(alias)) {
		var path []string
		name := start
		for state[name] == 0 {
			if _, ok := alias[name]; !ok {
				break
			}
			state[name] = walking
			path = append(path, name)
			name = alias[name]
		}
		if state[name] == walking {
			cycle := path[slices.Index(path, name):]
			names := make([]string, 0, len(cycle)+1)
			for _, n := range append(cycle, name) {
				names = append(names, "components/schemas/"+n)
			}
			if len(names) > 9 {
				names = slices.Concat(names[:4], []string{"…"}, names[len(names)-4:])
			}
			return fmt.Sprintf("the $refs %s form a cycle that never reaches a schema: give one of them a schema of its own", strings.Join(names, " → "))
		}
		for _, n := range path {
			state[n] = done
		}
	}
	return ""
}

type marker struct {
	doc map[string]any
}

// object copies a value outside schemas, marking the schemas within it: a
// member named schema, and the members of components/schemas. Examples,
// links and extensions hold data, not schemas: they are kept as they are.
func (m *marker) object(v any, ptr string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			switch {
			case strings.HasPrefix(k, "x-"), k == "example", k == "examples", k == "links":
				out[k] = e
			case k == "schema", ptr == "/components/schemas":
				out[k] = m.schema(e, 0)
			default:
				out[k] = m.object(e, source.JoinPointer(ptr, k))
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = m.object(e, source.JoinPointer(ptr, strconv.Itoa(i)))
		}
		return out
	}
	return v
}

// schema copies a schema, marking its $ref and those of its subschemas.
func (m *marker) schema(v any, depth int) any {
	x, ok := v.(map[string]any)
	if !ok || depth > refs.MaxDepth {
		// Nested this deep, it is left as it is: the library refuses it.
		return v
	}
	out := make(map[string]any, len(x))
	for k, e := range x {
		switch refs.KeywordKind(k) {
		case refs.Schema:
			out[k] = m.schema(e, depth+1)
		case refs.SchemaMap, refs.Dependencies:
			mm, isMap := e.(map[string]any)
			if !isMap {
				out[k] = e
				continue
			}
			c := make(map[string]any, len(mm))
			for kk, ee := range mm {
				c[kk] = m.schema(ee, depth+1)
			}
			out[k] = c
		case refs.SchemaList, refs.Items:
			list, isList := e.([]any)
			if !isList {
				out[k] = m.schema(e, depth+1)
				continue
			}
			c := make([]any, len(list))
			for i, ee := range list {
				c[i] = m.schema(ee, depth+1)
			}
			out[k] = c
		default:
			out[k] = e
		}
	}
	// A marker the document writes itself is an extension, which a tool's
	// schema drops: it must not be read as a $ref.
	delete(out, refMarker)
	if r, isRef := x["$ref"].(string); isRef && strings.HasPrefix(r, componentPrefix) && m.resolves(r) {
		delete(out, "$ref")
		out[refMarker] = r
	}
	return out
}

// resolves reports whether a local $ref names a schema of the document: an
// object or a boolean.
func (m *marker) resolves(r string) bool {
	cur, ok := lookup(m.doc, r)
	if !ok {
		return false
	}
	switch cur.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

// lookup returns the value a local $ref names in doc.
func lookup(doc map[string]any, r string) (any, bool) {
	var cur any = doc
	for _, seg := range source.SplitPointer(strings.TrimPrefix(r, "#")) {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != seg {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
