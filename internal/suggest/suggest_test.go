package suggest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNearest: the names offered for a mistyped one are those that share
// the most of its words, typos and plurals included, then have the fewest
// other words, then are the fewest edits away.
func TestNearest(t *testing.T) {
	github := []string{"add_issue_comment", "create_issue", "get_me", "get_tag", "issue_read", "issue_write",
		"list_issue_types", "list_issues", "pull_request_read", "search_code", "search_issues", "search_users"}
	tests := []struct {
		name  string
		names []string
		n     int
		want  []string
	}{
		{"get_issue", github, 5, []string{"list_issues", "issue_read", "issue_write", "create_issue", "search_issues"}},
		{"getIssue", github, 2, []string{"list_issues", "issue_read"}},
		{"serch_code", github, 3, []string{"search_code", "search_users", "search_issues"}},
		{"pull-request-get", github, 1, []string{"pull_request_read"}},
		// Only names that share a word, when some do.
		{"get_me_now", github, 5, []string{"get_me", "get_tag"}},
		{"list_issue", github, 2, []string{"list_issues", "list_issue_types"}},
		{"GetMe", github, 2, []string{"get_me", "get_tag"}},
		// Nothing shared: the fewest edits, at most a third of the
		// name's length.
		{"nothere", []string{"zzzzzzzzzz", "other", "notes"}, 5, []string{"other"}},
		{"ab_cd", []string{"abcd", "abxxcd", "wxyz"}, 5, []string{"abcd"}},
		{"xyz", []string{"zzzzzzzzzz", "abc", "wxyz1"}, 5, []string{}},
		{"xyz", []string{"zzzzzzzzzz", "abc", "xyz1"}, 5, []string{"xyz1"}},
		{"zzz", []string{"x", "get_issue", "list_issues", "create_issue"}, 5, []string{}},
		{"x", []string{"b", "a"}, 5, []string{}},
		{"x", nil, 5, []string{}},
		{strings.Repeat("a", 100000), []string{"b", strings.Repeat("a", 100000) + "b"}, 5, []string{strings.Repeat("a", 100000) + "b"}},
	}
	for _, tt := range tests {
		got := Nearest(tt.name, tt.names, tt.n)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Nearest(%.20q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"ticket", "ticekt", 1},
		{"forecast", "forecsat", 1},
		{"kitten", "sitting", 3},
		{"get_issue", "create_issue", 4},
		{"héllo", "hello", 1},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestInstead(t *testing.T) {
	for _, c := range []struct {
		name  string
		known []string
		want  string
	}{
		{"get_forcast", []string{"get_forecast", "list_alerts"}, `did you mean "get_forecast"?`},
		{"zzz", nil, "check the spelling (known tools: none)"},
		{"zzz", []string{"alpha", "beta", "gamma", "delta"}, "check the spelling: no name is like it (known tools: alpha, beta, gamma and 1 more)"},
	} {
		if got := Instead(c.name, c.known, "known tools"); got != c.want {
			t.Errorf("Instead(%q, %q) = %q, want %q", c.name, c.known, got, c.want)
		}
	}
}
