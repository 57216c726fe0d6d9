//go:build unix

package cloudflare_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/compress"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/hosts/cloudflare"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/internal/registrytest"
)

// startTimeout bounds the wait for wrangler dev to answer: it bundles
// nothing (no_bundle), but starts workerd, which takes seconds on a busy
// machine.
const startTimeout = 60 * time.Second

// stopTimeout bounds the wait for wrangler dev and workerd to exit once
// asked to, before they are killed.
const stopTimeout = 10 * time.Second

// TestWranglerServesTheContract builds the example catalog for Cloudflare,
// starts Cloudflare's own local server, wrangler dev (workerd, local mode,
// no account), on each tenant's folder as it would be deployed, and checks
// it as clients see it: signpost check passes every rule, MUST and SHOULD
// (access.gate needs a gated site, which Load refuses for Cloudflare), and
// the answers that matter most are exactly those of the route table, header

// wranglerDevShoulds are the SHOULD rules wrangler dev cannot pass where
// Cloudflare does, each with the reason. No MUST rule is allowed to fail.
var wranglerDevShoulds = map[string]string{}

// by header, on the wire.
func TestWranglerServesTheContract(t *testing.T) {
	wrangler := findWrangler(t)
	b := buildtest.ExampleOnSite(t) // a card beside an endpoint, and the ARD manifest
	// As signpost build does for a host that serves variants.
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	sites, err := cloudflare.Write(t.Context(), b, out, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Sites) < 2 {
		t.Fatalf("the example catalog builds %d sites, want one per tenant", len(b.Sites))
	}
	for i, s := range b.Sites {
		t.Run(s.Tenant, func(t *testing.T) {
			if want := "signpost-" + s.Tenant; sites[i].Worker != want {
				t.Errorf("Worker %s, want %s", sites[i].Worker, want)
			}
			base := startWrangler(t, wrangler, filepath.Join(out, filepath.FromSlash(s.Dir)))
			target, err := url.Parse(base)
			if err != nil {
				t.Fatal(err)
			}
			client := checktest.Serve(t, httputil.NewSingleHostReverseProxy(target))
			r, err := check.Run(t.Context(), "https://example.com", check.Options{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			for _, rule := range checktest.Bad(r) {
				if wranglerDevShoulds[rule] == "" {
					bad = append(bad, rule)
				}
			}
			if len(bad) > 0 || r.Failed() {
				t.Errorf("rules not met under wrangler dev: %v\n%s", bad, checktest.Problems(r))
			}
			passed := map[string]bool{}
			for _, f := range r.Findings {
				if f.Result == check.ResultPass {
					passed[f.Rule] = true
				}
			}
			for _, rule := range check.Rules() {
				if rule.Level == check.LevelMust && !passed[rule.Name] && rule.Name != "access.gate" && !checktest.SignedRule(rule.Name) {
					t.Errorf("MUST rule %s never passed under wrangler dev", rule.Name)
				}
			}
			onTheWire(t, base, s)
		})
	}
}

// TestWranglerServesTheRegistry builds a site with the MCP registry's hard
// cases (registrytest.Catalog) for Cloudflare, starts wrangler dev on it,
// and replays every request of the registry's clients: each answer is the
// one signpost serve gives, status, bytes and headers.
func TestWranglerServesTheRegistry(t *testing.T) {
	wrangler := findWrangler(t)
	b := buildtest.Compile(t, catalogtest.Write(t, registrytest.Catalog))
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if _, err := cloudflare.Write(t.Context(), b, out, ""); err != nil {
		t.Fatal(err)
	}
	s := b.Sites[0]
	base := startWrangler(t, wrangler, filepath.Join(out, filepath.FromSlash(s.Dir)))
	sent := registrytest.Replay(t, s, func(t *testing.T, method, target string, header map[string]string) registrytest.Answer {
		return registrytest.Send(t, base, "example.com", method, target, header)
	}, registrytest.Options{})
	t.Logf("%d requests replayed:\n%s", len(sent), strings.Join(sent, "\n"))
}

// onTheWire asserts the answers of the Worker that matter most to
// clients, one by one, straight from wrangler dev.
func onTheWire(t *testing.T, base string, s *output.Site) {
	t.Helper()
	errorHeaders := map[string]string{"Content-Type": spec.ContentTypeJSON, "Cache-Control": spec.ErrorCacheControl}
	for _, c := range []struct{ path, route, view string }{
		{"/tools", spec.RouteTools, spec.ViewStandard},
		{"/tools?view=compact", spec.RouteTools, spec.ViewCompact},
		{"/tools?view=zz", spec.RouteTools, spec.ViewStandard},
		{"/tools/get_forecast", "/tools/get_forecast", spec.ViewStandard},
		{"/tools/get_forecast?view=compact", "/tools/get_forecast", spec.ViewCompact},
		{"/.well-known/ai-catalog.json", spec.RouteAICatalog, spec.ViewStandard},
		{buildtest.OnSiteCardRoute, buildtest.OnSiteCardRoute, spec.ViewStandard},
		{spec.RouteARD, spec.RouteARD, spec.ViewStandard},
	} {
		d := document(t, s, c.route, c.view)
		x := do(t, http.MethodGet, base+c.path, nil)
		if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, d)) {
			t.Errorf("GET %s: %d, %d bytes, want 200 and the %d bytes of %s?view=%s", c.path, x.status, len(x.body), d.Body.Len(), c.route, c.view)
		}
		x.want(t, "GET "+c.path, map[string]string{"Content-Type": d.ContentType, "Cache-Control": d.CacheControl, "ETag": d.ETag,
			"Access-Control-Allow-Origin": "*", "Link": s.Link()})

		// Revalidation, with the ETag as sent and weakened as a CDN does.
		for _, inm := range []string{d.ETag, "W/" + d.ETag, `"other", ` + d.ETag} {
			x = do(t, http.MethodGet, base+c.path, map[string]string{"If-None-Match": inm})
			if x.status != http.StatusNotModified || len(x.body) != 0 {
				t.Errorf("GET %s with If-None-Match %s: %d with %d bytes, want 304 without a body", c.path, inm, x.status, len(x.body))
			}
			x.want(t, "304 of "+c.path, map[string]string{"ETag": d.ETag, "Cache-Control": d.CacheControl, "Link": s.Link()})
		}
		x = do(t, http.MethodGet, base+c.path, map[string]string{"If-None-Match": `"other"`})
		if x.status != http.StatusOK {
			t.Errorf("GET %s with another ETag: %d, want 200", c.path, x.status)
		}
		x = do(t, http.MethodHead, base+c.path, nil)
		if x.status != http.StatusOK || len(x.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want 200 without a body", c.path, x.status, len(x.body))
		}
		x.want(t, "HEAD "+c.path, map[string]string{"Content-Type": d.ContentType, "ETag": d.ETag})
	}

	// Precompressed variants: the one in the coding the client prefers
	// (by q-value, then in its order, as Cloudflare's edge picks), sent as
	// it is with its Content-Encoding and its own ETag; none to a client
	// that prefers none.
	for _, c := range []struct{ path, route, view, accept, coding string }{
		{"/tools", spec.RouteTools, spec.ViewStandard, "br, gzip", spec.EncodingBrotli},
		{"/tools", spec.RouteTools, spec.ViewStandard, "gzip, deflate, br", spec.EncodingGzip},
		{"/tools?view=compact", spec.RouteTools, spec.ViewCompact, "gzip;q=0.5, br", spec.EncodingBrotli},
		{"/tools?view=compact", spec.RouteTools, spec.ViewCompact, "br;q=0, gzip", spec.EncodingGzip},
		{"/.well-known/ai-catalog.json", spec.RouteAICatalog, spec.ViewStandard, "br", spec.EncodingBrotli},
		{"/tools", spec.RouteTools, spec.ViewStandard, "identity, br", ""},
	} {
		d := document(t, s, c.route, c.view)
		what := fmt.Sprintf("GET %s, Accept-Encoding %s", c.path, c.accept)
		x := do(t, http.MethodGet, base+c.path, map[string]string{"Accept-Encoding": c.accept})
		etag, body := d.ETag, x.body
		if c.coding != "" {
			v, encoded, ok := d.Variant(c.coding)
			if !ok {
				t.Fatalf("%s?view=%s has no %s variant", c.route, c.view, c.coding)
			}
			etag = v.ETag
			if !bytes.Equal(x.body, encoded) {
				t.Errorf("%s: %d bytes, want the %d bytes of the %s variant as built", what, len(x.body), len(encoded), c.coding)
			}
			var err error
			if body, err = compress.Decode(c.coding, x.body, 64<<20); err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
		if x.status != http.StatusOK || !bytes.Equal(body, buildtest.Body(t, d)) {
			t.Errorf("%s: %d, %d bytes decoded, want 200 and the %d bytes of %s?view=%s", what, x.status, len(body), d.Body.Len(), c.route, c.view)
		}
		x.want(t, what, map[string]string{"Content-Encoding": c.coding, "ETag": etag, "Vary": "Accept-Encoding", "Content-Type": d.ContentType, "Cache-Control": d.CacheControl})
		if c.coding == "" {
			continue
		}
		x = do(t, http.MethodGet, base+c.path, map[string]string{"Accept-Encoding": c.accept, "If-None-Match": etag})
		if x.status != http.StatusNotModified || len(x.body) != 0 {
			t.Errorf("%s with If-None-Match %s: %d with %d bytes, want 304 without a body", what, etag, x.status, len(x.body))
		}
		x.want(t, "304 of "+what, map[string]string{"ETag": etag})
		// Another representation's ETag validates nothing here (RFC 9110,
		// section 13.1.2): the one this request selects comes whole.
		x = do(t, http.MethodGet, base+c.path, map[string]string{"Accept-Encoding": c.accept, "If-None-Match": d.ETag})
		if x.status != http.StatusOK {
			t.Errorf("%s with the identity ETag: %d, want 200", what, x.status)
		}
		x.want(t, what+" with the identity ETag", map[string]string{"ETag": etag, "Content-Encoding": c.coding})
		x = do(t, http.MethodGet, base+c.path, map[string]string{"If-None-Match": etag})
		if x.status != http.StatusOK {
			t.Errorf("GET %s with the %s ETag, no Accept-Encoding: %d, want 200", c.path, c.coding, x.status)
		}
		x.want(t, "GET "+c.path+" with the "+c.coding+" ETag", map[string]string{"ETag": d.ETag, "Content-Encoding": ""})
		x = do(t, http.MethodHead, base+c.path, map[string]string{"Accept-Encoding": c.accept})
		if x.status != http.StatusOK || len(x.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want 200 without a body", what, x.status, len(x.body))
		}
		x.want(t, "HEAD "+what, map[string]string{"Content-Encoding": c.coding, "ETag": etag})
	}

	// Unknown tools and paths: the JSON error document, with CORS.
	for _, c := range []struct{ path, message string }{
		{"/tools/no_such_tool", `no tool "no_such_tool" in this catalog`},
		{"/tools/no_such_tool?view=compact", `no tool "no_such_tool" in this catalog`},
		{"/tools/Not-A-Tool", `no tool "Not-A-Tool" in this catalog`},
		{"/no/such/document.json", `nothing at "/no/such/document.json"`},
		// The manifest is an asset, but signpost's own: never served.
		{"/" + cloudflare.ManifestFile, `nothing at "/` + cloudflare.ManifestFile + `"`},
		// Dot segments sent escaped, which URL parsing leaves alone.
		{"/tools/%2e%2e%2ftools.json", `nothing at "/tools/../tools.json"`},
		{"/tools.json", `nothing at "/tools.json"`},
		{"/worker.js", `nothing at "/worker.js"`},
	} {
		x := do(t, http.MethodGet, base+c.path, nil)
		if want := spec.ErrorBody(http.StatusNotFound, c.message); x.status != http.StatusNotFound || !bytes.Equal(x.body, want) {
			t.Errorf("GET %s: %d %q, want 404 %q", c.path, x.status, x.body, want)
		}
		x.want(t, "GET "+c.path, errorHeaders)
	}
	if x := do(t, http.MethodHead, base+"/tools/no_such_tool", nil); x.status != http.StatusNotFound || len(x.body) != 0 {
		t.Errorf("HEAD of an unknown tool: %d with %d bytes, want 404 without a body", x.status, len(x.body))
	}

	// Preflight and other methods.
	x := do(t, http.MethodOptions, base+"/tools/get_forecast", map[string]string{
		"Origin": "https://app.example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "if-none-match",
	})
	if x.status != http.StatusNoContent {
		t.Errorf("OPTIONS: %d, want 204", x.status)
	}
	x.want(t, "OPTIONS", map[string]string{"Access-Control-Max-Age": spec.PreflightMaxAge, "Allow": spec.AllowMethods})
	x = do(t, http.MethodPost, base+"/tools", nil)
	if want := spec.ErrorBody(http.StatusMethodNotAllowed, "method POST is not allowed: use GET or HEAD"); x.status != http.StatusMethodNotAllowed || !bytes.Equal(x.body, want) {
		t.Errorf("POST /tools: %d %q, want 405 %q", x.status, x.body, want)
	}
	x.want(t, "POST /tools", map[string]string{"Allow": spec.AllowMethods, "Content-Type": spec.ContentTypeJSON})
}

// document is the site's document of route in view.
func document(t *testing.T, s *output.Site, route, view string) output.Document {
	t.Helper()
	for _, d := range s.Documents {
		if d.Route.Route == route && d.View == view {
			return d
		}
	}
	t.Fatalf("%s has no document %s?view=%s", s.Dir, route, view)
	return output.Document{}
}

// exchange is one response as it came off the wire.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

// want fails unless x has every header of want, and the CORS headers.
func (x exchange) want(t *testing.T, what string, want map[string]string) {
	t.Helper()
	for _, kv := range spec.CORSHeaders() {
		if got := x.header.Get(kv[0]); got != kv[1] {
			t.Errorf("%s: %s %q, want %q", what, kv[0], got, kv[1])
		}
	}
	for k, v := range want {
		if got := x.header.Get(k); got != v {
			t.Errorf("%s: %s %q, want %q", what, k, got, v)
		}
	}
}

// do sends one request to wrangler dev, uncompressed, without following
// redirects.
func do(t *testing.T, method, rawURL string, header map[string]string) exchange {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "example.com"
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		t.Fatalf("%s %s: %v", method, rawURL, err)
	}
	return exchange{resp.StatusCode, resp.Header, body}
}

