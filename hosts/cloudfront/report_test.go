package cloudfront

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

// TestReport writes the example catalog for an S3 target and reads back
// the report, as the file beside the route table and as build prints it:
// each site's two gaps of the MCP registry (search, and the body of an
// unknown server's 404), and every other route served exactly.
func TestReport(t *testing.T) {
	b := buildtest.Example(t)
	out := filepath.Join(t.TempDir(), "site")
	h := Host{Target: &target.S3{Bucket: "example-bucket", Region: "us-east-1"}, CompactView: true}
	rep, err := h.Write(t.Context(), b, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep == nil {
		t.Fatal("no report for a catalog that publishes the MCP registry")
	}
	file, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, ReportFile, file)
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt", text.Bytes())

	var got hosts.Report
	if err := json.Unmarshal(file, &got); err != nil {
		t.Fatal(err)
	}
	if got.Format != ReportFormat || got.Target != "cloudfront" || len(got.Sites) != len(b.Sites) {
		t.Fatalf("report format %d, target %q, %d sites; want %d, cloudfront, %d", got.Format, got.Target, len(got.Sites), ReportFormat, len(b.Sites))
	}
	for i, s := range got.Sites {
		if len(s.Gaps) != 2 || s.Gaps[0].Kind != KindRegistrySearch || s.Gaps[0].Route != spec.RouteRegistry || s.Gaps[1].Kind != KindRegistryNotFound {
			t.Errorf("%s: gaps %+v, want the registry's search and 404", s.Dir, s.Gaps)
		}
		// Every route but the registry's list, whose search is a gap.
		if s.Routes != len(b.Sites[i].Documents) || s.Exact != s.Routes-1 {
			t.Errorf("%s: %d of %d routes exact, want all but %s", s.Dir, s.Exact, s.Routes, spec.RouteRegistry)
		}
	}
	// The folder is still a build, with the functions beside the sites.
	if _, err := output.Open(t.Context(), out); err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Sites {
		if _, err := os.Stat(filepath.Join(out, "cloudfront", filepath.FromSlash(s.Dir), "viewer-request.js")); err != nil {
			t.Error(err)
		}
	}
}

// TestReportWithoutRegistry checks that a build without the MCP registry
// has no report: CloudFront serves all of the rest.
func TestReportWithoutRegistry(t *testing.T) {
	b := buildtest.Example(t)
	plain := &output.Build{Files: b.Files, Limits: b.Limits}
	for _, s := range b.Sites {
		c := *s
		c.Documents = nil
		for _, d := range s.Documents {
			if !spec.IsRegistryRoute(d.Route.Route) {
				c.Documents = append(c.Documents, d)
			}
		}
		plain.Sites = append(plain.Sites, &c)
	}
	out := filepath.Join(t.TempDir(), "site")
	rep, err := Host{Target: &target.S3{Bucket: "b"}, CompactView: true}.Write(t.Context(), plain, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep != nil {
		t.Errorf("a report without the registry: %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(out, ReportFile)); !os.IsNotExist(err) {
		t.Errorf("%s written without the registry (%v)", ReportFile, err)
	}
}
