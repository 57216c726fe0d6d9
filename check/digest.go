package check

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// tools.digest: a tool's descriptor may carry the digest of its definition
// (spec.DefinitionMeta, after MCP's SEP-2636, whose digest a client pins a
// tool by). Each that does must carry the digest and size of the tool's
// definition as /tools serves it: the standard descriptor without that
// member (and without _meta when nothing else is left in it), in RFC 8785
// canonical JSON. A site whose tools carry none is skipped: the specs do
// not demand the digest.

// definitionDigest computes the digest and size of d's definition; an
// error says why it cannot: d is not an object, or holds a number that is
// not a finite double.
func definitionDigest(d documents.Descriptor) (digest string, size int, err error) {
	if d.Obj == nil {
		return "", 0, fmt.Errorf("not a JSON object")
	}
	def := maps.Clone(d.Obj)
	if meta, ok := jsonval.Object(d.Definition.Meta.Value); ok {
		rest := maps.Clone(meta)
		delete(rest, spec.DefinitionMeta)
		if len(rest) == 0 {
			delete(def, spec.MetaKey)
		} else {
			def[spec.MetaKey] = rest
		}
	}
	c, err := jsonval.Canonical(def)
	if err != nil {
		return "", 0, err
	}
	sum := sha256.Sum256([]byte(c))
	return spec.DigestPrefix + hex.EncodeToString(sum[:]), len(c), nil
}

// digests applies tools.digest to /tools: each digest a descriptor carries
// is that of its definition. It records what each tool carries, for the
// other views to carry the same (a wrong one is reported here, once).
func (c *checker) digests(u string) {
	c.toolDigests = map[string]documents.DefinitionMeta{}
	var probs []string
	n := 0
	for i, d := range c.toolList {
		if !d.Definition.Present {
			continue
		}
		n++
		if id, ok := d.ToolID.Str(); ok {
			if _, dup := c.toolDigests[id]; !dup {
				c.toolDigests[id] = d.Definition
			}
		}
		at := fmt.Sprintf("/%d/%s/%s", i, spec.MetaKey, spec.DefinitionMeta)
		digest, size, ok := d.Definition.Carried()
		if !ok {
			probs = append(probs, at+": "+d.Definition.Show()+", want a digest string and an integer size")
			continue
		}
		want, wantSize, err := definitionDigest(d)
		switch {
		case err != nil:
			probs = append(probs, fmt.Sprintf("%s: the definition cannot be canonicalized: %v", at, err))
		case digest != want || size != wantSize:
			probs = append(probs, fmt.Sprintf("%s: %s, size %d; the definition as served is %s, size %d", at, digest, size, want, wantSize))
		}
	}
	if n == 0 {
		c.add("tools.digest", ResultSkip, u, "no descriptor carries "+spec.MetaKey+"."+spec.DefinitionMeta, "the tools carry no digest of their definitions")
		return
	}
	c.problems("tools.digest", u, probs, fmt.Sprintf("%d of %d descriptors carry the digest of their definition as served", n, len(c.toolList)),
		"each digest is that of its tool's definition", "each digest of a tool's definition must be that of the definition as served (pinned clients would see a change that is not there, or miss one)")
}

// sameDigests applies tools.digest to another list of the tools (the tool
// catalogue): each digest it carries is the one its tool's standard
// descriptor carries. what names the list; ptr is the pointer of its
// tools.
func (c *checker) sameDigests(u, what, ptr string, ids []string, defs []documents.DefinitionMeta) {
	if c.toolDigests == nil {
		return
	}
	var probs []string
	n := 0
	for i, d := range defs {
		if !d.Present {
			continue
		}
		n++
		at := fmt.Sprintf("%s/%d/%s/%s", ptr, i, spec.MetaKey, spec.DefinitionMeta)
		if std := c.toolDigests[ids[i]]; !d.Member.Same(std.Member) {
			probs = append(probs, fmt.Sprintf("%s: %s, but /tools carries %s", at, d.Show(), std.Show()))
		}
	}
	if n == 0 {
		return
	}
	c.problems("tools.digest", u, probs, fmt.Sprintf("%d tools of %s, each with the digest /tools carries", n, what),
		"the digests of "+what+" are those of /tools", "the digest of a tool's definition must be the one /tools carries")
}