// wranglerCmd is how to run the pinned wrangler: the Node.js to run it
// with, and its script.
type wranglerCmd struct{ node, script string }

// findWrangler finds the wrangler that make tools installs in
// bin/npm-cloudflare, with the Node.js installed beside it (wrangler
// needs Node.js 22 or later). Without it the test fails when CI is set,
// and is skipped otherwise.
func findWrangler(t *testing.T) wranglerCmd {
	t.Helper()
	if testing.Short() {
		t.Skip("serves each site under wrangler dev, which make tools installs: not in -short mode")
	}
	cmd, err := lookWrangler()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: make tools installs it", err)
		}
		t.Skipf("%v: make tools installs it", err)
	}
	return cmd
}

func lookWrangler() (wranglerCmd, error) {
	dir, err := os.Getwd()
	if err != nil {
		return wranglerCmd{}, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wranglerCmd{}, errors.New("no go.mod above the test folder")
		}
		dir = parent
	}
	modules := filepath.Join(dir, "bin", "npm-cloudflare", "node_modules")
	script := filepath.Join(modules, "wrangler", "bin", "wrangler.js")
	if _, err := os.Stat(script); err != nil {
		return wranglerCmd{}, fmt.Errorf("no wrangler at %s", script)
	}
	nodes, _ := filepath.Glob(filepath.Join(modules, "node-*", "bin", "node"))
	if len(nodes) != 1 {
		return wranglerCmd{}, fmt.Errorf("no Node.js beside wrangler in %s (found %d)", modules, len(nodes))
	}
	return wranglerCmd{nodes[0], script}, nil
}

