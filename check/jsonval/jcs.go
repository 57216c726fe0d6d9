package jsonval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The AI Catalog's input rule (AI Catalog 1.0, Top-Level Structure): a
// catalog, signed or not, must be valid input to the JSON Canonicalization
// Scheme (RFC 8785), that is I-JSON (RFC 7493): UTF-8 without surrogates
// or noncharacters, no member name twice in an object, and numbers an IEEE
// 754 double holds (an integer beyond ±(2^53-1) does not round-trip). It
// need not be written in canonical form. The checker holds a catalog to
// this with code of its own, not the compiler's canonicalizer.

// NotJCSInput says why b, one JSON text, is not valid JCS input: a JSON
// pointer or a byte offset and the reason; "" when it is.
func NotJCSInput(b []byte) string {
	if !utf8.Valid(b) {
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Sprintf("byte %d: invalid UTF-8 (a surrogate written as a character is too)", i)
			}
			i += n
		}
	}
	if s := loneSurrogateEscape(b); s != "" {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if s := jcsValue(dec, "", 0); s != "" {
		return s
	}
	if _, err := dec.Token(); err != io.EOF {
		return "data after the JSON value"
	}
	return ""
}

// loneSurrogateEscape finds a \uD800-\uDFFF escape that is not half of a
// high-low pair (a decoder would make it U+FFFD without a word).
func loneSurrogateEscape(b []byte) string {
	hexAt := func(i int) (uint64, bool) {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0, false
		}
		u, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		return u, err == nil
	}
	inString := false
	for i := 0; i < len(b); i++ {
		switch {
		case !inString:
			inString = b[i] == '"'
		case b[i] == '"':
			inString = false
		case b[i] == '\\':
			u, ok := hexAt(i)
			if !ok {
				i++ // the escaped character
				continue
			}
			if u >= 0xD800 && u <= 0xDBFF {
				if l, ok := hexAt(i + 6); ok && l >= 0xDC00 && l <= 0xDFFF {
					i += 11
					continue
				}
			}
			if u >= 0xD800 && u <= 0xDFFF {
				return fmt.Sprintf("byte %d: the escape %s is a surrogate outside a pair", i, b[i:i+6])
			}
			i += 5
		}
	}
	return ""
}

// jcsValue reads the next value of dec, the value at ptr, and says what in
// it JCS cannot take.
func jcsValue(dec *json.Decoder, ptr string, depth int) string {
	if depth > 1000 {
		return ShowPointer(ptr) + ": nested more than 1000 deep"
	}
	tok, err := dec.Token()
	if err != nil {
		return ShowPointer(ptr) + ": not JSON: " + err.Error()
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			for i := 0; dec.More(); i++ {
				if s := jcsValue(dec, ptr+"/"+strconv.Itoa(i), depth+1); s != "" {
					return s
				}
			}
		} else {
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return ShowPointer(ptr) + ": not JSON: " + err.Error()
				}
				k, _ := kt.(string)
				at := ptr + "/" + Escape(k)
				if seen[k] {
					return at + ": the member name " + strconv.Quote(k) + " appears twice in its object"
				}
				seen[k] = true
				if s := nonCharacter(k); s != "" {
					return at + ": the member name has " + s
				}
				if s := jcsValue(dec, at, depth+1); s != "" {
					return s
				}
			}
		}
		if _, err := dec.Token(); err != nil {
			return ShowPointer(ptr) + ": not JSON: " + err.Error()
		}
	case string:
		if s := nonCharacter(t); s != "" {
			return ShowPointer(ptr) + ": the string has " + s
		}
	case json.Number:
		lit := string(t)
		if !strings.ContainsAny(lit, ".eE") {
			if n, err := strconv.ParseInt(lit, 10, 64); err != nil || n > 1<<53-1 || n < -(1<<53-1) {
				return ShowPointer(ptr) + ": the integer " + lit + " is beyond ±(2^53-1): an IEEE 754 double does not hold it exactly"
			}
		}
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			return ShowPointer(ptr) + ": the number " + lit + " is beyond the range of an IEEE 754 double"
		}
	}
	return ""
}

// nonCharacter names the first noncharacter of s, which I-JSON forbids;
// "" when it has none.
func nonCharacter(s string) string {
	for _, r := range s {
		if r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE {
			return fmt.Sprintf("the noncharacter U+%04X, which I-JSON forbids", r)
		}
	}
	return ""
}
