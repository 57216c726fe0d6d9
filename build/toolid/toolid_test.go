package toolid

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckToolID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want string // substring of the message; "" means valid
	}{
		{"get_forecast", ""},
		{"a", ""},
		{"v2_api", ""},
		{strings.Repeat("a", 48), ""},
		{strings.Repeat("a", 49), "is 49 characters; the limit is 48"},
		{"", "empty"},
		{"../x", "looks like a path"},
		{"a/b", "looks like a path"},
		{`a\b`, "looks like a path"},
		{"GetForecast", `not ASCII snake case`},
		{"get-forecast", `for example "get_forecast"`},
		{"get__forecast", "not ASCII snake case"},
		{"_private", "not ASCII snake case"},
		{"trailing_", "not ASCII snake case"},
		{"9lives", "not ASCII snake case"},
		{"café", "not ASCII snake case"},
		{"index.json", "not ASCII snake case"},
	} {
		got := Check(tc.id)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("Check(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"get_issue":            "get_issue",
		"getIssue":             "get_issue",
		"get-issue":            "get_issue",
		"Get Issue":            "get_issue",
		"getHTTPResponse":      "get_http_response",
		"listPRs":              "list_prs",
		"v2Search":             "v2_search",
		"search.code":          "search_code",
		"__dunder__":           "dunder",
		"9lives":               "t_9lives",
		"résumé_tool":          "r_sum_tool",
		"kiali_get_mesh_graph": "kiali_get_mesh_graph",
		"":                     "",
		"---":                  "",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
		if got := SnakeCase(in); got != "" && Check(got) != "" && len(got) <= MaxLen {
			t.Errorf("SnakeCase(%q) = %q is not a valid toolId: %s", in, got, Check(got))
		}
	}
}

func TestDeriveToolIDs(t *testing.T) {
	long := strings.Repeat("very_", 12) + "long_name" // 69 characters
	claims := []Claim{
		{Base: "get_issue", Canonical: true, Identity: "s\x00get_issue"},
		{Base: "get_issue", Canonical: false, Identity: "s\x00getIssue"},
		{Base: "list_items", Canonical: false, Identity: "s\x00list-items"},
		{Base: "list_items", Canonical: false, Identity: "s\x00listItems"},
		{Base: "unique_one", Canonical: false, Identity: "s\x00uniqueOne"},
		{Base: "taken", Canonical: true, Identity: "s\x00taken"},
		{Base: long, Canonical: true, Identity: "s\x00" + long},
	}
	got := Derive(claims, map[string]bool{"taken": true})
	want := []string{
		"get_issue",
		"get_issue_" + Digest("s\x00getIssue"),
		"list_items_" + Digest("s\x00list-items"),
		"list_items_" + Digest("s\x00listItems"),
		"unique_one",
		"taken_" + Digest("s\x00taken"),
		strings.TrimRight(long[:39], "_") + "_" + Digest("s\x00"+long),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Derive (-want +got):\n%s", diff)
	}
	for _, id := range got {
		if msg := Check(id); msg != "" {
			t.Errorf("derived toolId %q is invalid: %s", id, msg)
		}
	}

	// Order does not matter: reversing the claims gives the same ids.
	rev := make([]Claim, len(claims))
	for i, c := range claims {
		rev[len(claims)-1-i] = c
	}
	gotRev := Derive(rev, map[string]bool{"taken": true})
	for i := range got {
		if got[i] != gotRev[len(got)-1-i] {
			t.Errorf("claim %d: %q in order, %q reversed", i, got[i], gotRev[len(got)-1-i])
		}
	}
}

func TestDigestSuffixIsStable(t *testing.T) {
	// The suffix is part of a public URL: it must never change between
	// releases. This pins the algorithm (first 4 bytes of SHA-256, hex).
	if got, want := Digest("com.example/tickets\x00getTicket"), "5532d1c6"; got != want {
		t.Errorf("Digest changed: got %s, want %s", got, want)
	}
}
