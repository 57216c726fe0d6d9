package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/internal/benchrun"
	"github.com/signpost-dev/signpost/internal/english"
)

// measure is one figure of a step.
type measure int

const (
	wallTime measure = iota
	peakRSS
	outputBytes
	filesWritten
	publishPuts
	numMeasures
)

// measureNames name the measures in the table, the plot and the goals.
var measureNames = [numMeasures]string{"build wall time", "peak RSS", "output bytes", "files written", "PUTs of a first publish"}

// step is one size of a series and what was measured at it.
type step struct {
	size   int
	values [numMeasures]float64 // seconds, bytes, bytes, files, requests
}

// series is a list of steps that grow one thing, all else fixed.
type series struct {
	one   string // what size counts, one of it: "tool", "tenant"
	unit  string // and more: "tools", "tenants"
	fixed string // what stays the same, for the table
	steps []step
}

// count prints n of what s counts: "1 tenant", "1,000 tenants".
func (s series) count(n int) string { return thousands(n) + " " + english.Plural(n, s.one, s.unit) }

// growth is the growth factor of measure m from step i-1 to step i of s:
// how much the measure grew, divided by how much the size grew, so that
// 1.0 is linear and above it worse than linear. A measure that was zero
// and is not any more grew infinitely; one that stays zero, not at all.
func (s series) growth(i int, m measure) float64 {
	prev, cur := s.steps[i-1], s.steps[i]
	switch {
	case prev.values[m] == 0 && cur.values[m] == 0:
		return 0
	case prev.values[m] == 0:
		return math.Inf(1)
	}
	return (cur.values[m] / prev.values[m]) / (float64(cur.size) / float64(prev.size))
}

// goals are what every run must meet.
type goals struct {
	tolerance float64 // the largest growth factor of any measure at any step
	maxRSS    int64   // peak RSS must stay below this at every step, in bytes
}

// misses lists, in the order of the table, every goal a run missed.
func (g goals) misses(all []series) []string {
	var out []string
	for _, s := range all {
		for i, st := range s.steps {
			if rss := int64(st.values[peakRSS]); rss >= g.maxRSS {
				out = append(out, fmt.Sprintf("%s: peak RSS %s is not below %s", s.count(st.size), benchrun.Megabytes(rss), benchrun.Megabytes(g.maxRSS)))
			}
			if i == 0 {
				continue
			}
			for m := range numMeasures {
				if f := s.growth(i, m); f > g.tolerance {
					out = append(out, fmt.Sprintf("%s to %s %s: %s grew by a factor of %s of the size's growth, over %.2f",
						thousands(s.steps[i-1].size), thousands(st.size), s.unit, measureNames[m], factor(f), g.tolerance))
				}
			}
		}
	}
	return out
}

// writeMarkdown writes the table of every series: one row per step, each
// measure with its growth factor from the step before.
func writeMarkdown(w io.Writer, caption string, all []series, g goals) error {
	var b strings.Builder
	if caption != "" {
		b.WriteString(caption + "\n\n")
	}
	b.WriteString("| series | size | build wall time | peak RSS | output | files written | PUTs of a first publish |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range all {
		for i, st := range s.steps {
			name := ""
			if i == 0 {
				name = s.unit + ", " + s.fixed
			}
			fmt.Fprintf(&b, "| %s | %s |", name, s.count(st.size))
			for m := range numMeasures {
				b.WriteString(" " + format(m, st.values[m]))
				if i > 0 {
					f := s.growth(i, m)
					if f > g.tolerance {
						fmt.Fprintf(&b, " (**%s**)", factor(f))
					} else {
						fmt.Fprintf(&b, " (%s)", factor(f))
					}
				}
				b.WriteString(" |")
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\nIn parentheses, the growth factor from the step above: the measure's growth divided by the size's, so that 1.00 is linear. Goals: every factor at most %.2f, peak RSS below %s at every step.\n", g.tolerance, benchrun.Megabytes(g.maxRSS))
	_, err := io.WriteString(w, b.String())
	return err
}

// format prints a measure's value as the table shows it.
func format(m measure, v float64) string {
	switch m {
	case wallTime:
		return fmt.Sprintf("%.2f s", v)
	case peakRSS:
		return benchrun.Megabytes(int64(v))
	case outputBytes:
		return fmt.Sprintf("%.1f MB", v/1e6)
	}
	return thousands(int(v))
}

func factor(f float64) string {
	if math.IsInf(f, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.2f", f)
}

// thousands prints n with commas between its groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
