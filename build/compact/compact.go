// Package compact makes the compact view's input schemas and descriptions:
// the inputSchema of a compact tool descriptor (?view=compact) and its
// shortened description.
//
// The compact view exists so that a model with a small context can still see
// every tool. Its input schemas must be small, must use none of $ref, allOf,
// anyOf, oneOf, not, patternProperties and dependentSchemas at any depth (the
// spec's "Views and sessions"), and must not lie about what the tool accepts.
// Schema projects a tool's input schema onto such a schema; the
// standard view keeps the original.
//
// # Guarantees
//
// Each is checked by compact_test.go: by exact examples, by property tests
// that validate generated instances against the original and the compact
// schema (on hand-written schemas covering every construct and on the input
// schemas of real MCP servers), and by a fuzz test.
//
//   - Compact. The result holds no forbidden keyword in any schema position,
//     whatever the input, valid or not. (A property named "not", or the
//     string "anyOf" in an enum, is data and stays.) Schema does not
//     panic or loop, and is safe for concurrent use.
//   - Sound. Every instance the original schema accepts, the compact schema
//     accepts, whether a client reads it as JSON Schema 2020-12 or as
//     draft-07. What cannot be expressed is widened or dropped, never
//     narrowed: the compact schema may let through an argument the tool
//     rejects, never reject one it accepts.
//   - Precise where it can be. What the original states unconditionally,
//     including through $ref and allOf, survives: types, required
//     properties, enum (of at most compactEnumMax values) and const, format,
//     default, and the properties, items and additionalProperties schemas of
//     objects and arrays. Constraints that only narrow what a model would
//     send anyway are left out (see "Output").
//   - Small and bounded. Descriptions are cut to their first clause, at
//     most compactDescMax bytes (phrase), tidied, and left out where they
//     restate the property's name (or all of them, with
//     Options.NoDescriptions); titles, examples, comments and definitions are
//     dropped. Recursion is cut; $refs stop being inlined once
//     the inlined part reaches about twice the input's size (plus 4 KB), so
//     the result stays within a few times the input's size (the tests allow
//     four times, plus 16 KB) and is computed in time linear in it, even when
//     definitions fan out exponentially.
//   - Deterministic. The same schema always gives the same compact schema;
//     nothing depends on the order of map iteration.
//
// # The projection
//
// Each schema object is projected, bottom-up, onto a node that holds only the
// kept keywords, then written out. For one object:
//
//  1. Its own kept keywords are read: type, enum, const, default, format,
//     description (shortened), minimum, maximum, exclusiveMinimum,
//     exclusiveMaximum, multipleOf, minLength, maxLength, pattern, items,
//     prefixItems, minItems, maxItems, uniqueItems, properties, required,
//     additionalProperties, minProperties, maxProperties and
//     dependentRequired; subschemas are projected first. Everything else is
//     dropped, which only widens: not (except that "not": {} makes the schema
//     false, which is exact), if/then/else, dependentSchemas,
//     unevaluatedProperties and unevaluatedItems, contains, propertyNames,
//     the schema form of dependencies, $dynamicRef, and the annotations
//     title, examples, $comment, $schema, $id, $anchor, $defs, definitions.
//  2. patternProperties is dropped. A property name it governed falls under
//     additionalProperties in the compact schema, so additionalProperties
//     becomes the union of itself and every pattern's schema: false with a
//     pattern of schema {"type": "string"} becomes {"type": "string"}.
//  3. $ref: the target is projected and intersected with the siblings (in
//     draft-07 and older, where $ref overrides its siblings, the target
//     alone). A target already being projected on the current path (recursion
//     through "#", "#/$defs/node" or zod's "#/properties/x") becomes {} with
//     the description "recursive: see the standard view"; so does, with
//     "nested too deep: …", a ninth $ref inlined inside eight others or a
//     schema nested 40 deep, and with "too large: …" anything inside an
//     inlined $ref once the budget above is spent. A $ref that does not
//     resolve locally becomes {}.
//  4. allOf: each branch is intersected with the rest.
//  5. anyOf and oneOf: the union of the branches (oneOf accepts a subset of
//     what anyOf does) is intersected with the rest.
//
// Intersection (the instance satisfies both): types intersect ("integer"
// within "number"); enums intersect; required lists unite; bounds take the
// tighter value; properties unite, a property in both getting the
// intersection of its two schemas; items, prefixItems (position by position)
// and additionalProperties intersect. Of two formats, patterns, multipleOf,
// descriptions or defaults, the first is kept: the instance satisfies it. A
// property that one branch's additionalProperties: false forbids but another
// branch declares stays declared: the union of the property sets is the sound
// choice. When nothing can satisfy both (disjoint types or enums, different
// consts), the result is false.
//
// Union (the instance satisfies at least one branch), over the branches that
// can accept something; if one accepts anything, so does the union. A
// branch's possible JSON types are those of its type keyword narrowed by its
// enum or const; the union's type is the union of those, absent when that is
// every type. The enum is the union of the branches' value sets, kept only
// when every branch has one (an enum, a const, or a type of only "null" or
// "boolean") and one at least states it: anyOf [X, {"type": "null"}] gives X
// with "null" added to its type and null to its enum. A keyword that applies
// to one JSON type (minLength, maxLength, pattern and format to strings;
// minimum, maximum, the exclusive bounds and multipleOf to numbers; items,
// prefixItems, minItems, maxItems and uniqueItems to arrays; properties,
// required, additionalProperties, minProperties, maxProperties and
// dependentRequired to objects) is combined over only the branches that admit
// that type, so a string branch keeps its pattern next to a null branch.
// Between several such branches, a bound is kept, at its loosest, only when
// all of them state it; pattern, format, multipleOf and uniqueItems only when
// all agree; required and dependentRequired intersect; properties unite, each
// the union of its schemas in the branches, where a branch without the
// property contributes its additionalProperties (a copy when it holds no
// subschemas, else {}); additionalProperties is the union of the branches',
// so false only when all are false. A description or a default is kept when
// the branches that state one agree.
//
// Output. The projection keeps bounds, patterns and the like so that
// intersections and unions stay exact; writing the result out then leaves out
// what costs a model more tokens than it tells, each omission exact or
// widening, so soundness holds:
//
//   - the assertions that only narrow: pattern, minLength, maxLength,
//     minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf,
//     minItems, maxItems, uniqueItems, minProperties, maxProperties,
//     dependentRequired and additionalProperties: false (a schema-valued
//     additionalProperties stays: it says what a map holds). On real tools
//     they are mostly "minimum": 1 on page numbers and "maximum": 100 on page
//     sizes, which the server enforces and a model seldom crosses; format
//     stays, as it says how to write the value;
//   - an enum of more than compactEnumMax values (the widest of the corpus's
//     fill a tenth of its compact list), replaced by the type of its values;
//   - the type an enum or const already implies (every value is of that
//     type), which is exact;
//   - an items or additionalProperties left as {};
//   - of a description: a leading "Optional" (required says which properties
//     are), a leading article and a final period; and the whole description
//     when each of its words, fillers such as "the" and "of" aside, is a word
//     of the property's name, a prefix of one, or its plural ("The issue
//     number" of issue_number). With Options.NoDescriptions every description
//     is left out but the notes on where the projection stopped.
//
// The result is a JSON Schema 2020-12 document without $schema; a
// boolean schema stays a boolean, and a value that is not a schema becomes
// {}. So that a draft-07 client, which ignores prefixItems and applies items
// to every element, is not narrowed either, items is left out next to
// prefixItems. Input in draft-04, -06, -07 or 2019-09 (named by the root's
// $schema) is read with that draft's rules: $ref overriding its siblings,
// items as an array followed by additionalItems, boolean exclusive bounds, no
// const in draft-04, and the array form of dependencies. The result may share
// enum, const and default values with the input; neither is modified.
package compact

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Limits of the projection.
const (
	compactDescMax     = 64   // bytes of a description in a compact schema
	compactEnumMax     = 16   // values of an enum a compact schema writes out
	compactMaxRefDepth = 8    // $refs inlined inside one another
	compactMaxDepth    = 40   // nested schema objects, inlined ones included
	compactRefSlack    = 4096 // bytes $refs may always inline, besides twice the input's size
)

