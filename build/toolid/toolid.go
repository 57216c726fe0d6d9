// Package toolid is the one rule for tool identifiers: what a toolId may be
// (ASCII snake case, at most MaxLen characters, one URL path segment), and
// how a toolId is derived from a tool's name at its source so that the same
// tool always gets the same toolId and two tools never share one, whatever
// order they are read in.
package toolid

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// MaxLen is the longest toolId the catalog accepts.
const MaxLen = 48

var pattern = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Check explains why id cannot be a toolId, or returns "".
func Check(id string) string {
	switch {
	case id == "":
		return "toolId is empty"
	case len(id) > MaxLen:
		return fmt.Sprintf("toolId %q is %d characters; the limit is %d", id, len(id), MaxLen)
	case strings.ContainsAny(id, `/\`) || strings.Contains(id, ".."):
		return fmt.Sprintf("toolId %q looks like a path: a toolId is one URL path segment in ASCII snake case, for example %q", id, suggest(id))
	case !pattern.MatchString(id):
		return fmt.Sprintf("toolId %q is not ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter), for example %q", id, suggest(id))
	}
	return ""
}

// suggest is the snake-case form of id offered in diagnostics.
func suggest(id string) string {
	s := SnakeCase(id)
	if s == "" {
		return "my_tool"
	}
	if len(s) > MaxLen {
		s = strings.TrimRight(s[:MaxLen], "_")
	}
	return s
}

// SnakeCase lowers name into ASCII snake case: word boundaries (case changes,
// punctuation, spaces) become one underscore, other characters are dropped.
// It is the deterministic normalization of MCP tool names.
func SnakeCase(name string) string {
	var b strings.Builder
	rs := []rune(name)
	sep := false
	for i, r := range rs {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && i > 0 && b.Len() > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				// "HTTPResponse" splits before the R, but the s of a
				// plural acronym ("listPRs") stays with its word.
				plural := nextLower && rs[i+1] == 's' && (i+2 == len(rs) || !unicode.IsLower(rs[i+2]))
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower && !plural) {
					sep = true
				}
			}
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(unicode.ToLower(r))
		default:
			sep = true
		}
	}
	s := b.String()
	// A toolId starts with a letter.
	if s != "" && (s[0] < 'a' || s[0] > 'z') {
		s = "t_" + s
	}
	return s
}

// Digest is the stable suffix that sets a derived toolId apart: eight
// hex digits of a SHA-256 of the tool's identity (its server and MCP name).
func Digest(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(sum[:4])
}

// withDigest shortens base so that base_digest fits MaxLen.
func withDigest(base, identity string) string {
	d := Digest(identity)
	if keep := MaxLen - len(d) - 1; len(base) > keep {
		base = strings.TrimRight(base[:keep], "_")
	}
	if base == "" {
		return "t_" + d
	}
	return base + "_" + d
}

// Claim is a tool asking for a toolId derived from its MCP name.
type Claim struct {
	Base      string // the normalized name, with any prefix
	Canonical bool   // the MCP name was already in snake case: it keeps Base
	Identity  string // server and MCP name, the seed of the digest
}

// ClaimFor is the claim of the MCP tool name of server: its snake-case
// form, after prefix and "_" when prefix is set.
func ClaimFor(prefix, server, name string) Claim {
	base := SnakeCase(name)
	c := Claim{Base: base, Canonical: base == name, Identity: server + "\x00" + name}
	if prefix != "" {
		c.Base = prefix + "_" + base
	}
	return c
}

// Valid reports whether s is in ASCII snake case, as a toolId and its
// prefix must be.
func Valid(s string) bool { return pattern.MatchString(s) }

// Derive assigns toolIds to derived claims, given the toolIds that
// declarations state explicitly (which always win). A claim keeps its
// normalized name when it fits, nothing explicit holds it, and it is the only
// claim to it or the only canonical one; every other claim gets the digest
// suffix. The result depends only on the set of claims, not their order.
func Derive(claims []Claim, explicit map[string]bool) []string {
	byBase := map[string][]int{}
	for i, c := range claims {
		byBase[c.Base] = append(byBase[c.Base], i)
	}
	ids := make([]string, len(claims))
	for base, idx := range byBase {
		keeper := -1
		if len(base) <= MaxLen && !explicit[base] {
			if len(idx) == 1 {
				keeper = idx[0]
			} else {
				for _, i := range idx {
					if claims[i].Canonical {
						if keeper >= 0 {
							keeper = -1
							break
						}
						keeper = i
					}
				}
			}
		}
		for _, i := range idx {
			if i == keeper {
				ids[i] = base
			} else {
				ids[i] = withDigest(base, claims[i].Identity)
			}
		}
	}
	return ids
}
