package compact

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/refs"
)

// generator generates JSON instances guided by a schema: values of its types,
// enums and consts, its properties and required names, items and one branch
// of each anyOf or oneOf, with random noise mixed in, so that many instances
// are valid and many are nearly so. The same seed gives the same instances.
type generator struct {
	r        *rand.Rand
	root     any
	refs     *refs.Resolver // of root
	pool     []string       // strings found in the schema, and some others
	patterns map[string]*syntax.Regexp
}

func newCSGen(seed uint64, root any) *generator {
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x636f6d70616374)), root: root, refs: refs.NewResolver(root), patterns: map[string]*syntax.Regexp{}}
	g.pool = []string{"", "a", "x", "hello world", "0", "-1", "true", "null", "A1", "abc-123", "ümlaut", "2024-01-02", strings.Repeat("z", 300)}
	seen := map[string]bool{}
	var collect func(v any, depth int)
	collect = func(v any, depth int) {
		if depth > 50 || len(g.pool) > 200 {
			return
		}
		switch x := v.(type) {
		case string:
			if !seen[x] {
				seen[x] = true
				g.pool = append(g.pool, x)
			}
		case []any:
			for _, e := range x {
				collect(e, depth+1)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				collect(k, depth+1)
				collect(x[k], depth+1)
			}
		}
	}
	collect(root, 0)
	return g
}

// hints is what a schema, its $refs, allOf and one branch of each anyOf
// and oneOf say about an instance.
type hints struct {
	types    []string
	values   []any // from const and enum
	props    map[string][]any
	names    []string // properties, in a fixed order
	required []string
	items    []any
	prefix   [][]any
	addl     []any
	patProps map[string][]any
	patNames []string
	nums     map[string][]float64
	patterns []string
	formats  []string
}

func (g *generator) instance() any { return g.value(g.root, 0) }

func (g *generator) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 6 || g.r.IntN(40) == 0 {
		return g.noise(depth)
	}
	h := &hints{props: map[string][]any{}, patProps: map[string][]any{}, nums: map[string][]float64{}}
	g.flatten(m, h, 0)
	return g.fromHints(h, depth)
}