// Descriptions of the {} a compact schema has where the projection stopped.
const (
	compactNoteRecursive = "recursive: see the standard view"
	compactNoteDeep      = "nested too deep: see the standard view"
	compactNoteLarge     = "too large: see the standard view"
)

// Schema projects a JSON Schema (decoded JSON: map[string]any, []any,
// string, json.Number, bool, nil; other Go numbers are read too) onto its
// compact form. It is meant for a tool's input schema, whose root is "type":
// "object" and whose refs are known to be local and resolvable, but it
// neither panics nor loops on any other value. Deterministic. Never returns a
// schema with a forbidden keyword.
//
// The rules and guarantees are those of the package comment.
func Schema(schema any) any { return Options{}.Schema(schema) }

// Options choose what a compact schema keeps beyond what Schema keeps by
// default. The zero value is Schema's choice.
type Options struct {
	// NoDescriptions leaves out the descriptions of the schema and its
	// properties, except the notes saying where the projection stopped.
	NoDescriptions bool
}

// Schema projects schema as the package-level Schema does, with o's choices.
func (o Options) Schema(schema any) any {
	return decode(o.AppendSchema(nil, schema))
}

// AppendSchema appends the encoding of o.Schema(schema) to b, as jsonenc
// encodes a decoded value (keys sorted, compact), without making the value.
func (o Options) AppendSchema(b []byte, schema any) []byte {
	return writer{noDescriptions: o.NoDescriptions}.project(b, schema)
}

