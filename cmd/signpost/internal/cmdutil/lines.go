package cmdutil

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/signpost-dev/signpost/build/diag/records"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/internal/terminal"
)

// Line is one line a command prints about its input that is not one of
// the records of a report type (a diag.Diagnostic, a check.Finding): the
// line of each document or tool an import reads and its errors, a note of
// diff, a summary, an error. Names, reasons and messages in it come from
// files and origins, so it leaves as those records do, through a
// records.Log, which redacts it (see Lines).
type Line struct {
	// n is its place among the lines printed with it.
	n    int64
	text string
}

// Redacted is l with every credential its text holds cut to its first
// four characters and "…" (see secrets.Redact).
func (l Line) Redacted() Line {
	l.text = secrets.Redact(l.text)
	return l
}

// Compare orders lines by the order they were added in.
func (l Line) Compare(m Line) int {
	return cmp.Or(cmp.Compare(l.n, m.n), strings.Compare(l.text, m.text))
}

// Lines collects the lines a command prints, redacted as they come, and
// prints them, safe for a terminal, in the order they came.
type Lines struct {
	log records.Log[Line]
	n   atomic.Int64
}

// Add adds the line of format and args.
func (ls *Lines) Add(format string, args ...any) {
	ls.log.Add(Line{n: ls.n.Add(1), text: fmt.Sprintf(format, args...)})
}

// Write prints the lines added, each safe for a terminal (see
// terminal.Safe), and closes ls.
func (ls *Lines) Write(w io.Writer) error {
	for _, l := range ls.log.Close() {
		if _, err := fmt.Fprintln(w, terminal.Safe(l.text)); err != nil {
			return err
		}
	}
	return nil
}

// PrintLine prints the line of format and args as Lines prints its own.
func PrintLine(w io.Writer, format string, args ...any) error {
	var ls Lines
	ls.Add(format, args...)
	return ls.Write(w)
}

// PrintError prints "signpost: " and err, as Lines prints its own: each
// line of the message is one line (an error may add a hint on a line of
// its own).
func PrintError(w io.Writer, err error) error {
	var ls Lines
	for part := range strings.SplitSeq("signpost: "+err.Error(), "\n") {
		ls.Add("%s", part)
	}
	return ls.Write(w)
}
