// Package english spells counts and lists in the messages signpost prints,
// so that every command says "1 tool", "2 tools" and "a, b or c" the same
// way.
package english

import (
	"strconv"
	"strings"
)

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n followed by the word that fits it: "1 tool", "2 tools".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// Or joins words with commas and a last "or": a, a or b, a, b or c.
func Or(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// QuotedOr quotes names and joins them as Or does: "a", "b" or "c".
func QuotedOr(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return Or(quoted)
}
