package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/benchrun"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// served is one route the serve measures request, and the file nginx
// answers it with.
type served struct {
	name, route, key, contentType, cacheControl, etag string
	size                                              int64
}

// servedTenant is the tenant whose site the serve measures request: one
// of the two the generated catalog declares.
const servedTenant = "acme"

// servedRoutes finds, in the served tenant's site of a build, /tools and
// its first tool document.
func servedRoutes(ctx context.Context, site string) (dir string, routes []served, err error) {
	t, err := output.ReadRouteTable(ctx, site)
	if err != nil {
		return "", nil, err
	}
	for _, s := range t.Sites {
		if s.Tenant != servedTenant {
			continue
		}
		var list, tool *served
		for _, r := range s.Routes {
			if r.View != spec.ViewStandard {
				continue
			}
			sv := served{route: r.Route, key: r.Key, contentType: r.ContentType, cacheControl: r.CacheControl, etag: r.ETag, size: r.Size}
			_, isTool := spec.ToolIDOf(r.Route)
			switch {
			case r.Route == spec.RouteTools:
				sv.name = spec.RouteTools
				list = &sv
			case tool == nil && isTool:
				sv.name = "tool document"
				tool = &sv
			}
		}
		if list == nil || tool == nil {
			return "", nil, fmt.Errorf("the %s site has no %s or no tool document", servedTenant, spec.RouteTools)
		}
		return filepath.Join(site, filepath.FromSlash(s.Dir)), []served{*tool, *list}, nil
	}
	return "", nil, fmt.Errorf("the build has no %s site", servedTenant)
}

// benchServe loads signpost serve and nginx, one after the other, with wrk
// on the same routes of the same site.
func benchServe(ctx context.Context, c config, cat *catalog) ([]row, error) {
	if err := ensureBuilt(ctx, c, cat); err != nil {
		return nil, err
	}
	dir, routes, err := servedRoutes(ctx, cat.site)
	if err != nil {
		return nil, err
	}
	spPort, err := s3test.FreePort()
	if err != nil {
		return nil, err
	}
	sp := exec.CommandContext(ctx, c.signpost, "serve", cat.site, "--tenant", servedTenant, "--addr", "127.0.0.1:"+spPort)
	stopSP, err := startServer(sp, spPort)
	if err != nil {
		return nil, err
	}
	defer stopSP()
	ngPort, err := s3test.FreePort()
	if err != nil {
		return nil, err
	}
	ng, err := nginxCommand(ctx, c.work, dir, ngPort, routes)
	if err != nil {
		return nil, err
	}
	stopNG, err := startServer(ng, ngPort)
	if err != nil {
		return nil, err
	}
	defer stopNG()

	var rows []row
	for _, r := range routes {
		// Both must answer the same bytes with the contract's headers
		// before either is measured.
		for _, port := range []string{spPort, ngPort} {
			if err := probe(ctx, "http://127.0.0.1:"+port+r.route, r); err != nil {
				return rows, err
			}
		}
		var sps, ngs []float64
		for range c.runs {
			for _, p := range []struct {
				port string
				into *[]float64
			}{{spPort, &sps}, {ngPort, &ngs}} {
				rps, err := wrk(ctx, c.duration, "http://127.0.0.1:"+p.port+r.route)
				if err != nil {
					return rows, err
				}
				*p.into = append(*p.into, rps)
			}
			fmt.Printf("serve %-13s  signpost %.0f req/s   nginx %.0f req/s\n", r.name, sps[len(sps)-1], ngs[len(ngs)-1])
		}
		s, n := benchrun.MedianOf(sps), benchrun.MedianOf(ngs)
		rows = append(rows, row{
			measure:  fmt.Sprintf("serve %s (%d bytes), wrk -t2 -c32", r.name, r.size),
			signpost: fmt.Sprintf("%.0f req/s", s),
			peer:     "nginx, 2 workers, sendfile",
			figure:   fmt.Sprintf("%.0f req/s", n),
			ratio:    s / n, ratioOf: "nginx's rate",
			goal: ">= 1.0x", met: s >= n,
		})
	}
	return rows, nil
}

