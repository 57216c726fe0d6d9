package importer

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestMCPClassifyPatterns: patterns classify every tool they match, an
// exact name wins over a pattern, and replayPolicy and egress are
// classified apart from the tier; what is written loads.
func TestMCPClassifyPatterns(t *testing.T) {
	imp := importMCPText(t, MCPOptions{
		Classify: map[string]string{"get*": spec.TierRead, "get-ticket": spec.TierPure},
		Replay:   map[string]string{"delete_*": spec.ReplayKeyed, "getTicket": spec.ReplayUnsafe},
		Egress:   map[string]string{"*": spec.EgressInternal, "getTicket": spec.EgressNone, "get-ticket": spec.EgressNone},
	}, "tickets.json", catalogtest.RecordedTickets)
	if imp.Failed() {
		t.Fatalf("errors %q, unknown %v, conflicts %v", imp.Errors, imp.Unknown, imp.Conflicts)
	}
	got := map[string]string{}
	for _, tl := range imp.Tools {
		d := tl.Declaration
		got[tl.Name] = d["safetyTier"].(string) + " " + d["replayPolicy"].(string) + " " + d["egress"].(string)
	}
	want := map[string]string{
		"getTicket":     "read unsafe none",
		"get-ticket":    "pure deterministic none",
		"delete_ticket": "write keyed internal",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("classification (-want +got):\n%s", diff)
	}
	loadImported(t, imp, nil)
}

// TestMCPClassifyConflict: two patterns that give one tool different
// values stop the import, naming both; two that agree do not.
func TestMCPClassifyConflict(t *testing.T) {
	imp := importMCPText(t, MCPOptions{
		Classify: map[string]string{"get*": spec.TierRead, "*ticket": spec.TierPure, "getTicket": spec.TierRead},
		Egress:   map[string]string{"*_ticket": spec.EgressNone, "delete*": spec.EgressNone},
	}, "tickets.json", catalogtest.RecordedTickets)
	want := []Conflict{{Field: FieldTier, Tool: "get-ticket", Patterns: [2]string{"*ticket", "get*"}, Values: [2]string{spec.TierPure, spec.TierRead}}}
	if diff := cmp.Diff(want, imp.Conflicts); diff != "" || !imp.Failed() {
		t.Errorf("conflicts (-want +got):\n%s", diff)
	}
}

// TestMCPClassifyUnknownPattern: a pattern that matches no recorded tool
// is reported as an unknown name is, with the names most like it.
func TestMCPClassifyUnknownPattern(t *testing.T) {
	imp := importMCPText(t, MCPOptions{Replay: map[string]string{"list_*": spec.ReplayIdempotent, "getTicekt": spec.ReplayIdempotent}},
		"tickets.json", catalogtest.RecordedTickets)
	want := []UnknownName{
		{Field: FieldReplay, Name: "getTicekt", Like: []string{"getTicket", "get-ticket", "delete_ticket"}},
		{Field: FieldReplay, Name: "list_*", Pattern: true},
	}
	if diff := cmp.Diff(want, imp.Unknown); diff != "" || !imp.Failed() {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

func TestMCPClassifyOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		opts MCPOptions
		want string
	}{
		{MCPOptions{Replay: map[string]string{"x": "sometimes"}}, `tool "x": unknown replay policy "sometimes": use deterministic, idempotent, keyed, unsafe`},
		{MCPOptions{Egress: map[string]string{"x": "lan"}}, `tool "x": unknown egress "lan": use none, internal, internet`},
		{MCPOptions{Classify: map[string]string{"get_[": spec.TierRead}}, `pattern "get_[" is malformed`},
		{MCPOptions{Egress: map[string]string{"": spec.EgressNone}}, `empty tool name`},
	} {
		_, err := MCP(context.Background(), nil, tc.opts)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}
