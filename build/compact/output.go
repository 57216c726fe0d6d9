package compact

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// writer writes a projected node out as a schema, leaving out what costs a
// model more tokens than it tells (see "Output" in the package comment).
type writer struct {
	noDescriptions bool // leave out every description but the projection's notes
	verbatim       bool // write every kept keyword: the projection as it is, for tests
}

// json writes n out as a schema; name is the property n is the schema of,
// or "".
func (w writer) json(n *node, name string) any {
	switch {
	case n.lit > 0:
		return true
	case n.lit < 0:
		return false
	}
	m := make(map[string]any, 6)
	longEnum := n.hasEnum && len(n.enum) > compactEnumMax && !w.verbatim
	switch {
	case longEnum:
		if t := n.effTypes(); t != ctAny {
			m["type"] = typeJSON(t)
		}
	case n.types != 0 && (w.verbatim || !w.typeImplied(n)):
		m["type"] = typeJSON(n.types)
	}
	if n.hasEnum && !longEnum {
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
	if d, ok := n.desc.(string); ok && w.verbatim {
		m["description"] = n.desc
	} else if ok && w.keepDescription(d, name) {
		if t := tidy(d); t == d {
			m["description"] = n.desc
		} else {
			m["description"] = t
		}
	}
	if n.format != nil {
		m["format"] = n.format
	}
	if n.pattern != nil && w.verbatim {
		m["pattern"] = n.pattern
	}
	for _, x := range n.nums {
		if w.verbatim {
			m[numKeywords[x.k].name] = x.v
		}
	}
	if n.uniqueItems && w.verbatim {
		m["uniqueItems"] = true
	}
	if len(n.prefix) > 0 {
		l := make([]any, len(n.prefix))
		for i, x := range n.prefix {
			l[i] = w.json(x, "")
		}
		m["prefixItems"] = l // and no items: see "Output" in the package comment
	} else if n.items != nil && (!w.verbatim || !n.items.isBare()) {
		if s := w.json(n.items, name); w.verbatim || !isEmpty(s) {
			m["items"] = s
		}
	}
	if len(n.props) > 0 {
		pm := make(map[string]any, len(n.props))
		for _, x := range n.props {
			pm[x.name] = w.json(x.node, x.name)
		}
		m["properties"] = pm
	}
	if len(n.required) > 0 {
		m["required"] = n.required
	}
	if n.addl != nil && (w.verbatim && !n.addl.isBare() || !w.verbatim && n.addl.lit >= 0) {
		if s := w.json(n.addl, ""); w.verbatim || !isEmpty(s) {
			m["additionalProperties"] = s
		}
	}
	if len(n.depReq) > 0 && w.verbatim {
		dm := make(map[string]any, len(n.depReq))
		for k, l := range n.depReq {
			dm[k] = l
		}
		m["dependentRequired"] = dm
	}
	return m
}

// isEmpty reports whether s is the schema {} or true, which a keyword holding
// it can leave out.
func isEmpty(s any) bool {
	switch x := s.(type) {
	case bool:
		return x
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// typeImplied reports whether n's enum or const admits only values of n's
// type, so that the type keyword adds nothing.
func (writer) typeImplied(n *node) bool {
	if !n.hasEnum && !n.hasConst {
		return false
	}
	if n.hasConst && valueType(n.cnst)&^n.types != 0 {
		return false
	}
	for _, v := range n.enum {
		if valueType(v)&^n.types != 0 {
			return false
		}
	}
	return true
}

// keepDescription reports whether the description d of the property name
// is written out: a note of the projection always is; otherwise none is
// without descriptions, and one that only restates the property's name is
// not.
func (w writer) keepDescription(d, name string) bool {
	switch d {
	case compactNoteRecursive, compactNoteDeep, compactNoteLarge:
		return true
	}
	return !w.noDescriptions && !restates(d, name)
}

// fillers are words a description may hold besides its property's name and
// still say nothing more.
var fillers = map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "for": true, "this": true, "optional": true}

// restates reports whether description d says no more than the property
// name: each of its words, fillers aside, is a word of the name (snake_case,
// kebab-case or camelCase), one's prefix of at least three letters, or its
// plural. "The issue number" restates issue_number; "Repository owner" does
// not restate owner.
func restates(d, name string) bool {
	nw := nameWords(name)
	if len(nw) == 0 {
		return false
	}
	// The words of d lowercased, [a-z0-9] runs: each rune is lowered as
	// strings.ToLower does (U+212A, the Kelvin sign, becomes "k"), and the
	// word is built in a buffer, so that no description allocates.
	word := make([]byte, 0, 64)
	words := 0
	says := func() bool { // whether word says more than the name
		words++
		w := string(word) // does not escape: the map lookup and sameWord only read it
		return !fillers[w] && !slices.ContainsFunc(nw, func(n string) bool { return sameWord(w, n) })
	}
	for _, r := range d {
		if r >= utf8.RuneSelf || 'A' <= r && r <= 'Z' {
			r = unicode.ToLower(r)
		}
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			word = append(word, byte(r))
			continue
		}
		if len(word) > 0 {
			if says() {
				return false
			}
			word = word[:0]
		}
	}
	if len(word) > 0 && says() {
		return false
	}
	return words > 0
}

// sameWord reports whether a and b are the same word: equal, one a prefix
// of the other of at least three letters, or one the other's plural.
func sameWord(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || len(a) >= 3 && strings.HasPrefix(b, a) ||
		len(b) == len(a)+1 && b[len(a)] == 's' && strings.HasPrefix(b, a)
}

// nameWords splits a property name into its lowercase words.
func nameWords(name string) []string {
	var words []string
	start := -1
	for i := 0; i <= len(name); i++ {
		c := byte(0)
		if i < len(name) {
			c = name[i]
		}
		letter := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		upper := 'A' <= c && c <= 'Z'
		if start >= 0 && (!letter && !upper || upper && 'a' <= name[i-1] && name[i-1] <= 'z') {
			words = append(words, strings.ToLower(name[start:i]))
			start = -1
		}
		if start < 0 && (letter || upper) {
			start = i
		}
	}
	return words
}

// tidy drops from a description what the schema already says or what
// carries nothing: a leading "Optional" (the required keyword says which
// properties are), a leading article, and a final period.
func tidy(d string) string {
	for _, p := range []string{"Optional. ", "Optional: ", "Optional - ", "Optional, ", "(Optional) ", "(optional) ", "Optional "} {
		if rest, ok := strings.CutPrefix(d, p); ok && rest != "" {
			d = upperFirst(rest)
			break
		}
	}
	for _, p := range []string{"The ", "A ", "An "} {
		if rest, ok := strings.CutPrefix(d, p); ok && rest != "" {
			d = upperFirst(rest)
			break
		}
	}
	if rest, ok := strings.CutSuffix(d, "."); ok && rest != "" && !strings.HasSuffix(rest, ".") {
		d = rest
	}
	return d
}

// upperFirst upper-cases an ASCII lowercase first letter.
func upperFirst(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
