// Package tokens counts the tokens a model's tokenizer makes of a published
// document: o200k_base, the byte-pair encoding of current OpenAI models,
// whose vocabulary is embedded in the binary, so counting runs offline and
// gives the same figure on every machine. The tool catalogue records each
// tool's cost with it, and build reports each list's.
//
// The encoding splits text into pieces with a regular expression, then
// merges each piece's bytes by rank. Splitting is most of the cost, and the
// documents signpost counts are JSON, almost all ASCII, in which the same
// pieces ("type", "\":\"", " the") recur thousands of times. A Counter
// splits ASCII text, and punctuation and symbols such as "…", with a
// scanner equivalent to the expression, and remembers the count of each
// short segment and piece, in a cache of each goroutine's own; the few
// stretches with letters, digits or spaces outside ASCII are
// counted by the library. Tests and fuzzing hold the counts to the
// library's.
package tokens

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Encoding names the encoding a Counter measures with.
const Encoding = "o200k_base"

// maxCached is the longest text a Counter remembers the count of: longer
// text is rare and seldom repeats.
const maxCached = 64

// Counter counts tokens. Its zero value is not usable; NewCounter makes
// one. It is safe for concurrent use.
type Counter struct {
	codec tokenizer.Codec
	// known holds known caches: a goroutine takes one for a count and
	// gives it back, so that counting takes no lock. Two goroutines may
	// learn the same piece, each once.
	known sync.Pool
}

// known maps a segment or piece of text (see Count) to its count.
type known map[string]int

// NewCounter returns a Counter, reading the encoding's vocabulary.
func NewCounter() (*Counter, error) {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, err
	}
	return &Counter{codec: c, known: sync.Pool{New: func() any { return known{} }}}, nil
}

// Count returns the number of tokens of text.
//
// A document is counted a segment at a time (see segment), and the count
// of a short segment or piece is remembered: in JSON the same segments
// ("\":\"string", "\",\"description") recur thousands of times, and one
// lookup of a segment saves splitting it. In a build without fast paths
// (package fastpath) the library counts the whole text.
func (c *Counter) Count(text []byte) (int, error) {
	if !fastpath.Enabled {
		return c.codec.Count(string(text))
	}
	return c.count(text)
}

// count is Count in a build with fast paths.
func (c *Counter) count(text []byte) (int, error) {
	seen := c.known.Get().(known)
	defer c.known.Put(seen)
	n := 0
	for len(text) > 0 {
		seg, ascii := segment(text)
		text = text[len(seg):]
		if !ascii {
			k, err := c.codec.Count(string(seg))
			if err != nil {
				return 0, err
			}
			n += k
			continue
		}
		if len(seg) <= maxCached {
			if k, ok := seen[string(seg)]; ok {
				n += k
				continue
			}
		}
		k, err := c.pieces(seen, seg)
		if err != nil {
			return 0, err
		}
		if len(seg) <= maxCached {
			seen[string(seg)] = k
		}
		n += k
	}
	return n, nil
}

// pieces counts the tokens of seg, ASCII and symbols, piece by piece.
func (c *Counter) pieces(seen known, seg []byte) (int, error) {
	n := 0
	var err error
	splitASCII(seg, func(p []byte) {
		if err != nil {
			return
		}
		if len(p) <= maxCached {
			if k, ok := seen[string(p)]; ok {
				n += k
				return
			}
		}
		var k int
		if k, err = c.codec.Count(string(p)); err != nil {
			return
		}
		if len(p) <= maxCached {
			seen[string(p)] = k
		}
		n += k
	})
	return n, err
}

