package build

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/budgets"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// budgetCatalog is a catalog of three tools of growing size, with the
// toolCatalog section given.
func budgetCatalog(t *testing.T, toolCatalog string) string {
	t.Helper()
	sized := func(name string, props int) string {
		var b strings.Builder
		b.WriteString("  - toolId: " + name + "\n    description: Does " + name + ".\n    source: host-extension\n    safetyTier: read\n    replayPolicy: idempotent\n    egress: none\n    inputSchema:\n      type: object\n      properties:\n")
		for i := range props {
			b.WriteString("        p" + strings.Repeat("x", i) + ": {type: string, description: A property of the tool, with a description.}\n")
		}
		return b.String()
	}
	return catalogtest.Write(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\n" + toolCatalog,
		"tools.yaml":    "tools:\n" + sized("small", 1) + sized("medium", 10) + sized("large", 30),
	})
}

func compileErr(t *testing.T, dir string) error {
	t.Helper()
	ctx := context.Background()
	cat, diags := Load(ctx, dir)
	if diags.HasErrors() {
		var b strings.Builder
		_ = diags.Write(&b, FormatText)
		t.Fatalf("load:\n%s", b.String())
	}
	_, err := Compile(ctx, cat)
	return err
}

func TestBudgets(t *testing.T) {
	ok := compiled(t, budgetCatalog(t, ""))
	s := ok.Sites[0]
	t.Logf("tokens: standard %d, compact %d", s.Tokens.Standard, s.Tokens.Compact)
	for _, tc := range []struct {
		name, toolCatalog, budget string
		offenders                 []string
		message                   string
	}{
		{"tool", "toolCatalog: {budgets: {tool: 200}}\n", budgets.ToolBudget, []string{"large", "medium"},
			`^2 tools' standard descriptors are over toolCatalog\.budgets\.tool in signpost\.yaml \(200 tokens\); the largest: large \(\d+ tokens, \S*tools\.yaml:\d+:\d+\), medium \(\d+ tokens, \S*tools\.yaml:\d+:\d+\); shorten`},
		{"compact list", "toolCatalog: {budgets: {compactList: 100, tool: 100000}}\n", budgets.CompactList, []string{"large", "medium", "small"},
			`^the /tools\?view=compact list costs \d+ tokens, more than toolCatalog\.budgets\.compactList in signpost\.yaml \(100 tokens\); the largest: large \(`},
		{"standard list", "toolCatalog: {budgets: {standardList: 100}}\n", budgets.StandardList, []string{"large", "medium", "small"},
			`^the /tools list costs \d+ tokens, more than toolCatalog\.budgets\.standardList`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compileErr(t, budgetCatalog(t, tc.toolCatalog))
			var be *budgets.Error
			if !errors.As(err, &be) {
				t.Fatalf("Compile: %v; want a *budgets.Error", err)
			}
			if be.Budget != tc.budget {
				t.Errorf("budget %q; want %q", be.Budget, tc.budget)
			}
			var ids []string
			for i, o := range be.Offenders {
				ids = append(ids, o.ID)
				if i > 0 && o.Tokens > be.Offenders[i-1].Tokens {
					t.Errorf("offenders not largest first: %+v", be.Offenders)
				}
				if o.Pos.File == "" || o.Pos.Line == 0 {
					t.Errorf("offender %s has no position", o.ID)
				}
			}
			if strings.Join(ids, " ") != strings.Join(tc.offenders, " ") {
				t.Errorf("offenders %v; want %v", ids, tc.offenders)
			}
			if !regexp.MustCompile(tc.message).MatchString(err.Error()) {
				t.Errorf("message %q does not match %s", err, tc.message)
			}
		})
	}
	// Budgets the catalog keeps, and a compact budget with the view off.
	for _, tc := range []string{
		"toolCatalog: {budgets: {tool: 100000, compactList: 100000, standardList: 100000}}\n",
		"toolCatalog: {compactView: false, budgets: {compactList: 1}}\n",
	} {
		if err := compileErr(t, budgetCatalog(t, tc)); err != nil {
			t.Errorf("%s: %v", tc, err)
		}
	}
}
