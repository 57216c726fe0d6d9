package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/signpost-dev/signpost/internal/s3test"
)

// counter is a reverse proxy in front of the S3 server that counts the
// requests of each kind, so that every program's uploads are counted the
// same way.
type counter struct {
	puts, others atomic.Int64
	proxy        *httputil.ReverseProxy
}

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut && r.URL.Query().Get("cors") == "" {
		c.puts.Add(1)
	} else {
		c.others.Add(1)
	}
	c.proxy.ServeHTTP(w, r)
}

func (c *counter) reset() { c.puts.Store(0); c.others.Store(0) }

// publisher is one program that puts a site in a bucket.
type publisher struct {
	name string
	// sync publishes run's site (a catalog folder for signpost, its
	// build for the peers) to bucket.
	sync func(ctx context.Context, bucket string) (result, error)
}

// benchPublish publishes cat with signpost and its build with rclone and
// aws to versitygw, each program into buckets of its own: a first publish,
// a no-op republish, and a republish after a one-tool change from a fresh
// build.
func benchPublish(ctx context.Context, c config, cat *catalog) ([]row, error) {
	if err := ensureBuilt(ctx, c, cat); err != nil {
		return nil, err
	}
	os.Setenv("SIGNPOST_VERSITYGW", c.versitygw)
	srv, err := s3test.Start()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		return nil, err
	}
	cnt := &counter{proxy: httputil.NewSingleHostReverseProxy(target)}
	cnt.proxy.Transport = &http.Transport{MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: cnt, ReadHeaderTimeout: 30 * time.Second}
	go hs.Serve(l)
	defer hs.Close()
	endpoint := "http://" + l.Addr().String()

	rcloneEnv := []string{
		"RCLONE_CONFIG_BENCH_TYPE=s3", "RCLONE_CONFIG_BENCH_PROVIDER=Other",
		"RCLONE_CONFIG_BENCH_ENDPOINT=" + endpoint, "RCLONE_CONFIG_BENCH_REGION=" + s3test.Region,
		"RCLONE_CONFIG_BENCH_ACCESS_KEY_ID=" + s3test.AccessKey, "RCLONE_CONFIG_BENCH_SECRET_ACCESS_KEY=" + s3test.SecretKey,
		"RCLONE_CONFIG_BENCH_FORCE_PATH_STYLE=true", "RCLONE_CONFIG=" + filepath.Join(c.work, "no-rclone.conf"),
	}
	awsEnv := []string{"AWS_PAGER=", "AWS_EC2_METADATA_DISABLED=true"}
	site := cat.site
	pubs := []publisher{
		{"signpost publish", func(ctx context.Context, b string) (result, error) {
			return timed(ctx, "", nil, c.signpost, "publish", cat.dir, "--target", "bench", "--bucket", b, "--endpoint", endpoint, "--quiet")
		}},
		{"rclone sync --checksum --transfers 16", func(ctx context.Context, b string) (result, error) {
			return timed(ctx, "", rcloneEnv, "rclone", "sync", "--checksum", "--transfers", "16", site, "bench:"+b+"/site")
		}},
		{"aws s3 sync", func(ctx context.Context, b string) (result, error) {
			return timed(ctx, "", awsEnv, c.aws, "s3", "sync", "--only-show-errors", "--endpoint-url", endpoint, site, "s3://"+b+"/site")
		}},
	}
	phases := []string{"first publish", "no-op republish", "CI republish after a one-tool change"}
	type figure struct {
		runs []result
		puts []int64
	}
	figs := map[string]*figure{}
	for run := range c.runs {
		for i := range pubs {
			b := fmt.Sprintf("bench-%d-%d", run, i)
			if _, err := timed(ctx, "", rcloneEnv, "rclone", "mkdir", "bench:"+b); err != nil {
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
				if _, err := timed(ctx, "", nil, c.signpost, "build", cat.dir, "--out", site); err != nil {
					return nil, err
				}
			}
			for i, p := range pubs {
				syncDisk()
				cnt.reset()
				r, err := p.sync(ctx, fmt.Sprintf("bench-%d-%d", run, i))
				if err != nil {
					return nil, err
				}
				key := phase + "\x00" + p.name
				if figs[key] == nil {
					figs[key] = &figure{}
				}
				figs[key].runs = append(figs[key].runs, r)
				figs[key].puts = append(figs[key].puts, cnt.puts.Load())
				fmt.Printf("publish %-37s %-38s %s, %d PUT, %d other requests\n", phase, p.name, seconds(r.wall), cnt.puts.Load(), cnt.others.Load())
			}
		}
	}
	var rows []row
	for _, phase := range phases {
		sp := figs[phase+"\x00"+pubs[0].name]
		spm := median(sp.runs)
		for _, p := range pubs[1:] {
			f := figs[phase+"\x00"+p.name]
			m := median(f.runs)
			goal := 2.0
			if p.name == "aws s3 sync" {
				goal = 20
			}
			ratio := m.wall.Seconds() / spm.wall.Seconds()
			rows = append(rows, row{
				measure:  "publish to versitygw, " + phase,
				signpost: fmt.Sprintf("%s, %d PUT", seconds(spm.wall), sp.puts[len(sp.puts)-1]),
				peer:     p.name,
				figure:   fmt.Sprintf("%s, %d PUT", seconds(m.wall), f.puts[len(f.puts)-1]),
				ratio:    ratio, ratioOf: "faster",
				goal: fmt.Sprintf(">= %.0fx", goal), met: ratio >= goal,
			})
		}
	}
	return rows, nil
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
