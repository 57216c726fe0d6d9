// Package english spells counts in the messages signpost prints, so that
// every command says "1 tool" and "2 tools" the same way.
package english

import "strconv"

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
