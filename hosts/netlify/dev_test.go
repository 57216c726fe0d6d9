package netlify

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/internal/registrytest"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// devBase is the origin the example's documents name; the client of
// checktest.Serve sends it to netlify dev.
const devBase = "https://example.com"

// devShoulds are the SHOULD rules netlify dev cannot pass where Netlify
// does, each with the reason: its static server sends Cache-Control:
// public, max-age=0 on every file, over what _headers says (the proxy writes
// the static server's headers over those of _headers), and weak ETags of its
// own. The documents the Netlify Function serves pass them. No MUST rule is
// allowed to fail.
var devShoulds = map[string]string{
	"cache.control":     "netlify dev's static server sends Cache-Control: public, max-age=0 over _headers",
	"mcp-catalog.cache": "netlify dev's static server sends Cache-Control: public, max-age=0 over _headers",
	"cache.etag":        "netlify dev sends weak ETags of its own on static files",
}

// netlifyCmd is how to run the pinned Netlify CLI: the Node.js to run it
// with, and its script.
type netlifyCmd struct{ node, script string }

// netlifyBin finds the Netlify CLI that make tools installs in
// bin/npm-netlify, with the Node.js installed beside it (netlify-cli needs
// Node.js 22.13 or later). Without it the test fails when CI is set, and is
// skipped otherwise.
func netlifyBin(t *testing.T) netlifyCmd {
	t.Helper()
	modules, err := filepath.Abs(filepath.Join("..", "..", "bin", "npm-netlify", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		t.Skip("serves the site under netlify dev, which make tools installs: not in -short mode")
	}
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+": run make tools", args...)
		}
		t.Skipf(format+": make tools installs it", args...)
	}
	script := filepath.Join(modules, "netlify-cli", "bin", "run.js")
	if _, err := os.Stat(script); err != nil {
		missing("netlify-cli is not installed (%v)", err)
	}
	nodes, _ := filepath.Glob(filepath.Join(modules, "node-*", "bin", "node"))
	if len(nodes) != 1 {
		missing("no Node.js beside netlify-cli in %s (found %d)", modules, len(nodes))
	}
	return netlifyCmd{nodes[0], script}
}

// startDev starts netlify dev, offline, on the folder dir and a free port
// of 127.0.0.1, and returns its URL once it answers; the process group is
// killed when the test ends.
func startDev(t *testing.T, bin netlifyCmd, dir string) *url.URL {
	t.Helper()
	// A port found free can be taken by another test before netlify dev
	// binds it: then netlify dev exits, and other ports are tried. The
	// server counts as up once netlify dev has said it is ready on the
	// port and the port answers, so that another process on the port is
	// never taken for it.
	for attempt := 1; ; attempt++ {
		u, log, taken := tryDev(t, bin, dir)
		if !taken {
			return u
		}
		if attempt == 3 {
			t.Fatalf("netlify dev found one of its ports taken 3 times:\n%s", log)
		}
	}
}

