package diff

import (
	"fmt"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
)

// mdSubject is subject in Markdown, names as code.
func (r Risk) mdSubject() string {
	switch {
	case r.ToolID != "":
		return "tool " + mdCode(r.ToolID)
	case r.Server != "":
		return "server " + mdCode(r.Server)
	case r.Tenant != "":
		return "tenant " + mdCode(r.Tenant)
	case r.Route != "":
		return "route " + mdCode(r.Route)
	case r.Target != "":
		return "target " + mdCode(r.Target)
	}
	return "site"
}

// Bounds of the markdown report, so that it fits a pull-request comment
// (GitHub takes 65,536 characters): lists longer than markdownFold items
// are folded, and none shows more than markdownMax.
const (
	markdownFold = 10
	markdownMax  = 50
)

// mdText escapes Markdown and HTML in plain text: the characters that
// mean something anywhere in a line (the rest only at its start, where no
// value is put).
func mdText(s string) string {
	var b strings.Builder
	for _, r := range printable(s, 0) {
		if strings.ContainsRune("\\`*_[]<|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode is s as inline code; in a table cell a "|" must still be escaped.
func mdCode(s string) string {
	s = strings.ReplaceAll(printable(s, 0), "`", "'")
	return "`" + strings.ReplaceAll(s, "|", "\\|") + "`"
}

// mdItems renders each of xs as a list item.
func mdItems[T any](xs []T, item func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, item(x))
	}
	return out
}

// mdChanges writes a section of what was added, removed and changed, when
// anything was.
func mdChanges(b *strings.Builder, title string, added, removed, changed []string) {
	if len(added)+len(removed)+len(changed) == 0 {
		return
	}
	b.WriteString("### " + title + "\n\n")
	mdList(b, "Added", added)
	mdList(b, "Removed", removed)
	mdList(b, "Changed", changed)
}

// mdList writes items as a bulleted list under a bold title, folded in
// <details> when long and cut at markdownMax.
func mdList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	heading := fmt.Sprintf("%s (%d)", title, len(items))
	if len(items) > markdownFold {
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", heading)
	} else {
		fmt.Fprintf(b, "**%s**\n\n", heading)
	}
	for i, it := range items {
		if i == markdownMax {
			fmt.Fprintf(b, "- … and %d more: see `signpost diff --format json`\n", len(items)-markdownMax)
			break
		}
		fmt.Fprintf(b, "- %s\n", it)
	}
	if len(items) > markdownFold {
		b.WriteString("\n</details>\n")
	}
	b.WriteString("\n")
}

func (c *Change) writeMarkdown(b *strings.Builder) {
	old := mdCode(c.Old)
	if c.OldEmpty {
		old += " (no catalog)"
	}
	fmt.Fprintf(b, "## signpost diff: %s → %s\n\n", old, mdCode(c.New))
	if c.Empty() {
		b.WriteString("No changes.\n")
		return
	}
	fmt.Fprintf(b, "%s.\n\n", mdText(c.counts()))
	b.WriteString("### Risks\n\n")
	if len(c.Risks) == 0 {
		b.WriteString("None.\n\n")
	} else {
		row := func(r Risk) {
			fmt.Fprintf(b, "| %s | %s | %s |\n", r.Kind, r.mdSubject(), mdText(r.Message))
		}
		header := "| risk | subject | change |\n|---|---|---|\n"
		b.WriteString(header)
		for _, r := range c.Risks[:min(len(c.Risks), markdownFold*2)] {
			row(r)
		}
		if rest := c.Risks[min(len(c.Risks), markdownFold*2):]; len(rest) > 0 {
			fmt.Fprintf(b, "\n<details><summary>%d more risks</summary>\n\n%s", len(rest), header)
			for i, r := range rest {
				if i == markdownMax*2 {
					break
				}
				row(r)
			}
			if len(rest) > markdownMax*2 {
				fmt.Fprintf(b, "\n… and %d more: see `signpost diff --format json`\n", len(rest)-markdownMax*2)
			}
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
	}

	if len(c.Tenants.Added)+len(c.Tenants.Removed)+len(c.Tenants.CompactView) > 0 {
		b.WriteString("### Tenants\n\n")
		var items []string
		for _, t := range c.Tenants.Added {
			items = append(items, "added: "+mdText(tenantLabel(t)))
		}
		for _, t := range c.Tenants.Removed {
			items = append(items, "removed: "+mdText(tenantLabel(t)))
		}
		for _, v := range c.Tenants.CompactView {
			items = append(items, fmt.Sprintf("%s: compact view %s → %s", mdText(tenantLabel(v.Tenant)), onOff(v.Old), onOff(v.New)))
		}
		mdList(b, "Changes", items)
	}
	tool := func(t ToolSummary) string { return mdCode(t.ToolID) + ": " + mdText(t.describe()) }
	mdChanges(b, "Tools",
		mdItems(c.Tools.Added, tool), mdItems(c.Tools.Removed, tool),
		mdItems(c.Tools.Changed, func(t ToolChange) string { return mdCode(t.ToolID) + ": " + mdText(strings.Join(t.details(), "; ")) }))
	server := func(s ServerSummary) string { return mdCode(s.Name) + ": " + mdText(s.describe()) }
	mdChanges(b, "Servers",
		mdItems(c.Servers.Added, server), mdItems(c.Servers.Removed, server),
		mdItems(c.Servers.Changed, func(s ServerChange) string { return mdCode(s.Name) + ": " + mdText(strings.Join(s.details(), "; ")) }))
	document := func(d DocumentSummary) string {
		s := mdCode(d.Route)
		if d.View != spec.ViewStandard {
			s += " (" + mdText(d.View) + " view)"
		}
		s += ": " + mdText(d.ContentType)
		if len(d.Tenants) > 0 {
			s += "; tenants " + mdText(strings.Join(d.Tenants, ", "))
		}
		return s
	}
	mdChanges(b, "Documents", mdItems(c.Documents.Added, document), mdItems(c.Documents.Removed, document), mdItems(c.Documents.Changed, document))
}
