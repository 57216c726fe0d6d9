package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
	sum := sha256.Sum256(canon)
	return Definition{Digest: spec.DigestPrefix + hex.EncodeToString(sum[:]), Size: len(canon)}, nil
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
