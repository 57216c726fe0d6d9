package diff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/signpost-dev/signpost/build/spec"
)

// subject names what the risk is about, for reports.
func (r Risk) subject() string {
	switch {
	case r.ToolID != "":
		return "tool " + r.ToolID
	case r.Server != "":
		return "server " + r.Server
	case r.Tenant != "":
		return "tenant " + r.Tenant
	case r.Route != "":
		return "route " + r.Route
	case r.Target != "":
		return "target " + r.Target
	}
	return "site"
}

// describe says what changed about the endpoint.
// describe is "TYPE OLD -> NEW", or "OLD -> NEW" when the types differ.
func (r RemoteReplacement) describe() string {
	typ, oldURL, _ := strings.Cut(r.Old, " ")
	if newType, newURL, _ := strings.Cut(r.New, " "); newType == typ {
		return typ + " " + oldURL + " -> " + newURL
	}
	return r.Old + " -> " + r.New
}

func (r RemoteChange) describe() string {
	what := "changed"
	if len(r.Fields) > 0 {
		what = strings.Join(r.Fields, ", ") + " changed"
	}
	return "remote " + r.Remote + ": " + what
}

// describe is one line about the document.
func (d DocumentSummary) describe() string {
	about := []string{d.ContentType}
	if d.View != spec.ViewStandard {
		about = append([]string{d.View + " view"}, about...)
	}
	if len(d.Tenants) > 0 {
		about = append(about, "tenants "+strings.Join(d.Tenants, ", "))
	}
	return printable(d.Route+" ("+strings.Join(about, "; ")+")", 0)
}

// describe is one line about a tool added or removed.
func (t ToolSummary) describe() string {
	s := fmt.Sprintf("%s, %s, %s, egress %s", t.Source, t.SafetyTier, t.ReplayPolicy, t.Egress)
	if t.Server != "" {
		s += "; server " + t.Server
	}
	if len(t.Tenants) > 0 {
		s += "; tenants " + strings.Join(t.Tenants, ", ")
	}
	return printable(s, 0)
}

// describe is one line about a field that changed.
func (f FieldChange) describe() string {
	if f.Old == "" && f.New == "" {
		if f.Breaking != "" {
			return f.Field + " changed, breaking (" + printable(f.Breaking, valueLimit) + ")"
		}
		return f.Field + " changed"
	}
	show := func(v string) string {
		if v == "" {
			return "(none)"
		}
		return strconv.Quote(printable(v, valueLimit))
	}
	switch f.Field {
	case "safetyTier", "replayPolicy", "egress", "source", "version":
		return fmt.Sprintf("%s %s -> %s", f.Field, printable(f.Old, valueLimit), printable(f.New, valueLimit))
	}
	return fmt.Sprintf("%s %s -> %s", f.Field, show(f.Old), show(f.New))
}

// describe words a digest that changed: old and new, and what a client
// that pinned the tool sees.
// The digests are shortened, as Git shortens commits; the JSON form has
// them whole.
func (d DigestChange) describe() string {
	switch {
	case d.Old == "":
		return "digest " + shortDigest(d.New) + " added: clients can now pin the tool"
	case d.New == "":
		return "digest " + shortDigest(d.Old) + " removed: clients that pinned the tool can no longer check it"
	}
	return "digest " + shortDigest(d.Old) + " -> " + shortDigest(d.New) + ": clients that pinned the tool see a new definition"
}

// shortDigest is a digest cut to its algorithm and 16 hex digits.
func shortDigest(d string) string {
	algorithm, hex, ok := strings.Cut(d, ":")
	if !ok || len(hex) <= 16 {
		return printable(d, 0)
	}
	return printable(algorithm+":"+hex[:16], 0) + "…"
}

// details lists what changed about a tool, one item each.
func (t ToolChange) details() []string {
	var out []string
	for _, f := range t.Fields {
		out = append(out, f.describe())
	}
	if len(t.TenantsAdded) > 0 {
		out = append(out, "now published to "+printable(strings.Join(t.TenantsAdded, ", "), 0))
	}
	if len(t.TenantsRemoved) > 0 {
		out = append(out, "no longer published to "+printable(strings.Join(t.TenantsRemoved, ", "), 0))
	}
	if d := t.Digest; d != nil {
		out = append(out, d.describe())
	}
	if t.CompactChanged {
		// The fields said above changed in the compact view too: only
		// what adds to them is named.
		var more []CompactField
		for _, f := range t.CompactFields {
			said := slices.ContainsFunc(t.Fields, func(g FieldChange) bool { return g.Field == f.Field })
			if !said || len(f.PropertiesAdded)+len(f.PropertiesRemoved)+len(f.PropertiesChanged) > 0 {
				more = append(more, f)
			}
		}
		what := "compact descriptor changed"
		if d := describeCompact(more); d != "" {
			what += ": " + d
		}
		out = append(out, printable(what, 0))
	}
	return out
}