// project appends the projection of schema, written out by w; in a build
// without fast paths (package fastpath), made as a value and encoded.
func (w writer) project(b []byte, schema any) []byte {
	if !fastpath.Enabled {
		return w.projectValue(b, schema)
	}
	return w.projectBytes(b, schema)
}

// projectBytes is project in a build with fast paths: the projection
// written out as bytes, without making a value.
func (w writer) projectBytes(b []byte, schema any) []byte {
	projected(schema, func(n *node) { b = w.append(b, n, "") })
	return b
}

// projected calls use with the projection of schema, made by a projector
// of the pool, which use must not keep.
func projected(schema any, use func(n *node)) {
	p := projectors.Get().(*projector)
	p.root, p.draft, p.budget = schema, draftOf(schema), compactRefSlack
	use(p.project(schema))
	p.reset()
	projectors.Put(p)
}

// decode decodes what a writer wrote: numbers as json.Number, as the build
// decodes schemas.
func decode(b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic("compact: the writer wrote invalid JSON: " + err.Error())
	}
	return v
}

// projectors holds projectors between calls, so that their nodes, which
// the result never references, are reused.
var projectors = sync.Pool{New: func() any { return new(projector) }}

// JSON types as a bit set. A number is an integer when its fractional part is
// zero (1.0 is one), as in JSON Schema.
const (
	ctNull uint8 = 1 << iota
	ctBoolean
	ctObject
	ctArray
	ctString
	ctInteger  // numbers without a fractional part
	ctFraction // numbers with one
	ctNumber   = ctInteger | ctFraction
	ctAny      = 1<<7 - 1
)

// The numeric keywords a compact schema keeps, as indexes into numKeywords.
const (
	kwMinimum = iota
	kwExclusiveMinimum
	kwMaximum
	kwExclusiveMaximum
	kwMultipleOf
	kwMinLength
	kwMaxLength
	kwMinItems
	kwMaxItems
	kwMinProperties
	kwMaxProperties
	numCount
)

