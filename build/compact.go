package build

// Compact schemas: the inputSchema of a CompactToolDescriptor (?view=compact).
//
// The compact view exists so that a model with a small context can still see
// every tool. Its input schemas must be small, must use none of $ref, allOf,
// anyOf, oneOf, not, patternProperties and dependentSchemas at any depth (the
// spec's "Views and sessions"), and must not lie about what the tool accepts.
// compactSchema projects a tool's input schema onto such a schema; the
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
//     string "anyOf" in an enum, is data and stays.) compactSchema does not
//     panic or loop, and is safe for concurrent use.
//   - Sound. Every instance the original schema accepts, the compact schema
//     accepts, whether a client reads it as JSON Schema 2020-12 or as
//     draft-07. What cannot be expressed is widened or dropped, never
//     narrowed: the compact schema may let through an argument the tool
//     rejects, never reject one it accepts.
//   - Precise where it can be. What the original states unconditionally,
//     including through $ref and allOf, survives: types, required
//     properties, enum and const, format, default, bounds, and the properties
//     and items of objects and arrays.
//   - Small and bounded. Descriptions are cut to their first clause, at
//     most compactDescMax bytes (compactPhrase); titles, examples, comments and
//     definitions are dropped. Recursion is cut; $refs stop being inlined once
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
// Output. The result is a JSON Schema 2020-12 document without $schema; a
// boolean schema stays a boolean, and a value that is not a schema becomes
// {}. So that a draft-07 client, which ignores prefixItems and applies items
// to every element, is not narrowed either, items is left out next to
// prefixItems. Input in draft-04, -06, -07 or 2019-09 (named by the root's
// $schema) is read with that draft's rules: $ref overriding its siblings,
// items as an array followed by additionalItems, boolean exclusive bounds, no
// const in draft-04, and the array form of dependencies. The result may share
// enum, const and default values with the input; neither is modified.

import (
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/refs"
)

// Limits of the projection.
const (
	compactDescMax     = 64   // bytes of a description in a compact schema
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

// compactSchema projects a JSON Schema (decoded JSON: map[string]any, []any,
// string, json.Number, bool, nil; other Go numbers are read too) onto its
// compact form. It is meant for a tool's input schema, whose root is "type":
// "object" and whose refs are known to be local and resolvable, but it
// neither panics nor loops on any other value. Deterministic. Never returns a
// schema with a forbidden keyword.
//
// The rules and guarantees are those of the comment at the top of this file.
func compactSchema(schema any) any {
	p := csProjectors.Get().(*csProjector)
	p.root, p.draft, p.budget = schema, csDraftOf(schema), -1
	out := p.project(schema).json()
	p.reset()
	csProjectors.Put(p)
	return out
}

// csProjectors holds projectors between calls, so that their nodes, which
// the result never references, are reused.
var csProjectors = sync.Pool{New: func() any { return new(csProjector) }}

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

// The numeric keywords a compact schema keeps, as indexes into csNums.
const (
	csMinimum = iota
	csExclusiveMinimum
	csMaximum
	csExclusiveMaximum
	csMultipleOf
	csMinLength
	csMaxLength
	csMinItems
	csMaxItems
	csMinProperties
	csMaxProperties
	csNumCount
)

// csNums describes the numeric keywords.
var csNums = [csNumCount]struct {
	name  string
	types uint8 // the instances it applies to
	bound int8  // +1 a lower bound, -1 an upper bound, 0 neither
	count bool  // a non-negative integer (else any number; multipleOf: positive)
}{
	csMinimum:          {"minimum", ctNumber, +1, false},
	csExclusiveMinimum: {"exclusiveMinimum", ctNumber, +1, false},
	csMaximum:          {"maximum", ctNumber, -1, false},
	csExclusiveMaximum: {"exclusiveMaximum", ctNumber, -1, false},
	csMultipleOf:       {"multipleOf", ctNumber, 0, false},
	csMinLength:        {"minLength", ctString, +1, true},
	csMaxLength:        {"maxLength", ctString, -1, true},
	csMinItems:         {"minItems", ctArray, +1, true},
	csMaxItems:         {"maxItems", ctArray, -1, true},
	csMinProperties:    {"minProperties", ctObject, +1, true},
	csMaxProperties:    {"maxProperties", ctObject, -1, true},
}

// csNode is a compact schema under construction: the kept keywords only.
type csNode struct {
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
	nums        []csNum          // the numeric keywords present
	items       *csNode          // applies after prefix; nil when absent
	prefix      []*csNode        // prefixItems
	props       []csProp         // properties, sorted by name; nil when absent
	required    []any            // strings
	addl        *csNode          // additionalProperties; nil when absent
	depReq      map[string][]any // dependentRequired
}

// csNum is a numeric keyword (an index into csNums) and its value, a
// json.Number.
type csNum struct {
	k int
	v any
}

// csProp is a property and its schema.
type csProp struct {
	name string
	node *csNode
}

// num returns the value of numeric keyword k, or "".
func (n *csNode) num(k int) json.Number {
	for _, x := range n.nums {
		if x.k == k {
			return x.v.(json.Number)
		}
	}
	return ""
}

// setNum sets numeric keyword k to v, or removes it when v is not a
// json.Number or is "".
func (n *csNode) setNum(k int, v any) {
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
		n.nums = append(n.nums, csNum{k, v})
	}
}

