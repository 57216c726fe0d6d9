package drift

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/signpost-dev/signpost/build/diag"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/terminal"
)

// Redacted is a copy of r with every credential its strings hold cut (see
// secrets.Redact): a server's description or error may quote one.
func (r *Report) Redacted() *Report {
	c := &Report{Format: r.Format, Servers: make([]Server, len(r.Servers))}
	for i, s := range r.Servers {
		s.Changes = append([]Change{}, s.Changes...)
		redactStrings(reflect.ValueOf(&s).Elem())
		c.Servers[i] = s
	}
	return c
}

// redactStrings applies secrets.Redact to every string v holds, in place.
func redactStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				redactStrings(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			redactStrings(v.Index(i))
		}
	case reflect.String:
		if s := v.String(); s != "" {
			v.SetString(secrets.Redact(s))
		}
	}
}

// WriteJSON writes the report, redacted, as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Redacted())
}

// WriteText writes the report, redacted and safe for a terminal: a line
// per server, a line per change below it, then a summary.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, s := range r.Redacted().Servers {
		fmt.Fprintf(&b, "%s %s (%s): ", s.Status, s.Name, s.Endpoint)
		switch s.Status {
		case StatusUnreachable, StatusSkipped:
			b.WriteString(s.Reason + "\n")
			continue
		}
		fmt.Fprintf(&b, "%d declared, %d live", s.Declared, s.Live)
		if n := len(s.Changes); n > 0 {
			fmt.Fprintf(&b, ", %d %s (%d breaking)", n, english.Plural(n, "change", "changes"), breaking(s.Changes))
		}
		b.WriteString("\n")
		for _, c := range s.Changes {
			mark := "  "
			if c.Breaking {
				mark = "! "
			}
			b.WriteString("  " + mark + c.Kind + ": " + c.Message() + "\n")
		}
	}
	b.WriteString(r.summary() + "\n")
	for l := range strings.Lines(b.String()) {
		if _, err := fmt.Fprintln(w, terminal.Safe(strings.TrimSuffix(l, "\n"))); err != nil {
			return err
		}
	}
	return nil
}

// WriteGitHub writes the report as GitHub workflow commands: an error for
// each breaking change and each server unreachable, a warning for each
// other change, a notice for each server skipped; then the summary, as a
// notice.
func (r *Report) WriteGitHub(w io.Writer) error {
	line := func(level, title, msg string) error {
		_, err := fmt.Fprintf(w, "::%s title=%s::%s\n", level, diag.EscapeProperty(terminal.Safe(title)), diag.EscapeData(terminal.Safe(msg)))
		return err
	}
	for _, s := range r.Redacted().Servers {
		title := "signpost check --live " + s.Name
		var err error
		switch s.Status {
		case StatusUnreachable:
			err = line("error", title, "unreachable: "+s.Reason)
		case StatusSkipped:
			err = line("notice", title, "skipped: "+s.Reason)
		}
		if err != nil {
			return err
		}
		for _, c := range s.Changes {
			level := "warning"
			if c.Breaking {
				level = "error"
			}
			if err := line(level, title, c.Message()); err != nil {
				return err
			}
		}
	}
	return line("notice", "signpost check --live", r.summary())
}

// summary is the last line of the text report.
func (r *Report) summary() string {
	count := map[string]int{}
	for _, s := range r.Servers {
		count[s.Status]++
	}
	n := len(r.Servers)
	if n == 0 {
		return "drift: no server of the catalog names a remote endpoint"
	}
	return fmt.Sprintf("drift: %d %s: %d without drift, %d drifted, %d unreachable, %d skipped",
		n, english.Plural(n, "server", "servers"), count[StatusOK], count[StatusDrift], count[StatusUnreachable], count[StatusSkipped])
}

func breaking(cs []Change) int {
	n := 0
	for _, c := range cs {
		if c.Breaking {
			n++
		}
	}
	return n
}
