package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/schemas"
)

// TestBuildJSON builds the example for each kind of host with --format json
// and holds the output to the build-report schema and to the text: every
// site of the summary, and the host's report with its lines.
func TestBuildJSON(t *testing.T) {
	cat := t.TempDir()
	for name, data := range catalogtest.ReadTree(t, catalogtest.ExampleDir(t)) {
		if err := os.MkdirAll(filepath.Join(cat, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if name == "signpost.yaml" {
			data += "targets:\n  pages: {githubPages: {}}\n  netlify: {netlify: {}}\n  cloudflare: {cloudflare: {}}\n  s3: {s3: {bucket: example-site}}\n"
		}
		if err := os.WriteFile(filepath.Join(cat, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := schemas.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"", "pages", "netlify", "cloudflare", "s3"} {
		args := []string{"build", cat, "--out", filepath.Join(t.TempDir(), "site"), "--format", "json", "--origin", "http://127.0.0.1:8888"}
		if target != "" {
			args = append(args, "--target", target)
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		var report map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
			t.Fatalf("%s: not one JSON object: %v\n%s", target, err, stdout.String())
		}
		if vs := v.Validate("build-report", report); len(vs) > 0 {
			t.Errorf("%s: the report breaks its schema: %v", target, vs)
		}
		if sites := report["sites"].([]any); len(sites) != 2 {
			t.Errorf("%s: %d sites, want acme and globex", target, len(sites))
		}
		host, hasHost := report["host"].(map[string]any)
		// CloudFront's report: the MCP registry's search and 404 body.
		if wantHost := target != ""; hasHost != wantHost {
			t.Errorf("%s: host report present %v, want %v", target, hasHost, wantHost)
		}
		if hasHost && len(host["deploying"].([]any)) == 0 {
			t.Errorf("%s: the host's report has no notes on deploying", target)
		}
	}
	// --origin is the origin every document names.
	out := filepath.Join(t.TempDir(), "site")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"build", cat, "--out", out, "--origin", "http://127.0.0.1:8888"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	ai, err := os.ReadFile(filepath.Join(out, "tenants", "acme", ".well-known", "ai-catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The policies stay where they are published; every URL of the site
	// names --origin.
	site := strings.NewReplacer("https://example.com/legal/", "").Replace(string(ai))
	if !strings.Contains(site, "http://127.0.0.1:8888/") || strings.Contains(site, "https://example.com/") {
		t.Errorf("the AI catalog does not name --origin:\n%s", ai)
	}
	if code := run(context.Background(), []string{"build", cat, "--out", out, "--origin", "ftp://x"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--origin: ") {
		t.Errorf("a bad --origin: exit %d, want 2 with the flag named\n%s", code, stderr.String())
	}
}