// prop returns the schema of property name, or nil.
func (n *csNode) prop(name string) *csNode {
	i, found := slices.BinarySearchFunc(n.props, name, func(p csProp, name string) int { return strings.Compare(p.name, name) })
	if !found {
		return nil
	}
	return n.props[i].node
}

func csNever() *csNode { return &csNode{lit: -1} }

// isTop reports whether n plainly accepts everything (its description aside).
func (n *csNode) isTop() bool {
	return n.lit > 0 || n.lit == 0 && n.types == 0 && !n.hasEnum && !n.hasConst && n.format == nil &&
		n.pattern == nil && len(n.nums) == 0 && !n.uniqueItems && n.items == nil &&
		n.prefix == nil && n.props == nil && n.required == nil && n.addl == nil && n.depReq == nil
}

// isBare reports whether n says nothing at all, so that a keyword holding it
// can be left out.
func (n *csNode) isBare() bool { return n.lit > 0 || n.isTop() && n.desc == nil }

// isLeaf reports whether n holds no subschemas, so that copying it is cheap.
func (n *csNode) isLeaf() bool {
	return n.items == nil && n.prefix == nil && n.props == nil && n.addl == nil
}

// effTypes returns the JSON types of the instances n may accept: its type
// narrowed by its enum and const. 0 means n accepts nothing.
func (n *csNode) effTypes() uint8 {
	if n.lit < 0 {
		return 0
	}
	t := n.types
	if t == 0 {
		t = ctAny
	}
	if n.hasConst {
		t &= csValueType(n.cnst)
	}
	if n.hasEnum {
		var e uint8
		for _, v := range n.enum {
			e |= csValueType(v)
		}
		t &= e
	}
	return t
}

// widen returns a schema, owned by the caller, that accepts at least what n
// does: a copy of n when that is cheap, else {}. A nil n accepts anything.
func (n *csNode) widen() *csNode {
	switch {
	case n == nil:
		return &csNode{}
	case n.isLeaf():
		c := *n
		c.nums = slices.Clone(n.nums)
		c.required = slices.Clone(n.required)
		c.depReq = maps.Clone(n.depReq)
		return &c
	}
	return &csNode{desc: n.desc}
}

// csProjector holds the state of one compactSchema call.
type csProjector struct {
	root     any
	draft    int       // 4, 6, 7, 2019 or 2020, from the root's $schema
	path     []uintptr // the schema objects being projected, outermost first
	refs     map[string]csRef
	refDepth int        // $refs being inlined
	depth    int        // schema objects being projected
	spent    int        // estimated bytes projected inside inlined $refs
	budget   int        // the most spent may reach; -1 until needed
	slabs    [][]csNode // nodes, handed out by node
	slab     int        // the slab being handed out
	used     int        // nodes handed out of it
	keys     []string   // scratch: property names being projected
	nums     []csNum    // the nums of the nodes object made
}

// csSlabNodes is the size of a slab of nodes; a projector keeps at most
// csSlabsKept of them between calls.
const (
	csSlabNodes = 32
	csSlabsKept = 4
)

// node returns a new, empty node.
func (p *csProjector) node() *csNode {
	if p.slab == len(p.slabs) {
		p.slabs = append(p.slabs, make([]csNode, csSlabNodes))
	}
	n := &p.slabs[p.slab][p.used]
	if p.used++; p.used == csSlabNodes {
		p.slab, p.used = p.slab+1, 0
	}
	return n
}

// reset readies p for another call.
func (p *csProjector) reset() {
	for i := range p.slab {
		clear(p.slabs[i])
	}
	if p.slab < len(p.slabs) {
		clear(p.slabs[p.slab][:p.used])
	}
	if len(p.slabs) > csSlabsKept {
		clear(p.slabs[csSlabsKept:])
		p.slabs = p.slabs[:csSlabsKept]
	}
	clear(p.refs)
	clear(p.nums)
	if cap(p.nums) > 1024 {
		p.nums = nil
	}
	*p = csProjector{slabs: p.slabs, refs: p.refs, path: p.path[:0], keys: p.keys[:0], nums: p.nums[:0]}
}

type csRef struct {
	target any
	ok     bool
}

