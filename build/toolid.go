package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// MaxToolIDLen is the longest toolId the catalog accepts.
const MaxToolIDLen = 48

var toolIDRE = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// checkToolID explains why id cannot be a toolId, or returns "".
func checkToolID(id string) string {
	switch {
	case id == "":
		return "toolId is empty"
	case len(id) > MaxToolIDLen:
		return fmt.Sprintf("toolId %q is %d characters; the limit is %d", id, len(id), MaxToolIDLen)
	case strings.ContainsAny(id, `/\`) || strings.Contains(id, ".."):
		return fmt.Sprintf("toolId %q looks like a path: a toolId is one URL path segment in ASCII snake case, for example %q", id, suggestToolID(id))
	case !toolIDRE.MatchString(id):
		return fmt.Sprintf("toolId %q is not ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter), for example %q", id, suggestToolID(id))
	}
	return ""
}

// suggestToolID is the snake-case form of id offered in diagnostics.
func suggestToolID(id string) string {
	s := snakeCase(id)
	if s == "" {
		return "my_tool"
	}
	if len(s) > MaxToolIDLen {
		s = strings.TrimRight(s[:MaxToolIDLen], "_")
	}
	return s
}

// snakeCase lowers name into ASCII snake case: word boundaries (case changes,
// punctuation, spaces) become one underscore, other characters are dropped.
// It is the deterministic normalization of MCP tool names.
func snakeCase(name string) string {
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

// digestSuffix is the stable suffix that sets a derived toolId apart: eight
// hex digits of a SHA-256 of the tool's identity (its server and MCP name).
func digestSuffix(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(sum[:4])
}

// withDigest shortens base so that base_digest fits MaxToolIDLen.
func withDigest(base, identity string) string {
	d := digestSuffix(identity)
	if keep := MaxToolIDLen - len(d) - 1; len(base) > keep {
		base = strings.TrimRight(base[:keep], "_")
	}
	if base == "" {
		return "t_" + d
	}
	return base + "_" + d
}

// idClaim is a tool asking for a toolId derived from its MCP name.
type idClaim struct {
	base      string // the normalized name, with any prefix
	canonical bool   // the MCP name was already in snake case: it keeps base
	identity  string // server and MCP name, the seed of the digest
}

// deriveToolIDs assigns toolIds to derived claims, given the toolIds that
// declarations state explicitly (which always win). A claim keeps its
// normalized name when it fits, nothing explicit holds it, and it is the only
// claim to it or the only canonical one; every other claim gets the digest
// suffix. The result depends only on the set of claims, not their order.
func deriveToolIDs(claims []idClaim, explicit map[string]bool) []string {
	byBase := map[string][]int{}
	for i, c := range claims {
		byBase[c.base] = append(byBase[c.base], i)
	}
	ids := make([]string, len(claims))
	for base, idx := range byBase {
		keeper := -1
		if len(base) <= MaxToolIDLen && !explicit[base] {
			if len(idx) == 1 {
				keeper = idx[0]
			} else {
				for _, i := range idx {
					if claims[i].canonical {
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
				ids[i] = withDigest(base, claims[i].identity)
			}
		}
	}
	return ids
}
