//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
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

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/hosts/cloudflare"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// localHost is a host whose local server the docs tell users to try a
// site under, in the three lines of their section "Trying a site locally":
// build for a local origin, serve with the host's own server, check.
type localHost struct {
	doc     string // the page, below the module's root
	target  string // the target signpost init writes for the host
	pkg     string // the npm package npx runs
	pin     string // the Makefile's variable that pins its version
	modules string // where make tools installs it, below the module's root
	script  string // its command, below modules
	// ready is what the server prints once it listens on the port.
	ready func(port string) string
	// taken is what it prints when the port is taken.
	taken string
}

var localHosts = []localHost{
	{doc: "docs/hosts/cloudflare.md", target: "cloudflare", pkg: "wrangler", pin: "WRANGLER_VERSION",
		modules: "bin/npm-cloudflare/node_modules", script: "wrangler/bin/wrangler.js",
		ready: func(port string) string { return "Ready on http://127.0.0.1:" + port },
		taken: "Address already in use"},
	{doc: "docs/hosts/netlify.md", target: "netlify", pkg: "netlify-cli", pin: "NETLIFY_CLI_VERSION",
		modules: "bin/npm-netlify/node_modules", script: "netlify-cli/bin/run.js",
		ready: func(port string) string { return "Local dev server ready: http://localhost:" + port },
		taken: "Could not acquire required 'port'"},
}

// localServerTimeout bounds the start of a host's local server on a busy
// machine (netlify dev takes most of a minute).
const localServerTimeout = 3 * time.Minute

// TestDocsLocalHosts runs the lines the host pages give for trying a site
// locally, as they are written, against a build of the example catalog:
// signpost build for a local origin, the host's own local server, then
// signpost check, which must pass every MUST rule. Only what a test must
// change is changed: npx PACKAGE@VERSION runs the package make tools
// installs (whose version, the Makefile's pin and the line's must be the
// same), the example's acme tenant stands for site/public (the example has
// tenants), its port is a free one, and the catalog gets the target
// signpost init would write. Every HTTP(S) request to another host than
// 127.0.0.1 goes to a proxy that refuses and records it: the lines, as
// written, must send none (no metrics, no telemetry, no update check).
func TestDocsLocalHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs wrangler dev and netlify dev, which make tools installs: not in -short mode")
	}
	root := catalogtest.ModuleRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range localHosts {
		t.Run(h.target, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(h.doc)))
			if err != nil {
				t.Fatal(err)
			}
			lines := localLines(t, h.doc, string(page))
			build, serve, check := lines[0], lines[1], lines[2]

			// The version of the line is the pinned one, and the one
			// installed.
			m := regexp.MustCompile(`npx ([a-z-]+)@(\S+) `).FindStringSubmatch(serve)
			if m == nil || m[1] != h.pkg {
				t.Fatalf("%s: the server's line %q runs no npx %s@VERSION", h.doc, serve, h.pkg)
			}
			launcher, version := m[0], m[2]
			if pinned := makeVar(t, string(makefile), h.pin); version != pinned {
				t.Errorf("%s names %s %s, the Makefile pins %s", h.doc, h.pkg, version, pinned)
			}
			if h.pkg == "wrangler" && version != cloudflare.WranglerVersion {
				t.Errorf("%s names wrangler %s, cloudflare.WranglerVersion is %s", h.doc, version, cloudflare.WranglerVersion)
			}
			node, script := npmTool(t, root, h.modules, h.script, h.pkg, version)

			// One port in all three lines.
			pm := regexp.MustCompile(`--origin http://127\.0\.0\.1:(\d+)$`).FindStringSubmatch(build)
			if pm == nil {
				t.Fatalf("%s: the build line %q builds for no origin http://127.0.0.1:PORT", h.doc, build)
			}
			port := pm[1]
			if !strings.Contains(serve, "--port "+port+" ") && !strings.HasSuffix(serve, "--port "+port) {
				t.Errorf("%s: the server's line does not listen on the build's port %s:\n%s", h.doc, port, serve)
			}
			if !strings.HasPrefix(check, "signpost check http://127.0.0.1:"+port+" ") {
				t.Errorf("%s: the check line does not check the build's origin:\n%s", h.doc, check)
			}

			catalog := filepath.Join(t.TempDir(), "catalog")
			if err := os.CopyFS(catalog, os.DirFS(catalogtest.ExampleDir(t))); err != nil {
				t.Fatal(err)
			}
			config, err := os.OpenFile(filepath.Join(catalog, "signpost.yaml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(config, "targets:\n  %s: {%s: {}}\n", h.target, h.target)
			if err := config.Close(); err != nil {
				t.Fatal(err)
			}
			t.Chdir(catalog)
			proxy := refusingProxy(t)

			// The docs' port, in each line, made a free one.
			var free string
			at := func(line string) string {
				return regexp.MustCompile(`\b`+port+`\b`).ReplaceAllString(line, free)
			}
			for attempt := 1; ; attempt++ {
				free = localFreePort(t)
				signpost(t, at(build))
				line := strings.Replace(at(serve), launcher, shellQuote(node)+" "+shellQuote(script)+" ", 1)
				line = strings.ReplaceAll(line, "site/public", "site/tenants/acme")
				log, taken := startLocal(t, line, proxy, h, free)
				if !taken {
					break
				}
				if attempt == 3 {
					t.Fatalf("%s found its port taken 3 times:\n%s", h.pkg, log)
				}
			}
			out := signpost(t, at(check))
			if !strings.Contains(out, " 0 failed") {
				t.Errorf("%s fails a rule:\n%s", check, out)
			}
			if got := proxy.requests(); len(got) > 0 {
				t.Errorf("the lines of %s reach other hosts than 127.0.0.1: %s", h.doc, strings.Join(got, "; "))
			}
		})
	}
}

