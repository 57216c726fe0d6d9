package diff

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRiskKinds(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "tier-raised", want: []string{"tier-raised"}},
		{in: " tier-raised , egress-widened,tier-raised", want: []string{"tier-raised", "egress-widened"}},
		{in: "any", want: []string{"any"}},
		{in: "tier-raised,bogus", wantErr: `unknown risk kind "bogus": use any or tier-raised, egress-widened`},
		{in: ",", wantErr: "no risk kind"},
	}
	for _, tt := range tests {
		got, err := ParseRiskKinds(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRiskKinds(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseRiskKinds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	wantKinds := []string{
		"tier-raised", "egress-widened", "replay-loosened", "tool-added", "tool-removed", "tool-reassigned",
		"access-opened", "tenant-widened", "compact-changed", "server-added", "server-removed", "server-remote-changed",
		"registry-added", "registry-removed", "registry-renamed", "version-backwards", "origin-changed", "identifier-changed", "route-removed", "target-changed", "limits-raised", "reserved-changed", "group-moved",
	}
	if diff := cmp.Diff(wantKinds, RiskKinds()); diff != "" {
		t.Errorf("RiskKinds (-want +got):\n%s", diff)
	}
	for _, k := range wantKinds {
		if got, err := ParseRiskKinds(k); err != nil || !slices.Equal(got, []string{k}) {
			t.Errorf("ParseRiskKinds(%q) = %v, %v", k, got, err)
		}
	}
	c := &Change{Risks: []Risk{{Kind: RiskTierRaised}}}
	if c.HasRisk(RiskToolRemoved) || !c.HasRisk(RiskToolRemoved, RiskTierRaised) || !c.HasRisk(RiskAny) {
		t.Error("HasRisk")
	}
	if (&Change{}).HasRisk(RiskAny) {
		t.Error("HasRisk(any) without risks")
	}
}

// TestVersionBefore orders versions as semantic versioning does, build
// metadata aside; a version that is not semantic comes before none.
func TestVersionBefore(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"1.0.0", "1.0.1", true},
		{"1.9.0", "1.10.0", true},
		{"1.0.0-rc.1", "1.0.0", true},
		{"1.0.0-alpha", "1.0.0-alpha.1", true},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", true},
		{"1.0.0-beta.2", "1.0.0-beta.11", true},
		{"1.0.0-rc.1", "1.0.0-rc.1+b", false},
		{"1.0.0+b", "1.0.0+a", false},
		{"2.0.0", "1.9.9", false},
		{"v1.0.0", "1.0.1", true},
		{"1.0", "1.0.1", false},
		{"2024-01-01", "2025-01-01", false},
		{"01.0.0", "1.0.1", false},
	} {
		if got := versionBefore(tc.a, tc.b); got != tc.want {
			t.Errorf("versionBefore(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
