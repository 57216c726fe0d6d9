package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	if med.MaxRSS <= med.SelfRSS {
		return st, fmt.Errorf("%s: the build's peak RSS (%s) is not above this program's own (%s), which it would report on Linux: nothing measured", sh.name, benchrun.Megabytes(med.MaxRSS), benchrun.Megabytes(med.SelfRSS))
	}
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

// putsOf counts, in publish's JSON plan read from r, the PUTs a first
// publish makes: each upload, each site's manifest, and the target's
// lock. It reads the plan a token at a time, so that a plan of hundreds
// of thousands of uploads is never held in memory (see
// benchrun.Result.SelfRSS).
func putsOf(r io.Reader) (int64, error) {
	dec := json.NewDecoder(r)
	// The path of keys to the current value: the plan's sites are at
	// ["sites"], a site's uploads at ["sites", "uploads"].
	var keys []string
	// Whether each open container is an object, and in each object
	// whether the next string is a key.
	var objects, expectKey []bool
	sites, uploads := int64(0), int64(0)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(objects) > 0 {
				return 0, io.ErrUnexpectedEOF
			}
			break
		}
		if err != nil {
			return 0, err
		}
		inObject := len(objects) > 0 && objects[len(objects)-1]
		if inObject && expectKey[len(expectKey)-1] {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				objects, expectKey = objects[:len(objects)-1], expectKey[:len(expectKey)-1]
				keys = keys[:len(keys)-1]
				continue
			}
			keys[len(keys)-1] = tok.(string)
			expectKey[len(expectKey)-1] = false
			continue
		}
		// A value: in an object, the next token is a key again.
		if inObject {
			expectKey[len(expectKey)-1] = true
		}
		path := strings.Join(keys, "/")
		switch d, _ := tok.(json.Delim); d {
		case '{':
			switch path {
			case "sites":
				sites++
			case "sites/uploads":
				uploads++
			}
			objects, expectKey = append(objects, true), append(expectKey, true)
			keys = append(keys, "")
		case '[':
			objects, expectKey = append(objects, false), append(expectKey, false)
		case ']':
			objects, expectKey = objects[:len(objects)-1], expectKey[:len(expectKey)-1]
		}
	}
	if sites == 0 {
		return 0, errors.New("the plan has no site")
	}
	return uploads + sites + 1, nil
}

// dryRun counts the PUTs of the catalog in dir's first publish from the
// plan of a dry run.
func (m *meter) dryRun(ctx context.Context, dir string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.c.signpost, "publish", dir, "--target", gencatalog.Target, "--endpoint", m.srv.Endpoint, "--dry-run", "--format", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	puts, perr := putsOf(stdout)
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("signpost publish --dry-run: %w\n%s", err, stderr.String())
	}
	if perr != nil {
		return 0, fmt.Errorf("signpost publish --dry-run --format json: %w", perr)
	}
	return puts, nil
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
