package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublishKeyValueStore checks that the plan says when the
// viewer-request function's key value store association changes: given at
// creation, replaced, kept, and removed.
func TestPublishKeyValueStore(t *testing.T) {
	srv, _, _ := startPublishServers(t, "gated")
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	withStore := func(arn string) {
		store := ""
		if arn != "" {
			store = ", keyValueStoreArn: " + arn
		}
		write("signpost.yaml", "site: {origin: https://example.com, publisher: example.com}\n"+
			"targets:\n  local: {s3: {bucket: gated, endpoint: \""+srv.Endpoint+"\"}, cloudfront: {distributionId: E1GATED, functionName: gated"+store+"}}\n")
	}
	write("a.yaml", "tools:\n  - toolId: get_forecast\n    description: A forecast.\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n")
	functions := func(args ...string) string {
		t.Helper()
		var out, errOut strings.Builder
		if code := run(ctx, append([]string{"publish", dir, "--target", "local", "-v"}, args...), &out, &errOut); code != 0 {
			t.Fatalf("publish %q: exit %d:\n%s%s", args, code, out.String(), errOut.String())
		}
		var lines []string
		for _, l := range strings.SplitAfter(out.String(), "\n") {
			if strings.HasPrefix(l, "  function ") {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "")
	}
	const (
		a = "arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"
		b = "arn:aws:cloudfront::123456789012:key-value-store/b2c3d4e5-6789-01bc-def0-EXAMPLE22222"
	)
	for _, step := range []struct{ store, want string }{
		{a, "  function gated-viewer-request: create (associate key value store " + a + ")\n  function gated-viewer-response: create\n"},
		{a, "  function gated-viewer-request: unchanged\n  function gated-viewer-response: unchanged\n"},
		{b, "  function gated-viewer-request: update (associate key value store " + b + " in place of " + a + ")\n  function gated-viewer-response: unchanged\n"},
		{"", "  function gated-viewer-request: update (remove key value store association " + b + ")\n  function gated-viewer-response: unchanged\n"},
	} {
		withStore(step.store)
		if got := functions(); got != step.want {
			t.Errorf("store %q:\n got %q\nwant %q", step.store, got, step.want)
		}
	}
	withStore(a)
	var out strings.Builder
	if code := run(ctx, []string{"publish", dir, "--target", "local", "--dry-run", "--format", "json"}, &out, &out); code != 0 {
		t.Fatalf("json dry run: exit %d:\n%s", code, out.String())
	}
	if want := `"name": "gated-viewer-request",
            "action": "update",
            "keyValueStoreArn": "` + a + `"`; !strings.Contains(out.String(), want) {
		t.Errorf("json plan lacks\n%s\nin\n%s", want, out.String())
	}
}
