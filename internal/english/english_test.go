package english

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 tools", 1: "1 tool", 2: "2 tools", -1: "-1 tools"} {
		if got := Count(n, "tool", "tools"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestQuotedOr(t *testing.T) {
	for want, names := range map[string][]string{
		``:                   nil,
		`"a"`:                {"a"},
		`"a" or "b"`:         {"a", "b"},
		`"a", "b" or "c\"d"`: {"a", "b", `c"d`},
	} {
		if got := QuotedOr(names); got != want {
			t.Errorf("QuotedOr(%q) = %s, want %s", names, got, want)
		}
	}
}
