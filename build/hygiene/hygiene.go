// Package hygiene holds what a published string must show and must not
// say, besides a credential (package secrets): a character a reader cannot
// see or that changes what they see (Invisible, InvisibleIn), and the path
// of somebody's machine (MachinePath). The loader holds what a tool
// publishes to both, and a server's representative queries to the first.
package hygiene

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

// machinePathRE matches the absolute path of a user's files on a machine:
// a home folder on Linux or macOS, a profile folder on Windows. Such a path
// in a published string says where somebody's machine keeps things, which
// the catalogue never holds; /etc/hosts or /var/log, which document a tool,
// do not match.
var machinePathRE = regexp.MustCompile(`(?i)(?:^|[\s"'(=:])(?:/home/[a-z0-9._-]+/|/Users/[a-z0-9._-]+/|[a-z]:\\Users\\[^\\\s]+)`)

// placeholderUsers are the user names documentation writes in a path for
// "your own": /home/user/, /Users/me/. A path with one names nobody's
// machine.
var placeholderUsers = map[string]bool{
	"user": true, "username": true, "me": true, "you": true, "name": true, "yourname": true, "your-name": true,
	"your_name": true, "youruser": true, "your-user": true, "your_user": true, "example": true, "someone": true,
	"runner": true,
}

// MachinePath returns the machine path s holds, or "": the first path of
// a home or profile folder whose user is not a placeholder name.
func MachinePath(s string) string {
	if fastpath.Enabled && !strings.ContainsAny(s, "/\\") {
		return "" // every such path has a slash or a backslash: most text has neither
	}
	for _, loc := range machinePathRE.FindAllStringIndex(s, -1) {
		path := strings.TrimLeft(s[loc[0]:loc[1]], " \t\n\"'(=:")
		user := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
		if len(user) >= 2 && placeholderUsers[strings.ToLower(user[len(user)-1])] {
			continue
		}
		return path
	}
	return ""
}

// Invisible returns the first character of s that a reader of a published
// document cannot see, or that changes what they see: a control character
// other than tab, line feed and carriage return (NUL, ESC, the C1
// controls), a bidirectional control (U+202E and the like), a zero-width
// character, a byte order mark, or a Unicode tag character (U+E0000 to
// U+E007F), which can hide instructions to a model. ok is false when s has
// none.
func Invisible(s string) (r rune, ok bool) {
	// Most text is ASCII: its only invisible characters are the C0
	// controls and DEL, told apart byte by byte.
	i := 0
	for ; i < len(s) && s[i] < utf8.RuneSelf; i++ {
		if b := s[i]; (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f {
			return rune(b), true
		}
	}
	for _, r := range s[i:] {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			return r, true
		case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff, r == 0x180e:
			return r, true
		case r >= 0xe0000 && r <= 0xe007f:
			return r, true
		}
	}
	return 0, false
}

// InvisibleIn returns the first invisible character (see Invisible) of any
// string in the decoded JSON value v, keys included, and where it is.
func InvisibleIn(v any, ptr []string) (r rune, at []string, ok bool) {
	if !hasInvisible(v) {
		return 0, nil, false
	}
	switch x := v.(type) {
	case string:
		if r, ok := Invisible(x); ok {
			return r, ptr, true
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if r, ok := Invisible(k); ok {
				return r, append(slices.Clone(ptr), k), true
			}
			if r, at, ok := InvisibleIn(x[k], append(slices.Clone(ptr), k)); ok {
				return r, at, true
			}
		}
	case []any:
		for i, e := range x {
			if r, at, ok := InvisibleIn(e, append(slices.Clone(ptr), strconv.Itoa(i))); ok {
				return r, at, true
			}
		}
	}
	return 0, nil, false
}

// hasInvisible reports whether any string in v, keys included, holds an
// invisible character: the walk of every tool's schemas, which allocates
// nothing, before InvisibleIn looks, in order, for where the first is.
func hasInvisible(v any) bool {
	switch x := v.(type) {
	case string:
		_, ok := Invisible(x)
		return ok
	case map[string]any:
		for k, e := range x {
			if _, ok := Invisible(k); ok || hasInvisible(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasInvisible(e) {
				return true
			}
		}
	}
	return false
}
