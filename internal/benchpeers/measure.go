package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
)

// row is one line of the report: a measure, both figures and their ratio.
type row struct {
	measure  string
	signpost string
	peer     string
	figure   string
	ratio    float64
	ratioOf  string // what the ratio is: "cost" (signpost/peer) or "speed" (how many times faster)
	goal     string
	met      bool
}

func printRows(rows []row) error {
	if len(rows) == 0 {
		return nil
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEASURE\tSIGNPOST\tPEER\tPEER FIGURE\tRATIO\tGOAL\tMET")
	for _, r := range rows {
		met := "yes"
		if !r.met {
			met = "NO"
		}
		if r.goal == "" {
			met = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2fx %s\t%s\t%s\n", r.measure, r.signpost, r.peer, r.figure, r.ratio, r.ratioOf, r.goal, met)
	}
	return tw.Flush()
}

func numCPU() int { return runtime.NumCPU() }

func splitComma(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
