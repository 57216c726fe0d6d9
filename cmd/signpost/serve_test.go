package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
)

// startServe runs `signpost serve` in the background on a free loopback port
// and returns its base URL, its stderr lines, and a stop function that
// cancels it (as SIGINT does) and returns the exit code.
func startServe(t *testing.T, args ...string) (string, <-chan string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), io.Discard, pw)
		pw.Close()
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)$`)
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				cancel()
				t.Fatalf("serve exited early with %d", <-done)
			}
			if m := addr.FindStringSubmatch(l); m != nil {
				stop := func() int {
					cancel()
					select {
					case code := <-done:
						return code
					case <-time.After(15 * time.Second):
						t.Fatal("serve did not shut down")
						return -1
					}
				}
				t.Cleanup(func() { cancel() })
				return m[1], lines, stop
			}
		case <-timeout:
			cancel()
			t.Fatal("serve did not start")
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeCatalog(t *testing.T) {
	base, _, stop := startServe(t, "../../catalogs/example", "--tenant", "globex")
	if code, body := get(t, base+"/tools/restart_service"); code != 200 || !strings.Contains(body, `"toolId":"restart_service"`) {
		t.Errorf("globex tool: %d %s", code, body)
	}
	if code, _ := get(t, base+"/tools/run_runbook"); code != 404 {
		t.Errorf("acme-only tool on globex: %d, want 404", code)
	}
	// The catalogs point at the served address, so a client can follow them.
	if _, body := get(t, base+"/.well-known/mcp/catalog.json"); !strings.Contains(body, base+"/.well-known/mcp/servers/com.example/weather.json") {
		t.Errorf("catalog does not point at %s: %s", base, body)
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d after shutdown, want 0", code)
	}
}

func TestServeBuiltSite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	if code := run(context.Background(), []string{"build", "../../catalogs/example", "--out", out}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("build: exit %d", code)
	}
	if code := run(context.Background(), []string{"serve", out}, io.Discard, io.Discard); code != cmdutil.ExitUsage {
		t.Errorf("serving a tenanted build without --tenant: exit %d, want %d", code, cmdutil.ExitUsage)
	}
	base, _, stop := startServe(t, out, "--tenant", "acme")
	if code, _ := get(t, base+"/tools/run_runbook?view=compact"); code != 200 {
		t.Errorf("compact view from a built site: %d", code)
	}
	stop()
}

func TestServeWatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("signpost.yaml", "site: {origin: https://example.com, publisher: example.com}\n")
	tool := func(desc string) string {
		return "tools:\n  - toolId: get_forecast\n    description: " + desc + "\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n"
	}
	write("t.yaml", tool("First version."))
	base, lines, stop := startServe(t, dir, "--watch")

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	body := func() string { _, b := get(t, base+"/tools/get_forecast"); return b }
	if !strings.Contains(body(), "First version.") {
		t.Fatal("first version not served")
	}
	// Modification times can be coarse: make the change visible in size too.
	write("t.yaml", tool("Second, longer version."))
	waitFor("the rebuild", func() bool { return strings.Contains(body(), "Second, longer version.") })

	// An invalid catalog is reported and the last good build stays.
	write("t.yaml", "tools:\n  - toolId: ../broken\n")
	waitFor("the diagnostics", func() bool {
		for {
			select {
			case l := <-lines:
				if strings.Contains(l, "still serving the last good build") {
					return true
				}
			default:
				return false
			}
		}
	})
	if !strings.Contains(body(), "Second, longer version.") {
		t.Error("an invalid catalog replaced the served site")
	}
	if code := stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestCheckAgainstServe runs signpost check against signpost serve: every
// rule passes, and the command exits 0. The catalog has servers but none
// hosted elsewhere, so the check stays on loopback.
func TestCheckAgainstServe(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com, displayName: Example Corp}\n",
		"servers.yaml": "servers:\n  - name: com.example/weather\n    version: 1.0.0\n    description: Forecasts.\n" +
			"    remotes: [{type: streamable-http, url: \"https://mcp.example.com/weather\"}]\n",
		"tools.yaml": "tools:\n  - toolId: get_forecast\n    description: Forecast.\n    server: com.example/weather\n" +
			"    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: internet\n" +
			"    inputSchema: {type: object, properties: {place: {anyOf: [{type: string}, {type: \"null\"}]}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, _, stop := startServe(t, dir)
	defer stop()
	var out strings.Builder
	code := run(context.Background(), []string{"check", base}, &out, io.Discard)
	if code != 0 {
		t.Fatalf("check exit %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), " 0 failed") {
		t.Errorf("report:\n%s", out.String())
	}
	var js strings.Builder
	if code := run(context.Background(), []string{"check", "--format", "json", base}, &js, io.Discard); code != 0 || !strings.Contains(js.String(), `"failed": false`) {
		t.Errorf("json report (exit %d): %.400s", code, js.String())
	}
	// With {tenant} in the URL, each tenant's site is checked; here the
	// same server stands for both.
	host := strings.TrimPrefix(base, "http://")
	var two strings.Builder
	if code := run(context.Background(), []string{"check", "http://{tenant}", "--tenant", host, "--tenant", host}, &two, io.Discard); code != 0 || strings.Count(two.String(), " 0 failed") != 2 {
		t.Errorf("two tenants (exit %d):\n%.300s", code, two.String())
	}
	if code := run(context.Background(), []string{"check", base, "--tenant", "acme"}, io.Discard, io.Discard); code != cmdutil.ExitUsage {
		t.Errorf("--tenant without {tenant}: exit %d, want %d", code, cmdutil.ExitUsage)
	}
	// A server that is not there is one line with the cause, no report,
	// and exit 2 (a check that could not run), not a crash.
	var stdout, errOut strings.Builder
	if code := run(context.Background(), []string{"check", "--timeout", "2s", "http://127.0.0.1:1"}, &stdout, &errOut); code != cmdutil.ExitUsage ||
		stdout.Len() != 0 || errOut.String() != "signpost: check http://127.0.0.1:1 does not answer: connection refused\n" {
		t.Errorf("check of a closed port: exit %d, want %d; stdout %q, stderr %q", code, cmdutil.ExitUsage, stdout.String(), errOut.String())
	}
}

// TestCheckGatedServe serves a gated tenant's site with its keys and checks
// it with a token minted from them: every rule passes, access.gate
// included; without a token the check fails.
func TestCheckGatedServe(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\ntenants: [{id: acme, gate: token, publicDiscovery: true}]\n",
		"tools.yaml": "tools:\n  - toolId: get_forecast\n    description: Forecast.\n" +
			"    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: internet\n" +
			"    inputSchema: {type: object, properties: {place: {type: string}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keys := filepath.Join(t.TempDir(), "keys.json")
	if code := run(context.Background(), []string{"token", "key", "--tenant", "acme", "--keys", keys}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("token key: exit %d", code)
	}
	base, _, stop := startServe(t, dir, "--tenant", "acme", "--token-keys", keys)
	defer stop()
	var out strings.Builder
	if code := run(context.Background(), []string{"check", base, "--token-keys", keys, "--tenant", "acme", "-v"}, &out, io.Discard); code != 0 {
		t.Fatalf("check with the token: exit %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "access.gate") || !strings.Contains(out.String(), " 0 failed") {
		t.Errorf("report:\n%s", out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"check", base}, &out, io.Discard); code != cmdutil.ExitInvalid || !strings.Contains(out.String(), "status 401") {
		t.Errorf("check without the token: exit %d:\n%.600s", code, out.String())
	}
}
