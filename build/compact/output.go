package compact

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/jsonenc"
)

// writer writes a projected node out as a schema, leaving out what costs a
// model more tokens than it tells (see "Output" in the package comment).
type writer struct {
	noDescriptions bool // leave out every description but the projection's notes
	verbatim       bool // write every kept keyword: the projection as it is, for tests
}

// append appends n written out as a schema; name is the property n is the
// schema of, or "". The keywords are written in the order of their names,
// as encoding/json orders a map's keys, and the values they hold as jsonenc
// encodes them.
func (w writer) append(b []byte, n *node, name string) []byte {
	switch {
	case n.lit > 0:
		return append(b, "true"...)
	case n.lit < 0:
		return append(b, "false"...)
	}
	start := len(b)
	b = append(b, '{')
	key := func(k string) {
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), k...), `":`...)
	}
	// schema writes the subschema s of keyword k, unless it is empty ({}
	// or true) and the output leaves empty subschemas out.
	schema := func(k string, s *node, name string) {
		at := len(b)
		key(k)
		sub := len(b)
		b = w.append(b, s, name)
		if !w.verbatim && isEmpty(b[sub:]) {
			b = b[:at]
		}
	}
	num := func(k int) {
		if w.verbatim && n.num(k) != "" {
			key(numKeywords[k].name)
			b = append(b, n.num(k)...)
		}
	}
	if n.addl != nil && (w.verbatim && !n.addl.isBare() || !w.verbatim && n.addl.lit >= 0) {
		schema("additionalProperties", n.addl, "")
	}
	if n.hasConst {
		key("const")
		b = jsonenc.Append(b, n.cnst)
	}
	if n.hasDefault {
		key("default")
		b = jsonenc.Append(b, n.dflt)
	}
	if len(n.depReq) > 0 && w.verbatim {
		key("dependentRequired")
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(n.depReq)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, k)
			b = jsonenc.Append(append(b, ':'), n.depReq[k])
		}
		b = append(b, '}')
	}
	if d, ok := n.desc.(string); ok && (w.verbatim || w.keepDescription(d, name)) {
		key("description")
		if !w.verbatim {
			d = tidy(d)
		}
		b = jsonenc.AppendString(b, d)
	}
	longEnum := n.hasEnum && len(n.enum) > compactEnumMax && !w.verbatim
	if n.hasEnum && !longEnum {
		key("enum")
		b = jsonenc.Append(b, n.enum) // [] when nil
	}
	num(kwExclusiveMaximum)
	num(kwExclusiveMinimum)
	if n.format != nil {
		key("format")
		b = jsonenc.Append(b, n.format)
	}
	if len(n.prefix) == 0 && n.items != nil && (!w.verbatim || !n.items.isBare()) {
		schema("items", n.items, name)
	}
	num(kwMaxItems)
	num(kwMaxLength)
	num(kwMaxProperties)
	num(kwMaximum)
	num(kwMinItems)
	num(kwMinLength)
	num(kwMinProperties)
	num(kwMinimum)
	num(kwMultipleOf)
	if n.pattern != nil && w.verbatim {
		key("pattern")
		b = jsonenc.Append(b, n.pattern)
	}
	if len(n.prefix) > 0 { // and no items: see "Output" in the package comment
		key("prefixItems")
		b = append(b, '[')
		for i, x := range n.prefix {
			if i > 0 {
				b = append(b, ',')
			}
			b = w.append(b, x, "")
		}
		b = append(b, ']')
	}
	if len(n.props) > 0 { // sorted by name
		key("properties")
		b = append(b, '{')
		for i, x := range n.props {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonenc.AppendString(b, x.name), ':')
			b = w.append(b, x.node, x.name)
		}
		b = append(b, '}')
	}
	if len(n.required) > 0 {
		key("required")
		b = jsonenc.Append(b, n.required)
	}
	switch {
	case longEnum:
		if t := n.effTypes(); t != ctAny {
			key("type")
			b = jsonenc.Append(b, typeJSON(t))
		}
	case n.types != 0 && (w.verbatim || !w.typeImplied(n)):
		key("type")
		b = jsonenc.Append(b, typeJSON(n.types))
	}
	if n.uniqueItems && w.verbatim {
		key("uniqueItems")
		b = append(b, "true"...)
	}
	return append(b, '}')
}

// isEmpty reports whether s is the schema {} or true, which a keyword holding
// it can leave out.
func isEmpty(s []byte) bool { return string(s) == "{}" || string(s) == "true" }

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
	return !w.noDescriptions && !restatesName(d, name)
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