// csDraftOf returns the draft the root's $schema names: 4, 6, 7, 2019, or
// 2020 (the default).
func csDraftOf(root any) int {
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

func (p *csProjector) project(v any) *csNode {
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

func (p *csProjector) projectList(l []any) []*csNode {
	out := make([]*csNode, len(l))
	for i, v := range l {
		out[i] = p.project(v)
	}
	return out
}

// object projects one schema object (steps 1 to 5 of the comment at the top).
func (p *csProjector) object(m map[string]any) *csNode {
	if p.draft < 2019 {
		if ref, ok := m["$ref"].(string); ok {
			return p.inline(ref) // before 2019-09, $ref overrides its siblings
		}
	}
	n := p.node()
	numStart := len(p.nums)
	var ref string
	var hasRef, exclMin, exclMax, never bool
	var items, addItems, prefixItems, props, patProps, addl, deps, allOf, anyOf, oneOf any
	for k, v := range m {
		switch k {
		case "type":
			n.types = csTypes(v)
		case "enum":
			if l, ok := v.([]any); ok {
				n.hasEnum, n.enum = true, l
			}
		case "const":
			if p.draft >= 6 {
				n.hasConst, n.cnst = true, v
			}
		case "default":
			n.hasDefault, n.dflt = true, v
		case "description":
			if s, ok := v.(string); ok {
				if t := compactPhrase(s, compactDescMax); t == s && s != "" {
					n.desc = v
				} else if t != "" {
					n.desc = t
				}
			}
		case "format":
			if s, ok := v.(string); ok && s != "" {
				n.format = v
			}
		case "pattern":
			if s, ok := v.(string); ok && s != "" {
				n.pattern = v
			}
		case "minimum":
			p.readNum(csMinimum, v)
		case "exclusiveMinimum":
			if b, ok := v.(bool); ok {
				exclMin = b
			} else {
				p.readNum(csExclusiveMinimum, v)
			}
		case "maximum":
			p.readNum(csMaximum, v)
		case "exclusiveMaximum":
			if b, ok := v.(bool); ok {
				exclMax = b
			} else {
				p.readNum(csExclusiveMaximum, v)
			}
		case "multipleOf":
			p.readNum(csMultipleOf, v)
		case "minLength":
			p.readNum(csMinLength, v)
		case "maxLength":
			p.readNum(csMaxLength, v)
		case "minItems":
			p.readNum(csMinItems, v)
		case "maxItems":
			p.readNum(csMaxItems, v)
		case "minProperties":
			p.readNum(csMinProperties, v)
		case "maxProperties":
			p.readNum(csMaxProperties, v)
		case "uniqueItems":
			n.uniqueItems, _ = v.(bool)
		case "required":
			n.required = csStrings(v)
		case "dependentRequired":
			if p.draft >= 2019 {
				n.depReq = csDependentRequired(v)
			}
		case "dependencies":
			deps = v
		case "items":
			items = v
		case "additionalItems":
			addItems = v
		case "prefixItems":
			prefixItems = v
		case "properties":
			props = v
		case "patternProperties":
			patProps = v
		case "additionalProperties":
			addl = v
		case "$ref":
			ref, hasRef = v.(string)
		case "allOf":
			allOf = v
		case "anyOf":
			anyOf = v
		case "oneOf":
			oneOf = v
		case "not":
			never = csAcceptsAll(v)
		}
	}
	if len(p.nums) > numStart {
		n.nums = p.nums[numStart:len(p.nums):len(p.nums)] // appending to it copies
	}
	// Draft-04: a boolean exclusive bound makes the bound next to it exclusive.
	if v := n.num(csMinimum); exclMin && v != "" {
		n.setNum(csExclusiveMinimum, v)
		n.setNum(csMinimum, json.Number(""))
	}
	if v := n.num(csMaximum); exclMax && v != "" {
		n.setNum(csExclusiveMaximum, v)
		n.setNum(csMaximum, json.Number(""))
	}
	if p.draft < 2019 && deps != nil {
		n.depReq = csDependentRequired(deps) // its schema members are dropped
	}
	if p.refDepth > 0 {
		p.spent += n.cost()
	}
	if never {
		n.lit = -1 // "not" of a schema that accepts everything
		return n
	}

	// Subschemas, in a fixed order: the size budget makes the order matter.
	if l, isList := items.([]any); isList {
		if p.draft < 2020 {
			n.prefix = p.projectList(l)
			if addItems != nil {
				n.items = p.project(addItems)
			}
		}
	} else {
		if items != nil {
			n.items = p.project(items)
		}
		if l, ok := prefixItems.([]any); ok && p.draft >= 2020 && len(l) > 0 {
			n.prefix = p.projectList(l)
		}
	}
	if pm, ok := props.(map[string]any); ok && len(pm) > 0 {
		if p.keys == nil {
			p.keys = make([]string, 0, 64)
		}
		start := len(p.keys)
		for k := range pm {
			p.keys = append(p.keys, k)
		}
		keys := p.keys[start:]
		slices.Sort(keys)
		n.props = make([]csProp, 0, len(pm))
		for _, k := range keys {
			if p.refDepth > 0 {
				p.spent += len(k) + 4
			}
			n.props = append(n.props, csProp{k, p.project(pm[k])})
		}
		p.keys = p.keys[:start]
	}
	if addl != nil {
		a := p.project(addl)
		if pm, ok := patProps.(map[string]any); ok && len(pm) > 0 && !a.isTop() {
			parts := []*csNode{a}
			for _, k := range sortedKeys(pm) {
				parts = append(parts, p.project(pm[k]))
			}
			a = csUnion(parts)
		}
		n.addl = a
	}
	if hasRef {
		n = csMerge(n, p.inline(ref))
	}
	if l, ok := allOf.([]any); ok {
		for _, b := range l {
			n = csMerge(n, p.project(b))
		}
	}
	for _, x := range [...]any{anyOf, oneOf} {
		if l, ok := x.([]any); ok && len(l) > 0 {
			n = csMerge(n, csUnion(p.projectList(l)))
		}
	}
	return n
}

// csAcceptsAll reports whether v is plainly a schema that accepts everything:
// true, or an object holding annotations only.
func csAcceptsAll(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case map[string]any:
		for k := range x {
			switch k {
			case "description", "title", "$comment", "examples":
			default:
				return false
			}
		}
		return true
	}
	return false
}

// inline projects the target of a $ref.
func (p *csProjector) inline(ref string) *csNode {
	r, ok := p.refs[ref]
	if !ok {
		r.target, _, r.ok = refs.Resolve(p.root, ref)
		if p.refs == nil {
			p.refs = map[string]csRef{}
		}
		p.refs[ref] = r
	}
	if !r.ok {
		return &csNode{}
	}
	if m, isMap := r.target.(map[string]any); isMap && slices.Contains(p.path, reflect.ValueOf(m).Pointer()) {
		return p.note(compactNoteRecursive)
	}
	if p.refDepth >= compactMaxRefDepth {
		return p.note(compactNoteDeep)
	}
	if p.overBudget() {
		return p.note(compactNoteLarge)
	}
	p.refDepth++
	n := p.project(r.target)
	p.refDepth--
	return n
}

// note returns {} with a description saying why the projection stopped.
func (p *csProjector) note(why string) *csNode {
	n := &csNode{desc: why}
	if p.refDepth > 0 {
		p.spent += n.cost()
	}
	return n
}

func (p *csProjector) overBudget() bool {
	if p.spent <= compactRefSlack {
		return false
	}
	if p.budget < 0 {
		p.budget = 2*csJSONSize(p.root) + compactRefSlack
	}
	return p.spent > p.budget
}

// cost estimates the bytes n's own keywords take in JSON, its subschemas
// aside.
func (n *csNode) cost() int {
	c := 2
	if n.types != 0 {
		c += 16
	}
	if n.desc != nil {
		c += 14 + csJSONSize(n.desc)
	}
	if n.format != nil {
		c += 9 + csJSONSize(n.format)
	}
	if n.pattern != nil {
		c += 10 + csJSONSize(n.pattern)
	}
	for _, x := range n.nums {
		c += len(csNums[x.k].name) + 4 + csJSONSize(x.v)
	}
	if n.uniqueItems {
		c += 19
	}
	if n.hasEnum {
		c += 8 + csJSONSize(n.enum)
	}
	if n.hasConst {
		c += 9 + csJSONSize(n.cnst)
	}
	if n.hasDefault {
		c += 11 + csJSONSize(n.dflt)
	}
	if len(n.required) > 0 {
		c += 12 + csJSONSize(n.required)
	}
	for k, l := range n.depReq {
		c += 24 + len(k) + csJSONSize(l)
	}
	return c
}

// csJSONSize estimates the size of a decoded JSON value in bytes.
func csJSONSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case map[string]any:
		n := 2
		for k, e := range x {
			n += len(k) + 4 + csJSONSize(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += 1 + csJSONSize(e)
		}
		return n
	case json.Number:
		return len(x)
	}
	return 5
}

