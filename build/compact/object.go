package compact

import (
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"slices"

	"github.com/signpost-dev/signpost/build/refs"
)

// object projects one schema object (steps 1 to 5 of the package comment).
func (p *projector) object(m map[string]any) *node {
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
			n.types = typesOf(v)
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
				if t := clause(s, compactDescMax); t == s && s != "" {
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
			p.readNum(kwMinimum, v)
		case "exclusiveMinimum":
			if b, ok := v.(bool); ok {
				exclMin = b
			} else {
				p.readNum(kwExclusiveMinimum, v)
			}
		case "maximum":
			p.readNum(kwMaximum, v)
		case "exclusiveMaximum":
			if b, ok := v.(bool); ok {
				exclMax = b
			} else {
				p.readNum(kwExclusiveMaximum, v)
			}
		case "multipleOf":
			p.readNum(kwMultipleOf, v)
		case "minLength":
			p.readNum(kwMinLength, v)
		case "maxLength":
			p.readNum(kwMaxLength, v)
		case "minItems":
			p.readNum(kwMinItems, v)
		case "maxItems":
			p.readNum(kwMaxItems, v)
		case "minProperties":
			p.readNum(kwMinProperties, v)
		case "maxProperties":
			p.readNum(kwMaxProperties, v)
		case "uniqueItems":
			n.uniqueItems, _ = v.(bool)
		case "required":
			n.required = stringValues(v)
		case "dependentRequired":
			if p.draft >= 2019 {
				n.depReq = dependentRequired(v)
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
			never = acceptsAll(v)
		}
	}
	if len(p.nums) > numStart {
		n.nums = p.nums[numStart:len(p.nums):len(p.nums)] // appending to it copies
	}
	// Draft-04: a boolean exclusive bound makes the bound next to it exclusive.
	if v := n.num(kwMinimum); exclMin && v != "" {
		n.setNum(kwExclusiveMinimum, v)
		n.setNum(kwMinimum, json.Number(""))
	}
	if v := n.num(kwMaximum); exclMax && v != "" {
		n.setNum(kwExclusiveMaximum, v)
		n.setNum(kwMaximum, json.Number(""))
	}
	if p.draft < 2019 && deps != nil {
		n.depReq = dependentRequired(deps) // its schema members are dropped
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
		n.props = make([]property, 0, len(pm))
		for _, k := range keys {
			if p.refDepth > 0 {
				p.spent += len(k) + 4
			}
			n.props = append(n.props, property{k, p.project(pm[k])})
		}
		p.keys = p.keys[:start]
	}
	if addl != nil {
		a := p.project(addl)
		if pm, ok := patProps.(map[string]any); ok && len(pm) > 0 && !a.isTop() {
			parts := []*node{a}
			for _, k := range slices.Sorted(maps.Keys(pm)) {
				parts = append(parts, p.project(pm[k]))
			}
			a = union(parts)
		}
		n.addl = a
	}
	if hasRef {
		n = merge(n, p.inline(ref))
	}
	if l, ok := allOf.([]any); ok {
		for _, b := range l {
			n = merge(n, p.project(b))
		}
	}
	for _, x := range [...]any{anyOf, oneOf} {
		if l, ok := x.([]any); ok && len(l) > 0 {
			n = merge(n, union(p.projectList(l)))
		}
	}
	return n
}

// acceptsAll reports whether v is plainly a schema that accepts everything:
// true, or an object holding annotations only.
func acceptsAll(v any) bool {
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

// inline projects the target of a $ref, resolved once per ref string.
func (p *projector) inline(ref string) *node {
	r, ok := p.refs[ref]
	if !ok {
		if p.resolver == nil {
			p.resolver = refs.NewResolver(p.root)
		}
		r.target, r.ok = p.resolver.Resolve(ref)
		if p.refs == nil {
			p.refs = map[string]inlineRef{}
		}
		p.refs[ref] = r
	}
	if !r.ok {
		return &node{}
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
func (p *projector) note(why string) *node {
	n := &node{desc: why}
	if p.refDepth > 0 {
		p.spent += n.cost()
	}
	return n
}

// overBudget reports whether spent is over the budget: twice the input's
// size, plus compactRefSlack. The input is measured only as far as needed to
// tell, so that a projection spending little does not walk all of a large
// input once more.
func (p *projector) overBudget() bool {
	for p.spent > p.budget {
		if p.sized {
			return true
		}
		// Measure up to a size that would let spent through, at least
		// twice as far as last time, so that the measures add up to at
		// most a few times the input's size.
		limit := max(2*p.measured, (p.spent-compactRefSlack)/2+1)
		s := sizer{limit: limit}
		p.sized = s.add(p.root)
		p.measured = limit
		if p.sized {
			p.measured = s.n
		}
		p.budget = 2*p.measured + compactRefSlack
	}
	return false
}

// cost estimates the bytes n's own keywords take in JSON, its subschemas
// aside.
func (n *node) cost() int {
	c := 2
	if n.types != 0 {
		c += 16
	}
	if n.desc != nil {
		c += 14 + jsonSize(n.desc)
	}
	if n.format != nil {
		c += 9 + jsonSize(n.format)
	}
	if n.pattern != nil {
		c += 10 + jsonSize(n.pattern)
	}
	for _, x := range n.nums {
		c += len(numKeywords[x.k].name) + 4 + jsonSize(x.v)
	}
	if n.uniqueItems {
		c += 19
	}
	if n.hasEnum {
		c += 8 + jsonSize(n.enum)
	}
	if n.hasConst {
		c += 9 + jsonSize(n.cnst)
	}
	if n.hasDefault {
		c += 11 + jsonSize(n.dflt)
	}
	if len(n.required) > 0 {
		c += 12 + jsonSize(n.required)
	}
	for k, l := range n.depReq {
		c += 24 + len(k) + jsonSize(l)
	}
	return c
}

// jsonSize estimates the size of a decoded JSON value in bytes.
func jsonSize(v any) int {
	s := sizer{limit: math.MaxInt}
	s.add(v)
	return s.n
}

// sizer adds up the estimated sizes of decoded JSON values, up to a limit.
type sizer struct {
	n, limit int
}

// add adds v's size to s.n and reports whether s.n is still within s.limit;
// once it is not, it stops early, and s.n is then only more than the limit.
func (s *sizer) add(v any) bool {
	switch x := v.(type) {
	case string:
		s.n += len(x) + 2
	case map[string]any:
		s.n += 2
		for k, e := range x {
			s.n += len(k) + 4
			if !s.add(e) {
				return false
			}
		}
	case []any:
		s.n += 2
		for _, e := range x {
			s.n++
			if !s.add(e) {
				return false
			}
		}
	case json.Number:
		s.n += len(x)
	default:
		s.n += 5
	}
	return s.n <= s.limit
}

// readNum adds numeric keyword k to p.nums from its value in a schema, if
// valid.
func (p *projector) readNum(k int, v any) {
	num, ok := numberOf(v)
	if !ok {
		return
	}
	d, _ := parseDecimal(string(num))
	switch {
	case numKeywords[k].count && (d.neg || !d.isInt()):
		return
	case k == kwMultipleOf && (d.neg || d.digits == ""):
		return
	}
	if _, same := v.(json.Number); !same {
		v = num
	}
	p.nums = append(p.nums, numValue{k, v})
}
