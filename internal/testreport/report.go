package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // of build-output and build-fail
}

// heldLine is a line of output of a test or subtest.
type heldLine struct{ test, text string }

// skip is a test that was skipped, and the last line it wrote: the reason
// it gave to t.Skip, as a rule.
type skip struct {
	pkg, test, reason string
}

// report reads the events of go test -json from r and writes to w what go
// test writes without -v, then the list of skipped tests.
func report(r io.Reader, w io.Writer) error {
	bw := bufio.NewWriter(w)
	// The output of each top-level test, subtests included, until it ends:
	// printed when it fails, dropped otherwise; a subtest's lines are
	// dropped when it passes or skips.
	held := map[[2]string][]heldLine{}
	// The lines each test (or subtest) wrote itself, for a skip's reason.
	own := map[[2]string][]string{}
	var skips []skip
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event: go test's own words, as they are.
			bw.Write(line)
			bw.WriteByte('\n')
			continue
		}
		top := e.Test
		if i := strings.IndexByte(top, '/'); i >= 0 {
			top = top[:i]
		}
		topKey, key := [2]string{e.Package, top}, [2]string{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			bw.WriteString(e.Output)
		case e.Action == "output" && e.Test == "":
			// The package's lines: ok, FAIL, panics, but not the PASS that
			// go test prints only under -v.
			if e.Output != "PASS\n" {
				bw.WriteString(e.Output)
			}
		case e.Action == "output":
			if !strings.HasPrefix(e.Output, "=== ") {
				held[topKey] = append(held[topKey], heldLine{e.Test, e.Output})
				own[key] = append(own[key], e.Output)
			}
		case e.Test == "":
		case e.Action == "skip" || e.Action == "pass" || e.Action == "fail":
			if e.Action == "skip" {
				skips = append(skips, skip{e.Package, e.Test, reason(own[key])})
			}
			delete(own, key)
			switch {
			case e.Test != top && e.Action != "fail":
				held[topKey] = slices.DeleteFunc(held[topKey], func(l heldLine) bool {
					return l.test == e.Test || strings.HasPrefix(l.test, e.Test+"/")
				})
			case e.Test == top && e.Action == "fail":
				for _, l := range held[topKey] {
					bw.WriteString(l.text)
				}
				fallthrough
			case e.Test == top:
				delete(held, topKey)
			}
		}
		if bw.Buffered() > 0 && (e.Test == "" || e.Action == "fail") {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read go test -json: %w", err)
	}
	if len(skips) > 0 {
		fmt.Fprintf(bw, "\n%d skipped:\n", len(skips))
		for _, s := range skips {
			fmt.Fprintf(bw, "  %s %s: %s\n", s.pkg, s.test, s.reason)
		}
	}
	return bw.Flush()
}

// reason is the last line a skipped test wrote before its --- SKIP line,
// without the file:line that t.Skip puts before it.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		if _, after, ok := strings.Cut(l, ": "); ok && strings.Contains(l[:len(l)-len(after)], ".go:") {
			l = after
		}
		return l
	}
	return "(no reason given)"
}
