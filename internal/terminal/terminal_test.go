package terminal

import (
	"testing"
)

func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain.yaml":        "plain.yaml",
		"x\x1b[2J.yaml":     `x\x1b[2J.yaml`,
		"two\nlines":        `two\nlines`,
		"bell\a":            `bell\a`,
		"bad\xffutf8":       `bad\xffutf8`,
		"rtl\u202eevil":     `rtl\u202eevil`,
		"sep\u2028line":     `sep\u2028line`,
		"café, 東京, emoji 🙂": "café, 東京, emoji 🙂",
	} {
		if got := Safe(in); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
		if got := Safe(Safe(in)); got != want {
			t.Errorf("Safe is not idempotent on %q: %q", in, got)
		}
	}
}