// ensureBuilt builds cat unless a build is already there.
func ensureBuilt(ctx context.Context, c config, cat *catalog) error {
	if _, err := os.Stat(filepath.Join(cat.site, "routes.json")); err == nil {
		return nil
	}
	_, err := benchrun.Timed(ctx, "", nil, c.signpost, "build", cat.dir, "--out", cat.site)
	return err
}

// nginxCommand writes an nginx configuration that serves dir's files for
// routes with the headers signpost sends: the route table's Content-Type,
// Cache-Control and ETag, and CORS on every response.
func nginxCommand(ctx context.Context, work, dir, port string, routes []served) (*exec.Cmd, error) {
	ngDir := filepath.Join(work, "nginx")
	if err := os.MkdirAll(filepath.Join(ngDir, "tmp"), 0o755); err != nil {
		return nil, err
	}
	var b strings.Builder
	if os.Geteuid() == 0 {
		b.WriteString("user root;\n")
	}
	fmt.Fprintf(&b, "worker_processes 2;\ndaemon off;\npid %s/nginx.pid;\nerror_log stderr error;\n", ngDir)
	b.WriteString("events { worker_connections 1024; }\nhttp {\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 1000000;\n  etag off;\n")
	for _, t := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&b, "  %s_temp_path %s/tmp/%s;\n", t, ngDir, t)
	}
	fmt.Fprintf(&b, "  server {\n    listen 127.0.0.1:%s;\n    root %s;\n", port, dir)
	for _, h := range spec.CORSHeaders() {
		fmt.Fprintf(&b, "    add_header %s %q always;\n", h[0], h[1])
	}
	for _, r := range routes {
		fmt.Fprintf(&b, "    location = %s {\n      types { } default_type %q;\n      add_header Cache-Control %q always;\n      add_header ETag %q always;\n", r.route, r.contentType, r.cacheControl, r.etag)
		for _, h := range spec.CORSHeaders() {
			fmt.Fprintf(&b, "      add_header %s %q always;\n", h[0], h[1])
		}
		fmt.Fprintf(&b, "      try_files /%s =404;\n    }\n", r.key)
	}
	b.WriteString("  }\n}\n")
	conf := filepath.Join(ngDir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, "nginx", "-c", conf, "-p", ngDir), nil
}

// startServer starts cmd in its own process group and waits, at most 30
// seconds, for port to accept connections. stop ends the group.
func startServer(cmd *exec.Cmd, port string) (stop func(), err error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return nil, fmt.Errorf("%s exited before listening on %s", cmd.Path, port)
		default:
		}
		if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
			conn.Close()
			return stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return nil, fmt.Errorf("%s did not listen on %s within 30 s", cmd.Path, port)
}

// probe requires url to answer r's document with the contract's headers.
func probe(ctx context.Context, url string, r served) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// No Accept-Encoding: wrk sends none, and the bytes compared are the identity ones.
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	want := map[string]string{"Content-Type": r.contentType, "Cache-Control": r.cacheControl, "ETag": r.etag}
	for _, h := range spec.CORSHeaders() {
		want[h[0]] = h[1]
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			return fmt.Errorf("%s: %s is %q, want %q: the servers would not be compared on the same contract", url, k, got, v)
		}
	}
	if resp.StatusCode != http.StatusOK || n != r.size {
		return fmt.Errorf("%s: status %d, %d bytes; want 200, %d bytes", url, resp.StatusCode, n, r.size)
	}
	return nil
}

var wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// wrk loads url for d with 2 threads and 32 connections and returns the
// requests per second it measured.
func wrk(ctx context.Context, d time.Duration, url string) (float64, error) {
	r, err := benchrun.Timed(ctx, "", nil, "wrk", "-t2", "-c32", "-d"+strconv.Itoa(int(d.Seconds()))+"s", url)
	if err != nil {
		return 0, err
	}
	m := wrkRate.FindSubmatch(r.Out)
	if m == nil {
		return 0, fmt.Errorf("wrk printed no rate:\n%s", r.Out)
	}
	if strings.Contains(string(r.Out), "Non-2xx") {
		return 0, fmt.Errorf("wrk saw errors:\n%s", r.Out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}
