package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/internal/benchrun"
	"github.com/signpost-dev/signpost/internal/gencatalog"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// publisher is one program that puts a site in a bucket.
type publisher struct {
	name string
	// sync publishes run's site (a catalog folder for signpost, its
	// build for the peers) to bucket.
	sync func(ctx context.Context, bucket string) (benchrun.Result, error)
	// firstOnly is set for the floor, which uploads everything every
	// time: it has a first publish only.
	firstOnly bool
	// goal is the ratio signpost must reach against it; floor is set
	// when the ratio is a cost (signpost's time over the floor's).
	goal  float64
	floor bool
}

// benchPublish publishes cat with signpost and its build with rclone, aws
// and s5cmd to versitygw, each program into buckets of its own: a first
// publish, a no-op republish, and a republish after a one-tool change from
// a fresh build. The floor uploads the build's files at the first publish.
func benchPublish(ctx context.Context, c config, cat *catalog) ([]row, error) {
	if err := ensureBuilt(ctx, c, cat); err != nil {
		return nil, err
	}
	os.Setenv("SIGNPOST_VERSITYGW", c.versitygw)
	// The server counts every program's requests in its access log: a
	// counting proxy in front of it would take, per request, CPU that
	// the programs and the server share.
	srv, err := s3test.StartLogged()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	endpoint := srv.Endpoint
	if c.rtt > 0 {
		d, err := startDelay(strings.TrimPrefix(endpoint, "http://"), c.rtt)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		endpoint = "http://" + d.Addr()
	}

	rcloneEnv := []string{
		"RCLONE_CONFIG_BENCH_TYPE=s3", "RCLONE_CONFIG_BENCH_PROVIDER=Other",
		"RCLONE_CONFIG_BENCH_ENDPOINT=" + endpoint, "RCLONE_CONFIG_BENCH_REGION=" + s3test.Region,
		"RCLONE_CONFIG_BENCH_ACCESS_KEY_ID=" + s3test.AccessKey, "RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY=" + s3test.SecretKey,
		"RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE=true", "RCLONE_CONFIG=" + filepath.Join(c.work, "no-rclone.conf"),
	}
	awsEnv := []string{"AWS_PAGER=", "AWS_EC2_METADATA_DISABLED=true"}
	site := cat.site
	s5cmdEnv := []string{"AWS_ACCESS_KEY_ID=" + s3test.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s3test.SecretKey, "AWS_REGION=" + s3test.Region}
	all := []publisher{
		{name: "signpost publish", sync: func(ctx context.Context, b string) (benchrun.Result, error) {
			return benchrun.Timed(ctx, "", nil, c.signpost, "publish", cat.dir, "--target", gencatalog.Target, "--bucket", b, "--endpoint", endpoint, "--quiet")
		}},
		{name: "rclone sync --checksum --transfers 16", goal: 2, sync: func(ctx context.Context, b string) (benchrun.Result, error) {
			return benchrun.Timed(ctx, "", rcloneEnv, "rclone", "sync", "--checksum", "--transfers", "16", site, "bench:"+b+"/site")
		}},
		{name: "aws s3 sync", goal: 20, sync: func(ctx context.Context, b string) (benchrun.Result, error) {
			return benchrun.Timed(ctx, "", awsEnv, c.aws, "s3", "sync", "--only-show-errors", "--endpoint-url", endpoint, site, "s3://"+b+"/site")
		}},
		{name: "s5cmd sync", goal: 2, sync: func(ctx context.Context, b string) (benchrun.Result, error) {
			return benchrun.Timed(ctx, "", s5cmdEnv, c.s5cmd, "--endpoint-url", endpoint, "--log", "error", "sync", site+"/", "s3://"+b+"/site/")
		}},
		{name: fmt.Sprintf("floor: %d goroutines, signed PUTs", c.floorWorkers), firstOnly: true, goal: 1.3, floor: true, sync: func(ctx context.Context, b string) (benchrun.Result, error) {
			return floorTime(ctx, endpoint, b, site, c.floorWorkers)
		}},
	}
	pubs := all[:1]
	for _, p := range all[1:] {
		if c.peers[strings.Fields(p.name)[0]] || (p.floor && c.peers["floor"]) {
			pubs = append(pubs, p)
		}
	}
	phases := []string{"first publish", "no-op republish", "CI republish after a one-tool change"}
	// Each run's CPU is the program's and the server's: on a machine whose
	// cores the two share, the sum is what the wall time follows.
	type figure struct {
		runs   []benchrun.Result
		puts   []int64
		server []time.Duration
	}
	figs := map[string]*figure{}
	var mark int64 // where the server's access log was read to
	for run := range c.runs {
		for i := range pubs {
			b := fmt.Sprintf("bench-%d-%d", run, i)
			if _, err := benchrun.Timed(ctx, "", rcloneEnv, "rclone", "mkdir", "bench:"+b); err != nil {
				return nil, err
			}
		}
		for _, phase := range phases {
			if phase == phases[2] {
				// The change, and the fresh build CI makes of it for the
				// peers (not timed: signpost's figure includes its build).
				if err := changeOneTool(cat.dir, run); err != nil {
					return nil, err
				}
				os.RemoveAll(site)
				if _, err := benchrun.Timed(ctx, "", nil, c.signpost, "build", cat.dir, "--out", site); err != nil {
					return nil, err
				}
			}
			for i, p := range pubs {
				if p.firstOnly && phase != phases[0] {
					continue
				}
				benchrun.SyncDisk()
				// What came before (the buckets made) is not counted.
				if _, mark, err = srv.Operations(mark); err != nil {
					return nil, err
				}
				before, cpuErr := srv.CPU()
				r, err := p.sync(ctx, fmt.Sprintf("bench-%d-%d", run, i))
				if err != nil {
					return nil, err
				}
				after, err := srv.CPU()
				server := after - before
				if cpuErr != nil || err != nil {
					server = -1 // not measured
				}
				var ops map[string]int
				if ops, mark, err = srv.Operations(mark); err != nil {
					return nil, err
				}
				puts, others := benchrun.Puts(ops)
				key := phase + "\x00" + p.name
				if figs[key] == nil {
					figs[key] = &figure{}
				}
				figs[key].runs = append(figs[key].runs, r)
				figs[key].puts = append(figs[key].puts, puts)
				figs[key].server = append(figs[key].server, server)
				fmt.Printf("publish %-37s %-38s %s, %d PUT, %d other requests, %s\n", phase, p.name, benchrun.Seconds(r.Wall), puts, others, cpuOf(r.CPU, server))
			}
		}
	}
	var rows []row
	for _, phase := range phases {
		sp := figs[phase+"\x00"+pubs[0].name]
		spm := benchrun.Median(sp.runs)
		for _, p := range pubs[1:] {
			f := figs[phase+"\x00"+p.name]
			if f == nil {
				continue
			}
			m := benchrun.Median(f.runs)
			goal := p.goal
			// s5cmd is the fastest peer at a first publish: there the goal
			// is to be at least as fast.
			if phase == phases[0] && strings.HasPrefix(p.name, "s5cmd") {
				goal = 1
			}
			r := row{
				measure:  "publish to versitygw, " + phase,
				signpost: fmt.Sprintf("%s, %d PUT, %s", benchrun.Seconds(spm.Wall), sp.puts[len(sp.puts)-1], cpuOf(spm.CPU, benchrun.MedianOf(sp.server))),
				peer:     p.name,
				figure:   fmt.Sprintf("%s, %d PUT, %s", benchrun.Seconds(m.Wall), f.puts[len(f.puts)-1], cpuOf(m.CPU, benchrun.MedianOf(f.server))),
				ratio:    m.Wall.Seconds() / spm.Wall.Seconds(), ratioOf: "faster",
				goal: fmt.Sprintf(">= %.1fx", goal),
			}
			r.met = r.ratio >= goal
			if p.floor {
				r.ratio, r.ratioOf = spm.Wall.Seconds()/m.Wall.Seconds(), "the floor's time"
				r.goal, r.met = fmt.Sprintf("<= %.1fx", goal), r.ratio <= goal
			}
			rows = append(rows, r)
		}
		for _, name := range c.missing {
			rows = append(rows, row{measure: "publish to versitygw, " + phase, peer: name, figure: "not installed", ratioOf: "(not measured)", goal: "measured"})
		}
	}
	return rows, nil
}

// cpuOf says the CPU time a program and the server spent in one publish
// (the floor's includes reading the files before its clock starts); a
// negative server time was not measured.
func cpuOf(program, server time.Duration) string {
	if server < 0 {
		return fmt.Sprintf("CPU %s", benchrun.Seconds(program))
	}
	return fmt.Sprintf("CPU %s + server %s", benchrun.Seconds(program), benchrun.Seconds(server))
}

// changeOneTool changes the description of the first tool of the catalog's
// first file of tools, as a one-line pull request would.
func changeOneTool(dir string, run int) error {
	matches, err := filepath.Glob(filepath.Join(dir, "tools", "*.yaml"))
	if err != nil || len(matches) == 0 {
		return fmt.Errorf("no tools file in %s", dir)
	}
	data, err := os.ReadFile(matches[0])
	if err != nil {
		return err
	}
	old := []byte("    description: ")
	i := bytes.Index(data, old)
	if i < 0 {
		return fmt.Errorf("no description in %s", matches[0])
	}
	changed := append(data[:i+len(old):i+len(old)], fmt.Appendf(nil, "Revision %d. ", run+1)...)
	changed = append(changed, data[i+len(old):]...)
	return os.WriteFile(matches[0], changed, 0o644)
}
