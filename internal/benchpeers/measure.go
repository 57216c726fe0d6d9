package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// result is one run of a command: its wall time and peak resident memory.
type result struct {
	wall   time.Duration
	maxRSS int64 // bytes
	out    []byte
}

// timed runs name with args in dir and measures it. The command's output is
// kept for the caller; a failure returns it in the error.
func timed(ctx context.Context, dir string, env []string, name string, args ...string) (result, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(start), out: out.Bytes()}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	return r, nil
}

// syncDisk flushes dirty pages, so that a run does not pay for the writes
// of the one before.
func syncDisk() { syscall.Sync() }

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// median of the wall times and of the peaks of rs.
func median(rs []result) result {
	walls := make([]time.Duration, len(rs))
	rss := make([]int64, len(rs))
	for i, r := range rs {
		walls[i], rss[i] = r.wall, r.maxRSS
	}
	slices.Sort(walls)
	slices.Sort(rss)
	return result{wall: walls[len(walls)/2], maxRSS: rss[len(rss)/2]}
}

func medianFloat(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

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

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func megabytes(n int64) string { return fmt.Sprintf("%d MB", n/1_000_000) }

func numCPU() int { return runtime.NumCPU() }

// versionOf is the first line a program prints of its version.
func versionOf(ctx context.Context, name string, args ...string) string {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func splitComma(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
