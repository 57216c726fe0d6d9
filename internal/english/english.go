// Package english spells counts, sizes and lists in the messages signpost
// prints, so that every command says "1 tool", "2 tools", "4 MiB" and
// "a, b or c" the same way.
package english

import (
	"fmt"
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

// Bytes spells a size in binary units, as signpost.yaml writes its limits:
// "512 B", "365 KiB", "4 MiB", "1.2 GiB". Sizes under ten units get one
// decimal when it is not zero.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := strconv.FormatFloat(v, 'f', 0, 64)
	if v < 10 {
		s = strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
	}
	return s + " " + string("KMGTP"[exp]) + "iB"
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

// Some lists up to n names with commas, then says how many more there are:
// "a, b and 3 more"; "none" when there are none.
func Some(names []string, n int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