// localLines returns the three lines of the section "Trying a site
// locally" of the page doc: its first sh block.
func localLines(t *testing.T, doc, page string) []string {
	t.Helper()
	_, section, ok := strings.Cut(page, "\n## Trying a site locally\n")
	if !ok {
		t.Fatalf("%s has no section Trying a site locally", doc)
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	block, _, closed := strings.Cut(block, "```")
	if !ok || !closed {
		t.Fatalf("%s: Trying a site locally has no sh block", doc)
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "signpost build ") || !strings.HasPrefix(lines[2], "signpost check ") {
		t.Fatalf("%s: want three lines, signpost build, the server, signpost check; got\n%s", doc, block)
	}
	return lines
}

// signpost runs a line of the docs that starts with signpost, in this
// process, and returns what it printed; it fails the test unless the
// command succeeds.
func signpost(t *testing.T, line string) string {
	t.Helper()
	args := strings.Fields(line)
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if code := run(ctx, args[1:], &stdout, &stderr); code != cmdutil.ExitOK {
		t.Fatalf("%s: exit %d\n%s%s", line, code, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// makeVar returns the value the Makefile gives the variable name.
func makeVar(t *testing.T, makefile, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*:?=\s*(\S+)\s*$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return m[1]
}

// npmTool finds the package make tools installs below modules, at
// version, and the Node.js installed beside it. Without them the test
// fails when CI is set, and is skipped otherwise.
func npmTool(t *testing.T, root, modules, script, pkg, version string) (node, path string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format+": run make tools", args...)
		}
		t.Skipf(format+": make tools installs it", args...)
	}
	dir := filepath.Join(root, filepath.FromSlash(modules))
	data, err := os.ReadFile(filepath.Join(dir, pkg, "package.json"))
	if err != nil {
		missing("%s is not installed (%v)", pkg, err)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("%s's package.json: %v", pkg, err)
	}
	if p.Version != version {
		missing("%s %s is installed in %s, not %s", pkg, p.Version, dir, version)
	}
	nodes, _ := filepath.Glob(filepath.Join(dir, "node-*", "bin", "node"))
	if len(nodes) != 1 {
		missing("no Node.js beside %s in %s (found %d)", pkg, dir, len(nodes))
	}
	return nodes[0], filepath.Join(dir, filepath.FromSlash(script))
}

// startLocal runs line, a host's local server listening on port, with
// bash in the current folder, in a home of its own and with every HTTP(S)
// request to another host sent to proxy, and returns once it has said it
// is ready on the port and answers there, so that another process on the
// port is never taken for it. taken is set, with its output, when it
// exited because the port was taken meanwhile. The process group is
// killed when the test ends.
func startLocal(t *testing.T, line string, proxy *recordingProxy, h localHost, port string) (log string, taken bool) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command("bash", "-c", line)
	env := []string{
		"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"TMPDIR=" + home, "NO_COLOR=1", "FORCE_COLOR=0", "BROWSER=none",
		// Every request to another host goes to the proxy: Node.js's own
		// HTTP clients and fetch (NODE_USE_ENV_PROXY) and wrangler's.
		"HTTP_PROXY=" + proxy.url, "HTTPS_PROXY=" + proxy.url, "http_proxy=" + proxy.url, "https_proxy=" + proxy.url,
		"NO_PROXY=127.0.0.1,localhost,::1", "no_proxy=127.0.0.1,localhost,::1", "NODE_USE_ENV_PROXY=1",
	}
	// What the line sets itself is not inherited: CI, and the variables
	// of the host's tools.
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "CI" || strings.HasPrefix(name, "WRANGLER_") || strings.HasPrefix(name, "CLOUDFLARE_") ||
			strings.HasPrefix(name, "NETLIFY_") || strings.HasPrefix(name, "MINIFLARE_") || slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") }):
		default:
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		if t.Failed() {
			t.Logf("%s said:\n%s", h.pkg, out.String())
		}
	})
	base := "http://127.0.0.1:" + port
	client := &http.Client{Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(localServerTimeout)
	for {
		select {
		case <-exited:
			if strings.Contains(out.String(), h.taken) {
				return out.String(), true
			}
			t.Fatalf("%s exited before it answered:\n%s", line, out.String())
		default:
		}
		if strings.Contains(out.String(), h.ready(port)) {
			if resp, err := client.Get(base + "/tools"); err == nil {
				resp.Body.Close()
				return "", false
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer on %s within %v:\n%s", line, base, localServerTimeout, out.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// localFreePort returns a port of 127.0.0.1 that was free a moment ago.
func localFreePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// recordingProxy is an HTTP proxy on 127.0.0.1 that forwards nothing: it
// answers every request 403 and records its request line (CONNECT
// host:443, or a method and an absolute URL).
type recordingProxy struct {
	url  string
	mu   sync.Mutex
	seen []string
}

func refusingProxy(t *testing.T) *recordingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{url: "http://" + l.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				if line = strings.TrimSpace(line); line != "" {
					p.mu.Lock()
					p.seen = append(p.seen, line)
					p.mu.Unlock()
				}
				_, _ = c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			})
		}
	})
	return p
}

// requests are the request lines the proxy got, sorted, each once.
func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(p.seen)))
}
