package build

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the JSON Canonicalization Scheme (RFC 8785) of a decoded
// JSON value, as much of it as a tool's definition needs (definition.go):
// nil, booleans, strings, json.Number, []any and map[string]any, which is
// all a descriptor decodes into. It stands alone so that a general JCS
// package can replace it; nothing else of the build depends on how it
// works.
//
// What it does that the documents' encoding (package jsonenc) does not:
// object keys sorted by their UTF-16 code units rather than their bytes,
// numbers written as ECMAScript writes an IEEE 754 double (1e3 as 1000,
// 2.50 as 2.5, -0 as 0) rather than as declared, and U+2028, U+2029 and
// U+FFFD written as themselves rather than escaped.

// appendCanonical appends the canonical JSON of v. It fails on a number
// that is not a finite double and on a value of another type.
func appendCanonical(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendCanonicalString(b, x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return b, fmt.Errorf("number %s is not a finite IEEE 754 double", x)
		}
		return appendCanonicalNumber(b, f), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendCanonicalString(b, k), ':')
			var err error
			if b, err = appendCanonical(b, x[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, fmt.Errorf("a value of type %T is not JSON", v)
}

// appendCanonicalNumber appends f as ECMAScript's Number.prototype.toString
// writes it (RFC 8785, section 3.2.2.3): the shortest decimal that reads
// back as f, in exponent form below 1e-6 and from 1e21.
func appendCanonicalNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0') // -0 too
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 and e+21; ECMAScript writes e-7 and e+21.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendCanonicalString appends s as RFC 8785 writes a string: ", \ and
// the controls escaped (\b, \t, \n, \f, \r by name, the others as \u00xx),
// everything else as it is. Invalid UTF-8 is written as U+FFFD, as a
// decoder reads it.
func appendCanonicalString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, r) // U+FFFD for invalid UTF-8
		i += size
	}
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785
// sorts object keys (section 3.2.3). It differs from the order of bytes
// only between a character from U+E000 to U+FFFF and one above U+FFFF.
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

// cmpUnits compares two different characters by their first UTF-16 code
// unit, then by the second.
func cmpUnits(a, b rune) int {
	ua, ub := units(a), units(b)
	for i := range 2 {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return 0
}

// units are the UTF-16 code units of r (the second 0 when it has one).
func units(r rune) [2]uint16 {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
		return [2]uint16{uint16(r1), uint16(r2)}
	}
	return [2]uint16{uint16(r), 0}
}
