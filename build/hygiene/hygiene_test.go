package hygiene

import (
	"testing"
	"unicode"
)

// TestInvisibleEveryRune holds Invisible, which reads ASCII byte by byte,
// to the rule said rune by rune, for every rune alone and after ASCII.
func TestInvisibleEveryRune(t *testing.T) {
	want := func(r rune) bool {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return false
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			return true
		case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff, r == 0x180e:
			return true
		}
		return r >= 0xe0000 && r <= 0xe007f
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		for _, s := range []string{string(r), "ab" + string(r), "ab" + string(r) + "cd"} {
			got, ok := Invisible(s)
			if ok != want(r) || (ok && got != r) {
				t.Fatalf("Invisible(%q) = %U, %v; want %v", s, got, ok, want(r))
			}
		}
	}
	if _, ok := Invisible("caf\xe9\x01"); !ok {
		t.Error("a control after invalid UTF-8 is not found")
	}
}