func (g *generator) flatten(m map[string]any, h *hints, depth int) {
	if depth > 12 {
		return
	}
	sub := func(v any) {
		if sm, ok := v.(map[string]any); ok {
			g.flatten(sm, h, depth+1)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		switch k {
		case "type":
			switch x := v.(type) {
			case string:
				h.types = append(h.types, x)
			case []any:
				for _, e := range x {
					if s, ok := e.(string); ok {
						h.types = append(h.types, s)
					}
				}
			}
		case "const":
			h.values = append(h.values, v)
		case "enum":
			if l, ok := v.([]any); ok {
				h.values = append(h.values, l...)
			}
		case "properties":
			if pm, ok := v.(map[string]any); ok {
				for _, name := range slices.Sorted(maps.Keys(pm)) {
					if _, seen := h.props[name]; !seen {
						h.names = append(h.names, name)
					}
					h.props[name] = append(h.props[name], pm[name])
				}
			}
		case "patternProperties":
			if pm, ok := v.(map[string]any); ok {
				for _, pat := range slices.Sorted(maps.Keys(pm)) {
					if _, seen := h.patProps[pat]; !seen {
						h.patNames = append(h.patNames, pat)
					}
					h.patProps[pat] = append(h.patProps[pat], pm[pat])
				}
			}
		case "required":
			for _, name := range stringValues(v) {
				if !slices.Contains(h.required, name.(string)) {
					h.required = append(h.required, name.(string))
				}
			}
		case "items", "prefixItems":
			if l, ok := v.([]any); ok {
				for i, e := range l {
					if i >= len(h.prefix) {
						h.prefix = append(h.prefix, nil)
					}
					h.prefix[i] = append(h.prefix[i], e)
				}
			} else {
				h.items = append(h.items, v)
			}
		case "additionalItems":
			h.items = append(h.items, v)
		case "additionalProperties":
			h.addl = append(h.addl, v)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems":
			if num, ok := numberOf(v); ok {
				if f, err := strconv.ParseFloat(string(num), 64); err == nil {
					h.nums[k] = append(h.nums[k], f)
				}
			}
		case "pattern":
			if s, ok := v.(string); ok {
				h.patterns = append(h.patterns, s)
			}
		case "format":
			if s, ok := v.(string); ok {
				h.formats = append(h.formats, s)
			}
		case "$ref":
			if s, ok := v.(string); ok && g.r.IntN(10) != 0 {
				if target, ok := g.refs.Resolve(s); ok {
					sub(target)
				}
			}
		case "allOf":
			if l, ok := v.([]any); ok {
				for _, e := range l {
					sub(e)
				}
			}
		case "anyOf", "oneOf":
			if l, ok := v.([]any); ok && len(l) > 0 {
				sub(l[g.r.IntN(len(l))])
			}
		case "if":
			if g.r.IntN(2) == 0 {
				sub(v)
				sub(m["then"])
			} else {
				sub(m["else"])
			}
		case "dependentSchemas":
			if dm, ok := v.(map[string]any); ok && len(dm) > 0 && g.r.IntN(2) == 0 {
				keys := slices.Sorted(maps.Keys(dm))
				sub(dm[keys[g.r.IntN(len(keys))]])
			}
		}
	}
}

// all returns a schema that all of l hold: one of them, or their allOf.
func (g *generator) all(l []any) any {
	if len(l) == 1 {
		return l[0]
	}
	return map[string]any{"allOf": l}
}

func (g *generator) pick(l []any) any { return l[g.r.IntN(len(l))] }

// bound returns the tightest value of a length or count keyword.
func (h *hints) bound(k string, lower bool) (int, bool) {
	vs := h.nums[k]
	if len(vs) == 0 {
		return 0, false
	}
	v := vs[0]
	for _, w := range vs[1:] {
		if lower {
			v = max(v, w)
		} else {
			v = min(v, w)
		}
	}
	return int(min(v, 1000)), true
}

func (g *generator) fromHints(h *hints, depth int) any {
	if len(h.values) > 0 && g.r.IntN(8) != 0 {
		return g.pick(h.values)
	}
	typ := ""
	switch {
	case len(h.types) > 0 && g.r.IntN(30) != 0:
		typ = h.types[g.r.IntN(len(h.types))]
	case len(h.names) > 0 || len(h.required) > 0 || len(h.addl) > 0 || len(h.patNames) > 0:
		typ = "object"
	case len(h.items) > 0 || len(h.prefix) > 0:
		typ = "array"
	case len(h.patterns) > 0 || len(h.formats) > 0:
		typ = "string"
	default:
		typ = []string{"null", "boolean", "integer", "number", "string", "array", "object"}[g.r.IntN(7)]
	}
	switch typ {
	case "null":
		return nil
	case "boolean":
		return g.r.IntN(2) == 0
	case "integer", "number":
		return g.number(h, typ == "integer")
	case "string":
		return g.str(h)
	case "array":
		return g.array(h, depth)
	case "object":
		return g.object(h, depth)
	}
	return g.noise(depth)
}

func (g *generator) number(h *hints, integer bool) json.Number {
	cands := []float64{0, 1, -1, 7, 100, float64(g.r.IntN(2001) - 1000)}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		for _, v := range h.nums[k] {
			cands = append(cands, v, v-1, v+1, v+float64(g.r.IntN(20)), v-float64(g.r.IntN(20)))
		}
	}
	for _, m := range h.nums["multipleOf"] {
		cands = append(cands, m*float64(g.r.IntN(20)-5))
	}
	f := cands[g.r.IntN(len(cands))]
	if integer {
		f = float64(int64(f))
	} else if g.r.IntN(3) == 0 {
		f += []float64{0.5, 0.25, -0.5, 0.1}[g.r.IntN(4)]
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

var formatValues = map[string][]string{
	"date-time":     {"2024-05-06T07:08:09Z", "2024-05-06T07:08:09+02:00"},
	"date":          {"2024-05-06", "1999-12-31"},
	"time":          {"07:08:09Z"},
	"email":         {"a@example.com"},
	"uri":           {"https://example.com/x", "urn:isbn:0451450523"},
	"uri-reference": {"/x", "https://example.com/"},
	"uuid":          {"123e4567-e89b-12d3-a456-426614174000"},
	"ipv4":          {"192.0.2.1"},
	"ipv6":          {"2001:db8::1"},
	"hostname":      {"example.com"},
	"duration":      {"P1D", "PT5M"},
	"regex":         {"^a+$"},
}

func (g *generator) str(h *hints) string {
	if len(h.formats) > 0 && g.r.IntN(4) != 0 {
		if vs := formatValues[h.formats[g.r.IntN(len(h.formats))]]; len(vs) > 0 {
			return vs[g.r.IntN(len(vs))]
		}
	}
	if len(h.patterns) > 0 && g.r.IntN(4) != 0 {
		if s, ok := g.matching(h.patterns[g.r.IntN(len(h.patterns))]); ok {
			return s
		}
	}
	if g.r.IntN(2) == 0 {
		return g.pool[g.r.IntN(len(g.pool))]
	}
	lo, hi := 0, 12
	if v, ok := h.bound("minLength", true); ok {
		lo = v + g.r.IntN(2) - g.r.IntN(2)
	}
	if v, ok := h.bound("maxLength", false); ok {
		hi = v + g.r.IntN(2)
	}
	n := max(lo, 0)
	if hi > n {
		n += g.r.IntN(hi - n + 1)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcxyz019-_ ."[g.r.IntN(13)]
	}
	return string(b)
}

// matching returns a random string that the regular expression pat matches.
func (g *generator) matching(pat string) (string, bool) {
	re, ok := g.patterns[pat]
	if !ok {
		re, _ = syntax.Parse(pat, syntax.Perl)
		if re != nil {
			re = re.Simplify()
		}
		g.patterns[pat] = re
	}
	if re == nil {
		return "", false
	}
	var b strings.Builder
	g.fromRegexp(re, &b, 0)
	s := b.String()
	matched, err := regexp.MatchString(pat, s)
	return s, err == nil && matched
}

func (g *generator) fromRegexp(re *syntax.Regexp, b *strings.Builder, depth int) {
	if depth > 20 || b.Len() > 200 {
		return
	}
	repeat := func(lo, hi int) {
		if hi < 0 || hi > lo+3 {
			hi = lo + 3
		}
		for range lo + g.r.IntN(hi-lo+1) {
			g.fromRegexp(re.Sub[0], b, depth+1)
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			i := 2 * g.r.IntN(len(re.Rune)/2)
			lo, hi := re.Rune[i], re.Rune[i+1]
			b.WriteRune(lo + rune(g.r.IntN(int(min(hi-lo+1, 64)))))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("abcxyz019"[g.r.IntN(9)])
	case syntax.OpCapture:
		g.fromRegexp(re.Sub[0], b, depth+1)
	case syntax.OpStar:
		repeat(0, 3)
	case syntax.OpPlus:
		repeat(1, 3)
	case syntax.OpQuest:
		repeat(0, 1)
	case syntax.OpRepeat:
		repeat(re.Min, re.Max)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.fromRegexp(s, b, depth+1)
		}
	case syntax.OpAlternate:
		g.fromRegexp(re.Sub[g.r.IntN(len(re.Sub))], b, depth+1)
	}
}

func (g *generator) array(h *hints, depth int) []any {
	lo, hi := 0, 4
	if v, ok := h.bound("minItems", true); ok {
		lo = min(v, 20)
	}
	if v, ok := h.bound("maxItems", false); ok {
		hi = min(v, 20) + g.r.IntN(2)
	}
	n := lo
	if hi > lo {
		n += g.r.IntN(hi - lo + 1)
	}
	out := make([]any, n)
	for i := range out {
		switch {
		case i < len(h.prefix):
			out[i] = g.value(g.all(h.prefix[i]), depth+1)
		case len(h.items) > 0:
			out[i] = g.value(g.all(h.items), depth+1)
		default:
			out[i] = g.noise(depth + 1)
		}
	}
	return out
}

func (g *generator) object(h *hints, depth int) map[string]any {
	out := map[string]any{}
	gen := func(name string) {
		if schemas := h.props[name]; len(schemas) > 0 {
			out[name] = g.value(g.all(schemas), depth+1)
		} else if len(h.addl) > 0 {
			out[name] = g.value(g.all(h.addl), depth+1)
		} else {
			out[name] = g.noise(depth + 1)
		}
	}
	for _, name := range h.required {
		if g.r.IntN(40) != 0 {
			gen(name)
		}
	}
	for _, name := range h.names {
		if _, done := out[name]; !done && g.r.IntN(3) == 0 {
			gen(name)
		}
	}
	for _, pat := range h.patNames {
		if g.r.IntN(2) == 0 {
			if name, ok := g.matching(pat); ok {
				out[name] = g.value(g.all(h.patProps[pat]), depth+1)
			}
		}
	}
	if g.r.IntN(5) == 0 {
		name := g.pool[g.r.IntN(len(g.pool))]
		if _, done := out[name]; !done {
			gen(name)
		}
	}
	return out
}

func (g *generator) noise(depth int) any {
	switch g.r.IntN(9) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return json.Number(strconv.Itoa(g.r.IntN(201) - 100))
	case 3:
		return json.Number(strconv.FormatFloat(g.r.Float64()*100-50, 'g', -1, 64))
	case 4, 5:
		return g.pool[g.r.IntN(len(g.pool))]
	case 6:
		if depth < 4 {
			out := make([]any, g.r.IntN(3))
			for i := range out {
				out[i] = g.noise(depth + 1)
			}
			return out
		}
	case 7:
		if depth < 4 {
			out := map[string]any{}
			for range g.r.IntN(3) {
				out[g.pool[g.r.IntN(len(g.pool))]] = g.noise(depth + 1)
			}
			return out
		}
	}
	return "noise"
}
