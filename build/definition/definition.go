// Package definition is the digest of a tool's definition, in the shape of
// MCP's SEP-2636 (_meta.dev.signpost/definition), which its standard
// descriptor and its tool catalogue entry carry: the standard descriptor
// without _meta in canonical JSON (RFC 8785), as a client that recomputes
// the digest reads it, its SHA-256 and its size.
package definition

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/jcs"
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

// Meta is the _meta of a tool's standard descriptor and tool catalogue
// entry: the digest and size of its definition under spec.DefinitionMeta.
type Meta struct {
	Definition Definition `json:"dev.signpost/definition"`
}

// Placeholder is a definition of a digest's length and the least size, for
// Load's estimate, which measures the documents without hashing them.
var Placeholder = Definition{Digest: spec.DigestPrefix + strings.Repeat("0", 64)}

// Digest returns the digest and size of a tool's definition: desc is its
// standard descriptor, encoded without _meta, decoded again and written in
// canonical JSON.
func Digest(desc []byte) (Definition, error) {
	d := json.NewDecoder(bytes.NewReader(desc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return Definition{}, fmt.Errorf("decode the descriptor: %w", err)
	}
	canon, err := AppendCanonical(nil, v)
	if err != nil {
		return Definition{}, fmt.Errorf("canonicalize the descriptor: %w", err)
	}
	return Of(canon), nil
}

// AppendMetaValue appends the value of _meta: def under its key. In a
// build without fast paths (package fastpath) encoding/json encodes the
// Meta.
func AppendMetaValue(b []byte, def Definition) []byte {
	if !fastpath.Enabled {
		return jsonenc.Append(b, Meta{def})
	}
	b = jsonenc.AppendString(append(b, '{'), spec.DefinitionMeta)
	b = jsonenc.AppendString(append(b, `:{"digest":`...), def.Digest)
	b = strconv.AppendInt(append(b, `,"size":`...), int64(def.Size), 10)
	return append(b, "}}"...)
}

// Of is the definition whose canonical JSON is c: its digest,
// spec.DigestPrefix and the lowercase hex SHA-256 of c, and its size.
func Of(c []byte) Definition {
	sum := sha256.Sum256(c)
	var d [spec.DigestLen]byte
	n := copy(d[:], spec.DigestPrefix)
	hex.Encode(d[n:], sum[:])
	return Definition{Digest: string(d[:]), Size: len(c)}
}

// CanonicalAsIs reports whether v, a JSON value as package jsonenc encodes
// it (compact, keys sorted by their bytes), is already canonical JSON: its
// numbers written as ECMAScript writes them, no escape but \u00xx among
// the \u escapes (jsonenc writes U+2028, U+2029 and invalid UTF-8 as
// \u2028, \u2029 and \ufffd), and not both a character from U+E000 to
// U+FFFF and one above U+FFFF, the only characters whose order of bytes
// is not their order of UTF-16 code units.
func CanonicalAsIs(v []byte) bool {
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