func (s ServerSummary) describe() string {
	var p []string
	if s.Version != "" {
		p = append(p, "version "+s.Version)
	}
	if s.CardURL != "" {
		p = append(p, "card "+s.CardURL)
	}
	if len(s.Remotes) > 0 {
		p = append(p, "remotes "+strings.Join(s.Remotes, ", "))
	}
	return printable(strings.Join(p, "; "), 0)
}

func (s ServerChange) details() []string {
	var out []string
	for _, f := range s.Fields {
		if f.Field == "remotes" && s.remotesChanged() {
			continue // said below, endpoint by endpoint
		}
		out = append(out, f.describe())
	}
	for _, r := range s.RemotesReplaced {
		out = append(out, "remote "+printable(r.describe(), 0))
	}
	for _, r := range s.RemotesAdded {
		out = append(out, "new remote "+printable(r, 0))
	}
	for _, r := range s.RemotesRemoved {
		out = append(out, "remote removed "+printable(r, 0))
	}
	for _, r := range s.RemotesChanged {
		out = append(out, printable(r.describe(), 0))
	}
	return out
}

func (c *Change) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "signpost diff %s -> %s\n", printable(c.oldLabel(), 0), printable(c.New, 0))
	if c.Empty() {
		b.WriteString("no changes\n")
		return
	}
	fmt.Fprintf(b, "%s\n", c.counts())
	if len(c.Risks) > 0 {
		b.WriteString("\nRISKS\n")
		tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		for _, r := range c.Risks {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Kind, printable(r.subject(), 0), printable(r.Message, 0))
		}
		_ = tw.Flush() // a strings.Builder does not fail
	}
	if len(c.Tenants.Added)+len(c.Tenants.Removed)+len(c.Tenants.CompactView) > 0 {
		b.WriteString("\nTENANTS\n")
		for _, t := range c.Tenants.Added {
			fmt.Fprintf(b, "  + %s\n", printable(tenantLabel(t), 0))
		}
		for _, t := range c.Tenants.Removed {
			fmt.Fprintf(b, "  - %s\n", printable(tenantLabel(t), 0))
		}
		for _, v := range c.Tenants.CompactView {
			fmt.Fprintf(b, "  ~ %s: compact view %s -> %s\n", printable(tenantLabel(v.Tenant), 0), onOff(v.Old), onOff(v.New))
		}
	}
	if len(c.Tools.Added)+len(c.Tools.Removed)+len(c.Tools.Changed) > 0 {
		b.WriteString("\nTOOLS\n")
		for _, t := range c.Tools.Added {
			fmt.Fprintf(b, "  + %s (%s)\n", printable(t.ToolID, 0), t.describe())
		}
		for _, t := range c.Tools.Removed {
			fmt.Fprintf(b, "  - %s (%s)\n", printable(t.ToolID, 0), t.describe())
		}
		for _, t := range c.Tools.Changed {
			fmt.Fprintf(b, "  ~ %s\n", printable(t.ToolID, 0))
			for _, d := range t.details() {
				fmt.Fprintf(b, "      %s\n", d)
			}
		}
	}
	if len(c.Servers.Added)+len(c.Servers.Removed)+len(c.Servers.Changed) > 0 {
		b.WriteString("\nSERVERS\n")
		for _, s := range c.Servers.Added {
			fmt.Fprintf(b, "  + %s (%s)\n", printable(s.Name, 0), s.describe())
		}
		for _, s := range c.Servers.Removed {
			fmt.Fprintf(b, "  - %s (%s)\n", printable(s.Name, 0), s.describe())
		}
		for _, s := range c.Servers.Changed {
			fmt.Fprintf(b, "  ~ %s\n", printable(s.Name, 0))
			for _, d := range s.details() {
				fmt.Fprintf(b, "      %s\n", d)
			}
		}
	}
	if len(c.Documents.Added)+len(c.Documents.Removed)+len(c.Documents.Changed) > 0 {
		b.WriteString("\nDOCUMENTS\n")
		for _, d := range c.Documents.Added {
			fmt.Fprintf(b, "  + %s\n", d.describe())
		}
		for _, d := range c.Documents.Removed {
			fmt.Fprintf(b, "  - %s\n", d.describe())
		}
		for _, d := range c.Documents.Changed {
			fmt.Fprintf(b, "  ~ %s\n", d.describe())
		}
	}
}
