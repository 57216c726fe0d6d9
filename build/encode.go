package build

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/compact"
)

// The documents of a site are encoded here rather than by encoding/json:
// a build encodes tens of thousands of descriptors, and reflection and
// per-map allocations made encoding the larger part of compiling. The output
// is byte for byte what encoding/json gives with HTML escaping off (a test
// holds it to that): compact, object keys sorted.

// appendJSON appends the encoding of a decoded JSON value.
func appendJSON(b []byte, v any) []byte {
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
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
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
			b = appendJSON(b, x[k])
		}
		return append(b, '}')
	}
	// Other Go values (structs, numbers built by code) take the slow path,
	// with the same escaping.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does
// without HTML escaping: quotes, backslashes and control characters,
// U+2028 and U+2029, and invalid UTF-8 as U+FFFD.
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

// field appends "name": to an object under construction, with the comma
// that separates it from the previous member.
func field(b []byte, name string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// appendDescriptor appends the tool's standard descriptor: the fields of
// ToolDescriptor, in its order, with its omissions.
func appendDescriptor(b []byte, t *Tool) []byte {
	b = append(b, '{')
	b = appendString(field(b, "toolId"), t.ToolID)
	if t.Name != "" {
		b = appendString(field(b, "name"), t.Name)
	}
	if t.Title != "" {
		b = appendString(field(b, "title"), t.Title)
	}
	b = appendString(field(b, "description"), t.Description)
	b = appendString(field(b, "source"), t.Source)
	if t.Server != "" {
		b = appendString(field(b, "server"), t.Server)
	}
	b = appendString(field(b, "safetyTier"), t.SafetyTier)
	b = appendString(field(b, "replayPolicy"), t.ReplayPolicy)
	b = appendString(field(b, "egress"), t.Egress)
	a := t.Annotations()
	b = field(b, "annotations")
	b = append(b, `{"readOnlyHint":`...)
	b = strconv.AppendBool(b, a.ReadOnlyHint)
	b = append(b, `,"destructiveHint":`...)
	b = strconv.AppendBool(b, a.DestructiveHint)
	b = append(b, `,"idempotentHint":`...)
	b = strconv.AppendBool(b, a.IdempotentHint)
	b = append(b, `,"openWorldHint":`...)
	b = strconv.AppendBool(b, a.OpenWorldHint)
	b = append(b, '}')
	b = appendJSON(field(b, "inputSchema"), t.InputSchema)
	if t.OutputSchema != nil {
		b = appendJSON(field(b, "outputSchema"), t.OutputSchema)
	}
	return append(b, '}')
}

// appendCompactDescriptor appends the tool's compact descriptor: the fields
// of CompactToolDescriptor, in its order, its input schema projected with o.
func appendCompactDescriptor(b []byte, t *Tool, o compact.Options) []byte {
	c := t.compactDescriptor(o)
	b = append(b, '{')
	b = appendString(field(b, "toolId"), c.ToolID)
	b = appendString(field(b, "description"), c.Description)
	b = appendString(field(b, "source"), c.Source)
	b = appendString(field(b, "safetyTier"), c.SafetyTier)
	b = appendString(field(b, "replayPolicy"), c.ReplayPolicy)
	b = appendString(field(b, "egress"), c.Egress)
	b = appendJSON(field(b, "inputSchema"), c.InputSchema)
	return append(b, '}')
}
