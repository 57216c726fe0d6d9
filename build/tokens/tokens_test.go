package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/signpost-dev/signpost/internal/corpus"
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

// TestCountCorpus holds the counter to the library on real documents: the
// corpus's tools and the example's built site.
func TestCountCorpus(t *testing.T) {
	c, err := NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	dir := corpus.Dir(t)
	files := []string{filepath.Join(dir, "registry-servers.sample.json")}
	for _, name := range corpus.ToolFiles {
		files = append(files, filepath.Join(dir, name))
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "openapi", "*"))
	files = append(files, matches...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Line by line as well as whole: many small texts, as descriptors are.
		for _, text := range append(strings.Split(string(data), "\n"), string(data)) {
			got, err := c.count([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			if want := library(t, text); got != want {
				t.Errorf("%s: Count(%.60q...) = %d, the library says %d", filepath.Base(f), text, got, want)
			}
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

func BenchmarkCount(b *testing.B) {
	data := corpus.Read(b, "github-mcp-server.tools.json")
	for i := range data {
		if data[i] >= 0x80 {
			data[i] = ' '
		}
	}
	b.Run("library", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			library(b, string(data))
		}
	})
	b.Run("counter", func(b *testing.B) {
		c, err := NewCounter()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := c.Count(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("counter-parallel", func(b *testing.B) {
		c, err := NewCounter()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Count(data); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
