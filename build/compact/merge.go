package compact

import (
	"encoding/json"
	"slices"
)

// merge returns a schema that accepts every instance both a and b accept
// (see "Intersection" in the package comment). It consumes a and b.
func merge(a, b *node) *node {
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
				return never()
			}
		} else {
			a.types = b.types
		}
	}
	if b.hasEnum {
		if a.hasEnum {
			if a.enum = intersectValues(a.enum, b.enum); len(a.enum) == 0 {
				return never()
			}
		} else {
			a.hasEnum, a.enum = true, b.enum
		}
	}
	if b.hasConst {
		if a.hasConst {
			if !equalValues(a.cnst, b.cnst) {
				return never()
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
		case numKeywords[k].bound > 0 && compareNumbers(y.v.(json.Number), x) > 0, numKeywords[k].bound < 0 && compareNumbers(y.v.(json.Number), x) < 0:
			a.setNum(k, y.v)
		}
	}
	a.uniqueItems = a.uniqueItems || b.uniqueItems
	a.items = mergeOpt(a.items, b.items)
	if len(b.prefix) > 0 {
		// Beyond the shorter list, the longer one's schemas are kept alone:
		// wider than intersecting them with the other's items, so sound.
		out := make([]*node, max(len(a.prefix), len(b.prefix)))
		for i := range out {
			switch {
			case i >= len(a.prefix):
				out[i] = b.prefix[i]
			case i >= len(b.prefix):
				out[i] = a.prefix[i]
			default:
				out[i] = merge(a.prefix[i], b.prefix[i])
			}
		}
		a.prefix = out
	}
	if b.props != nil {
		if a.props == nil {
			a.props = b.props
		} else {
			a.props = mergeProps(a.props, b.props)
		}
	}
	a.required = uniteStrings(a.required, b.required)
	a.addl = mergeOpt(a.addl, b.addl)
	if b.depReq != nil {
		if a.depReq == nil {
			a.depReq = b.depReq
		} else {
			for k, l := range b.depReq {
				a.depReq[k] = uniteStrings(a.depReq[k], l)
			}
		}
	}
	return a
}

// mergeProps returns the properties of both a and b, sorted, with the
// intersection of the schemas of a property in both.
func mergeProps(a, b []property) []property {
	out := make([]property, 0, len(a)+len(b))
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
			out = append(out, property{a[i].name, merge(a[i].node, b[j].node)})
			i++
			j++
		}
	}
	return out
}

// mergeOpt is merge where nil means absent (accepts anything).
func mergeOpt(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return merge(a, b)
}

// union returns a schema that accepts every instance one of bs accepts (see
// "Union" in the package comment). It consumes bs and its elements.
func union(bs []*node) *node {
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
		return never()
	case 1:
		return live[0]
	}
	u := &node{}
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
	if vals, ok := unionValues(live, eff); ok {
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
		} else if !equalValues(u.dflt, b.dflt) {
			u.hasDefault, u.dflt = false, nil
			break
		}
	}

	adm := make([]*node, 0, len(live)) // the branches admitting one JSON type
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
		for k := range numKeywords {
			if numKeywords[k].types == group {
				u.setNum(k, loosest(adm, k))
			}
		}
		switch group {
		case ctString:
			u.format = agreed(adm, func(b *node) any { return b.format })
			u.pattern = agreed(adm, func(b *node) any { return b.pattern })
		case ctArray:
			u.unionArrays(adm)
		case ctObject:
			u.unionObjects(adm)
		}
	}
	return u
}

// unionArrays sets u's array keywords to the union of adm's.
func (u *node) unionArrays(adm []*node) {
	u.uniqueItems = true
	longest := 0
	for _, b := range adm {
		u.uniqueItems = u.uniqueItems && b.uniqueItems
		longest = max(longest, len(b.prefix))
	}
	if longest > 0 {
		// A branch without position i has its items there.
		u.prefix = make([]*node, longest)
		for i := range u.prefix {
			parts := make([]*node, len(adm))
			for j, b := range adm {
				if i < len(b.prefix) {
					parts[j] = b.prefix[i]
				} else {
					parts[j] = b.items.widen()
				}
			}
			u.prefix[i] = union(parts)
		}
	}
	u.items = unionOpt(adm, func(b *node) *node { return b.items })
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
func (u *node) unionObjects(adm []*node) {
	u.required = adm[0].required
	for _, b := range adm[1:] {
		u.required = intersectStrings(u.required, b.required)
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
		parts := make([]*node, len(adm))
		for j, c := range adm {
			if parts[j] = c.prop(name); parts[j] == nil {
				parts[j] = c.addl.widen()
			}
		}
		u.props = append(u.props, property{name, union(parts)})
	}
	u.addl = unionOpt(adm, func(b *node) *node { return b.addl })
	for k, l := range adm[0].depReq {
		for _, b := range adm[1:] {
			l = intersectStrings(l, b.depReq[k])
		}
		if len(l) > 0 {
			if u.depReq == nil {
				u.depReq = map[string][]any{}
			}
			u.depReq[k] = l
		}
	}
}

// unionOpt returns the union of get(b) over adm, or nil (absent) when one
// of them is absent.
func unionOpt(adm []*node, get func(*node) *node) *node {
	parts := make([]*node, len(adm))
	for i, b := range adm {
		if parts[i] = get(b); parts[i] == nil {
			return nil
		}
	}
	return union(parts)
}

// loosest returns the loosest value of numeric keyword k over adm, when all
// of them state it, or "" (absent).
func loosest(adm []*node, k int) json.Number {
	v := adm[0].num(k)
	for _, b := range adm[1:] {
		w := b.num(k)
		switch {
		case v == "" || w == "":
			return ""
		case numKeywords[k].bound == 0:
			if compareNumbers(v, w) != 0 {
				return ""
			}
		case numKeywords[k].bound > 0 && compareNumbers(w, v) < 0, numKeywords[k].bound < 0 && compareNumbers(w, v) > 0:
			v = w
		}
	}
	return v
}

// agreed returns get(b), a string or nil, when it is the same for every b
// in adm, else nil.
func agreed(adm []*node, get func(*node) any) any {
	v := get(adm[0])
	for _, b := range adm[1:] {
		if get(b) != v {
			return nil
		}
	}
	return v
}

// unionValues returns the union of the value sets of live, a branch's value
// set being its enum or const, or every value of its types when those are
// only null and boolean. ok is false when a branch has none, or when no
// branch states an enum or a const.
func unionValues(live []*node, eff []uint8) (vals []any, ok bool) {
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
			if valueType(v)&eff[i] == 0 {
				continue
			}
			if k := valueKey(v); !seen[k] {
				seen[k] = true
				vals = append(vals, v)
			}
		}
	}
	return vals, true
}
