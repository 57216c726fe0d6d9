package records

import (
	"cmp"
	"strings"
	"sync"
	"testing"
)

// line is a record for the test: redacting it cuts every "secret" it
// holds.
type line struct {
	n    int
	text string
}

func (l line) Redacted() line {
	l.text = strings.ReplaceAll(l.text, "secret", "s…")
	return l
}

func (l line) Compare(m line) int {
	return cmp.Or(cmp.Compare(l.n, m.n), strings.Compare(l.text, m.text))
}

// TestLog: what a log gives back is redacted, sorted and each once,
// whatever order it was added in from several goroutines; nothing is
// taken after Close.
func TestLog(t *testing.T) {
	var l Log[line]
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			l.Add(line{n: 7 - i, text: "the secret"})
			l.Add(line{n: 0, text: "twice"})
		})
	}
	wg.Wait()
	if got := l.Records(); len(got) != 9 || got[0].text != "the s…" || got[1] != (line{0, "twice"}) || got[8].n != 7 {
		t.Errorf("Records() = %v", got)
	}
	got := l.Close()
	l.Add(line{n: -1, text: "late"})
	want := []line{{0, "the s…"}, {0, "twice"}, {1, "the s…"}, {2, "the s…"}, {3, "the s…"}, {4, "the s…"}, {5, "the s…"}, {6, "the s…"}, {7, "the s…"}}
	if len(got) != len(want) {
		t.Fatalf("Close() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Close()[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if rest := l.Records(); len(rest) != 0 {
		t.Errorf("a closed log holds %v", rest)
	}
}

// TestSort: a list made elsewhere is sorted and kept each once, as a Log
// gives it, and not redacted.
func TestSort(t *testing.T) {
	got := Sort([]line{{2, "b"}, {1, "secret"}, {2, "b"}, {1, "a"}})
	want := []line{{1, "a"}, {1, "secret"}, {2, "b"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Sort = %v, want %v", got, want)
	}
}
