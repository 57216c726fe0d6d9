package serve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

var exampleCatalog = filepath.Join("..", "catalogs", "example")

// startRun runs Run in the background and returns the served address and a
// function that stops it and returns Run's error.
func startRun(t *testing.T, opts Options) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	addrs := make(chan net.Addr, 1)
	opts.Addr = "127.0.0.1:0"
	opts.Serving = func(a net.Addr) { addrs <- a }
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts) }()
	select {
	case a := <-addrs:
		return "http://" + a.String(), func() error { cancel(); return <-done }
	case err := <-done:
		t.Fatalf("Run returned before serving: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not start serving")
	}
	return "", nil
}

func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	site := filepath.Join(t.TempDir(), "site")
	if err := buildtest.Compile(t, exampleCatalog).Write(ctx, site); err != nil {
		t.Fatal(err)
	}
	invalid := t.TempDir()
	if err := os.WriteFile(filepath.Join(invalid, "tools.yaml"), []byte("tools:\n  - toolId: ../broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var te *output.TenantError
	var ie *InvalidError
	var oe *OriginError
	for _, tc := range []struct {
		name string
		opts Options
		is   func(error) bool
	}{
		{"watch a built site", Options{Dir: site, Watch: true}, func(err error) bool { return errors.Is(err, ErrBuiltSite) }},
		{"origin of a built site", Options{Dir: site, Origin: "https://example.org"}, func(err error) bool { return errors.Is(err, ErrBuiltSite) }},
		{"built site without a tenant", Options{Dir: site}, func(err error) bool { return errors.As(err, &te) && te.Tenant == "" }},
		{"catalog without a tenant", Options{Dir: exampleCatalog}, func(err error) bool { return errors.As(err, &te) && te.Tenant == "" }},
		{"unknown tenant", Options{Dir: exampleCatalog, Tenant: "nobody"}, func(err error) bool { return errors.As(err, &te) && te.Tenant == "nobody" }},
		{"invalid catalog", Options{Dir: invalid}, func(err error) bool { return errors.As(err, &ie) && ie.Diagnostics.HasErrors() }},
		{"origin with a path", Options{Dir: exampleCatalog, Tenant: "acme", Origin: "http://127.0.0.1/x?y"}, func(err error) bool { return errors.As(err, &oe) }},
		{"plain http elsewhere", Options{Dir: exampleCatalog, Tenant: "acme", Origin: "http://evil.example.com"}, func(err error) bool { return errors.As(err, &oe) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Addr = "127.0.0.1:0"
			tc.opts.Serving = func(net.Addr) { t.Error("Serving called") }
			err := Run(ctx, tc.opts)
			if err == nil || !tc.is(err) {
				t.Fatalf("Run: %v", err)
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("the error names a flag: %v", err)
			}
		})
	}
}

func TestRunBuiltSite(t *testing.T) {
	ctx := context.Background()
	site := filepath.Join(t.TempDir(), "site")
	if err := buildtest.Compile(t, exampleCatalog).Write(ctx, site); err != nil {
		t.Fatal(err)
	}
	base, stop := startRun(t, Options{Dir: site, Tenant: "acme"})
	resp, err := http.Get(base + "/tools/run_runbook?view=compact")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("compact view from a built site: %d", resp.StatusCode)
	}
	if err := stop(); err != nil {
		t.Errorf("Run after ctx is done: %v", err)
	}
}

func TestRunWatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("signpost.yaml", "site: {origin: https://example.com, publisher: example.com}\n")
	write("t.yaml", "tools:\n  - toolId: get_forecast\n    description: First.\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n")
	rebuilds := make(chan Rebuild, 10)
	_, stop := startRun(t, Options{Dir: dir, Watch: true, Rebuilt: func(r Rebuild) {
		select {
		case rebuilds <- r:
		default:
		}
	}})

	// Serving is called before the watch looks at the folder for the first
	// time: change it until a rebuild is seen, a little longer each time.
	deadline := time.After(10 * time.Second)
	for broken := "tools:\n  - toolId: ../broken\n"; ; broken += "#\n" {
		write("t.yaml", broken)
		select {
		case r := <-rebuilds:
			if r.Err != nil || !r.Diagnostics.HasErrors() {
				t.Errorf("rebuild of an invalid catalog: err %v, %d errors", r.Err, r.Diagnostics.Errors())
			}
		case <-time.After(2 * watchInterval):
			continue
		case <-deadline:
			t.Fatal("no rebuild")
		}
		break
	}
	if err := stop(); err != nil {
		t.Errorf("Run after ctx is done: %v", err)
	}
}

func TestListenOrigin(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		"[::1]:8080":     "http://[::1]:8080",
		"0.0.0.0:8080":   "http://127.0.0.1:8080",
		"[::]:8080":      "http://127.0.0.1:8080",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := listenOrigin(a); got != want {
			t.Errorf("listenOrigin(%s) = %s, want %s", addr, got, want)
		}
	}
}