// numKeywords describes the numeric keywords.
var numKeywords = [numCount]struct {
	name  string
	types uint8 // the instances it applies to
	bound int8  // +1 a lower bound, -1 an upper bound, 0 neither
	count bool  // a non-negative integer (else any number; multipleOf: positive)
}{
	kwMinimum:          {"minimum", ctNumber, +1, false},
	kwExclusiveMinimum: {"exclusiveMinimum", ctNumber, +1, false},
	kwMaximum:          {"maximum", ctNumber, -1, false},
	kwExclusiveMaximum: {"exclusiveMaximum", ctNumber, -1, false},
	kwMultipleOf:       {"multipleOf", ctNumber, 0, false},
	kwMinLength:        {"minLength", ctString, +1, true},
	kwMaxLength:        {"maxLength", ctString, -1, true},
	kwMinItems:         {"minItems", ctArray, +1, true},
	kwMaxItems:         {"maxItems", ctArray, -1, true},
	kwMinProperties:    {"minProperties", ctObject, +1, true},
	kwMaxProperties:    {"maxProperties", ctObject, -1, true},
}

// node is a compact schema under construction: the kept keywords only.
type node struct {
	lit         int8  // +1: the schema true; -1: false, or nothing satisfies it; 0: an object
	types       uint8 // the type keyword; 0 when absent
	hasEnum     bool
	hasConst    bool
	hasDefault  bool
	uniqueItems bool
	enum        []any
	cnst, dflt  any
	desc        any              // a string, or nil when absent; an interface so that writing it out does not allocate
	format      any              // likewise
	pattern     any              // likewise
	nums        []numValue       // the numeric keywords present
	items       *node            // applies after prefix; nil when absent
	prefix      []*node          // prefixItems
	props       []property       // properties, sorted by name; nil when absent
	required    []any            // strings
	addl        *node            // additionalProperties; nil when absent
	depReq      map[string][]any // dependentRequired
}

// numValue is a numeric keyword (an index into numKeywords) and its value, a
// json.Number.
type numValue struct {
	k int
	v any
}

// property is a property and its schema.
type property struct {
	name string
	node *node
}

// num returns the value of numeric keyword k, or "".
func (n *node) num(k int) json.Number {
	for _, x := range n.nums {
		if x.k == k {
			return x.v.(json.Number)
		}
	}
	return ""
}

// setNum sets numeric keyword k to v, or removes it when v is not a
// json.Number or is "".
func (n *node) setNum(k int, v any) {
	if num, ok := v.(json.Number); !ok || num == "" {
		v = nil
	}
	for i := range n.nums {
		if n.nums[i].k == k {
			if v == nil {
				n.nums = slices.Delete(n.nums, i, i+1)
			} else {
				n.nums[i].v = v
			}
			return
		}
	}
	if v != nil {
		n.nums = append(n.nums, numValue{k, v})
	}
}

// prop returns the schema of property name, or nil.
func (n *node) prop(name string) *node {
	i, found := slices.BinarySearchFunc(n.props, name, func(p property, name string) int { return strings.Compare(p.name, name) })
	if !found {
		return nil
	}
	return n.props[i].node
}

func never() *node { return &node{lit: -1} }

// isTop reports whether n plainly accepts everything (its description aside).
func (n *node) isTop() bool {
	return n.lit > 0 || n.lit == 0 && n.types == 0 && !n.hasEnum && !n.hasConst && n.format == nil &&
		n.pattern == nil && len(n.nums) == 0 && !n.uniqueItems && n.items == nil &&
		n.prefix == nil && n.props == nil && n.required == nil && n.addl == nil && n.depReq == nil
}

// isBare reports whether n says nothing at all, so that a keyword holding it
// can be left out.
func (n *node) isBare() bool { return n.lit > 0 || n.isTop() && n.desc == nil }

// isLeaf reports whether n holds no subschemas, so that copying it is cheap.
func (n *node) isLeaf() bool {
	return n.items == nil && n.prefix == nil && n.props == nil && n.addl == nil
}

// effTypes returns the JSON types of the instances n may accept: its type
// narrowed by its enum and const. 0 means n accepts nothing.
func (n *node) effTypes() uint8 {
	if n.lit < 0 {
		return 0
	}
	t := n.types
	if t == 0 {
		t = ctAny
	}
	if n.hasConst {
		t &= valueType(n.cnst)
	}
	if n.hasEnum {
		var e uint8
		for _, v := range n.enum {
			e |= valueType(v)
		}
		t &= e
	}
	return t
}

