package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progressDelay is how long a command runs before it shows progress: a
// build of the example takes a fraction of a second and shows none.
const progressDelay = time.Second

// progressLine shows, on a terminal only, what a long command is doing:
// the step, how far it has come and for how long, on one line that it
// rewrites at most ten times a second and clears at the end. On anything
// else (a pipe, a file, CI's log) it writes nothing at all. The zero value
// and a nil *progressLine show nothing.
type progressLine struct {
	w     io.Writer
	now   func() time.Time
	start time.Time

	mu          sync.Mutex
	step        string
	done, total int
	shown       bool      // something is on the line
	last        time.Time // when it was last written
	stop        chan struct{}
	once        sync.Once
	stopped     sync.WaitGroup
}

// newProgress returns the progress line of a command whose messages go to
// w, or nil when w is not a terminal.
func newProgress(w io.Writer) *progressLine {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return nil
	}
	return startProgress(f, time.Now, 200*time.Millisecond)
}

// isTerminal reports whether f is a character device, a terminal, and
// not a dumb one.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

// startProgress shows the line on w from progressDelay on, refreshing the
// elapsed time every tick even when no count moves; Stop ends it.
func startProgress(w io.Writer, now func() time.Time, tick time.Duration) *progressLine {
	p := &progressLine{w: w, now: now, start: now(), stop: make(chan struct{})}
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw(true)
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// Step says the command has moved on to step, of total things (0 when it
// does not count them).
func (p *progressLine) Step(step string, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.step, p.done, p.total = step, 0, total
	p.draw(true)
}

// Count says done of the step's things are done. It may be called from
// several goroutines, as often as things finish.
func (p *progressLine) Count(done, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.draw(false)
}

// draw writes the line, unless the command is younger than progressDelay
// or, for a count, the line was written less than a tenth of a second ago.
// The caller holds mu.
func (p *progressLine) draw(force bool) {
	t := p.now()
	elapsed := t.Sub(p.start)
	if p.step == "" || elapsed < progressDelay || !force && t.Sub(p.last) < 100*time.Millisecond {
		return
	}
	counted := ""
	if p.total > 0 {
		counted = fmt.Sprintf(" %d/%d", p.done, p.total)
	}
	fmt.Fprintf(p.w, "\r\033[K%s%s (%.0f s)", p.step, counted, elapsed.Seconds())
	p.shown, p.last = true, t
}

// Clear clears the line, so that what the command prints next starts at
// the left margin; the next Step shows it again.
func (p *progressLine) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// clear is Clear for a caller that holds mu.
func (p *progressLine) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.shown, p.step = false, ""
}

// Stop clears the line and stops its refresh, for good.
func (p *progressLine) Stop() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.stop) })
	p.stopped.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}
