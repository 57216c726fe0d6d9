// Package jcs writes JSON in the JSON Canonicalization Scheme of RFC 8785
// (JCS): object members sorted by the UTF-16 code units of their names,
// numbers as ECMAScript writes them, strings with only the escapes JSON
// requires, and no whitespace. The same JSON value always has the same
// bytes, whoever wrote it: what a digest or a signature over a document
// is computed on.
//
// JCS takes I-JSON (RFC 7493) only, and so does this package: a string
// must be valid Unicode without surrogate or noncharacter code points, a
// member name must not repeat within its object, and a number must be
// finite and, when it is an integer, exactly representable by an IEEE 754
// double (an integer literal beyond ±(2^53-1) is refused rather than
// rounded). Anything else is an *Error that names where the value is.
//
// Append writes a decoded JSON value (what encoding/json decodes into
// any, json.Number included); Transform reads JSON text, strictly, and
// writes its canonical form. A signature over a document without one of
// its members (a JWS over "the document minus its jws member") is the
// canonical form of the decoded document with that member deleted:
// decode, delete, Append (see the example).
package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Error is a value JCS cannot take: where it is, as a JSON pointer ("" for
// the whole document), and why.
type Error struct {
	Pointer string
	Reason  string
}

func (e *Error) Error() string {
	at := e.Pointer
	if at == "" {
		at = "(root)"
	}
	return fmt.Sprintf("%s: %s: not valid input to JSON canonicalization (RFC 8785)", at, e.Reason)
}

// maxSafeInteger is the largest integer such that it and every smaller
// one is exactly an IEEE 754 double: 2^53-1 (I-JSON's bound).
const maxSafeInteger = 1<<53 - 1

// maxDepth bounds how deeply Append and Transform nest, so that hostile
// input cannot exhaust the stack.
const maxDepth = 10000

// Append appends the canonical form of v, a decoded JSON value: nil, bool,
// string, float64, json.Number, an int of any size, []any and
// map[string]any. A value JCS cannot take, or a Go value of another type,
// is an *Error; dst is then returned as it was.
func Append(dst []byte, v any) ([]byte, error) {
	out, err := appendValue(dst, v, nil, 0)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// Marshal is the canonical form of v, as Append writes it.
func Marshal(v any) ([]byte, error) { return Append(nil, v) }

// Valid reports why v is not valid JCS input, nil when it is.
func Valid(v any) error {
	_, err := appendValue(nil, v, nil, 0)
	return err
}

// ValidString reports why s cannot be a string of JCS input (invalid
// UTF-8, a surrogate or a noncharacter), nil when it can.
func ValidString(s string) error {
	if r := badString(s); r != "" {
		return errors.New(r)
	}
	return nil
}

// path is where a value is, as the names and indexes that lead to it; it
// is made a pointer only when an error needs one.
type path []string

func (p path) pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}

func fail(p path, format string, args ...any) error {
	return &Error{Pointer: p.pointer(), Reason: fmt.Sprintf(format, args...)}
}

func appendValue(b []byte, v any, p path, depth int) ([]byte, error) {
	if depth > maxDepth {
		return b, fail(p, "nested more than %d deep", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		if r := badString(x); r != "" {
			return b, fail(p, "%s", r)
		}
		return appendString(b, x), nil
	case float64:
		return appendFloat(b, x, p)
	case json.Number:
		return appendNumber(b, string(x), p)
	case int:
		return appendInt(b, int64(x), p)
	case int64:
		return appendInt(b, x, p)
	case int32:
		return appendInt(b, int64(x), p)
	case uint64:
		if x > maxSafeInteger {
			return b, fail(p, "the integer %d is beyond ±(2^53-1), which an IEEE 754 double cannot hold exactly: write it as a string", x)
		}
		return appendInt(b, int64(x), p)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, e, append(p, strconv.Itoa(i)), depth+1); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if r := badString(k); r != "" {
				return b, fail(append(p, k), "the member name %s", r)
			}
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, x[k], append(p, k), depth+1); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, fail(p, "a Go value of type %T is not a JSON value", v)
}

func appendInt(b []byte, n int64, p path) ([]byte, error) {
	if n > maxSafeInteger || n < -maxSafeInteger {
		return b, fail(p, "the integer %d is beyond ±(2^53-1), which an IEEE 754 double cannot hold exactly: write it as a string", n)
	}
	return strconv.AppendInt(b, n, 10), nil
}

// appendNumber writes a number as its literal gives it: parsed as the
// IEEE 754 double it names, then written as ECMAScript would. An integer
// literal beyond ±(2^53-1) is refused: its double is another integer.
func appendNumber(b []byte, lit string, p path) ([]byte, error) {
	if !validNumber(lit) {
		return b, fail(p, "%q is not a JSON number", lit)
	}
	if !strings.ContainsAny(lit, ".eE") {
		digits := strings.TrimPrefix(lit, "-")
		if len(digits) > 16 || len(digits) == 16 && digits > strconv.Itoa(maxSafeInteger) {
			return b, fail(p, "the integer %s is beyond ±(2^53-1), which an IEEE 754 double cannot hold exactly: write it as a string", lit)
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return b, fail(p, "the number %s is out of the range of an IEEE 754 double", lit)
	}
	return appendFloat(b, f, p)
}

// appendFloat writes f as ECMAScript's Number.prototype.toString does
// (ECMA-262, Number::toString): the shortest digits that read back as f,
// in plain notation from 1e-6 up to 1e21 and in exponent notation outside.
func appendFloat(b []byte, f float64, p path) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fail(p, "the number %v is not finite", f)
	}
	if f == 0 {
		return append(b, '0'), nil // -0 too
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// The shortest digits d1d2...dk and the exponent e of d1.d2...dk × 10^e.
	var scratch [32]byte
	sci := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	mant, exp, _ := bytes.Cut(sci, []byte("e"))
	e, _ := strconv.Atoi(string(exp))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	k, n := len(digits), e+1 // n: where the decimal point is
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, "0."...)
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b, nil
}

