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

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0:                "0 B",
		1023:             "1023 B",
		1024:             "1 KiB",
		1536:             "1.5 KiB",
		373_665:          "365 KiB",
		4 << 20:          "4 MiB",
		64 << 20:         "64 MiB",
		1_258_291_200:    "1.2 GiB",
		1 << 30:          "1 GiB",
		(10 << 30) + 1:   "10 GiB",
		(1 << 50) * 2000: "2000 PiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSome(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, "none"},
		{[]string{"a"}, "a"},
		{[]string{"a", "b", "c"}, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c and 2 more"},
	} {
		if got := Some(c.names, 3); got != c.want {
			t.Errorf("Some(%q, 3) = %q, want %q", c.names, got, c.want)
		}
	}
}
