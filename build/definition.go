package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/signpost-dev/signpost/build/jcs"
	"math"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Definition is the digest and size of a tool's definition, which its
// standard descriptor and its tool catalogue entry carry in their _meta
// (see spec.DefinitionMeta): the standard descriptor without it, in
// canonical JSON.
type Definition struct {
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

// DescriptorMeta is the _meta of a tool's standard descriptor and tool
// catalogue entry: the digest and size of its definition under
// spec.DefinitionMeta.
type DescriptorMeta struct {
	Definition Definition `json:"dev.signpost/definition"`
}

// placeholder is a definition of a digest's length and the least size, for
// Load's estimate, which measures the documents without hashing them.
var placeholder = Definition{Digest: spec.DigestPrefix + strings.Repeat("0", 64)}

// digestDefinition returns the digest and size of a tool's definition:
// desc is its standard descriptor, encoded without _meta.
func digestDefinition(desc []byte) (Definition, error) {
	d := json.NewDecoder(bytes.NewReader(desc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return Definition{}, fmt.Errorf("decode the descriptor: %w", err)
	}
	canon, err := appendCanonical(nil, v)
	if err != nil {
		return Definition{}, fmt.Errorf("canonicalize the descriptor: %w", err)
	}
	return Definition{Digest: digestOf(canon), Size: len(canon)}, nil
}

// appendMeta appends the member _meta, holding def, to the object that
// ends b: its closing brace is moved after it. The object has members.
func appendMeta(b []byte, def Definition) []byte {
	b = field(b[:len(b)-1], spec.MetaKey)
	b = appendMetaValue(b, def)
	return append(b, '}')
}

// appendMetaValue appends the value of _meta: def under its key. In a
// build without fast paths (package fastpath) encoding/json encodes the
// DescriptorMeta.
func appendMetaValue(b []byte, def Definition) []byte {
	if !fastpath.Enabled {
		return jsonenc.Append(b, DescriptorMeta{def})
	}
	b = jsonenc.AppendString(append(b, '{'), spec.DefinitionMeta)
	b = jsonenc.AppendString(append(b, `:{"digest":`...), def.Digest)
	b = strconv.AppendInt(append(b, `,"size":`...), int64(def.Size), 10)
	return append(b, "}}"...)
}

// definitionOf returns the digest and size of t's definition: desc is its
// standard descriptor as appendDescriptor encoded it, without _meta, and
// input and output are where its schemas are in desc. digestDefinition
// decodes desc again; in a build with fast paths (package fastpath), the
// canonical JSON is written from t and the schemas' bytes instead, which
// the documents' encoding makes canonical as they are unless a number is
// written otherwise than ECMAScript would, a string has an escape other
// than \u00xx, or keys could sort otherwise by UTF-16 code units: then
// digestDefinition makes it.
// buf, when not nil, is scratch space for the canonical JSON.
func definitionOf(t *Tool, desc []byte, input, output span, buf *[]byte) (Definition, error) {
	if !fastpath.Enabled || input == (span{}) {
		return digestDefinition(desc)
	}
	in, out := input.of(desc), output.of(desc)
	if !canonicalAsIs(in) || (out != nil && !canonicalAsIs(out)) {
		return digestDefinition(desc)
	}
	var c []byte
	if buf != nil {
		c = (*buf)[:0]
	}
	c = appendCanonicalDescriptor(c, t, in, out)
	if buf != nil {
		*buf = c
	}
	return Definition{Digest: digestOf(c), Size: len(c)}, nil
}

// digestOf is spec.DigestPrefix and the lowercase hex SHA-256 of c.
func digestOf(c []byte) string {
	sum := sha256.Sum256(c)
	var d [spec.DigestLen]byte
	n := copy(d[:], spec.DigestPrefix)
	hex.Encode(d[n:], sum[:])
	return string(d[:])
}

// appendCanonicalDescriptor appends the canonical JSON of t's standard
// descriptor, its members in the order of their names, its schemas in and
// out (nil: none) as they are.
func appendCanonicalDescriptor(b []byte, t *Tool, in, out []byte) []byte {
	a := t.Annotations()
	b = strconv.AppendBool(append(b, `{"annotations":{"destructiveHint":`...), a.DestructiveHint)
	b = strconv.AppendBool(append(b, `,"idempotentHint":`...), a.IdempotentHint)
	b = strconv.AppendBool(append(b, `,"openWorldHint":`...), a.OpenWorldHint)
	b = strconv.AppendBool(append(b, `,"readOnlyHint":`...), a.ReadOnlyHint)
	b = appendCanonicalString(append(b, `},"description":`...), t.Description)
	b = appendCanonicalString(append(b, `,"egress":`...), t.Egress)
	b = append(append(b, `,"inputSchema":`...), in...)
	if t.Name != "" {
		b = appendCanonicalString(append(b, `,"name":`...), t.Name)
	}
	if out != nil {
		b = append(append(b, `,"outputSchema":`...), out...)
	}
	b = appendCanonicalString(append(b, `,"replayPolicy":`...), t.ReplayPolicy)
	b = appendCanonicalString(append(b, `,"safetyTier":`...), t.SafetyTier)
	if t.Server != "" {
		b = appendCanonicalString(append(b, `,"server":`...), t.Server)
	}
	b = appendCanonicalString(append(b, `,"source":`...), t.Source)
	if t.Title != "" {
		b = appendCanonicalString(append(b, `,"title":`...), t.Title)
	}
	b = appendCanonicalString(append(b, `,"toolId":`...), t.ToolID)
	return append(b, '}')
}

// canonicalAsIs reports whether v, a JSON value as package jsonenc encodes
// it (compact, keys sorted by their bytes), is already canonical JSON: its
// numbers written as ECMAScript writes them, no escape but \u00xx among
// the \u escapes (jsonenc writes U+2028, U+2029 and invalid UTF-8 as
// \u2028, \u2029 and \ufffd), and not both a character from U+E000 to
// U+FFFF and one above U+FFFF, the only characters whose order of bytes
// is not their order of UTF-16 code units.
func canonicalAsIs(v []byte) bool {
	var bmpHigh, astral, inString bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			switch {
			case c == '"':
				inString = false
			case c == '\\':
				if i+1 < len(v) && v[i+1] == 'u' {
					if i+5 >= len(v) || v[i+2] != '0' || v[i+3] != '0' {
						return false
					}
					i += 5
				} else {
					i++
				}
			case c == 0xEE || c == 0xEF:
				bmpHigh = true
			case c >= 0xF0:
				astral = true
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '-' || '0' <= c && c <= '9':
			j := i + 1
			for j < len(v) && strings.IndexByte("+-.0123456789Ee", v[j]) >= 0 {
				j++
			}
			if !canonicalNumber(v[i:j]) {
				return false
			}
			i = j - 1
		}
	}
	return !(bmpHigh && astral)
}

// canonicalNumber reports whether n is written as ECMAScript writes the
// double it reads as.
func canonicalNumber(n []byte) bool {
	digits := n
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	// An integer of at most 15 digits, without a leading zero, is exact.
	if len(digits) > 0 && len(digits) <= 15 && (digits[0] != '0' || len(digits) == 1) {
		plain := true
		for _, d := range digits {
			if d < '0' || d > '9' {
				plain = false
				break
			}
		}
		if plain {
			return string(n) != "-0"
		}
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return false
	}
	c, err := jcs.AppendFloat(nil, f)
	return err == nil && string(c) == string(n)
}
