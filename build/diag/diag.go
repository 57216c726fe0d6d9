// Package diag is what signpost says about a catalog: a Diagnostic (where,
// how severe, which rule, what), lists of them sorted and written as text,
// JSON or GitHub workflow commands, and the Sink that every check of a load
// reports through. A Diagnostic is a records.Record, and the Sink a
// records.Log of them with what a schema error covers left out: the one
// way out that every command's records take (package records).
//
// A message may quote the value it is about, and a file's name comes from
// the catalog: nothing leaves this package without passing secrets.Redact,
// so that no diagnostic, however it was made and wherever it is printed,
// repeats more than the first four characters of a credential.
package diag

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/diag/records"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/terminal"
)

// Severity says whether a Diagnostic stops the build.
type Severity string

// The severities a Diagnostic can have.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Diagnostic is one problem found in the declarations.
type Diagnostic struct {
	source.Pos
	Severity Severity `json:"severity"`
	// Rule names the check that failed, for example "toolid-format".
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String is the diagnostic as a line of text (path:line:col: message),
// redacted.
func (d Diagnostic) String() string {
	d = d.Redacted()
	if d.Severity == Warning {
		return fmt.Sprintf("%s: warning: %s", d.Pos, d.Message)
	}
	return fmt.Sprintf("%s: %s", d.Pos, d.Message)
}

// Redacted is d with every credential its message and its file's path hold
// cut to its first four characters (see secrets.Redact). A path is redacted
// name by name, as no name holds a slash: the folders around a file named
// like a credential still show, and a query-like path (a folder named
// "x?token=1" above a file) is not taken for a URL.
func (d Diagnostic) Redacted() Diagnostic {
	d.Message = secrets.Redact(d.Message)
	d.File = redactPath(d.File)
	return d
}

func redactPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = secrets.Redact(s)
	}
	return strings.Join(segs, "/")
}

// Diagnostics is a list of problems, in the order Sort gives them.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == Error })
}

// Errors counts the diagnostics of severity Error.
func (ds Diagnostics) Errors() int {
	n := 0
	for _, d := range ds {
		if d.Severity == Error {
			n++
		}
	}
	return n
}

// Compare orders diagnostics by file, line, column, rule, message and
// severity: zero only for the same diagnostic.
func (d Diagnostic) Compare(e Diagnostic) int {
	return cmp.Or(
		strings.Compare(d.File, e.File),
		cmp.Compare(d.Line, e.Line),
		cmp.Compare(d.Col, e.Col),
		strings.Compare(d.Rule, e.Rule),
		strings.Compare(d.Message, e.Message),
		strings.Compare(string(d.Severity), string(e.Severity)),
	)
}

// Sort orders diagnostics as Compare does, and drops exact duplicates, so
// output is stable whatever order checks ran in (see records.Sort).
func (ds Diagnostics) Sort() Diagnostics {
	return records.Sort(ds)
}

// Formats accepted by Diagnostics.Write.
const (
	FormatText   = "text"
	FormatJSON   = "json"
	FormatGitHub = "github"
)

// Write prints the diagnostics, redacted, in the given format: "text"
// (path:line:col: message, one a line), "json" (one object) or "github"
// (workflow commands that annotate a pull request).
func (ds Diagnostics) Write(w io.Writer, format string) error {
	switch format {
	case FormatText, "":
		for _, d := range ds {
			// File names and quoted values come from the catalog: a
			// terminal must show them, not act on them.
			if _, err := fmt.Fprintln(w, terminal.Safe(d.String())); err != nil {
				return err
			}
		}
		return nil
	case FormatJSON:
		out := struct {
			Valid       bool         `json:"valid"`
			Errors      int          `json:"errors"`
			Warnings    int          `json:"warnings"`
			Diagnostics []Diagnostic `json:"diagnostics"`
		}{!ds.HasErrors(), ds.Errors(), len(ds) - ds.Errors(), make([]Diagnostic, len(ds))}
		for i, d := range ds {
			out.Diagnostics[i] = d.Redacted()
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case FormatGitHub:
		for _, d := range ds {
			d = d.Redacted()
			var b strings.Builder
			b.WriteString("::")
			b.WriteString(string(d.Severity))
			b.WriteString(" file=")
			// A file name or a quoted value from the catalog is shown,
			// never acted on: an annotation is read on a terminal too.
			b.WriteString(escapeProperty(terminal.Safe(d.File)))
			if d.Line > 0 {
				fmt.Fprintf(&b, ",line=%d", d.Line)
			}
			if d.Col > 0 {
				fmt.Fprintf(&b, ",col=%d", d.Col)
			}
			b.WriteString(",title=signpost ")
			b.WriteString(escapeProperty(d.Rule))
			b.WriteString("::")
			b.WriteString(escapeData(terminal.Safe(d.Message)))
			if _, err := fmt.Fprintln(w, b.String()); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q: use text, json or github", format)
}

// EscapeData and EscapeProperty encode text for the message and the
// properties of a GitHub workflow command, as the github format does:
// for any other report that prints them.
func EscapeData(s string) string     { return escapeData(s) }
func EscapeProperty(s string) string { return escapeProperty(s) }

// escapeData and escapeProperty encode text for GitHub workflow commands,
// which treat %, CR and LF (and, in properties, : and ,) as syntax.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
