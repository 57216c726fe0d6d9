package jsonval

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical is the JSON Canonicalization Scheme (RFC 8785) of a decoded
// JSON value (Decode's: numbers as json.Number), which tools.digest hashes.
// The checker writes its own rather than share the compiler's, whose
// mistakes it must not repeat: keys in the order of their UTF-16 code
// units, numbers as ECMAScript writes a double, strings with only ", \ and
// the controls escaped.
func Canonical(v any) (string, error) {
	var sb strings.Builder
	err := writeCanonical(&sb, v)
	return sb.String(), err
}

func writeCanonical(sb *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		sb.WriteString("null")
	case bool:
		sb.WriteString(strconv.FormatBool(x))
	case string:
		writeCanonicalString(sb, x)
	case json.Number:
		s, err := esNumber(x)
		if err != nil {
			return err
		}
		sb.WriteString(s)
	case []any:
		sb.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				sb.WriteByte(',')
			}
			if err := writeCanonical(sb, e); err != nil {
				return err
			}
		}
		sb.WriteByte(']')
	case map[string]any:
		type key struct {
			s     string
			units []uint16
		}
		keys := make([]key, 0, len(x))
		for k := range x {
			keys = append(keys, key{k, utf16.Encode([]rune(k))})
		}
		slices.SortFunc(keys, func(a, b key) int { return slices.Compare(a.units, b.units) })
		sb.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeCanonicalString(sb, k.s)
			sb.WriteByte(':')
			if err := writeCanonical(sb, x[k.s]); err != nil {
				return err
			}
		}
		sb.WriteByte('}')
	default:
		return fmt.Errorf("%T is not a JSON value", v)
	}
	return nil
}

// esNumber is n as ECMAScript's Number::toString writes the double it
// reads as: the shortest digits that read back, in plain notation from
// 1e-6 up to 1e21, else as d.ddde±x.
func esNumber(n json.Number) (string, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return "", fmt.Errorf("number %s is not a finite double", n)
	}
	if f == 0 {
		return "0", nil
	}
	// The shortest digits and the exponent of the first: f = 0.DIGITS × 10^(exp+1).
	e := strconv.FormatFloat(math.Abs(f), 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	sign := ""
	if f < 0 {
		sign = "-"
	}
	k, point := len(digits), exp+1 // ECMAScript's k and n
	switch {
	case k <= point && point <= 21:
		return sign + digits + strings.Repeat("0", point-k), nil
	case 0 < point && point <= 21:
		return sign + digits[:point] + "." + digits[point:], nil
	case -6 < point && point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits, nil
	}
	s := sign + digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	if point-1 >= 0 {
		return s + "e+" + strconv.Itoa(point-1), nil
	}
	return s + "e-" + strconv.Itoa(1-point), nil
}

func writeCanonicalString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s { // invalid UTF-8 reads as U+FFFD
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\f':
			sb.WriteString(`\f`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(sb, `\u%04x`, r)
		default:
			var buf [utf8.UTFMax]byte
			sb.Write(buf[:utf8.EncodeRune(buf[:], r)])
		}
	}
	sb.WriteByte('"')
}