// readNum adds numeric keyword k to p.nums from its value in a schema, if
// valid.
func (p *csProjector) readNum(k int, v any) {
	num, ok := csNumberOf(v)
	if !ok {
		return
	}
	d, _ := csParseDecimal(string(num))
	switch {
	case csNums[k].count && (d.neg || !d.isInt()):
		return
	case k == csMultipleOf && (d.neg || d.digits == ""):
		return
	}
	if _, same := v.(json.Number); !same {
		v = num
	}
	p.nums = append(p.nums, csNum{k, v})
}

// csMerge returns a schema that accepts every instance both a and b accept
// (see "Intersection" at the top). It consumes a and b.
func csMerge(a, b *csNode) *csNode {
	switch {
	case a.lit < 0:
		return a
	case b.lit < 0:
		return b
	case b.lit > 0:
		return a
	case a.lit > 0:
		return b
	}
	if b.types != 0 {
		if a.types != 0 {
			if a.types &= b.types; a.types == 0 {
				return csNever()
			}
		} else {
			a.types = b.types
		}
	}
	if b.hasEnum {
		if a.hasEnum {
			if a.enum = csIntersectValues(a.enum, b.enum); len(a.enum) == 0 {
				return csNever()
			}
		} else {
			a.hasEnum, a.enum = true, b.enum
		}
	}
	if b.hasConst {
		if a.hasConst {
			if !csEqual(a.cnst, b.cnst) {
				return csNever()
			}
		} else {
			a.hasConst, a.cnst = true, b.cnst
		}
	}
	if !a.hasDefault && b.hasDefault {
		a.hasDefault, a.dflt = true, b.dflt
	}
	if a.desc == nil {
		a.desc = b.desc
	}
	if a.format == nil {
		a.format = b.format
	}
	if a.pattern == nil {
		a.pattern = b.pattern
	}
	for _, y := range b.nums {
		x, k := a.num(y.k), y.k
		switch {
		case x == "":
			a.setNum(k, y.v)
		case csNums[k].bound > 0 && csCompare(y.v.(json.Number), x) > 0, csNums[k].bound < 0 && csCompare(y.v.(json.Number), x) < 0:
			a.setNum(k, y.v)
		}
	}
	a.uniqueItems = a.uniqueItems || b.uniqueItems
	a.items = csMergeOpt(a.items, b.items)
	if len(b.prefix) > 0 {
		// Beyond the shorter list, the longer one's schemas are kept alone:
		// wider than intersecting them with the other's items, so sound.
		out := make([]*csNode, max(len(a.prefix), len(b.prefix)))
		for i := range out {
			switch {
			case i >= len(a.prefix):
				out[i] = b.prefix[i]
			case i >= len(b.prefix):
				out[i] = a.prefix[i]
			default:
				out[i] = csMerge(a.prefix[i], b.prefix[i])
			}
		}
		a.prefix = out
	}
	if b.props != nil {
		if a.props == nil {
			a.props = b.props
		} else {
			a.props = csMergeProps(a.props, b.props)
		}
	}
	a.required = csUniteStrings(a.required, b.required)
	a.addl = csMergeOpt(a.addl, b.addl)
	if b.depReq != nil {
		if a.depReq == nil {
			a.depReq = b.depReq
		} else {
			for k, l := range b.depReq {
				a.depReq[k] = csUniteStrings(a.depReq[k], l)
			}
		}
	}
	return a
}

