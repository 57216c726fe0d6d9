//go:build corpus

package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusCount holds the counter to the library on real documents: the
// corpus's tools and the example's built site.
func TestCorpusCount(t *testing.T) {
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
