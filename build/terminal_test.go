package build

import (
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/source"
)

func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain.yaml":        "plain.yaml",
		"x\x1b[2J.yaml":     `x\x1b[2J.yaml`,
		"two\nlines":        `two\nlines`,
		"bell\a":            `bell\a`,
		"bad\xffutf8":       `bad\xffutf8`,
		"rtl\u202eevil":     `rtl\u202eevil`,
		"sep\u2028line":     `sep\u2028line`,
		"café, 東京, emoji 🙂": "café, 東京, emoji 🙂",
	} {
		if got := TerminalSafe(in); got != want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", in, got, want)
		}
		if got := TerminalSafe(TerminalSafe(in)); got != want {
			t.Errorf("TerminalSafe is not idempotent on %q: %q", in, got)
		}
	}
}

// TestDiagnosticsTextTerminalSafe checks that a file name from a catalog
// cannot write to the terminal through a diagnostic.
func TestDiagnosticsTextTerminalSafe(t *testing.T) {
	ds := Diagnostics{{Pos: source.Pos{File: "x\x1b]0;owned\a.yaml", Line: 1, Col: 1}, Severity: Error, Message: "bad"}}
	var b strings.Builder
	if err := ds.Write(&b, FormatText); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), `x\x1b]0;owned\a.yaml:1:1: bad`+"\n"; got != want {
		t.Errorf("text diagnostics %q, want %q", got, want)
	}
}