// csMergeProps returns the properties of both a and b, sorted, with the
// intersection of the schemas of a property in both.
func csMergeProps(a, b []csProp) []csProp {
	out := make([]csProp, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].name < b[j].name:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].name < a[i].name:
			out = append(out, b[j])
			j++
		default:
			out = append(out, csProp{a[i].name, csMerge(a[i].node, b[j].node)})
			i++
			j++
		}
	}
	return out
}

// csMergeOpt is csMerge where nil means absent (accepts anything).
func csMergeOpt(a, b *csNode) *csNode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return csMerge(a, b)
}

// csUnion returns a schema that accepts every instance one of bs accepts (see
// "Union" at the top). It consumes bs and its elements.
func csUnion(bs []*csNode) *csNode {
	live := bs[:0]
	eff := make([]uint8, 0, len(bs))
	for _, b := range bs {
		if e := b.effTypes(); e != 0 {
			live = append(live, b)
			eff = append(eff, e)
		}
	}
	switch len(live) {
	case 0:
		return csNever()
	case 1:
		return live[0]
	}
	u := &csNode{}
	for _, b := range live { // a description the branches agree on
		if b.desc == nil {
			continue
		}
		if u.desc == nil {
			u.desc = b.desc
		} else if u.desc != b.desc {
			u.desc = nil
			break
		}
	}
	var all uint8
	for i, b := range live {
		if b.isTop() {
			return u
		}
		all |= eff[i]
	}
	if all != ctAny {
		u.types = all
	}
	if vals, ok := csUnionValues(live, eff); ok {
		if len(vals) == 1 {
			u.hasConst, u.cnst = true, vals[0]
		} else {
			u.hasEnum, u.enum = true, vals
		}
	}
	for _, b := range live {
		if !b.hasDefault {
			continue
		}
		if !u.hasDefault {
			u.hasDefault, u.dflt = true, b.dflt
		} else if !csEqual(u.dflt, b.dflt) {
			u.hasDefault, u.dflt = false, nil
			break
		}
	}

	adm := make([]*csNode, 0, len(live)) // the branches admitting one JSON type
	for _, group := range [...]uint8{ctString, ctNumber, ctArray, ctObject} {
		adm = adm[:0]
		for i, b := range live {
			if eff[i]&group != 0 {
				adm = append(adm, b)
			}
		}
		if len(adm) == 0 {
			continue
		}
		for k := range csNums {
			if csNums[k].types == group {
				u.setNum(k, csLoosest(adm, k))
			}
		}
		switch group {
		case ctString:
			u.format = csAgreed(adm, func(b *csNode) any { return b.format })
			u.pattern = csAgreed(adm, func(b *csNode) any { return b.pattern })
		case ctArray:
			u.unionArrays(adm)
		case ctObject:
			u.unionObjects(adm)
		}
	}
	return u
}

// unionArrays sets u's array keywords to the union of adm's.
func (u *csNode) unionArrays(adm []*csNode) {
	u.uniqueItems = true
	longest := 0
	for _, b := range adm {
		u.uniqueItems = u.uniqueItems && b.uniqueItems
		longest = max(longest, len(b.prefix))
	}
	if longest > 0 {
		// A branch without position i has its items there.
		u.prefix = make([]*csNode, longest)
		for i := range u.prefix {
			parts := make([]*csNode, len(adm))
			for j, b := range adm {
				if i < len(b.prefix) {
					parts[j] = b.prefix[i]
				} else {
					parts[j] = b.items.widen()
				}
			}
			u.prefix[i] = csUnion(parts)
		}
	}
	u.items = csUnionOpt(adm, func(b *csNode) *csNode { return b.items })
	if u.items == nil {
		for len(u.prefix) > 0 && u.prefix[len(u.prefix)-1].isTop() {
			u.prefix = u.prefix[:len(u.prefix)-1]
		}
		if len(u.prefix) == 0 {
			u.prefix = nil
		}
	}
}