// validNumber reports whether s is a number of JSON's grammar.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return false
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	return i == len(s)
}

// badString says why s cannot be a string of I-JSON, "" when it can.
func badString(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if surrogateBytes(s[i:]) {
				return fmt.Sprintf("a surrogate code point (CESU-8 bytes %q) at byte %d", s[i:i+3], i)
			}
			return fmt.Sprintf("invalid UTF-8 (byte %#x) at byte %d", s[i], i)
		case isNoncharacter(r):
			return fmt.Sprintf("the noncharacter U+%04X at byte %d, which I-JSON forbids", r, i)
		}
		i += size
	}
	return ""
}

// surrogateBytes reports whether s starts with a surrogate code point
// encoded as if it were a character (ED A0..BF xx), which UTF-8 forbids.
func surrogateBytes(s string) bool {
	return len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2]&0xC0 == 0x80
}

// isNoncharacter reports whether r is one of Unicode's 66 noncharacters.
func isNoncharacter(r rune) bool {
	return r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE && r <= utf8.MaxRune
}

// appendString writes s, valid I-JSON, as JCS does: quoted, with \" and
// \\, the short escapes \b \f \n \r \t, \u00XX (lower-case hex) for the
// other controls, and every other character as itself.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// compareUTF16 orders member names as JCS does: by their UTF-16 code
// units, which differs from the order of their bytes only where a
// character beyond U+FFFF meets one from U+E000 to U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return cmpUnits(ra, rb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// cmpUnits compares the UTF-16 code units of two different characters.
func cmpUnits(a, b rune) int {
	ua, ub := units(a), units(b)
	for i := range min(len(ua), len(ub)) {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}

func units(r rune) []uint16 {
	if r >= 0x10000 {
		h, l := utf16.EncodeRune(r)
		return []uint16{uint16(h), uint16(l)}
	}
	return []uint16{uint16(r)}
}

// Transform reads one JSON text and returns its canonical form. The text
// must be I-JSON: UTF-8 without surrogates (escaped ones too, but for a
// pair that makes one character) or noncharacters, no member name twice
// in an object, and numbers JCS can take; else an *Error says where.
func Transform(data []byte) ([]byte, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	return Append(nil, v)
}

// Decode reads one JSON text as Transform does, into the values Append
// takes (numbers as json.Number), refusing what Transform refuses.
func Decode(data []byte) (any, error) {
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return nil, &Error{Reason: fmt.Sprintf("invalid UTF-8 at byte %d", i)}
	}
	if err := escapedSurrogates(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, nil, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{Reason: "data after the JSON value"}
	}
	return v, nil
}

// escapedSurrogates refuses a \u escape of a surrogate that is not half
// of a pair, which encoding/json would turn into U+FFFD silently.
func escapedSurrogates(data []byte) error {
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(data):
			if data[i+1] != 'u' || i+6 > len(data) {
				i++
				continue
			}
			u, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
			if err != nil {
				i++
				continue
			}
			switch {
			case u >= 0xD800 && u <= 0xDBFF:
				if i+12 <= len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
					if l, err := strconv.ParseUint(string(data[i+8:i+12]), 16, 16); err == nil && l >= 0xDC00 && l <= 0xDFFF {
						i += 11
						continue
					}
				}
				return &Error{Reason: fmt.Sprintf("the escape %s at byte %d is half of a surrogate pair alone", data[i:i+6], i)}
			case u >= 0xDC00 && u <= 0xDFFF:
				return &Error{Reason: fmt.Sprintf("the escape %s at byte %d is half of a surrogate pair alone", data[i:i+6], i)}
			}
			i += 5
		}
	}
	return nil
}

// decodeValue reads the next value of dec, refusing a member name its
// object already has.
func decodeValue(dec *json.Decoder, p path, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fail(p, "nested more than %d deep", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(p, "not JSON: %v", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fail(p, "not JSON: %v", err)
				}
				k, _ := kt.(string)
				if _, dup := obj[k]; dup {
					return nil, fail(append(p, k), "the member name %q appears twice in its object", k)
				}
				if obj[k], err = decodeValue(dec, append(p, k), depth+1); err != nil {
					return nil, err
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(p, "not JSON: %v", err)
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				e, err := decodeValue(dec, append(p, strconv.Itoa(len(arr))), depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(p, "not JSON: %v", err)
			}
			return arr, nil
		}
		return nil, fail(p, "not JSON: unexpected %v", t)
	}
	return tok, nil
}

// AppendString appends s as JCS writes a string. Invalid UTF-8 is written
// as U+FFFD, as a JSON decoder reads it; whether s is valid I-JSON is
// ValidString's question, not this one's.
func AppendString(dst []byte, s string) []byte {
	return appendString(dst, strings.ToValidUTF8(s, "\uFFFD"))
}

// AppendFloat appends f as JCS writes a number: as ECMAScript's
// Number.prototype.toString does. It fails on a number that is not
// finite.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	return appendFloat(dst, f, nil)
}

// CompareNames orders member names as JCS sorts them: by their UTF-16
// code units.
func CompareNames(a, b string) int { return compareUTF16(a, b) }
