package tokens

import (
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// library counts text with the tokenizer library alone: the reference.
func library(t testing.TB, text string) int {
	t.Helper()
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Count(text)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCountAgreesWithLibrary(t *testing.T) {
	c, err := NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	cases := []string{
		"", " ", "  ", "   x", "\t{", "a\n\n  b", "x \n", "hello world", "Hello", "HELLO", "HTTPServer", "iPhone",
		"don't", "DON'T", "we'll", "they're", "I'VE", "it's'", "'s", "123", "12345", "1 2", " 1",
		`{"toolId":"get_forecast","description":"Seven-day forecast."}`, "a  \n\t\n  b", "\r\n", "x\r\ny", "end   ",
		"//", " //\n", "(a)", "$ref", "#/$defs/x", `"\u00e9"`, "\x00\x01", "a\vb\fc", "...", " ... ", "~0~1",
		"snake_case_name", "camelCaseName", "kebab-case-name", "CONSTANT_NAME", "v1.2.3", "2026-12-01T00:00:00Z",
		"non-ASCII: café — “quoted”", "日本語のテキスト", `{"description":"Every…","enum":["open"]}`, `a"é"b"1"—"`,
	}
	for _, s := range cases {
		got, err := c.count([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if want := library(t, s); got != want {
			t.Errorf("Count(%q) = %d, the library says %d", s, got, want)
		}
	}
}

func FuzzCount(f *testing.F) {
	for _, s := range []string{"hello world", "a  \n b", `{"a":"B c'd"}`, "X'LL 12345 //\r\n"} {
		f.Add(s)
	}
	c, err := NewCounter()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Folded into ASCII, so that the scanner, not the library, counts.
		b := []byte(s)
		for i := range b {
			b[i] &= 0x7f
		}
		s = string(b)
		got, err := c.count(b)
		if err != nil {
			t.Fatal(err)
		}
		if want := library(t, s); got != want {
			t.Errorf("Count(%q) = %d, the library says %d", s, got, want)
		}
	})
}

// BenchmarkCount counts the GitHub MCP server's tools, made ASCII (as most
// descriptors are), with the scanner, and with the library alone.
// FuzzCountUnicode holds the segments around other characters to the
// library's count of the whole.
func FuzzCountUnicode(f *testing.F) {
	for _, s := range []string{`{"description":"Every…","enum":["open"]}`, `"é"a"1"`, `x"—"y`} {
		f.Add(s)
	}
	c, err := NewCounter()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := c.count([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if want := library(t, s); got != want {
			t.Errorf("Count(%q) = %d, the library says %d", s, got, want)
		}
	})
}

// FuzzCountSymbols holds the scanner to the library on ASCII mixed with
// the punctuation and symbols it splits itself.
func FuzzCountSymbols(f *testing.F) {
	symbols := []rune("…—–“”‘’€→•©®™°±×÷¿¡«»§¶†‡′″‹›⁄₹¥£¢«")
	for _, s := range []string{"Every\xf0ticket\xf1", "a\xf2\xf3 b"} {
		f.Add([]byte(s))
	}
	c, err := NewCounter()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var b strings.Builder
		for _, x := range in {
			if x >= 0xe0 {
				b.WriteRune(symbols[int(x-0xe0)%len(symbols)])
			} else {
				b.WriteByte(x & 0x7f)
			}
		}
		s := b.String()
		got, err := c.count([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if want := library(t, s); got != want {
			t.Errorf("Count(%q) = %d, the library says %d", s, got, want)
		}
	})
}
