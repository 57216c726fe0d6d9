package drift

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/diff"
)

// The kinds of Change, in the order a tool's changes are listed.
const (
	KindAdded        = "added"
	KindRemoved      = "removed"
	KindRenamed      = "renamed"
	KindInputSchema  = "input-schema"
	KindOutputSchema = "output-schema"
	KindDescription  = "description"
	KindAnnotations  = "annotations"
)

// Tool is one MCP tool as compared: its name, description, schemas
// (JSON; nil for none) and the server's annotations (JSON; nil when not
// known, and then not compared).
type Tool struct {
	Name, Description         string
	InputSchema, OutputSchema json.RawMessage
	Annotations               json.RawMessage
}

// Change is one way a server's tools differ from the declared ones.
type Change struct {
	Kind string `json:"kind"`
	// Tool is the tool's MCP name: for a rename, its new name.
	Tool string `json:"tool"`
	// Old and New are the values that changed, when they are short: a
	// renamed tool's names, a description, the annotations' hints.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Breaking says that a caller that works with the declared tool may
	// fail now: a tool removed or renamed, a schema change diff calls
	// breaking (Reason says why).
	Breaking bool   `json:"breaking"`
	Reason   string `json:"reason,omitempty"`
}

// Message is one line about the change.
func (c Change) Message() string {
	switch c.Kind {
	case KindAdded:
		return "tool " + c.Tool + " added"
	case KindRemoved:
		return "tool " + c.Tool + " removed"
	case KindRenamed:
		return "tool " + c.Old + " renamed " + c.New + " (same description and schemas)"
	case KindInputSchema, KindOutputSchema:
		field := "inputSchema"
		if c.Kind == KindOutputSchema {
			field = "outputSchema"
		}
		if c.Breaking {
			return "tool " + c.Tool + ": " + field + " changed, breaking: " + c.Reason
		}
		return "tool " + c.Tool + ": " + field + " changed, not breaking"
	case KindDescription:
		return fmt.Sprintf("tool %s: description %q -> %q", c.Tool, short(c.Old), short(c.New))
	case KindAnnotations:
		return "tool " + c.Tool + ": annotations " + c.Old + " -> " + c.New
	}
	return "tool " + c.Tool + ": " + c.Kind
}

// short cuts a description for a message.
func short(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}

// Compare says how the live tools differ from the declared ones, sorted
// by tool name (a rename under its new name), then kind. A declared tool
// missing from live and a live tool missing from the declared ones with
// the same description and schemas are one rename; without Annotations on
// the declared side, annotations are not compared.
func Compare(declared, live []Tool) []Change {
	d, l := byName(declared), byName(live)
	var removed, added []string
	var out []Change
	for _, name := range sortedNames(d) {
		lt, ok := l[name]
		if !ok {
			removed = append(removed, name)
			continue
		}
		out = append(out, compareTool(d[name], lt)...)
	}
	for _, name := range sortedNames(l) {
		if _, ok := d[name]; !ok {
			added = append(added, name)
		}
	}
	renamed := map[string]bool{}
	for _, old := range removed {
		i := slices.IndexFunc(added, func(n string) bool { return !renamed[n] && sameTool(d[old], l[n]) })
		if i < 0 {
			out = append(out, Change{Kind: KindRemoved, Tool: old, Breaking: true, Reason: "callers of " + old + " fail"})
			continue
		}
		renamed[added[i]] = true
		out = append(out, Change{Kind: KindRenamed, Tool: added[i], Old: old, New: added[i], Breaking: true, Reason: "callers of " + old + " fail"})
	}
	for _, name := range added {
		if !renamed[name] {
			out = append(out, Change{Kind: KindAdded, Tool: name})
		}
	}
	kinds := []string{KindAdded, KindRemoved, KindRenamed, KindInputSchema, KindOutputSchema, KindDescription, KindAnnotations}
	slices.SortStableFunc(out, func(a, b Change) int {
		if c := strings.Compare(a.Tool, b.Tool); c != 0 {
			return c
		}
		return slices.Index(kinds, a.Kind) - slices.Index(kinds, b.Kind)
	})
	return out
}

