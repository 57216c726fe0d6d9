package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/english"
)

// FormatMarkdown is the Change.Write format fit for a pull-request comment
// or a GitHub job summary.
const FormatMarkdown = "markdown"

// Write prints the change in format: "text" (the default of signpost
// diff), "json" (the Change itself, indented) or "markdown" (a heading, the
// risk table, then the details, long lists folded in <details>, fit for a
// pull-request comment or a GitHub job summary).
func (c *Change) Write(w io.Writer, format string) error {
	var b strings.Builder
	switch format {
	case build.FormatText:
		c.writeText(&b)
	case FormatMarkdown:
		c.writeMarkdown(&b)
	case build.FormatJSON:
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
	default:
		return fmt.Errorf("diff: unknown format %q: use text, json or markdown", format)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// counts summarizes the change in one line.
func (c *Change) counts() string {
	var parts []string
	part := func(what string, added, removed, changed int) {
		var p []string
		if added > 0 {
			p = append(p, fmt.Sprintf("%d added", added))
		}
		if removed > 0 {
			p = append(p, fmt.Sprintf("%d removed", removed))
		}
		if changed > 0 {
			p = append(p, fmt.Sprintf("%d changed", changed))
		}
		if len(p) > 0 {
			parts = append(parts, what+" "+strings.Join(p, ", "))
		}
	}
	parts = append(parts, english.Count(len(c.Risks), "risk", "risks"))
	part("tools", len(c.Tools.Added), len(c.Tools.Removed), len(c.Tools.Changed))
	part("servers", len(c.Servers.Added), len(c.Servers.Removed), len(c.Servers.Changed))
	part("tenants", len(c.Tenants.Added), len(c.Tenants.Removed), len(c.Tenants.CompactView))
	part("documents", len(c.Documents.Added), len(c.Documents.Removed), len(c.Documents.Changed))
	return strings.Join(parts, "; ")
}

// printable replaces control characters, so that a value from a
// declaration cannot rewrite the reader's terminal, and shortens it.
func printable(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return '?'
		}
		return r
	}, s)
	if limit > 0 && utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		s = string(r[:limit-3]) + "..."
	}
	return s
}

// valueLimit is the longest value the text and markdown reports show.
const valueLimit = 72

func tenantLabel(t string) string {
	if t == "" {
		return "(no tenants)"
	}
	return t
}

// oldLabel names the old side in report headings.
func (c *Change) oldLabel() string {
	if c.OldEmpty {
		return c.Old + " (no catalog)"
	}
	return c.Old
}
