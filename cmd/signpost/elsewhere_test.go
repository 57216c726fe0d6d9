package main

import (
	"fmt"
	"strings"
	"testing"
)

// A catalog of many servers hosted elsewhere names the first ten and
// counts the rest, so that build's summary stays readable; a few are
// all named.
func TestPrintElsewhere(t *testing.T) {
	line := func(i int) string { return fmt.Sprintf("server com.example/s%d: its endpoint is on another origin", i) }
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{0, nil},
		{4, []string{line(0), line(1), line(2), line(3)}},
		{10, []string{line(0), line(1), line(2), line(3), line(4), line(5), line(6), line(7), line(8), line(9)}},
		{10000, []string{line(0), line(1), line(2), line(3), line(4), line(5), line(6), line(7), line(8), line(9),
			"and 9990 more servers with an endpoint on another origin: the MCP server there must serve its own card at <endpoint>/server-card"}},
		{11, []string{line(0), line(1), line(2), line(3), line(4), line(5), line(6), line(7), line(8), line(9),
			"and 1 more server with an endpoint on another origin: the MCP server there must serve its own card at <endpoint>/server-card"}},
	} {
		var lines []string
		for i := range tc.n {
			lines = append(lines, line(i))
		}
		var b strings.Builder
		if err := printElsewhere(&b, lines); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if b.Len() == 0 {
			got = nil
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%d servers elsewhere:\n%s\nwant\n%s", tc.n, b.String(), strings.Join(tc.want, "\n"))
		}
	}
}