// segment returns the start of text up to the first place no piece of the
// split crosses, in any context, and whether it is all ASCII. Such a place
// is a double quote after an ASCII letter or digit: a word or a number
// ends there (a contraction starts with an apostrophe), and the expression
// looks back at nothing, so the pieces from there on are those of the rest
// alone. Text with other characters is cut into such segments so that only
// the few segments around those characters go to the library.
func segment(text []byte) ([]byte, bool) {
	simple := true
	for i := 0; i < len(text); {
		b := text[i]
		if b < utf8.RuneSelf {
			if b == '"' && i > 0 && (isLetter(text[i-1]) || isDigit(text[i-1])) {
				return text[:i], simple
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if !isSymbol(r) {
			simple = false
		}
		i += n
	}
	return text, simple
}

// isSymbol reports whether r, not ASCII, is punctuation or a symbol (…, —,
// “, €, →): not a letter, mark, number or space, so that the split treats
// it as it does ASCII punctuation. Text with any other character goes to
// the library.
func isSymbol(r rune) bool {
	return r != utf8.RuneError && (unicode.IsPunct(r) || unicode.IsSymbol(r))
}

// ASCII classes of the split.
func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLower(b byte) bool { return 'a' <= b && b <= 'z' }
func isDigit(b byte) bool { return '0' <= b && b <= '9' }
func isLetter(b byte) bool {
	return isUpper(b) || isLower(b)
}

// isSpace is \s of the expression, in ASCII.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}

// isPrefix is [^\r\n\p{L}\p{N}], in ASCII, as the library matches it:
// without DEL (see splitASCII).
func isPrefix(b byte) bool {
	return b != '\r' && b != '\n' && b != del && !isLetter(b) && !isDigit(b)
}

// isPunct is [^\s\p{L}\p{N}], in ASCII, as the library matches it.
func isPunct(b byte) bool { return !isSpace(b) && b != del && !isLetter(b) && !isDigit(b) }

// del is the one ASCII character the library's expression matches with no
// alternative: it is skipped, belongs to no piece and makes no token.
const del = 0x7f

// splitASCII calls piece with each piece the o200k_base expression
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// matches in text, which must be ASCII and symbols (see segment): there,
// the letters are A-Z (upper) and a-z (lower), there are no marks, a
// symbol is punctuation, and the alternatives reduce to the cases below,
// tried in the expression's order. The counts are the
// library's, including where it departs from the expression: it matches
// DEL with none of the alternatives, and skips it.
func splitASCII(text []byte, piece func([]byte)) {
	for i := 0; i < len(text); {
		if text[i] == del {
			i++
			continue
		}
		n := matchAt(text, i)
		piece(text[i : i+n])
		i += n
	}
}

// runeLen is the length of the character at t[i].
func runeLen(t []byte, i int) int {
	if t[i] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRune(t[i:])
	return n
}

// isPrefixAt and isPunctAt are isPrefix and isPunct of the character at
// t[i], which is ASCII or a symbol (see segment): a symbol is both.
func isPrefixAt(t []byte, i int) bool { return t[i] >= utf8.RuneSelf || isPrefix(t[i]) }
func isPunctAt(t []byte, i int) bool  { return t[i] >= utf8.RuneSelf || isPunct(t[i]) }

// matchAt returns the length of the expression's match at text[i:].
func matchAt(t []byte, i int) int {
	// The two word alternatives, with their optional prefix first, then
	// without it.
	first := runeLen(t, i)
	if isPrefixAt(t, i) {
		if end, ok := word(t, i+first); ok {
			return end - i
		}
	}
	if end, ok := word(t, i); ok {
		return end - i
	}
	if isDigit(t[i]) {
		j := i
		for j < len(t) && j-i < 3 && isDigit(t[j]) {
			j++
		}
		return j - i
	}
	// ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
	j := i
	if t[j] == ' ' && j+1 < len(t) && isPunctAt(t, j+1) {
		j++
	}
	if isPunctAt(t, j) {
		for j < len(t) && isPunctAt(t, j) {
			j += runeLen(t, j)
		}
		for j < len(t) && (t[j] == '\r' || t[j] == '\n' || t[j] == '/') {
			j++
		}
		return j - i
	}
	// The whitespace alternatives: t[i] is a space.
	w := i
	for w < len(t) && isSpace(t[w]) {
		w++
	}
	// `\s*[\r\n]+`: up to the last line break of the run.
	for k := w - 1; k >= i; k-- {
		if t[k] == '\r' || t[k] == '\n' {
			return k + 1 - i
		}
	}
	// `\s+(?!\S)`: the run, or all of it but its last space when a
	// non-space follows.
	if w == len(t) {
		return w - i
	}
	if w-1 > i {
		return w - 1 - i
	}
	// `\s+`
	return w - i
}

// word matches [A-Z]*[a-z]+ or [A-Z]+[a-z]* at t[start:], then an optional
// contraction, and returns where the match ends. In ASCII the first form is
// the second's with at least one lower-case letter, so one scan serves
// both: upper-case letters, then lower-case ones, at least one letter.
func word(t []byte, start int) (int, bool) {
	j := start
	for j < len(t) && isUpper(t[j]) {
		j++
	}
	for j < len(t) && isLower(t[j]) {
		j++
	}
	if j == start {
		return 0, false
	}
	return j + contraction(t[j:]), true
}

// contraction is the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at the start
// of t, or 0.
func contraction(t []byte) int {
	if len(t) < 2 || t[0] != '\'' {
		return 0
	}
	lower := func(b byte) byte { return b | 0x20 }
	switch lower(t[1]) {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if len(t) >= 3 && lower(t[2]) == 'e' {
			return 3
		}
	case 'l':
		if len(t) >= 3 && lower(t[2]) == 'l' {
			return 3
		}
	}
	return 0
}
