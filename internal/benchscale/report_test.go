package main

import (
	"math"
	"strings"
	"testing"
)

// fixture is two series as a run measures them: tools growing linearly
// but for a wall time that grows faster between the last two steps, and
// tenants whose measures barely grow.
func fixture() []series {
	return []series{
		{one: "tool", unit: "tools", fixed: "2 tenants", steps: []step{
			{size: 1_000, values: [numMeasures]float64{1.0, 50e6, 20e6, 4_000, 4_003}},
			{size: 10_000, values: [numMeasures]float64{8.0, 150e6, 200e6, 40_000, 40_003}},
			{size: 100_000, values: [numMeasures]float64{120.0, 600e6, 2000e6, 400_000, 400_003}},
		}},
		{one: "tenant", unit: "tenants", fixed: "10,000 tools", steps: []step{
			{size: 1, values: [numMeasures]float64{2.0, 100e6, 100e6, 20_000, 20_002}},
			{size: 100, values: [numMeasures]float64{3.0, 110e6, 105e6, 25_000, 25_100}},
		}},
	}
}

func TestGrowth(t *testing.T) {
	s := fixture()[0]
	for _, c := range []struct {
		step int
		m    measure
		want float64
	}{
		{1, wallTime, 0.8},      // 8x for 10x the tools
		{2, wallTime, 1.5},      // 15x for 10x
		{1, peakRSS, 0.3},       // 3x
		{1, outputBytes, 1.0},   // linear
		{2, filesWritten, 1.0},  // linear
		{1, publishPuts, 0.999}, // 40,003 / 4,003 / 10, to three places
	} {
		if got := s.growth(c.step, c.m); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("growth of %s at step %d = %.4f, want %.3f", measureNames[c.m], c.step, got, c.want)
		}
	}
	zero := series{steps: []step{{size: 1}, {size: 10}, {size: 100, values: [numMeasures]float64{1}}}}
	if got := zero.growth(1, wallTime); got != 0 {
		t.Errorf("a measure that stays zero grows by %v, want 0", got)
	}
	if got := zero.growth(2, wallTime); !math.IsInf(got, 1) {
		t.Errorf("a measure that leaves zero grows by %v, want +Inf", got)
	}
}

func TestMisses(t *testing.T) {
	g := goals{tolerance: 1.25, maxRSS: 500_000_000}
	got := g.misses(fixture())
	// In the order of the table: a step's RSS, then its growth.
	want := []string{
		"100,000 tools: peak RSS 600 MB is not below 500 MB",
		"10,000 to 100,000 tools: build wall time grew by a factor of 1.50 of the size's growth, over 1.25",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("misses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := (goals{tolerance: 1.5, maxRSS: 600_000_001}).misses(fixture()); len(got) != 0 {
		t.Errorf("a factor at the tolerance and an RSS below the bound miss: %q", got)
	}
	if got := (goals{tolerance: 1.5, maxRSS: 600_000_000}).misses(fixture()); len(got) != 1 || !strings.Contains(got[0], "peak RSS 600 MB") {
		t.Errorf("an RSS at the bound does not miss: %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	var b strings.Builder
	if err := writeMarkdown(&b, "Measured on a test.", fixture(), goals{tolerance: 1.25, maxRSS: 500_000_000}); err != nil {
		t.Fatal(err)
	}
	want := `Measured on a test.

| series | size | build wall time | peak RSS | output | files written | PUTs of a first publish |
|---|---:|---:|---:|---:|---:|---:|
| tools, 2 tenants | 1,000 tools | 1.00 s | 50 MB | 20.0 MB | 4,000 | 4,003 |
|  | 10,000 tools | 8.00 s (0.80) | 150 MB (0.30) | 200.0 MB (1.00) | 40,000 (1.00) | 40,003 (1.00) |
|  | 100,000 tools | 120.00 s (**1.50**) | 600 MB (0.40) | 2000.0 MB (1.00) | 400,000 (1.00) | 400,003 (1.00) |
| tenants, 10,000 tools | 1 tenant | 2.00 s | 100 MB | 100.0 MB | 20,000 | 20,002 |
|  | 100 tenants | 3.00 s (0.01) | 110 MB (0.01) | 105.0 MB (0.01) | 25,000 (0.01) | 25,100 (0.01) |

In parentheses, the growth factor from the step above: the measure's growth divided by the size's, so that 1.00 is linear. Goals: every factor at most 1.25, peak RSS below 500 MB at every step.
`
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSizes(t *testing.T) {
	got, err := sizes("1000, 10_000,100000")
	if err != nil || len(got) != 3 || got[0] != 1000 || got[1] != 10000 || got[2] != 100000 {
		t.Errorf("sizes = %v, %v", got, err)
	}
	if got, err := sizes(""); err != nil || len(got) != 0 {
		t.Errorf("no sizes = %v, %v", got, err)
	}
	for _, bad := range []string{"10,1", "0", "x", "5,5"} {
		if _, err := sizes(bad); err == nil {
			t.Errorf("sizes(%q) accepted", bad)
		}
	}
}

func TestPutsOf(t *testing.T) {
	// Two sites of 3 and 5 uploads: 8 uploads, 2 manifests, 1 lock. The
	// keys of an upload, and members named like the counted ones deeper
	// down, count nothing.
	plan := `{"bucket": "b", "dryRun": true, "refused": false, "sites": [
	  {"tenant": "a", "prefix": "tenants/a/", "uploads": [{"key": "k1", "reason": "new"}, {"key": "k2", "reason": "new"}, {"key": "k3", "reason": "new", "sites": [{}], "uploads": [{}]}], "deletes": [], "unchanged": 0},
	  {"tenant": "b", "prefix": "", "uploads": [{"key": "1"}, {"key": "2"}, {"key": "3"}, {"key": "4"}, {"key": "5"}], "deletes": ["x"], "unchanged": 2, "cloudfront": {"functions": [{"name": "f"}], "invalidations": []}}
	]}`
	got, err := putsOf(strings.NewReader(plan))
	if err != nil || got != 11 {
		t.Errorf("putsOf = %d, %v; want 11", got, err)
	}
	if _, err := putsOf(strings.NewReader(`{"sites": []}`)); err == nil {
		t.Error("a plan without sites counted")
	}
	if _, err := putsOf(strings.NewReader(`{"sites": [{"uploads": [`)); err == nil {
		t.Error("a plan cut short counted")
	}
}
