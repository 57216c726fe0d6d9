// Package jsonval is JSON as the checker reads and quotes it, with code of
// its own, never the compiler's, whose mistakes it must not repeat: one
// value decoded with its numbers as written (Decode), objects, arrays and
// the members of an object (Object, Array, Member), JSON pointers (Escape, ShowPointer), where two values
// first differ (Diff), a value or a line of evidence shown briefly and
// redacted (Show, OneLine), and the JSON Canonicalization Scheme (RFC
// 8785): whether a text is valid input (NotJCSInput) and the canonical form
// of a decoded value (Canonical).
package jsonval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	buildsecrets "github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/schemas"
)

// Decode parses b as one JSON value (numbers as json.Number, so that they
// compare as written).
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// ShowPointer is the JSON pointer p for evidence: (root) when it is "".
func ShowPointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// Diff returns where a and b (decoded JSON) first differ, "" if
// they are equal: a pointer and both values, "here" being a's and "there"
// b's. Whole documents are compared, whatever they hold: open JSON, read
// as decoded.
func Diff(a, b any, ptr string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			at := ptr + "/" + Escape(k)
			va, oka := x[k]
			vb, okb := y[k]
			switch {
			case !oka:
				return at + ": missing here, " + Show(vb) + " there"
			case !okb:
				return at + ": " + Show(va) + " here, missing there"
			}
			if d := Diff(va, vb, at); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(x), len(y)) {
			if d := Diff(x[i], y[i], ptr+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d items here, %d there", ShowPointer(ptr), len(x), len(y))
		}
		return ""
	default:
		if a == b {
			return ""
		}
	}
	return ShowPointer(ptr) + ": " + Show(a) + " here, " + Show(b) + " there"
}

// Show renders a decoded JSON value briefly.
func Show(v any) string {
	switch v.(type) {
	case nil, map[string]any, []any:
		return schemas.KindOf(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	// Redacted before it is cut: a credential cut short is no longer
	// recognized, and its first characters would be shown.
	s := buildsecrets.Redact(string(b))
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + `…`
	}
	return s
}

// Escape makes token one reference token of a JSON pointer (RFC 6901).
func Escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return pointerEscaper.Replace(token)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// OneLine makes evidence one line of reasonable length.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		cut := 297
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// Object is v when it is a JSON object, else nil and false.
func Object(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// Array is v when it is a JSON array, else nil and false.
func Array(v any) ([]any, bool) {
	a, ok := v.([]any)
	return a, ok
}

// Member is one member of a decoded JSON object: its name, whether the
// object has it (null included), and its value as Decode gives it, nil
// for null or when absent.
type Member struct {
	Name    string
	Value   any
	Present bool
}

// MemberOf is the member name of obj (a nil obj has none).
func MemberOf(obj map[string]any, name string) Member {
	v, ok := obj[name]
	return Member{Name: name, Value: v, Present: ok}
}

// Str is the member's value when it is a string.
func (m Member) Str() (string, bool) {
	s, ok := m.Value.(string)
	return s, ok
}

// Text is the member's value when it is a string, else "".
func (m Member) Text() string {
	s, _ := m.Str()
	return s
}

// Is reports whether the member's value is the string s.
func (m Member) Is(s string) bool {
	got, ok := m.Str()
	return ok && got == s
}

// Boolean is the member's value when it is true or false.
func (m Member) Boolean() (bool, bool) {
	b, ok := m.Value.(bool)
	return b, ok
}

// Null reports whether the member is absent or null.
func (m Member) Null() bool { return m.Value == nil }

// Show renders the member's value for evidence.
func (m Member) Show() string { return Show(m.Value) }

// Same reports whether m and o hold the same JSON value (absent and null
// alike), compared deeply.
func (m Member) Same(o Member) bool { return Diff(m.Value, o.Value, "") == "" }