// startWrangler starts wrangler dev in local mode on the site folder dir,
// on a free port of 127.0.0.1, with its home, state and temporary files in
// the test's own folders and everything that would reach the network
// turned off, and waits for it to answer. The whole process group
// (wrangler and workerd) is stopped when the test ends. It returns the
// server's base URL. A port found free can be taken by another process
// before wrangler binds it: then wrangler exits, and other ports are
// tried. The server counts as up once wrangler has said it is ready on
// the port and the port answers, so that another process on the port is
// never taken for it.
func startWrangler(t *testing.T, w wranglerCmd, dir string) string {
	t.Helper()
	for attempt := 1; ; attempt++ {
		base, logs, taken := tryWrangler(t, w, dir)
		if !taken {
			return base
		}
		if attempt == 3 {
			t.Fatalf("wrangler dev found its port taken 3 times:\n%s", logs)
		}
	}
}

// tryWrangler is one try of startWrangler; taken is set when wrangler
// exited because a port it was given was taken meanwhile.
func tryWrangler(t *testing.T, w wranglerCmd, dir string) (base, log string, taken bool) {
	t.Helper()
	port := freePort(t)
	home := t.TempDir()
	cmd := exec.Command(w.node, w.script, "dev", "--local",
		"--ip", "127.0.0.1", "--port", port, "--inspector-ip", "127.0.0.1", "--inspector-port", freePort(t),
		"--config", filepath.Join(dir, cloudflare.ConfigFile),
		"--persist-to", filepath.Join(home, "state"),
		"--show-interactive-dev-session=false", "--live-reload=false", "--log-level", "info")
	cmd.Dir = home
	cmd.Env = append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"TMPDIR="+home, "MINIFLARE_CACHE_DIR="+filepath.Join(home, "cache"),
		"PATH="+filepath.Dir(w.node)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CI=1", "WRANGLER_SEND_METRICS=false", "CLOUDFLARE_CF_FETCH_ENABLED=false",
		"WRANGLER_NO_SKILLS_UPDATE_PROMPTS=true", "NO_COLOR=1", "FORCE_COLOR=0",
		"CLOUDFLARE_API_TOKEN=", "CLOUDFLARE_ACCOUNT_ID=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start wrangler dev: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(stopTimeout):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		// workerd may outlive wrangler for a moment: the group goes whole.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("wrangler dev said:\n%s", logs.String())
		}
	})
	base = "http://127.0.0.1:" + port
	deadline := time.Now().Add(startTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	defer client.CloseIdleConnections()
	for {
		select {
		case <-exited:
			if strings.Contains(logs.String(), "Address already in use") {
				return "", logs.String(), true
			}
			t.Fatalf("wrangler dev exited before answering:\n%s", logs.String())
		default:
		}
		if strings.Contains(logs.String(), "Ready on "+base) {
			resp, err := client.Get(base + "/tools")
			if err == nil {
				resp.Body.Close()
				return base, "", false
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("wrangler dev did not answer on %s within %v:\n%s", base, startTimeout, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// lockedBuffer collects a process's output from two pipes at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.b.String())
}
