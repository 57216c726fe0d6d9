// Package budgets holds a built catalog to the token budgets of its
// signpost.yaml (toolCatalog.budgets): how many tokens each site's tool
// lists, and each tool's standard descriptor, may cost a model, counted as
// the build counts them (build/tokens). Load has no tokens to count, so
// Compile checks them, once every descriptor is encoded and counted.
package budgets

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/english"
)

// Budgets bound the tokens a site's tool catalog costs a model, counted as
// output.Site.Tokens and the tool catalogue count them. signpost.yaml sets
// them under toolCatalog.budgets:; a zero field sets no budget.
type Budgets struct {
	// StandardList bounds each site's /tools list: the tokens of the
	// standard descriptors of the tools it publishes, summed.
	StandardList int
	// CompactList bounds each site's /tools?view=compact list likewise. It
	// does not apply when the compact view is off.
	CompactList int
	// Tool bounds each tool's standard descriptor (/tools/{toolId}).
	Tool int
}

// Names of the budgets, as signpost.yaml writes them under
// toolCatalog.budgets.
const (
	StandardList = "standardList"
	CompactList  = "compactList"
	ToolBudget   = "tool"
)

// maxOffenders is how many of the largest tools a Error names.
const maxOffenders = 5

// Error reports a catalog that costs more tokens than one of its Budgets
// allows.
type Error struct {
	Budget string // StandardList, CompactList or ToolBudget
	Max    int
	// Tokens is the cost found: of the list, or of the largest tool.
	Tokens int
	// Tenant is the site whose list is over budget; "" without tenants.
	Tenant string
	// Over counts the tools over the tool budget; 0 for a list's.
	Over int
	// Offenders are the largest tools of the list, or those over the tool
	// budget, largest first (ties by toolId), at most five.
	Offenders []Offender
}

// Offender is one tool a Error names, with its cost in the
// budget's view and where it is declared.
type Offender struct {
	ID     string
	Tokens int
	Pos    source.Pos // zero for a tool not read from a file
}

func (e *Error) Error() string {
	var b strings.Builder
	setting := fmt.Sprintf("toolCatalog.budgets.%s in signpost.yaml (%s)", e.Budget, english.Count(e.Max, "token", "tokens"))
	switch e.Budget {
	case ToolBudget:
		fmt.Fprintf(&b, "%s over %s", english.Count(e.Over, "tool's standard descriptor is", "tools' standard descriptors are"), setting)
	default:
		what := "the /tools list"
		if e.Budget == CompactList {
			what = "the /tools?view=compact list"
		}
		if e.Tenant != "" {
			what += " of tenant " + e.Tenant
		}
		fmt.Fprintf(&b, "%s costs %s, more than %s", what, english.Count(e.Tokens, "token", "tokens"), setting)
	}
	b.WriteString("; the largest: ")
	for i, o := range e.Offenders {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s", o.ID, english.Count(o.Tokens, "token", "tokens"))
		if o.Pos.File != "" {
			fmt.Fprintf(&b, ", %s", o.Pos)
		}
		b.WriteString(")")
	}
	b.WriteString("; shorten their descriptions or schemas, or raise the budget")
	return b.String()
}

// Tool is a tool a site may publish, with its costs: the tokens of its
// standard and compact descriptors.
type Tool struct {
	ID                string
	Standard, Compact int
	Pos               func() source.Pos // where it is declared, if known; nil or zero if not
	VisibleTo         func(string) bool // whether the tenant's site publishes it
}

// Check holds tools to b: each tool first, then the lists of each site
// (tenant "" without tenants), tenant by tenant; compactView says whether
// the sites publish the compact list.
func (b Budgets) Check(tools []Tool, tenants []string, compactView bool) error {
	if b.Tool > 0 {
		var over []int
		for i, t := range tools {
			if t.Standard > b.Tool {
				over = append(over, i)
			}
		}
		if len(over) > 0 {
			e := &Error{Budget: ToolBudget, Max: b.Tool, Over: len(over)}
			e.Offenders = offenders(tools, over, func(t Tool) int { return t.Standard })
			e.Tokens = e.Offenders[0].Tokens
			return e
		}
	}
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	for _, tenant := range tenants {
		var visible []int
		var std, cpt int
		for i, t := range tools {
			if t.VisibleTo == nil || t.VisibleTo(tenant) {
				visible = append(visible, i)
				std += t.Standard
				cpt += t.Compact
			}
		}
		for _, l := range []struct {
			name     string
			max, got int
			cost     func(Tool) int
		}{
			{StandardList, b.StandardList, std, func(t Tool) int { return t.Standard }},
			{CompactList, b.CompactList, cpt, func(t Tool) int { return t.Compact }},
		} {
			if l.max <= 0 || l.got <= l.max || l.name == CompactList && !compactView {
				continue
			}
			return &Error{Budget: l.name, Max: l.max, Tokens: l.got, Tenant: tenant, Offenders: offenders(tools, visible, l.cost)}
		}
	}
	return nil
}

// offenders returns the largest of the tools idx by cost, at most
// maxOffenders.
func offenders(tools []Tool, idx []int, cost func(Tool) int) []Offender {
	idx = slices.Clone(idx)
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(cost(tools[b]), cost(tools[a])), strings.Compare(tools[a].ID, tools[b].ID))
	})
	out := make([]Offender, 0, min(len(idx), maxOffenders))
	for _, i := range idx[:min(len(idx), maxOffenders)] {
		o := Offender{ID: tools[i].ID, Tokens: cost(tools[i])}
		if tools[i].Pos != nil {
			o.Pos = tools[i].Pos()
		}
		out = append(out, o)
	}
	return out
}
