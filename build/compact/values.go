package compact

import (
	"cmp"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// typesOf reads a type keyword. Unknown names are ignored; 0 means no
// constraint.
func typesOf(v any) uint8 {
	switch x := v.(type) {
	case string:
		return typeBits(x)
	case []any:
		var t uint8
		for _, e := range x {
			if s, ok := e.(string); ok {
				t |= typeBits(s)
			}
		}
		return t
	}
	return 0
}

func typeBits(name string) uint8 {
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

// typeNames are the type names in the order a type list is written in.
var typeNames = [...]struct {
	bits uint8
	name any
}{{ctString, "string"}, {ctNumber, "number"}, {ctInteger, "integer"}, {ctBoolean, "boolean"}, {ctObject, "object"}, {ctArray, "array"}, {ctNull, "null"}}

// typeJSON writes a type set: one name, or a list in a fixed order. A set
// with non-integers is written "number": there is no way to say "not an
// integer".
func typeJSON(t uint8) any {
	if t&ctFraction != 0 {
		t |= ctNumber
	}
	var one any
	n := 0
	for _, x := range typeNames {
		if t&x.bits == x.bits && (x.bits != ctInteger || t&ctFraction == 0) {
			one = x.name
			n++
		}
	}
	if n == 1 {
		return one
	}
	names := make([]any, 0, n)
	for _, x := range typeNames {
		if t&x.bits == x.bits && (x.bits != ctInteger || t&ctFraction == 0) {
			names = append(names, x.name)
		}
	}
	return names
}

// valueType returns the JSON type of a decoded value as a type bit.
func valueType(v any) uint8 {
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
	if num, ok := numberOf(v); ok {
		if d, _ := parseDecimal(string(num)); d.isInt() {
			return ctInteger
		}
		return ctFraction
	}
	return 0
}

// numberOf returns a decoded number as JSON text.
func numberOf(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		if _, ok := parseDecimal(string(x)); ok {
			return x, true
		}
	case float64:
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), true
		}
	case float32:
		return numberOf(float64(x))
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

// decimal is a JSON number, exactly: sign × 0.digits × 10^exp.
type decimal struct {
	neg    bool
	digits string // no leading or trailing zeros; "" for zero
	exp    int64
}

// parseDecimal parses JSON number text (a leading "+" is accepted too).
// Exponents beyond ±10^15 are clamped.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
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
		return decimal{}, false
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
			return decimal{}, false
		}
		if neg {
			e = -e
		}
	}
	if i != len(s) {
		return decimal{}, false
	}
	digits := whole + frac
	exp := int64(len(whole)) + e
	j := 0
	for j < len(digits) && digits[j] == '0' {
		j++
	}
	digits = strings.TrimRight(digits[j:], "0")
	if digits == "" {
		return decimal{}, true
	}
	d.digits, d.exp = digits, exp-int64(j)
	return d, true
}

func (d decimal) isInt() bool { return d.digits == "" || int64(len(d.digits)) <= d.exp }

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func (d decimal) cmp(e decimal) int {
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

// compareNumbers compares two numbers a projection kept (so valid ones).
func compareNumbers(a, b json.Number) int {
	x, _ := parseDecimal(string(a))
	y, _ := parseDecimal(string(b))
	return x.cmp(y)
}

// valueKey returns a string that two decoded JSON values share exactly when
// JSON Schema deems them equal (numbers by value: 1 and 1.0 are equal).
func valueKey(v any) string {
	var b strings.Builder
	writeKey(&b, v)
	return b.String()
}

func writeKey(b *strings.Builder, v any) {
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
			writeKey(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for _, k := range slices.Sorted(maps.Keys(x)) {
			writeKey(b, k)
			writeKey(b, x[k])
		}
		b.WriteByte('}')
	default:
		num, ok := numberOf(v)
		if !ok {
			b.WriteByte('?')
			return
		}
		d, _ := parseDecimal(string(num))
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

func equalValues(a, b any) bool { return valueKey(a) == valueKey(b) }

// intersectValues returns the values of a that b holds too, in a's order.
func intersectValues(a, b []any) []any {
	in := make(map[string]bool, len(b))
	for _, v := range b {
		in[valueKey(v)] = true
	}
	out := make([]any, 0, min(len(a), len(b)))
	for _, v := range a {
		if in[valueKey(v)] {
			out = append(out, v)
		}
	}
	return out
}

// stringValues reads a list of property names: its strings, without
// duplicates, in a new slice.
func stringValues(v any) []any {
	l, _ := v.([]any)
	var out []any
	seen := newNameSet(len(l))
	for _, e := range l {
		if s, ok := e.(string); ok && !seen.has(out, s) {
			if out == nil {
				out = make([]any, 0, len(l))
			}
			out = append(out, s)
			seen.add(s)
		}
	}
	return out
}

// nameSet tells which names a list holds: a short list is scanned, a long
// one is looked up in a map, so that reading or merging lists of
// thousands of names (required, dependentRequired) takes time linear in
// their length.
type nameSet map[string]bool

// shortList is the length up to which a list is scanned.
const shortList = 16

// newNameSet returns the set of a list that will hold up to n names.
func newNameSet(n int) nameSet {
	if n <= shortList {
		return nil
	}
	return make(nameSet, n)
}

// has reports whether list, whose names are the set's, holds name.
func (ns nameSet) has(list []any, name string) bool {
	if ns == nil {
		return slices.Contains(list, any(name))
	}
	return ns[name]
}

// add adds a name to the set (the caller appends it to the list).
func (ns nameSet) add(name string) {
	if ns != nil {
		ns[name] = true
	}
}

// dependentRequired reads dependentRequired, or the members of draft-07's
// dependencies that are lists of names.
func dependentRequired(v any) map[string][]any {
	m, _ := v.(map[string]any)
	var out map[string][]any
	for k, e := range m {
		if _, isList := e.([]any); !isList {
			continue
		}
		if out == nil {
			out = map[string][]any{}
		}
		out[k] = stringValues(e)
	}
	return out
}

// uniteStrings returns a's names then b's others, in a new slice when it
// differs from a.
func uniteStrings(a, b []any) []any {
	var out []any
	in := newNameSet(len(a) + len(b)) // the names of a, then of out
	for _, s := range a {
		in.add(s.(string))
	}
	for _, s := range b {
		name := s.(string)
		if in != nil && in[name] || in == nil && (slices.Contains(a, s) || slices.Contains(out, s)) {
			continue
		}
		if out == nil {
			out = append(make([]any, 0, len(a)+len(b)), a...)
		}
		out = append(out, s)
		in.add(name)
	}
	if out == nil {
		return a
	}
	return out
}

// intersectStrings returns a's names that b holds too, in a new slice.
func intersectStrings(a, b []any) []any {
	inB := newNameSet(len(a) + len(b))
	for _, s := range b {
		inB.add(s.(string))
	}
	var out []any
	for _, s := range a {
		if inB.has(b, s.(string)) {
			out = append(out, s)
		}
	}
	return out
}
