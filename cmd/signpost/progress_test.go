package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/publish"
)

// syncBuffer is a bytes.Buffer the refresh goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// A command that finishes within a second shows nothing; past it, the
// step, its count and the elapsed time appear, counts at most ten times a
// second, and Clear and Stop leave an empty line.
func TestProgressLine(t *testing.T) {
	var out syncBuffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	// A tick too long to fire in the test: only Step and Count draw.
	p := startProgress(&out, clock.now, time.Hour)
	p.Step("build: compiling 10000 tools", 0)
	clock.add(900 * time.Millisecond)
	p.Step("build: writing the site", 100)
	p.Count(1, 100)
	if got := out.String(); got != "" {
		t.Fatalf("before a second: %q, want nothing", got)
	}
	clock.add(200 * time.Millisecond)
	p.Count(2, 100)
	clock.add(10 * time.Millisecond)
	p.Count(3, 100) // within a tenth of a second of the last: not drawn
	clock.add(100 * time.Millisecond)
	p.Count(4, 100)
	p.Clear()
	p.Step("build: done", 0)
	p.Stop()
	p.Stop() // twice is harmless
	want := "\r\033[Kbuild: writing the site 2/100 (1 s)" + "\r\033[Kbuild: writing the site 4/100 (1 s)" + "\r\033[K" +
		"\r\033[Kbuild: done (1 s)" + "\r\033[K"
	if got := out.String(); got != want {
		t.Errorf("progress wrote\n%q\nwant\n%q", got, want)
	}
}

// Only a terminal gets a progress line: a pipe or a file gets none, and a
// nil line accepts every call.
func TestProgressNeedsATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, out := range []io.Writer{w, f, &bytes.Buffer{}} {
		if p := newProgress(out); p != nil {
			t.Errorf("a progress line on %T", out)
		}
	}
	var p *progressLine
	p.Step("x", 1)
	p.Count(1, 1)
	p.Clear()
	p.Stop()
}

// The stages of a publish show on the progress line with their words.
func TestPublishProgress(t *testing.T) {
	var out syncBuffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := publishProgress{startProgress(&out, clock.now, time.Hour)}
	clock.add(2 * time.Second)
	for _, s := range []publish.Stage{publish.StageLoad, publish.StageCompile, publish.StagePlan, publish.StageApply} {
		p.Stage(s, 0)
	}
	p.Stage(publish.StageApply, 10)
	p.Count(3, 10)
	p.Stop()
	want := "\r\033[Kpublish: reading and checking the catalog (2 s)" + "\r\033[Kpublish: compiling the sites (2 s)" +
		"\r\033[Kpublish: planning (2 s)" + "\r\033[Kpublish: uploading and deleting (2 s)" +
		"\r\033[Kpublish: uploading and deleting 0/10 (2 s)" + "\r\033[K"
	if got := out.String(); got != want {
		t.Errorf("progress:\n got %q\nwant %q", got, want)
	}
}
