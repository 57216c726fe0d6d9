package build

import (
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/source"
)

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
