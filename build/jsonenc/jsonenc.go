// Package jsonenc encodes decoded JSON values (what encoding/json decodes
// into any) without reflection: a build encodes tens of thousands of
// descriptors, and reflection and per-map allocations made encoding the
// larger part of compiling. The output is byte for byte what encoding/json
// gives with HTML escaping off (a fuzz test holds it to that): compact,
// object keys sorted. In a build without fast paths (package fastpath)
// encoding/json encodes every value.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Append appends the encoding of a decoded JSON value: nil, bool, string,
// json.Number, []any and map[string]any, its keys sorted. Other values take
// encoding/json, with the same escaping.
func Append(b []byte, v any) []byte {
	if !fastpath.Enabled {
		return appendStd(b, v)
	}
	return appendValue(b, v)
}

// appendValue is Append in a build with fast paths.
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return appendString(b, x)
	case json.Number:
		if x == "" {
			return append(b, '0')
		}
		return append(b, x...)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		// The keys of most objects fit in an array on the stack.
		var small [16]string
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendValue(b, x[k])
		}
		return append(b, '}')
	}
	// Other Go values (structs, numbers built by code) take the slow path,
	// with the same escaping.
	return appendStd(b, v)
}

// appendStd appends encoding/json's encoding of v, HTML escaping off: the
// reference of Append and AppendString.
func appendStd(b []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json does
// without HTML escaping: quotes, backslashes and control characters,
// U+2028 and U+2029, and invalid UTF-8 as U+FFFD.
func AppendString(b []byte, s string) []byte {
	if !fastpath.Enabled {
		return appendStd(b, s)
	}
	return appendString(b, s)
}

// appendString is AppendString in a build with fast paths.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
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
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