// unionObjects sets u's object keywords to the union of adm's.
func (u *csNode) unionObjects(adm []*csNode) {
	u.required = adm[0].required
	for _, b := range adm[1:] {
		u.required = csIntersectStrings(u.required, b.required)
	}
	var names []string
	for _, b := range adm {
		for _, x := range b.props {
			names = append(names, x.name)
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		// A branch without the property has its additionalProperties there.
		parts := make([]*csNode, len(adm))
		for j, c := range adm {
			if parts[j] = c.prop(name); parts[j] == nil {
				parts[j] = c.addl.widen()
			}
		}
		u.props = append(u.props, csProp{name, csUnion(parts)})
	}
	u.addl = csUnionOpt(adm, func(b *csNode) *csNode { return b.addl })
	for k, l := range adm[0].depReq {
		for _, b := range adm[1:] {
			l = csIntersectStrings(l, b.depReq[k])
		}
		if len(l) > 0 {
			if u.depReq == nil {
				u.depReq = map[string][]any{}
			}
			u.depReq[k] = l
		}
	}
}

// csUnionOpt returns the union of get(b) over adm, or nil (absent) when one
// of them is absent.
func csUnionOpt(adm []*csNode, get func(*csNode) *csNode) *csNode {
	parts := make([]*csNode, len(adm))
	for i, b := range adm {
		if parts[i] = get(b); parts[i] == nil {
			return nil
		}
	}
	return csUnion(parts)
}

// csLoosest returns the loosest value of numeric keyword k over adm, when all
// of them state it, or "" (absent).
func csLoosest(adm []*csNode, k int) json.Number {
	v := adm[0].num(k)
	for _, b := range adm[1:] {
		w := b.num(k)
		switch {
		case v == "" || w == "":
			return ""
		case csNums[k].bound == 0:
			if csCompare(v, w) != 0 {
				return ""
			}
		case csNums[k].bound > 0 && csCompare(w, v) < 0, csNums[k].bound < 0 && csCompare(w, v) > 0:
			v = w
		}
	}
	return v
}

// csAgreed returns get(b), a string or nil, when it is the same for every b
// in adm, else nil.
func csAgreed(adm []*csNode, get func(*csNode) any) any {
	v := get(adm[0])
	for _, b := range adm[1:] {
		if get(b) != v {
			return nil
		}
	}
	return v
}

// csUnionValues returns the union of the value sets of live, a branch's value
// set being its enum or const, or every value of its types when those are
// only null and boolean. ok is false when a branch has none, or when no
// branch states an enum or a const.
func csUnionValues(live []*csNode, eff []uint8) (vals []any, ok bool) {
	explicit := false
	for _, b := range live {
		explicit = explicit || b.hasEnum || b.hasConst
	}
	if !explicit {
		return nil, false
	}
	seen := map[string]bool{}
	for i, b := range live {
		var vs []any
		switch {
		case b.hasConst:
			vs = []any{b.cnst}
		case b.hasEnum:
			vs = b.enum
		case eff[i]&^(ctNull|ctBoolean) == 0:
			vs = []any{false, true, nil}
		default:
			return nil, false
		}
		for _, v := range vs {
			if csValueType(v)&eff[i] == 0 {
				continue
			}
			if k := csKey(v); !seen[k] {
				seen[k] = true
				vals = append(vals, v)
			}
		}
	}
	return vals, true
}

// json writes n out as a schema.
func (n *csNode) json() any {
	switch {
	case n.lit > 0:
		return true
	case n.lit < 0:
		return false
	}
	m := make(map[string]any, 6)
	if n.types != 0 {
		m["type"] = csTypeJSON(n.types)
	}
	if n.hasEnum {
		if n.enum == nil {
			m["enum"] = []any{}
		} else {
			m["enum"] = n.enum
		}
	}
	if n.hasConst {
		m["const"] = n.cnst
	}
	if n.hasDefault {
		m["default"] = n.dflt
	}
	if n.desc != nil {
		m["description"] = n.desc
	}
	if n.format != nil {
		m["format"] = n.format
	}
	if n.pattern != nil {
		m["pattern"] = n.pattern
	}
	for _, x := range n.nums {
		m[csNums[x.k].name] = x.v
	}
	if n.uniqueItems {
		m["uniqueItems"] = true
	}
	if len(n.prefix) > 0 {
		l := make([]any, len(n.prefix))
		for i, x := range n.prefix {
			l[i] = x.json()
		}
		m["prefixItems"] = l // and no items: see "Output" at the top
	} else if n.items != nil && !n.items.isBare() {
		m["items"] = n.items.json()
	}
	if len(n.props) > 0 {
		pm := make(map[string]any, len(n.props))
		for _, x := range n.props {
			pm[x.name] = x.node.json()
		}
		m["properties"] = pm
	}
	if len(n.required) > 0 {
		m["required"] = n.required
	}
	if n.addl != nil && !n.addl.isBare() {
		m["additionalProperties"] = n.addl.json()
	}
	if len(n.depReq) > 0 {
		dm := make(map[string]any, len(n.depReq))
		for k, l := range n.depReq {
			dm[k] = l
		}
		m["dependentRequired"] = dm
	}
	return m
}

// csTypes reads a type keyword. Unknown names are ignored; 0 means no
// constraint.
func csTypes(v any) uint8 {
	switch x := v.(type) {
	case string:
		return csTypeBits(x)
	case []any:
		var t uint8
		for _, e := range x {
			if s, ok := e.(string); ok {
				t |= csTypeBits(s)
			}
		}
		return t
	}
	return 0
}

func csTypeBits(name string) uint8 {
	switch name {
	case "null":
		return ctNull
	case "boolean":
		return ctBoolean
	case "object":
		return ctObject
	case "array":
		return ctArray
	case "string":
		return ctString
	case "integer":
		return ctInteger
	case "number":
		return ctNumber
	}
	return 0
}

// csTypeNames are the type names in the order a type list is written in.
var csTypeNames = [...]struct {
	bits uint8
	name any
}{{ctString, "string"}, {ctNumber, "number"}, {ctInteger, "integer"}, {ctBoolean, "boolean"}, {ctObject, "object"}, {ctArray, "array"}, {ctNull, "null"}}

// csTypeJSON writes a type set: one name, or a list in a fixed order. A set
// with non-integers is written "number": there is no way to say "not an
// integer".
func csTypeJSON(t uint8) any {
	if t&ctFraction != 0 {
		t |= ctNumber
	}
	var one any
	n := 0
	for _, x := range csTypeNames {
		if t&x.bits == x.bits && (x.bits != ctInteger || t&ctFraction == 0) {
			one = x.name
			n++
		}
	}
	if n == 1 {
		return one
	}
	names := make([]any, 0, n)
	for _, x := range csTypeNames {
		if t&x.bits == x.bits && (x.bits != ctInteger || t&ctFraction == 0) {
			names = append(names, x.name)
		}
	}
	return names
}

// csValueType returns the JSON type of a decoded value as a type bit.
func csValueType(v any) uint8 {
	switch v.(type) {
	case nil:
		return ctNull
	case bool:
		return ctBoolean
	case string:
		return ctString
	case map[string]any:
		return ctObject
	case []any:
		return ctArray
	}
	if num, ok := csNumberOf(v); ok {
		if d, _ := csParseDecimal(string(num)); d.isInt() {
			return ctInteger
		}
		return ctFraction
	}
	return 0
}

// csNumberOf returns a decoded number as JSON text.
func csNumberOf(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		if _, ok := csParseDecimal(string(x)); ok {
			return x, true
		}
	case float64:
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), true
		}
	case float32:
		return csNumberOf(float64(x))
	case int:
		return json.Number(strconv.Itoa(x)), true
	case int8:
		return json.Number(strconv.Itoa(int(x))), true
	case int16:
		return json.Number(strconv.Itoa(int(x))), true
	case int32:
		return json.Number(strconv.Itoa(int(x))), true
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), true
	case uint:
		return json.Number(strconv.FormatUint(uint64(x), 10)), true
	case uint8:
		return json.Number(strconv.Itoa(int(x))), true
	case uint16:
		return json.Number(strconv.Itoa(int(x))), true
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10)), true
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), true
	}
	return "", false
}

