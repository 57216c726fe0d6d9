package budgets

import (
	"errors"
	"testing"

	"github.com/signpost-dev/signpost/build/source"
)

func TestCheck(t *testing.T) {
	tools := []Tool{
		{ID: "a", Standard: 10, Compact: 5},
		{ID: "b", Standard: 30, Compact: 9, Pos: func() source.Pos { return source.Pos{File: "t.yaml", Line: 3, Col: 5} }},
		{ID: "c", Standard: 30, Compact: 9, VisibleTo: func(tenant string) bool { return tenant == "acme" }},
		{ID: "d", Standard: 1, Compact: 1}, {ID: "e", Standard: 2, Compact: 1}, {ID: "f", Standard: 3, Compact: 1},
	}
	var e *Error
	err := Budgets{CompactList: 20}.Check(tools, []string{"globex", "acme"}, true)
	if !errors.As(err, &e) || e.Tenant != "acme" || e.Tokens != 26 {
		t.Fatalf("Check: %v; want the compact list of acme over", err)
	}
	const want = "the /tools?view=compact list of tenant acme costs 26 tokens, more than toolCatalog.budgets.compactList in signpost.yaml (20 tokens); " +
		"the largest: b (9 tokens, t.yaml:3:5), c (9 tokens), a (5 tokens), d (1 token), e (1 token); shorten their descriptions or schemas, or raise the budget"
	if err.Error() != want {
		t.Errorf("message:\n%s\nwant:\n%s", err, want)
	}
	err = Budgets{Tool: 20, CompactList: 1}.Check(tools, nil, true)
	if !errors.As(err, &e) || e.Budget != ToolBudget || e.Over != 2 || len(e.Offenders) != 2 || e.Offenders[0].ID != "b" {
		t.Errorf("tool budget: %v", err)
	}
	if err := (Budgets{CompactList: 1, StandardList: 1000, Tool: 1000}).Check(tools, nil, false); err != nil {
		t.Errorf("compact budget with the view off: %v", err)
	}
	if err := (Budgets{}).Check(tools, nil, true); err != nil {
		t.Errorf("no budgets: %v", err)
	}
}
