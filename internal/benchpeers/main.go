// Command benchpeers measures signpost against the programs a user would
// compare it with, side by side in one run on one machine, and prints the
// ratios (`make bench-peers` runs it):
//
//   - build of a generated catalog of 10,000 tools (in one file, and in 100
//     files of 100) against `cp -r` of the site it writes;
//   - `signpost serve` against nginx serving the same files with the same
//     headers, on a tool document and on /tools, loaded by wrk;
//   - `signpost publish` against `rclone sync --checksum`, `aws s3 sync` and
//     `s5cmd sync` to versitygw: a first publish, a no-op republish, and a
//     republish after a one-tool change from a fresh build, as CI makes it;
//     and a first publish against the floor, the same PUTs sent by the
//     simplest parallel client (floor.go, the sub-command `floor`); with
//     -rtt, each request a round trip away, as S3 is from CI (latency.go).
//   - the bytes a client that accepts gzip and brotli receives of the
//     large documents from `signpost serve`, against their own size, and
//     the tokens from the AI catalog to a callable tool (bytes.go).
//
// Every server runs on 127.0.0.1 and is stopped before the command exits.
// Each measure is run several times, alternating the programs, and the
// median is reported, since a shared disk or CPU moves single runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/signpost-dev/signpost/internal/benchrun"
)

// config is what the flags set.
type config struct {
	signpost  string // the signpost binary measured
	aws       string // the aws CLI
	work      string // scratch folder
	runs      int    // runs of each measure
	duration  time.Duration
	only      map[string]bool
	versitygw string
	s5cmd     string          // the s5cmd binary
	peers     map[string]bool // the publish peers measured: rclone, aws, s5cmd, floor
	// floorWorkers is how many PUTs the floor keeps in flight.
	floorWorkers int
	// rtt, when positive, is the round trip every publish's requests take
	// to versitygw, through a delaying proxy (latency.go).
	rtt time.Duration
	// missing are the publish peers asked for but not installed.
	missing []string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		if err := floorMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench-peers floor:", err)
			os.Exit(1)
		}
		return
	}
	var c config
	var only, peers string
	flag.StringVar(&c.signpost, "signpost", "bin/signpost", "the signpost binary to measure")
	flag.StringVar(&c.aws, "aws", defaultAWS(), "the aws CLI")
	flag.StringVar(&c.versitygw, "versitygw", "bin/versitygw", "the S3 server publishes go to")
	flag.StringVar(&c.work, "work", "", "scratch folder (default: a new temporary one, removed at the end)")
	flag.IntVar(&c.runs, "runs", 3, "runs of each measure; the median is reported")
	flag.DurationVar(&c.duration, "duration", 5*time.Second, "length of each wrk run")
	flag.StringVar(&only, "only", "build,serve,publish,bytes", "the comparisons to run, comma-separated")
	flag.StringVar(&c.s5cmd, "s5cmd", "bin/s5cmd", "the s5cmd binary")
	flag.StringVar(&peers, "peers", "rclone,aws,s5cmd,floor", "the publish peers to measure, comma-separated")
	flag.IntVar(&c.floorWorkers, "floor-workers", 16, "PUTs the floor keeps in flight")
	flag.DurationVar(&c.rtt, "rtt", 0, "round trip added to every publish request, through a delaying proxy on 127.0.0.1 (0: none)")
	flag.Parse()
	c.only, c.peers = map[string]bool{}, map[string]bool{}
	for _, s := range splitComma(only) {
		c.only[s] = true
	}
	for _, s := range splitComma(peers) {
		c.peers[s] = true
	}
	// Every request goes to 127.0.0.1 over plain HTTP; a machine's CA
	// bundle for AWS only makes rclone's S3 client refuse to start.
	os.Unsetenv("AWS_CA_BUNDLE")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		os.Exit(1)
	}
}

// defaultAWS prefers Debian's awscli, which the Makefile installs, over
// whatever else is first on PATH.
func defaultAWS() string {
	if _, err := os.Stat("/usr/bin/aws"); err == nil {
		return "/usr/bin/aws"
	}
	return "aws"
}

func run(ctx context.Context, c config) error {
	var err error
	if c.signpost, err = filepath.Abs(c.signpost); err != nil {
		return err
	}
	if c.versitygw, err = filepath.Abs(c.versitygw); err != nil {
		return err
	}
	if c.s5cmd, err = filepath.Abs(c.s5cmd); err != nil {
		return err
	}
	need := []string{c.signpost}
	if c.only["build"] {
		need = append(need, "cp")
	}
	if c.only["serve"] {
		need = append(need, "nginx", "wrk")
	}
	if c.only["publish"] {
		need = append(need, c.versitygw)
		if _, err := exec.LookPath(c.s5cmd); err != nil && c.peers["s5cmd"] {
			// The one peer Debian does not package: where go install could
			// not bring it, the report says it was not measured.
			fmt.Printf("s5cmd is not installed (%s): not measured\n", c.s5cmd)
			c.missing = append(c.missing, "s5cmd sync")
			delete(c.peers, "s5cmd")
		}
		for _, p := range []string{"rclone", "aws", "s5cmd"} {
			if c.peers[p] {
				need = append(need, map[string]string{"rclone": "rclone", "aws": c.aws, "s5cmd": c.s5cmd}[p])
			}
		}
	}
	for _, p := range need {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is not installed: make bench-peers installs the peers (nginx, wrk, rclone, awscli from Debian's packages, s5cmd with go install), or leave it out with -only or -peers", p)
		}
	}
	if c.work == "" {
		if c.work, err = os.MkdirTemp("", "signpost-bench-peers-"); err != nil {
			return err
		}
		defer os.RemoveAll(c.work)
	}
	fmt.Printf("signpost: %s\n", benchrun.VersionOf(ctx, c.signpost, "version"))
	fmt.Printf("machine: %d CPUs; runs: %d, median reported\n", numCPU(), c.runs)
	if c.rtt > 0 && c.only["publish"] {
		fmt.Printf("publish: every request %v away (a delaying proxy in front of versitygw)\n", c.rtt)
	}
	fmt.Println()

	cats, err := generate(c.work)
	if err != nil {
		return err
	}
	var rows []row
	if c.only["build"] {
		r, err := benchBuild(ctx, c, cats)
		rows = append(rows, r...)
		if err != nil {
			return errors.Join(err, printRows(rows))
		}
	}
	if c.only["serve"] {
		r, err := benchServe(ctx, c, cats[1])
		rows = append(rows, r...)
		if err != nil {
			return errors.Join(err, printRows(rows))
		}
	}
	if c.only["bytes"] {
		r, err := benchBytes(ctx, c, cats[1])
		rows = append(rows, r...)
		if err != nil {
			return errors.Join(err, printRows(rows))
		}
	}
	if c.only["publish"] {
		r, err := benchPublish(ctx, c, cats[1])
		rows = append(rows, r...)
		if err != nil {
			return errors.Join(err, printRows(rows))
		}
	}
	return printRows(rows)
}
