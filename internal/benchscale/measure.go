package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/signpost-dev/signpost/internal/benchrun"
	"github.com/signpost-dev/signpost/internal/gencatalog"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// tenantServers is the number of MCP servers of the tenants series: every
// tenant's site holds their cards and registry, so that the series
// measures what each site costs on its own.
const tenantServers = 10

// limits are the limits of every generated catalog: the defaults (a
// 64 MiB document, 1 GiB and 100,000 files a build) fit 10,000 tools,
// not 100,000.
const limits = "{document: 4GiB, build: 64GiB, files: 10000000}"

// publishTimeout bounds one publish, real or dry.
const publishTimeout = 60 * time.Minute

// shape is one generated catalog of a step.
type shape struct {
	name                    string // its folder and bucket
	tools, servers, tenants int    // tenants 0: acme and globex, as gencatalog makes them
}

// meter measures steps against one S3 server.
type meter struct {
	c    config
	srv  *s3test.Server
	mark int64 // where the server's access log was read to
}

func startMeter(ctx context.Context, c config) (*meter, error) {
	os.Setenv("SIGNPOST_VERSITYGW", c.versitygw)
	// Every request goes to 127.0.0.1 over plain HTTP; a machine's CA
	// bundle for AWS would only be read for nothing.
	os.Unsetenv("AWS_CA_BUNDLE")
	srv, err := s3test.StartLogged()
	if err != nil {
		return nil, err
	}
	return &meter{c: c, srv: srv}, ctx.Err()
}

func (m *meter) close() { m.srv.Close() }

// step generates the catalog of sh, builds it (the median of the runs),
// counts what the build wrote, and counts the PUTs of a first publish of
// it to a new bucket: from the plan of a dry run, and, when real, from
// the server's access log after a real publish, which must agree.
func (m *meter) step(ctx context.Context, sh shape, real bool) (step, error) {
	var st step
	dir := filepath.Join(m.c.work, sh.name)
	out := dir + "-site"
	defer os.RemoveAll(dir)
	defer os.RemoveAll(out)
	bucket := "scale-" + sh.name
	err := gencatalog.Write(dir, gencatalog.Options{Tools: sh.tools, Servers: sh.servers, Tenants: sh.tenants, Limits: limits, Bucket: bucket})
	if err != nil {
		return st, err
	}
	var runs []benchrun.Result
	for range m.c.runs {
		os.RemoveAll(out)
		benchrun.SyncDisk()
		r, err := benchrun.Timed(ctx, "", nil, m.c.signpost, "build", dir, "--out", out)
		if err != nil {
			return st, err
		}
		runs = append(runs, r)
	}
	med := benchrun.Median(runs)
	files, size, err := benchrun.Tree(out)
	if err != nil {
		return st, err
	}
	os.RemoveAll(out)
	st.values[wallTime] = med.Wall.Seconds()
	st.values[peakRSS] = float64(med.MaxRSS)
	st.values[outputBytes] = float64(size)
	st.values[filesWritten] = float64(files)

	if err := m.srv.CreateBucket(ctx, bucket); err != nil {
		return st, err
	}
	planned, err := m.dryRun(ctx, dir)
	if err != nil {
		return st, err
	}
	puts, how := planned, "planned by a dry run"
	if real {
		counted, err := m.publish(ctx, dir)
		if err != nil {
			return st, err
		}
		if counted != planned {
			return st, fmt.Errorf("%s: a dry run planned %d PUTs where the publish made %d: count every step's with -real-publish", sh.name, planned, counted)
		}
		puts, how = counted, "counted, as the dry run planned"
	}
	st.values[publishPuts] = float64(puts)
	fmt.Printf("%-16s build %s, %s peak RSS, %.1f MB in %s files; %s PUTs (%s)\n", sh.name,
		benchrun.Seconds(med.Wall), benchrun.Megabytes(med.MaxRSS), float64(size)/1e6, thousands(files), thousands(int(puts)), how)
	return st, nil
}

// plan is what a PUT count needs of publish's JSON plan.
type plan struct {
	Sites []struct {
		Uploads []json.RawMessage `json:"uploads"`
	} `json:"sites"`
}

// putsOf counts the PUTs a first publish of p makes: each upload, each
// site's manifest, and the target's lock.
func putsOf(p plan) int64 {
	n := int64(1)
	for _, s := range p.Sites {
		n += int64(len(s.Uploads)) + 1
	}
	return n
}

// dryRun counts the PUTs of the catalog in dir's first publish from the
// plan of a dry run.
func (m *meter) dryRun(ctx context.Context, dir string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.c.signpost, "publish", dir, "--target", gencatalog.Target, "--endpoint", m.srv.Endpoint, "--dry-run", "--format", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("signpost publish --dry-run: %w\n%s", err, stderr.String())
	}
	var p plan
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		return 0, fmt.Errorf("signpost publish --dry-run --format json: %w", err)
	}
	if len(p.Sites) == 0 {
		return 0, fmt.Errorf("signpost publish --dry-run planned no site")
	}
	return putsOf(p), nil
}

// publish publishes the catalog in dir and counts its PUTs in the
// server's access log.
func (m *meter) publish(ctx context.Context, dir string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	var err error
	// What came before (the bucket made, a dry run's listing) is not counted.
	if _, m.mark, err = m.srv.Operations(m.mark); err != nil {
		return 0, err
	}
	if _, err := benchrun.Timed(ctx, "", nil, m.c.signpost, "publish", dir, "--target", gencatalog.Target, "--endpoint", m.srv.Endpoint, "--quiet"); err != nil {
		return 0, err
	}
	var ops map[string]int
	if ops, m.mark, err = m.srv.Operations(m.mark); err != nil {
		return 0, err
	}
	puts, _ := benchrun.Puts(ops)
	return puts, nil
}
