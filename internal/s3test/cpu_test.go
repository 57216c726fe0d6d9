package s3test

import (
	"testing"
	"time"
)

func TestProcCPU(t *testing.T) {
	// A command's name may hold spaces and parentheses: the fields count
	// from the last ')'.
	line := "1697 (versity gw (x)) S 1 1696 1696 0 -1 4194560 86041 0 0 0 2975 634 0 0 20 0 12 0 2708297 2537228288 11535 18446744073709551615 1 1 0 0 0 0 0 0 2143420159 0 0 0 17 1 0 0 0 0 0\n"
	got, err := procCPU([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if want := (2975 + 634) * 10 * time.Millisecond; got != want {
		t.Errorf("procCPU = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "1697 versitygw S 1", "1697 (versitygw) S 1 2 3 4 5 6 7 8 9 x 634"} {
		if _, err := procCPU([]byte(bad)); err == nil {
			t.Errorf("procCPU(%q) gave no error", bad)
		}
	}
}
