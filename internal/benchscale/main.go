// Command benchscale measures how signpost's build and publish grow with
// the size of a catalog (`make bench-scale` runs it): at 1,000, 10,000
// and 100,000 tools, and at 1, 100 and 1,000 tenants sharing 10,000
// tools, it measures the build's wall time and peak RSS, the bytes and
// files it writes, and the PUTs of a first publish to versitygw on
// 127.0.0.1. Between two steps it prints each measure's growth factor:
// its growth divided by the size's, so that 1.00 is linear.
//
// It prints the table as Markdown, writes it and a plot (SVG, drawn here
// from the measures) to the files its flags name, and exits 1 when a
// goal is missed: a growth factor over the tolerance, or a peak RSS not
// below the bound, naming each.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/signpost-dev/signpost/internal/atomicfile"
	"github.com/signpost-dev/signpost/internal/benchrun"
)

// config is what the flags set.
type config struct {
	signpost    string // the signpost binary measured
	versitygw   string // the S3 server publishes go to
	work        string // scratch folder
	tools       []int  // the steps of the tools series
	tenants     []int  // the steps of the tenants series
	tenantTools int    // the tools of the tenants series
	runs        int    // builds of each step; the median is reported
	realPublish bool   // publish for real at every step, not only the first of each series
	goals       goals
	markdown    string // where the table goes, besides stdout
	svg         string // where the plot goes
}

func main() {
	var c config
	var tools, tenants string
	var maxRSS int64
	flag.StringVar(&c.signpost, "signpost", "bin/signpost", "the signpost binary to measure")
	flag.StringVar(&c.versitygw, "versitygw", "bin/versitygw", "the S3 server publishes go to")
	flag.StringVar(&c.work, "work", "", "scratch folder (default: a new temporary one, removed at the end)")
	flag.StringVar(&tools, "tools", "1000,10000,100000", "the steps of the tools series, comma-separated (empty: none)")
	flag.StringVar(&tenants, "tenants", "1,100,1000", "the steps of the tenants series, comma-separated (empty: none)")
	flag.IntVar(&c.tenantTools, "tenant-tools", 10_000, "the tools the tenants of the tenants series share")
	flag.IntVar(&c.runs, "runs", 1, "builds of each step; the median is reported")
	flag.BoolVar(&c.realPublish, "real-publish", false, "count the PUTs of a real first publish at every step (default: at the first step of each series, and from a dry run, checked against it, at the others)")
	flag.Float64Var(&c.goals.tolerance, "tolerance", 1.25, "the largest growth factor any measure may have at any step")
	flag.Int64Var(&maxRSS, "max-rss", 500, "peak RSS must stay below this many MB at every step")
	flag.StringVar(&c.markdown, "markdown", "", "write the table as Markdown to this file too")
	flag.StringVar(&c.svg, "svg", "", "write the plot as SVG to this file")
	flag.Parse()
	c.goals.maxRSS = maxRSS * 1_000_000
	var err error
	if c.tools, err = sizes(tools); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale: -tools:", err)
		os.Exit(2)
	}
	if c.tenants, err = sizes(tenants); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale: -tenants:", err)
		os.Exit(2)
	}
	if c.runs < 1 || c.tenantTools < 1 {
		fmt.Fprintln(os.Stderr, "bench-scale: -runs and -tenant-tools must be at least 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	missed, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
	if len(missed) > 0 {
		fmt.Fprintln(os.Stderr, "\nbench-scale: goals missed:")
		for _, m := range missed {
			fmt.Fprintln(os.Stderr, "  "+m)
		}
		os.Exit(1)
	}
	fmt.Println("\nbench-scale: every goal met")
}

// sizes reads a comma-separated list of increasing positive sizes.
func sizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(f, "_", ""))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive whole number", f)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("%d does not grow from %d: give the steps in increasing order", n, out[len(out)-1])
		}
		out = append(out, n)
	}
	return out, nil
}

func run(ctx context.Context, c config) (missed []string, err error) {
	if c.signpost, err = filepath.Abs(c.signpost); err != nil {
		return nil, err
	}
	if c.versitygw, err = filepath.Abs(c.versitygw); err != nil {
		return nil, err
	}
	for _, p := range []string{c.signpost, c.versitygw} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%w (make bench-scale builds signpost and installs versitygw)", err)
		}
	}
	if c.work == "" {
		if c.work, err = os.MkdirTemp("", "signpost-bench-scale-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(c.work)
	}
	loadBefore := benchrun.LoadAverage()
	version := benchrun.VersionOf(ctx, c.signpost, "version")
	fmt.Printf("signpost: %s\nmachine: %d CPUs, load average %s\n\n", version, runtime.NumCPU(), loadBefore)

	m, err := startMeter(ctx, c)
	if err != nil {
		return nil, err
	}
	defer m.close()
	var all []series
	if len(c.tools) > 0 {
		s := series{one: "tool", unit: "tools", fixed: "2 tenants, a server per 10 tools"}
		for i, n := range c.tools {
			st, err := m.step(ctx, shape{name: fmt.Sprintf("tools-%d", n), tools: n, servers: n / 10}, c.realPublish || i == 0)
			if err != nil {
				return nil, err
			}
			st.size = n
			s.steps = append(s.steps, st)
		}
		all = append(all, s)
	}
	if len(c.tenants) > 0 {
		s := series{one: "tenant", unit: "tenants", fixed: fmt.Sprintf("%s tools and %d servers shared out", thousands(c.tenantTools), tenantServers)}
		for i, n := range c.tenants {
			st, err := m.step(ctx, shape{name: fmt.Sprintf("tenants-%d", n), tools: c.tenantTools, servers: tenantServers, tenants: n}, c.realPublish || i == 0)
			if err != nil {
				return nil, err
			}
			st.size = n
			s.steps = append(s.steps, st)
		}
		all = append(all, s)
	}

	caption := fmt.Sprintf("Measured with `make bench-scale` (%s) on %d CPUs, load average %s at the start and %s at the end; %s.",
		version, runtime.NumCPU(), loadBefore, benchrun.LoadAverage(), publishNote(c))
	fmt.Println()
	if err := writeMarkdown(os.Stdout, caption, all, c.goals); err != nil {
		return nil, err
	}
	var errs []error
	if c.markdown != "" {
		var b strings.Builder
		errs = append(errs, writeMarkdown(&b, caption, all, c.goals))
		errs = append(errs, atomicfile.WriteFile(ctx, c.markdown, []byte(b.String())))
	}
	if c.svg != "" {
		var b strings.Builder
		errs = append(errs, writeSVG(&b, "signpost build and publish, growth with the catalog", all))
		errs = append(errs, atomicfile.WriteFile(ctx, c.svg, []byte(b.String())))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c.goals.misses(all), nil
}

func publishNote(c config) string {
	if c.realPublish {
		return "PUTs counted by versitygw's access log at every step"
	}
	return "PUTs counted by versitygw's access log at the first step of each series, where a dry run's plan gave the same count, and from the plan of a dry run at the others"
}
