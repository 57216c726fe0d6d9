// Package terminal makes text that came from a catalog or a repository
// (file names, tool names, git's messages) safe to print on a terminal.
package terminal

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Safe returns s with what a terminal would act on shown as Go
// escapes instead: control characters (ESC, a newline) as \x1b and \n,
// invalid UTF-8 as \xff, and the characters that break lines or reorder
// text (U+2028, the bidirectional controls) as \u2028. A file or tool name
// can then neither rewrite the screen nor pass for another line of output.
func Safe(s string) string {
	if !strings.ContainsFunc(s, needsEscape) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}
