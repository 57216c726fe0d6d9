package spec

import "testing"

// TestAcceptsEncoding holds the rule to RFC 9110's, section 12.5.3, on
// the headers clients send and on the ones that test a reader: a coding
// named with q=0 stays refused whatever "*" says, and an element the
// grammar does not allow says nothing.
func TestAcceptsEncoding(t *testing.T) {
	for _, c := range []struct {
		header   string
		br, gzip bool
	}{
		{"gzip, deflate, br, zstd", true, true},
		{"gzip", false, true},
		{"BR;Q=0.5, GZIP", true, true},
		{"br;q=0, gzip", false, true},
		{"br;q=0.000, gzip;q=0.001", false, true},
		{"br;q=0, *", false, true},
		{"gzip;q=0, br;q=0, *", false, false},
		{"*", true, true},
		{"*;q=0", false, false},
		{"*;q=0, gzip", false, true},
		{"identity;q=0, *", true, true},
		{"identity", false, false},
		{"", false, false},
		{" , gzip ; q=0.5 ,", false, true},
		{"gzip;q=0, gzip", false, true},
		{"gzip;q=1.0", false, true},
		{"gzip;q=1.", false, true},
		{"gzip;q=0.", false, false},
		// Not the grammar's: each says nothing.
		{"gzip;q=abc", false, false},
		{"gzip;q=", false, false},
		{"gzip;q= 0.5", false, false},
		{"gzip;q=2", false, false},
		{"gzip;q=1.5", false, false},
		{"gzip;q=0.0001", false, false},
		{"gzip;q=1e-3", false, false},
		{"gzip;q=inf", false, false},
		{"gzip;level=9", false, false},
		{"gzip;q=0.5;level=9", false, false},
		{"br;q=abc, *", true, true},
	} {
		for coding, want := range map[string]bool{EncodingBrotli: c.br, EncodingGzip: c.gzip} {
			if got := AcceptsEncoding([]string{c.header}, coding); got != want {
				t.Errorf("Accept-Encoding %q allows %s: %v, want %v", c.header, coding, got, want)
			}
		}
	}
	// Values of several header lines are one list.
	if AcceptsEncoding([]string{"br;q=0", "*"}, EncodingBrotli) || !AcceptsEncoding([]string{"br;q=0", "*"}, EncodingGzip) {
		t.Error("a coding refused on one line of the header is allowed by a * on another")
	}
}