// compareTool compares one tool on both sides.
func compareTool(d, l Tool) []Change {
	var out []Change
	for _, f := range []struct {
		kind, field string
		old, new    json.RawMessage
	}{{KindInputSchema, "inputSchema", d.InputSchema, l.InputSchema}, {KindOutputSchema, "outputSchema", d.OutputSchema, l.OutputSchema}} {
		if sameJSON(f.old, f.new) {
			continue
		}
		why := diff.SchemaBreak(f.field, f.old, f.new)
		out = append(out, Change{Kind: f.kind, Tool: d.Name, Breaking: why != "", Reason: why})
	}
	if d.Description != l.Description {
		out = append(out, Change{Kind: KindDescription, Tool: d.Name, Old: d.Description, New: l.Description})
	}
	if d.Annotations != nil {
		old, new := hints(d.Annotations), hints(l.Annotations)
		if old != new {
			o, n := old.differ(new)
			out = append(out, Change{Kind: KindAnnotations, Tool: d.Name, Old: o, New: n})
		}
	}
	return out
}

// sameTool reports whether two tools differ in nothing but their name.
func sameTool(a, b Tool) bool {
	return a.Description == b.Description && sameJSON(a.InputSchema, b.InputSchema) && sameJSON(a.OutputSchema, b.OutputSchema)
}

// sameJSON reports whether two JSON values are equal, whatever their
// key order and spacing; nil equals only nil (or empty).
func sameJSON(a, b json.RawMessage) bool {
	ca, errA := canonical(a)
	cb, errB := canonical(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca, cb)
}

// canonical is a JSON value re-encoded with sorted keys and its numbers
// as written.
func canonical(raw json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// annotationHints are a tool's annotations as they take effect, the MCP
// defaults filled in: two recordings that spell them differently (one
// writes a default out, one leaves it) compare equal.
type annotationHints struct {
	Title                                                        string
	ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint bool
}

// hints reads annotations; absent ones take the MCP defaults (read-only
// false, destructive true, idempotent false, open-world true).
func hints(raw json.RawMessage) annotationHints {
	a := struct {
		Title                                                        string
		ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint *bool
	}{}
	_ = json.Unmarshal(raw, &a)
	or := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	return annotationHints{Title: a.Title, ReadOnlyHint: or(a.ReadOnlyHint, false), DestructiveHint: or(a.DestructiveHint, true),
		IdempotentHint: or(a.IdempotentHint, false), OpenWorldHint: or(a.OpenWorldHint, true)}
}

// differ words the hints that differ, old and new: "destructiveHint
// false", "destructiveHint true".
func (h annotationHints) differ(n annotationHints) (old, new string) {
	var o, w []string
	for _, f := range []struct {
		name string
		a, b bool
	}{{"readOnlyHint", h.ReadOnlyHint, n.ReadOnlyHint}, {"destructiveHint", h.DestructiveHint, n.DestructiveHint},
		{"idempotentHint", h.IdempotentHint, n.IdempotentHint}, {"openWorldHint", h.OpenWorldHint, n.OpenWorldHint}} {
		if f.a != f.b {
			o, w = append(o, fmt.Sprintf("%s %t", f.name, f.a)), append(w, fmt.Sprintf("%s %t", f.name, f.b))
		}
	}
	if h.Title != n.Title {
		o, w = append(o, fmt.Sprintf("title %q", h.Title)), append(w, fmt.Sprintf("title %q", n.Title))
	}
	return strings.Join(o, ", "), strings.Join(w, ", ")
}

func byName(tools []Tool) map[string]Tool {
	m := make(map[string]Tool, len(tools))
	for _, t := range tools {
		if _, dup := m[t.Name]; !dup {
			m[t.Name] = t
		}
	}
	return m
}

func sortedNames(m map[string]Tool) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
