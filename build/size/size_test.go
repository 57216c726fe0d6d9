package size

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[any]int64{
		"1": 1, "512B": 512, "100kB": 100_000, "100KB": 100_000, "64MiB": 64 << 20, "64 MiB": 64 << 20,
		"1.5GB": 1_500_000_000, "0.25MiB": 1 << 18, "1GiB": 1 << 30,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []any{"", "64 megabytes", "-1", "0", "0.1B", "1e9", "1TiB", true, nil} {
		if n, err := Parse(in); err == nil {
			t.Errorf("Parse(%v) = %d, want an error", in, n)
		}
	}
}