// widen returns a schema, owned by the caller, that accepts at least what n
// does: a copy of n when that is cheap, else {}. A nil n accepts anything.
func (n *node) widen() *node {
	switch {
	case n == nil:
		return &node{}
	case n.isLeaf():
		c := *n
		c.nums = slices.Clone(n.nums)
		c.required = slices.Clone(n.required)
		c.depReq = maps.Clone(n.depReq)
		return &c
	}
	return &node{desc: n.desc}
}

// projector holds the state of one Schema call.
type projector struct {
	root     any
	draft    int                  // 4, 6, 7, 2019 or 2020, from the root's $schema
	path     []uintptr            // the schema objects being projected, outermost first
	refs     map[string]inlineRef // $ref string -> its target
	resolver *refs.Resolver       // of root's $refs; nil until one is inlined
	refDepth int                  // $refs being inlined
	depth    int                  // schema objects being projected
	spent    int                  // estimated bytes projected inside inlined $refs
	budget   int                  // the most spent may reach, as far as the input is measured
	measured int                  // the input's size, or as far as it was measured
	sized    bool                 // measured is the input's whole size
	slabs    [][]node             // nodes, handed out by node
	slab     int                  // the slab being handed out
	used     int                  // nodes handed out of it
	keys     []string             // scratch: property names being projected
	nums     []numValue           // the nums of the nodes object made
}

// slabNodes is the size of a slab of nodes; a projector keeps at most
// slabsKept of them between calls.
const (
	slabNodes = 32
	slabsKept = 4
)

// node returns a new, empty node.
func (p *projector) node() *node {
	if p.slab == len(p.slabs) {
		p.slabs = append(p.slabs, make([]node, slabNodes))
	}
	n := &p.slabs[p.slab][p.used]
	if p.used++; p.used == slabNodes {
		p.slab, p.used = p.slab+1, 0
	}
	return n
}

// reset readies p for another call.
func (p *projector) reset() {
	for i := range p.slab {
		clear(p.slabs[i])
	}
	if p.slab < len(p.slabs) {
		clear(p.slabs[p.slab][:p.used])
	}
	if len(p.slabs) > slabsKept {
		clear(p.slabs[slabsKept:])
		p.slabs = p.slabs[:slabsKept]
	}
	clear(p.refs)
	clear(p.nums)
	if cap(p.nums) > 1024 {
		p.nums = nil
	}
	*p = projector{slabs: p.slabs, refs: p.refs, path: p.path[:0], keys: p.keys[:0], nums: p.nums[:0]}
}

type inlineRef struct {
	target any
	ok     bool
}

// draftOf returns the draft the root's $schema names: 4, 6, 7, 2019, or
// 2020 (the default).
func draftOf(root any) int {
	m, _ := root.(map[string]any)
	s, _ := m["$schema"].(string)
	switch {
	case strings.Contains(s, "draft-03"), strings.Contains(s, "draft-04"):
		return 4
	case strings.Contains(s, "draft-06"):
		return 6
	case strings.Contains(s, "draft-07"):
		return 7
	case strings.Contains(s, "2019-09"):
		return 2019
	}
	return 2020
}

func (p *projector) project(v any) *node {
	switch s := v.(type) {
	case bool:
		n := p.node()
		if n.lit = 1; !s {
			n.lit = -1
		}
		return n
	case map[string]any:
		if p.depth >= compactMaxDepth {
			return p.note(compactNoteDeep)
		}
		if p.refDepth > 0 && p.overBudget() {
			return p.note(compactNoteLarge)
		}
		p.depth++
		p.path = append(p.path, reflect.ValueOf(s).Pointer())
		n := p.object(s)
		p.path = p.path[:len(p.path)-1]
		p.depth--
		return n
	}
	return p.node() // not a schema
}

func (p *projector) projectList(l []any) []*node {
	out := make([]*node, len(l))
	for i, v := range l {
		out[i] = p.project(v)
	}
	return out
}
