// Package suggest finds the names most like a mistyped one, for the "did you
// mean" of every message: commands and flags of the CLI, names under
// classify of an import or a declaration. It is the one edit distance of
// signpost.
package suggest

import (
	"cmp"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/internal/english"
)

// maxRunes bounds the part of a name that Nearest compares, so
// that a huge recorded name cannot make the comparison slow.
const maxRunes = 128

// Nearest returns up to n of names, the ones most like name first. A
// name is close when it shares words with name (snake case, camelCase and
// kebab-case split alike; a word with a typo, a plural or cut short still
// counts, less), the longer the words the closer; among names that share as
// much, when it has fewer other words, then when fewer edits turn one into
// the other. When some names share words, only those are returned; when
// none does, only the names at most a third of name's length in edits
// away, so that a name like no other is offered none. Ties keep byte
// order, so the result is always the same.
func Nearest(name string, names []string, n int) []string {
	type scored struct {
		name                  string
		shared, others, edits int
	}
	query := nameWords(name)
	lower := strings.ToLower(name)
	list := make([]scored, 0, len(names))
	for _, cand := range names {
		words := nameWords(cand)
		matched := make([]bool, len(words))
		shared := 0
		for _, q := range query {
			best := 0
			for i, w := range words {
				if m := wordMatch(q, w); m > 0 {
					best = max(best, m)
					matched[i] = true
				}
			}
			shared += best
		}
		// Other words count against a name that shares some: with none
		// shared, the edits alone decide.
		others := 0
		for i, w := range words {
			if !matched[i] && shared > 0 {
				others += len([]rune(w))
			}
		}
		list = append(list, scored{cand, shared, others, Distance(lower, strings.ToLower(cand))})
	}
	slices.SortStableFunc(list, func(a, b scored) int {
		return cmp.Or(b.shared-a.shared, a.others-b.others, a.edits-b.edits, strings.Compare(a.name, b.name))
	})
	// A name that shares no word is offered only when none does, and
	// only when it is nearly name: else any name would be offered for
	// anything.
	maxEdits := min(len([]rune(name)), maxRunes) / 3
	out := make([]string, 0, min(n, len(list)))
	for _, s := range list[:min(n, len(list))] {
		if s.shared == 0 && (list[0].shared > 0 || s.edits > maxEdits) {
			break
		}
		out = append(out, s.name)
	}
	return out
}

// wordMatch says how much of word q a word w holds: its length less the
// edits of a typo (within a third of its length: ticekt is ticket), the
// shorter one's length when one starts the other (repo, repository), 0
// when w is another word.
func wordMatch(q, w string) int {
	nq, nw := len([]rune(q)), len([]rune(w))
	m := 0
	if d := Distance(q, w); d <= (nq-1)/3 {
		m = nq - d
	}
	if short := min(nq, nw); short >= 3 && (strings.HasPrefix(w, q) || strings.HasPrefix(q, w)) {
		m = max(m, short)
	}
	return m
}

// nameWords splits a tool name into its lower-case words, as toolid.SnakeCase
// does: getIssue, get_issue and get-issue are all get, issue.
func nameWords(name string) []string {
	r := []rune(name)
	if len(r) > maxRunes {
		r = r[:maxRunes]
	}
	return strings.FieldsFunc(toolid.SnakeCase(string(r)), func(c rune) bool { return c == '_' })
}

// Distance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of two neighbours that
// turn one into the other, over at most maxRunes runes of each.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	ra, rb = ra[:min(len(ra), maxRunes)], rb[:min(len(rb), maxRunes)]
	// Three rows: the one before the previous, for swaps.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// maxInstead is how many known names Instead offers.
const maxInstead = 3

// Instead is what a message about the unknown name offers in its place:
// the known names most like it, nearest first, or when none is near, what
// the known names are (what says what they are: "known tools").
func Instead(name string, known []string, what string) string {
	if like := Nearest(name, known, maxInstead); len(like) > 0 {
		return "did you mean " + english.QuotedOr(like) + "?"
	}
	if len(known) == 0 {
		return "check the spelling (" + what + ": none)"
	}
	return "check the spelling: no name is like it (" + what + ": " + english.Some(known, maxInstead) + ")"
}
