//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// stopLimit is how long after its signal a command may take to end in these
// tests: far less than the work would take, but not a timing goal (tests
// share the machine); the one-second goal is measured by hand.
const stopLimit = 5 * time.Second

// catches reports whether process pid has a handler of sig, as the SigCgt
// mask of /proc/PID/status says; true where there is no /proc to ask.
func catches(pid int, sig syscall.Signal) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return true
	}
	for _, line := range strings.Split(string(data), "\n") {
		if mask, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			var bits uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(mask), "%x", &bits); err != nil {
				return true
			}
			return bits&(1<<(uint(sig)-1)) != 0
		}
	}
	return true
}

// stopWith starts signpost with args, sends sig once it has run for after,
// and returns its exit code, stderr and how long it took to end after the
// signal. The command is bounded: it is killed after 30 s.
func stopWith(t *testing.T, sig syscall.Signal, after time.Duration, args ...string) (int, string, time.Duration) {
	t.Helper()
	bin, err := exec.LookPath("signpost")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// A signal that arrives before the process runs kills it as the
	// default action would, whatever the code does, and on a loaded
	// machine exec and the runtime's start alone can outlast after. So
	// wait until the process catches sig (Go's runtime does from its first
	// moments, main's handler follows within milliseconds), where the
	// system says so (Linux), then for after.
	caught := time.After(30 * time.Second)
	for !catches(cmd.Process.Pid, sig) {
		select {
		case err := <-done:
			t.Fatalf("signpost %s ended before the signal: %v\n%s", strings.Join(args, " "), err, stderr.String())
		case <-caught:
			t.Fatalf("signpost %s set no handler of %v in 30 s", strings.Join(args, " "), sig)
		case <-time.After(5 * time.Millisecond):
		}
	}
	select {
	case err := <-done:
		t.Fatalf("signpost %s ended before the signal: %v\n%s", strings.Join(args, " "), err, stderr.String())
	case <-time.After(after):
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		took := time.Since(sent)
		t.Logf("signpost %s: exit %d %v after %v", args[0], cmd.ProcessState.ExitCode(), sig, took)
		return cmd.ProcessState.ExitCode(), stderr.String(), took
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("signpost %s ignored %v for 30 s", strings.Join(args, " "), sig)
	}
	return 0, "", 0
}

// TestCheckStopsOnSIGINT: a check of an origin that answers slowly stops at
// once on SIGINT, exit 130.
func TestCheckStopsOnSIGINT(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	defer slow.Close()
	code, stderr, took := stopWith(t, syscall.SIGINT, 500*time.Millisecond, "check", slow.URL)
	if code != 130 || took > stopLimit || !strings.Contains(stderr, "signpost: interrupted") {
		t.Errorf("exit %d after %v, want 130 and interrupted, at once; stderr:\n%s", code, took, stderr)
	}
}

// longCatalog writes a catalog of 20,000 tools, which takes seconds to
// load, with extra lines added to signpost.yaml.
func longCatalog(t *testing.T, config string) string {
	t.Helper()
	var tools strings.Builder
	tools.WriteString("tools:\n")
	for i := range 20000 {
		fmt.Fprintf(&tools, "  - toolId: tool_%d\n    description: Tool number %d, with a description long enough to matter.\n    safetyTier: read\n    replayPolicy: idempotent\n    egress: none\n    source: host-extension\n    inputSchema: {type: object, properties: {q: {type: string, description: A query.}, n: {type: integer, minimum: 1}}}\n", i, i)
	}
	return catalogtest.Write(t, map[string]string{"signpost.yaml": catalogtest.Config + config, "tools.yaml": tools.String()})
}

// TestValidateAndDiffStopOnSignals: validate and diff of long catalogs stop
// on SIGINT and SIGTERM.
func TestValidateAndDiffStopOnSignals(t *testing.T) {
	dir := longCatalog(t, "")
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		args []string
	}{
		{syscall.SIGINT, 130, []string{"validate", dir}},
		{syscall.SIGTERM, 143, []string{"diff", dir, dir}},
	} {
		code, stderr, took := stopWith(t, tc.sig, 300*time.Millisecond, tc.args...)
		if code != tc.code || took > stopLimit || !strings.Contains(stderr, "signpost: interrupted") {
			t.Errorf("%s: exit %d after %v, want %d and interrupted, at once; stderr:\n%s", tc.args[0], code, took, tc.code, stderr)
		}
	}
}

// TestPublishStopsOnSIGINT: a publish waiting on an S3 endpoint that does
// not answer stops at once on SIGINT, exit 130.
func TestPublishStopsOnSIGINT(t *testing.T) {
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	defer stalled.Close()
	dir := catalogtest.Write(t, map[string]string{
		"signpost.yaml": catalogtest.Config + "targets:\n  local: {s3: {bucket: stalled, region: us-east-1, endpoint: \"" + stalled.URL + "\"}}\n",
		"tools.yaml":    "tools:\n  - {toolId: get_forecast, description: Forecast., source: host-extension, safetyTier: read, replayPolicy: idempotent, egress: none}\n",
	})
	// Credentials of the environment: the SDK looks nowhere else, and never
	// at an instance metadata service.
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	code, stderr, took := stopWith(t, syscall.SIGINT, 1500*time.Millisecond, "publish", dir, "--target", "local")
	if code != 130 || took > stopLimit || !strings.Contains(stderr, "signpost: interrupted") {
		t.Errorf("exit %d after %v, want 130 and interrupted, at once; stderr:\n%s", code, took, stderr)
	}
}

// TestBuildStopsOnSIGTERM: a long build (about 9 s here) stops on SIGTERM,
// exit 143, and leaves the output folder as it was.
func TestBuildStopsOnSIGTERM(t *testing.T) {
	dir := longCatalog(t, "")
	out := filepath.Join(t.TempDir(), "site")
	code, stderr, took := stopWith(t, syscall.SIGTERM, 300*time.Millisecond, "build", dir, "--out", out)
	if code != 143 || took > stopLimit || !strings.Contains(stderr, "signpost: interrupted") {
		t.Errorf("exit %d after %v, want 143 and interrupted, at once; stderr:\n%s", code, took, stderr)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted build left %s: %v", out, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("the interrupted build left %d entries beside the output", len(entries))
	}
}
