package compact

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text shortens a description: whitespace collapsed, cut to its first
// sentence if that fits, otherwise at a word boundary with "…", at most max
// bytes (valid UTF-8).
//
// A sentence ends at ".", "!" or "?" (and any closing quotes or brackets)
// followed by a space and not by a lowercase letter, outside parentheses, and
// not after a common abbreviation such as "e.g."; a first sentence of one word
// ("Optional.") runs on into the next. Invalid UTF-8 becomes U+FFFD. With max
// below 3 bytes there is no room for "…" and the text is cut short.
func Text(s string, max int) string {
	if max <= 0 {
		return ""
	}
	s = collapseSpace(s)
	if end := firstSentence(s); end <= max {
		return s[:end]
	}
	const ellipsis = "…"
	if max < len(ellipsis) {
		return s[:runeCut(s, max)]
	}
	limit := max - len(ellipsis)
	cut := runeCut(s, limit)
	if s[cut] != ' ' { // cut < len(s): the text is longer than max
		if sp := strings.LastIndexByte(s[:cut], ' '); sp > 0 && sp >= limit/2 {
			cut = sp
		}
	}
	if t := strings.TrimRight(s[:cut], " ,;:-–—(/"); t != "" {
		return t + ellipsis
	}
	return s[:cut] + ellipsis
}

// phrase shortens the description of a schema to its first clause:
// the first sentence, cut before the first parenthesis, colon, semicolon,
// dash or comma that comes after at least minClause bytes, then to at most
// max bytes as Text does. Property descriptions in real schemas
// lead with what the value is and follow with details ("Page number for
// pagination (min 1)"); the lead is what a model choosing a tool needs.
func phrase(s string, max int) string {
	const minClause = 12
	s = Text(s, len(s)+1)
	cut := len(s)
	for i := min(minClause, len(s)); i < len(s); i++ {
		if startsClause(s[i:]) {
			cut = i
			break
		}
	}
	if cut < len(s) {
		s = strings.TrimRight(s[:cut], " ")
	}
	return Text(s, max)
}

// startsClause reports whether t starts with what ends a description's
// first clause: " (", ": ", "; ", " - ", " – ", " — " or ", ".
func startsClause(t string) bool {
	switch t[0] {
	case ' ':
		return strings.HasPrefix(t, " (") || strings.HasPrefix(t, " - ") ||
			strings.HasPrefix(t, " – ") || strings.HasPrefix(t, " — ")
	case ':', ';', ',':
		return len(t) > 1 && t[1] == ' '
	}
	return false
}

// runeCut returns the largest n' <= n at which s can be cut without
// splitting a character.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// collapseSpace makes s valid UTF-8, trims it, and turns every run of
// white space into one space.
func collapseSpace(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	clean, space := true, true // space: the previous character is a space, or there is none
	for i := 0; i < len(s) && clean; {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == ' ':
				clean = !space
				space = true
			case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
				clean = false
			default:
				space = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		clean = !unicode.IsSpace(r)
		space = false
		i += size
	}
	if clean && !space {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// abbreviations end with a "." that does not end a sentence.
var abbreviations = []string{"e.g", "i.e", "eg", "ie", "etc", "vs", "cf", "approx", "incl", "esp", "viz", "al", "fig", "no", "mr", "mrs", "ms", "dr", "st"}

// firstSentence returns where the first sentence of s (collapsed) ends, or
// len(s).
func firstSentence(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth = max(depth-1, 0)
		case '.', '!', '?':
			j, d := i+1, depth
		closers:
			for j < len(s) {
				switch {
				case s[j] == ')' || s[j] == ']':
					d--
					j++
				case s[j] == '"' || s[j] == '\'':
					j++
				case strings.HasPrefix(s[j:], "”") || strings.HasPrefix(s[j:], "’"):
					j += len("”")
				default:
					break closers
				}
			}
			if j == len(s) {
				return j
			}
			if s[j] != ' ' || d > 0 || j+1 < len(s) && 'a' <= s[j+1] && s[j+1] <= 'z' {
				continue
			}
			if !strings.Contains(s[:i], " ") {
				continue // a one-word sentence, such as "Optional."
			}
			if s[i] == '.' {
				w := s[strings.LastIndexAny(s[:i], " (")+1 : i]
				if slices.Contains(abbreviations, strings.ToLower(w)) {
					continue
				}
			}
			return j
		}
	}
	return len(s)
}