// csDecimal is a JSON number, exactly: sign × 0.digits × 10^exp.
type csDecimal struct {
	neg    bool
	digits string // no leading or trailing zeros; "" for zero
	exp    int64
}

// csParseDecimal parses JSON number text (a leading "+" is accepted too).
// Exponents beyond ±10^15 are clamped.
func csParseDecimal(s string) (csDecimal, bool) {
	var d csDecimal
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		d.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	whole, frac := s[start:i], ""
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		frac = s[start:i]
	}
	if whole == "" && frac == "" {
		return csDecimal{}, false
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			neg = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			if e < 1e15 {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == start {
			return csDecimal{}, false
		}
		if neg {
			e = -e
		}
	}
	if i != len(s) {
		return csDecimal{}, false
	}
	digits := whole + frac
	exp := int64(len(whole)) + e
	j := 0
	for j < len(digits) && digits[j] == '0' {
		j++
	}
	digits = strings.TrimRight(digits[j:], "0")
	if digits == "" {
		return csDecimal{}, true
	}
	d.digits, d.exp = digits, exp-int64(j)
	return d, true
}

func (d csDecimal) isInt() bool { return d.digits == "" || int64(len(d.digits)) <= d.exp }

func (d csDecimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func (d csDecimal) cmp(e csDecimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es || ds == 0 {
		return cmp.Compare(ds, es)
	}
	r := cmp.Compare(d.exp, e.exp)
	if r == 0 {
		r = strings.Compare(d.digits, e.digits)
	}
	return r * ds
}

// csCompare compares two numbers a projection kept (so valid ones).
func csCompare(a, b json.Number) int {
	x, _ := csParseDecimal(string(a))
	y, _ := csParseDecimal(string(b))
	return x.cmp(y)
}

// csKey returns a string that two decoded JSON values share exactly when
// JSON Schema deems them equal (numbers by value: 1 and 1.0 are equal).
func csKey(v any) string {
	var b strings.Builder
	csWriteKey(&b, v)
	return b.String()
}

func csWriteKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteByte('n')
	case bool:
		if x {
			b.WriteByte('t')
		} else {
			b.WriteByte('f')
		}
	case string:
		b.WriteByte('s')
		b.WriteString(strconv.Itoa(len(x)))
		b.WriteByte(':')
		b.WriteString(x)
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			csWriteKey(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for _, k := range sortedKeys(x) {
			csWriteKey(b, k)
			csWriteKey(b, x[k])
		}
		b.WriteByte('}')
	default:
		num, ok := csNumberOf(v)
		if !ok {
			b.WriteByte('?')
			return
		}
		d, _ := csParseDecimal(string(num))
		b.WriteByte('d')
		if d.neg && d.digits != "" {
			b.WriteByte('-')
		}
		b.WriteString(d.digits)
		b.WriteByte('e')
		b.WriteString(strconv.FormatInt(d.exp, 10))
		b.WriteByte(';')
	}
}

func csEqual(a, b any) bool { return csKey(a) == csKey(b) }

// csIntersectValues returns the values of a that b holds too, in a's order.
func csIntersectValues(a, b []any) []any {
	in := make(map[string]bool, len(b))
	for _, v := range b {
		in[csKey(v)] = true
	}
	out := make([]any, 0, min(len(a), len(b)))
	for _, v := range a {
		if in[csKey(v)] {
			out = append(out, v)
		}
	}
	return out
}