// tryDev is one try of startDev; taken is set when netlify dev exited
// because one of its ports was taken meanwhile.
func tryDev(t *testing.T, bin netlifyCmd, dir string) (u *url.URL, log string, taken bool) {
	t.Helper()
	// Both of netlify dev's ports are given: left to itself, its static
	// server takes 3999 whenever that is free, and two netlify devs
	// started at once (another package's test runs one) both find it free
	// and one of them fails to bind it.
	port, err := s3test.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	static, err := s3test.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	home, project := t.TempDir(), t.TempDir()
	out := &lockedBuffer{}
	cmd := exec.Command(bin.node, bin.script, "dev", "--offline", "--dir", dir,
		"--functions", filepath.Join(dir, filepath.FromSlash(FunctionsDir)), "--port", port,
		"--staticServerPort", static, "--no-open",
		"--skip-gitignore", "--internal-disable-edge-functions")
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "HOME="+home, "NETLIFY_TELEMETRY_DISABLED=1", "NO_UPDATE_NOTIFIER=1",
		"BROWSER=none", "NETLIFY_SITE_ID=", "NETLIFY_AUTH_TOKEN=", "NO_COLOR=1", "FORCE_COLOR=0",
		"PATH="+filepath.Dir(bin.node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// exited is closed when the process has exited; waitErr says how.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Error("netlify dev did not exit within 10s of SIGKILL")
		}
	})
	u = &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", port)}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	ready := "Local dev server ready: http://localhost:" + port
	for {
		if strings.Contains(out.String(), ready) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String()+"/.well-known/mcp/catalog.json", nil)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return u, "", false
				}
			}
		}
		select {
		case <-exited:
			if log := out.String(); strings.Contains(log, "Could not acquire") || strings.Contains(log, "EADDRINUSE") {
				return nil, log, true // one of its ports, taken since it was found free
			}
			t.Fatalf("netlify dev exited before it answered: %v\n%s", waitErr, out.String())
		case <-ctx.Done():
			t.Fatalf("netlify dev did not answer within 60s:\n%s", out.String())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// TestNetlifyDevServesTheContract writes the example for Netlify, starts
// netlify dev on each tenant's folder, and checks it as clients see it:
// signpost check passes every MUST rule, and fails or warns only on the
// SHOULD rules of devShoulds, and the answers that matter most are on the
// wire.
func TestNetlifyDevServesTheContract(t *testing.T) {
	levels := map[string]check.Level{}
	for _, rule := range check.Rules() {
		levels[rule.Name] = rule.Level
	}
	for rule := range devShoulds {
		if levels[rule] != check.LevelShould {
			t.Fatalf("devShoulds names %s, which is %q, not a SHOULD rule", rule, levels[rule])
		}
	}
	bin := netlifyBin(t)
	b := buildtest.ExampleOnSite(t) // a card beside an endpoint, and the ARD manifest
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Write(t.Context(), b, out); err != nil {
		t.Fatal(err)
	}
	if len(b.Sites) < 2 {
		t.Fatalf("the example builds %d sites, want one per tenant", len(b.Sites))
	}
	for _, s := range b.Sites {
		t.Run(s.Tenant, func(t *testing.T) {
			dev := startDev(t, bin, filepath.Join(out, filepath.FromSlash(s.Dir)))
			client := checktest.Serve(t, httputil.NewSingleHostReverseProxy(dev))

			r, err := check.Run(t.Context(), devBase, check.Options{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			passed := map[string]bool{}
			deviated := map[string]int{}
			for _, f := range r.Findings {
				switch f.Result {
				case check.ResultPass:
					passed[f.Rule] = true
				case check.ResultFail, check.ResultWarn:
					deviated[f.Rule]++
					if _, ok := devShoulds[f.Rule]; !ok {
						t.Errorf("%s %s %s: %s [%s]", f.Result, f.Rule, f.URL, f.Message, f.Evidence)
					}
				}
			}
			musts := 0
			for _, rule := range check.Rules() {
				// access.gate needs a gated site, which Load refuses for Netlify.
				if rule.Level == check.LevelMust && !passed[rule.Name] && rule.Name != "access.gate" && !checktest.SignedRule(rule.Name) {
					t.Errorf("MUST rule %s never passed under netlify dev", rule.Name)
				} else if rule.Level == check.LevelMust && passed[rule.Name] {
					musts++
				}
			}
			t.Logf("%d MUST rules passed; SHOULD rules netlify dev does not pass, by findings: %v", musts, deviated)
			devDirect(t, client, s)
		})
	}
}

// TestNetlifyDevServesTheRegistry writes a site with the MCP registry's
// hard cases (registrytest.Catalog) for Netlify, starts netlify dev on it,
// and replays every request of the registry's clients: each answer, from
// the registry's function, is the one signpost serve gives, status, bytes
// and headers. netlify dev's proxy, imitating pretty URLs, sends a request
// answered 404 again at PATH.html, PATH.htm, PATH/index.html and
// PATH/index.htm, function or not, and passes on the answer to the last
// (devRetried): there a 404 is serve's answer to that path. Deployed, a
// function's answer is final; TestRegistryFunction holds the function to
// serve without the proxy.
func TestNetlifyDevServesTheRegistry(t *testing.T) {
	bin := netlifyBin(t)
	b := buildtest.Compile(t, catalogtest.Write(t, registrytest.Catalog))
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Write(t.Context(), b, out); err != nil {
		t.Fatal(err)
	}
	s := b.Sites[0]
	dev := startDev(t, bin, filepath.Join(out, filepath.FromSlash(s.Dir)))
	sent := registrytest.Replay(t, s, func(t *testing.T, method, target string, header map[string]string) registrytest.Answer {
		return registrytest.Send(t, dev.String(), "", method, target, header)
	}, registrytest.Options{Retried: devRetried})
	t.Logf("%d requests replayed:\n%s", len(sent), strings.Join(sent, "\n"))
}

// TestRegistryFunction runs the Netlify Function of the registry of a
// site with the registry's hard cases in Node.js alone, on 127.0.0.1, and
// replays every request of the registry's clients: each answer is serve's,
// the 404s of an unknown version included, which netlify dev's retries
// hide (see TestNetlifyDevServesTheRegistry).
func TestRegistryFunction(t *testing.T) {
	bin := netlifyBin(t)
	s := buildtest.Compile(t, catalogtest.Write(t, registrytest.Catalog)).Sites[0]
	fn, _, err := RegistryFunction(s)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "signpost-registry.mjs")
	if err := os.WriteFile(file, fn, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "serve-function.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin.node, script, file)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok && strings.HasPrefix(line, "PORT ") {
			base = "http://127.0.0.1:" + strings.TrimPrefix(line, "PORT ")
			break
		}
		select {
		case <-exited:
			t.Fatalf("node exited before it listened:\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("node did not listen within 30s:\n%s", out.String())
		}
	}
	sent := registrytest.Replay(t, s, func(t *testing.T, method, target string, header map[string]string) registrytest.Answer {
		return registrytest.Send(t, base, "", method, target, header)
	}, registrytest.Options{})
	t.Logf("%d requests replayed", len(sent))
}

// devRetried is the last path netlify dev's proxy tries after a 404 at
// target (its alternativePathsFor), with target's query; "" when it tries
// none.
func devRetried(target string) string {
	p, query, _ := strings.Cut(target, "?")
	if query != "" {
		query = "?" + query
	}
	switch {
	case strings.HasPrefix(p, "/.netlify/"):
		return ""
	case strings.HasSuffix(p, "/"):
		return p + "index.htm" + query
	case regexp.MustCompile(`\.(html?|png|jpg|js|css|svg|gif|ico|woff|woff2)$`).MatchString(p):
		return ""
	}
	return p + "/index.htm" + query
}

type exchange struct {
	status int
	header http.Header
	body   []byte
}

func devDo(t *testing.T, client *http.Client, method, route string, header map[string]string) exchange {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, devBase+route, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, route, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%s %s: %v", method, route, err)
	}
	return exchange{resp.StatusCode, resp.Header, body}
}

// wantCORS reports a response without the CORS headers every response
// needs.
func (x exchange) wantCORS(t *testing.T, what string) {
	t.Helper()
	for _, h := range spec.CORSHeaders() {
		if got := strings.Join(x.header.Values(h[0]), ", "); got != h[1] {
			t.Errorf("%s: %s %q, want %q", what, h[0], got, h[1])
		}
	}
}

// wantType reports a response whose media type is not want. netlify dev
// adds charset=utf-8 to application/json, its type of .json files.
func (x exchange) wantType(t *testing.T, what, want string) {
	t.Helper()
	mt, _, err := mime.ParseMediaType(x.header.Get("Content-Type"))
	if err != nil || mt != want {
		t.Errorf("%s: Content-Type %q, want %s", what, x.header.Get("Content-Type"), want)
	}
}

func doc(t *testing.T, s *output.Site, route, view string) output.Document {
	t.Helper()
	for _, d := range s.Documents {
		if d.Route.Route == route && d.View == view {
			return d
		}
	}
	t.Fatalf("site %s has no document %s in view %s", s.Dir, route, view)
	return output.Document{}
}

// devDirect asserts the answers of netlify dev that matter most, one by
// one, and what it does where it differs from Netlify.
func devDirect(t *testing.T, client *http.Client, s *output.Site) {
	t.Helper()
	for _, c := range []struct{ path, route, view string }{
		{"/tools", "/tools", spec.ViewStandard},
		{"/tools?view=compact", "/tools", spec.ViewCompact},
		{"/tools?view=zz", "/tools", spec.ViewStandard},
		{"/tools/get_forecast", "/tools/get_forecast", spec.ViewStandard},
		{"/tools/get_forecast?view=compact", "/tools/get_forecast", spec.ViewCompact},
		{"/tool-catalogue.json", "/tool-catalogue.json", spec.ViewStandard},
		{spec.RouteARD, spec.RouteARD, spec.ViewStandard},
		{spec.RouteAICatalog, spec.RouteAICatalog, spec.ViewStandard},
		{buildtest.OnSiteCardRoute, buildtest.OnSiteCardRoute, spec.ViewStandard},
	} {
		d := doc(t, s, c.route, c.view)
		x := devDo(t, client, http.MethodGet, c.path, nil)
		if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, d)) {
			t.Errorf("GET %s: %d, %d bytes, want 200 and the %d bytes of %s", c.path, x.status, len(x.body), d.Body.Len(), d.Key)
		}
		x.wantCORS(t, "GET "+c.path)
		x.wantType(t, "GET "+c.path, d.ContentType)
		if got := x.header.Get("Link"); got != s.Link() {
			t.Errorf("GET %s: Link %q, want %q", c.path, got, s.Link())
		}
	}

	// Every tool and group, in every view, from the placeholder rules:
	// the document's bytes and media type.
	for _, d := range s.Documents {
		if _, ok := spec.GroupKeyOf(d.Route.Route); !ok && !strings.HasPrefix(d.Route.Route, spec.RouteTools+"/") {
			continue
		}
		p := spec.Request(d.Route.Route, d.View)
		x := devDo(t, client, http.MethodGet, p, nil)
		if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, d)) {
			t.Errorf("GET %s: %d, %d bytes, want 200 and the %d bytes of %s", p, x.status, len(x.body), d.Body.Len(), d.Key)
		}
		x.wantCORS(t, "GET "+p)
		x.wantType(t, "GET "+p, d.ContentType)
	}

	// A toolId or group the site does not have: the JSON 404 of the
	// not-found function, with every header of the contract's error,
	// whichever way it is asked for.
	for _, p := range []string{"/tools/no_such_tool", "/tools/no_such_tool?view=compact", "/tools/no_such_tool?view=zz", "/tools/Not-A-Tool",
		"/tools/no_such_tool.json", "/tools/no_such_tool.compact.json", "/tool-catalogue/groups/no_such_group.json"} {
		x := devDo(t, client, http.MethodGet, p, nil)
		if x.status != http.StatusNotFound || !bytes.Equal(x.body, spec.NotFoundBody()) {
			t.Errorf("GET %s: %d %q, want 404 %q", p, x.status, x.body, spec.NotFoundBody())
		}
		x.wantCORS(t, "GET "+p)
		for h, want := range map[string]string{"Content-Type": spec.ContentTypeJSON, "Cache-Control": spec.ErrorCacheControl} {
			if got := x.header.Get(h); got != want {
				t.Errorf("GET %s: %s %q, want %q", p, h, got, want)
			}
		}
	}
	if x := devDo(t, client, http.MethodHead, "/tools/no_such_tool", nil); x.status != http.StatusNotFound || len(x.body) != 0 {
		t.Errorf("HEAD of an unknown tool: %d with %d bytes, want 404 without a body", x.status, len(x.body))
	}

	// The lists' own keys, paths below a tool and unknown paths: the JSON
	// 404 of the catch-all rule.
	for _, p := range []string{"/tools.json", "/tools.compact.json", "/tools/get_forecast/more", "/no/such/path"} {
		x := devDo(t, client, http.MethodGet, p, nil)
		if x.status != http.StatusNotFound || !bytes.Equal(x.body, spec.NotFoundBody()) {
			t.Errorf("GET %s: %d %q, want 404 %q", p, x.status, x.body, spec.NotFoundBody())
		}
		x.wantCORS(t, "GET "+p)
		x.wantType(t, "GET "+p, spec.ContentTypeJSON)
	}

	// A browser's preflight: netlify dev answers OPTIONS itself, 2xx with
	// the CORS headers of _headers, which is what a preflight needs.
	x := devDo(t, client, http.MethodOptions, "/tools/get_forecast", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "if-none-match"})
	if x.status < 200 || x.status > 299 {
		t.Errorf("OPTIONS: %d, want 2xx", x.status)
	}
	x.wantCORS(t, "OPTIONS")

	// If-None-Match: netlify dev's weak ETag of the body, and a 304.
	x = devDo(t, client, http.MethodGet, "/tools", nil)
	etag := x.header.Get("ETag")
	if etag == "" {
		t.Fatal("GET /tools: no ETag")
	}
	x = devDo(t, client, http.MethodGet, "/tools", map[string]string{"If-None-Match": etag})
	if x.status != http.StatusNotModified || len(x.body) != 0 {
		t.Errorf("If-None-Match: %s: %d with %d bytes, want 304 without a body", etag, x.status, len(x.body))
	}
	x.wantCORS(t, "304")
	if x = devDo(t, client, http.MethodGet, "/tools", map[string]string{"If-None-Match": `"other"`}); x.status != http.StatusOK {
		t.Errorf("If-None-Match of another ETag: %d, want 200", x.status)
	}

	// The documents of the Netlify Function: every byte and header as the
	// route table says, a strong ETag and its 304, the contract's
	// preflight and 405.
	routes := FunctionRoutes(s)
	if !slices.Contains(routes, spec.RouteAICatalog) {
		t.Fatalf("the function serves %v, not %s", routes, spec.RouteAICatalog)
	}
	for _, route := range routes {
		d := doc(t, s, route, spec.ViewStandard)
		x := devDo(t, client, http.MethodGet, route, nil)
		if x.status != http.StatusOK || !bytes.Equal(x.body, buildtest.Body(t, d)) {
			t.Errorf("GET %s: %d, %d bytes, want 200 and the %d bytes of %s", route, x.status, len(x.body), d.Body.Len(), d.Key)
		}
		x.wantCORS(t, "GET "+route)
		for h, want := range map[string]string{"Content-Type": d.ContentType, "Cache-Control": d.CacheControl, "ETag": d.ETag} {
			if got := x.header.Get(h); got != want {
				t.Errorf("GET %s: %s %q, want %q", route, h, got, want)
			}
		}
		x = devDo(t, client, http.MethodGet, route, map[string]string{"If-None-Match": d.ETag})
		if x.status != http.StatusNotModified || len(x.body) != 0 {
			t.Errorf("GET %s If-None-Match %s: %d with %d bytes, want 304 without a body", route, d.ETag, x.status, len(x.body))
		}
	}
	x = devDo(t, client, http.MethodOptions, spec.RouteAICatalog, map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"})
	if x.status != http.StatusNoContent || x.header.Get("Allow") != spec.AllowMethods || x.header.Get("Access-Control-Max-Age") != spec.PreflightMaxAge {
		t.Errorf("OPTIONS %s: %d, Allow %q, Access-Control-Max-Age %q; want 204, %q and %s", spec.RouteAICatalog, x.status, x.header.Get("Allow"), x.header.Get("Access-Control-Max-Age"), spec.AllowMethods, spec.PreflightMaxAge)
	}
	x.wantCORS(t, "OPTIONS "+spec.RouteAICatalog)
	x = devDo(t, client, http.MethodPost, spec.RouteAICatalog, nil)
	if want := spec.ErrorBody(http.StatusMethodNotAllowed, "method POST is not allowed: use GET or HEAD"); x.status != http.StatusMethodNotAllowed || !bytes.Equal(x.body, want) {
		t.Errorf("POST %s: %d %q, want 405 %q", spec.RouteAICatalog, x.status, x.body, want)
	}
	x.wantCORS(t, "POST "+spec.RouteAICatalog)
	x.wantType(t, "POST "+spec.RouteAICatalog, spec.ContentTypeJSON)

	// The error document and the function's source are no document: 404.
	for _, p := range []string{"/" + ErrorFile, "/" + FunctionFile} {
		x := devDo(t, client, http.MethodGet, p, nil)
		if x.status != http.StatusNotFound || !bytes.Equal(x.body, spec.NotFoundBody()) {
			t.Errorf("GET %s: %d %q, want 404 %q", p, x.status, x.body, spec.NotFoundBody())
		}
		x.wantCORS(t, "GET "+p)
	}
}

// lockedBuffer collects a process's output from two pipes at once, and
// is read while the process runs.
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
	return l.b.String()
}
