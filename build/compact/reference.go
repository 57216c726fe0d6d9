package compact

import (
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// The compact writer's fast paths and the code they replaced, which stays
// as their reference: in a build without fast paths (package fastpath) the
// reference does the work. TestAppendMatchesValue and
// FuzzAppendMatchesValue hold the writer to valueJSON, FuzzRestates holds
// restates to restatesByFields, and FuzzPhrase holds phrase to
// phraseBySeparators.

// projectValue appends the projection of schema as the writer wrote it
// before it wrote bytes: a decoded value, which jsonenc encodes.
func (w writer) projectValue(b []byte, schema any) []byte {
	projected(schema, func(n *node) { b = jsonenc.Append(b, w.valueJSON(n, "")) })
	return b
}

// restatesName is restates, or its reference in a build without fast
// paths.
func restatesName(d, name string) bool {
	if !fastpath.Enabled {
		return restatesByFields(d, name)
	}
	return restates(d, name)
}

// clause is phrase, or its reference in a build without fast paths.
func clause(s string, max int) string {
	if !fastpath.Enabled {
		return phraseBySeparators(s, max)
	}
	return phrase(s, max)
}

// restatesByFields is restates as it was first written, over the words
// strings.FieldsFunc makes of strings.ToLower(d): the reference the
// allocation-free scan is held to.
func restatesByFields(d, name string) bool {
	nw := nameWords(name)
	if len(nw) == 0 {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(d), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !fillers[w] && !slices.ContainsFunc(nw, func(n string) bool {
			a, b := w, n
			if len(a) > len(b) {
				a, b = b, a
			}
			return a == b || len(a) >= 3 && strings.HasPrefix(b, a) || a+"s" == b
		}) {
			return false
		}
	}
	return true
}

// phraseBySeparators is phrase as it was first written, with an index of
// each separator: the reference the one scan is held to.
func phraseBySeparators(s string, max int) string {
	const minClause = 12
	s = Text(s, len(s)+1)
	cut := len(s)
	for _, sep := range []string{" (", ": ", "; ", " - ", " – ", " — ", ", "} {
		if i := strings.Index(s[min(minClause, len(s)):], sep); i >= 0 {
			cut = min(cut, i+min(minClause, len(s)))
		}
	}
	if cut < len(s) {
		s = strings.TrimRight(s[:cut], " ")
	}
	return Text(s, max)
}

// valueJSON is the writer as it was: n written out as a decoded value, for
// jsonenc to encode. The reference TestAppendMatchesValue and
// FuzzAppendMatchesValue hold writer.append to.
func (w writer) valueJSON(n *node, name string) any {
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
			l[i] = w.valueJSON(x, "")
		}
		m["prefixItems"] = l // and no items: see "Output" in the package comment
	} else if n.items != nil && (!w.verbatim || !n.items.isBare()) {
		if s := w.valueJSON(n.items, name); w.verbatim || !isEmptyValue(s) {
			m["items"] = s
		}
	}
	if len(n.props) > 0 {
		pm := make(map[string]any, len(n.props))
		for _, x := range n.props {
			pm[x.name] = w.valueJSON(x.node, x.name)
		}
		m["properties"] = pm
	}
	if len(n.required) > 0 {
		m["required"] = n.required
	}
	if n.addl != nil && (w.verbatim && !n.addl.isBare() || !w.verbatim && n.addl.lit >= 0) {
		if s := w.valueJSON(n.addl, ""); w.verbatim || !isEmptyValue(s) {
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

// isEmptyValue is isEmpty of a decoded value.
func isEmptyValue(s any) bool {
	switch x := s.(type) {
	case bool:
		return x
	case map[string]any:
		return len(x) == 0
	}
	return false
}