// csStrings reads a list of property names: its strings, without
// duplicates, in a new slice.
func csStrings(v any) []any {
	l, _ := v.([]any)
	var out []any
	for _, e := range l {
		if s, ok := e.(string); ok && !slices.Contains(out, e) {
			if out == nil {
				out = make([]any, 0, len(l))
			}
			out = append(out, s)
		}
	}
	return out
}

// csDependentRequired reads dependentRequired, or the members of draft-07's
// dependencies that are lists of names.
func csDependentRequired(v any) map[string][]any {
	m, _ := v.(map[string]any)
	var out map[string][]any
	for k, e := range m {
		if _, isList := e.([]any); !isList {
			continue
		}
		if out == nil {
			out = map[string][]any{}
		}
		out[k] = csStrings(e)
	}
	return out
}

// csUniteStrings returns a's names then b's others, in a new slice when it
// differs from a.
func csUniteStrings(a, b []any) []any {
	var out []any
	for _, s := range b {
		if !slices.Contains(a, s) && !slices.Contains(out, s) {
			if out == nil {
				out = append(make([]any, 0, len(a)+len(b)), a...)
			}
			out = append(out, s)
		}
	}
	if out == nil {
		return a
	}
	return out
}

// csIntersectStrings returns a's names that b holds too, in a new slice.
func csIntersectStrings(a, b []any) []any {
	var out []any
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// compactText shortens a description: whitespace collapsed, cut to its first
// sentence if that fits, otherwise at a word boundary with "…", at most max
// bytes (valid UTF-8).
//
// A sentence ends at ".", "!" or "?" (and any closing quotes or brackets)
// followed by a space and not by a lowercase letter, outside parentheses, and
// not after a common abbreviation such as "e.g."; a first sentence of one word
// ("Optional.") runs on into the next. Invalid UTF-8 becomes U+FFFD. With max
// below 3 bytes there is no room for "…" and the text is cut short.
func compactText(s string, max int) string {
	if max <= 0 {
		return ""
	}
	s = csCollapseSpace(s)
	if end := csFirstSentence(s); end <= max {
		return s[:end]
	}
	const ellipsis = "…"
	if max < len(ellipsis) {
		return s[:csRuneCut(s, max)]
	}
	limit := max - len(ellipsis)
	cut := csRuneCut(s, limit)
	if s[cut] != ' ' { // cut < len(s): the text is longer than max
		if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 && sp >= limit/2 {
			cut = sp
		}
	}
	if t := strings.TrimRight(s[:cut], " ,;:-–—(/"); t != "" {
		return t + ellipsis
	}
	return s[:cut] + ellipsis
}

// compactPhrase shortens the description of a schema to its first clause:
// the first sentence, cut before the first parenthesis, colon, semicolon,
// dash or comma that comes after at least minClause bytes, then to at most
// max bytes as compactText does. Property descriptions in real schemas
// lead with what the value is and follow with details ("Page number for
// pagination (min 1)"); the lead is what a model choosing a tool needs.
func compactPhrase(s string, max int) string {
	const minClause = 12
	s = compactText(s, len(s)+1)
	cut := len(s)
	for _, sep := range []string{" (", ": ", "; ", " - ", " – ", " — ", ", "} {
		if i := strings.Index(s[min(minClause, len(s)):], sep); i >= 0 {
			cut = min(cut, i+min(minClause, len(s)))
		}
	}
	if cut < len(s) {
		s = strings.TrimRight(s[:cut], " ")
	}
	return compactText(s, max)
}

// csRuneCut returns the largest n' <= n at which s can be cut without
// splitting a character.
func csRuneCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// csCollapseSpace makes s valid UTF-8, trims it, and turns every run of
// white space into one space.
func csCollapseSpace(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	clean, space := true, true // space: the previous character is a space, or there is none
	for i := 0; i < len(s) && clean; {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == ' ':
				clean = !space
				space = true
			case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
				clean = false
			default:
				space = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		clean = !unicode.IsSpace(r)
		space = false
		i += size
	}
	if clean && !space {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// csAbbreviations end with a "." that does not end a sentence.
var csAbbreviations = []string{"e.g", "i.e", "eg", "ie", "etc", "vs", "cf", "approx", "incl", "esp", "viz", "al", "fig", "no", "mr", "mrs", "ms", "dr", "st"}

// csFirstSentence returns where the first sentence of s (collapsed) ends, or
// len(s).
func csFirstSentence(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth = max(depth-1, 0)
		case '.', '!', '?':
			j, d := i+1, depth
		closers:
			for j < len(s) {
				switch {
				case s[j] == ')' || s[j] == ']':
					d--
					j++
				case s[j] == '"' || s[j] == '\'':
					j++
				case strings.HasPrefix(s[j:], "”") || strings.HasPrefix(s[j:], "’"):
					j += len("”")
				default:
					break closers
				}
			}
			if j == len(s) {
				return j
			}
			if s[j] != ' ' || d > 0 || j+1 < len(s) && 'a' <= s[j+1] && s[j+1] <= 'z' {
				continue
			}
			if !strings.Contains(s[:i], " ") {
				continue // a one-word sentence, such as "Optional."
			}
			if s[i] == '.' {
				w := s[strings.LastIndexAny(s[:i], " (")+1 : i]
				if slices.Contains(csAbbreviations, strings.ToLower(w)) {
					continue
				}
			}
			return j
		}
	}
	return len(s)
}
