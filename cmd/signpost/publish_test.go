package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/cftest"
	"github.com/signpost-dev/signpost/internal/s3test"
	"github.com/signpost-dev/signpost/publish"
)

// startS3 starts versitygw for the test, and stops it after; without it,
// the test is skipped, or fails when CI is set.
func startS3(t *testing.T) *s3test.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("publishes to versitygw, which make test installs: not in -short mode")
	}
	srv, err := s3test.Start()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("versitygw is required in CI: %v", err)
		}
		t.Skipf("no S3 server: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// TestPublishCommand drives signpost publish against a real S3 server:
// dry run, first publish, no-op republish, JSON output, and the delete
// limit.
func TestPublishCommand(t *testing.T) {
	srv := startS3(t)
	ctx := context.Background()
	client, err := publish.NewS3Client(ctx, s3test.Region, srv.Endpoint, publish.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("discovery")}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		out, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("discovery")})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Contents)
	}

	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("signpost.yaml", "site: {origin: https://example.com, publisher: example.com}\n"+
		"targets:\n  local: {s3: {bucket: discovery, prefix: site, endpoint: \""+srv.Endpoint+"\"}}\n")
	tool := func(id string) string {
		return "tools:\n  - toolId: " + id + "\n    description: A tool.\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n"
	}
	write("a.yaml", tool("get_forecast"))
	write("b.yaml", tool("get_alerts"))
	publishCmd := func(args ...string) (int, string) {
		var out strings.Builder
		code := run(ctx, append([]string{"publish", dir, "--target", "local"}, args...), &out, io.Discard)
		return code, out.String()
	}

	// The plan is a line of counts per site; -v lists each key.
	code, out := publishCmd("--dry-run")
	if want := "plan for the site without tenants at s3://discovery/site/: 22 uploads, 0 deletes, 0 unchanged\ndry run: nothing changed for the site without tenants\n"; code != 0 || out != want || count() != 0 {
		t.Fatalf("dry run: exit %d, %d objects:\n%s\nwant:\n%s", code, count(), out, want)
	}
	code, out = publishCmd("--dry-run", "-v")
	if code != 0 || !strings.Contains(out, "\n  upload site/tools/get_forecast.json (new)\n") || !strings.Contains(out, "dry run: nothing changed") || count() != 0 {
		t.Fatalf("dry run -v: exit %d, %d objects:\n%s", code, count(), out)
	}
	if code, out := publishCmd("--dry-run", "--quiet"); code != 0 || out != "" {
		t.Fatalf("dry run --quiet: exit %d:\n%s", code, out)
	}
	code, out = publishCmd()
	if code != 0 || !strings.Contains(out, "published the site without tenants to s3://discovery/site") {
		t.Fatalf("publish: exit %d:\n%s", code, out)
	}
	code, out = publishCmd("--format", "json")
	var report publish.Plan
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 0 {
		t.Fatalf("republish: exit %d, %v:\n%s", code, err, out)
	}
	if s := report.Sites[0]; len(s.Uploads) != 0 || s.Applied == nil || s.Applied.Uploaded != 0 {
		t.Errorf("a no-op republish uploaded: %+v", s)
	}

	os.Remove(filepath.Join(dir, "b.yaml"))
	if code, _ := publishCmd("--max-deletes", "1"); code != cmdutil.ExitInvalid {
		t.Errorf("deletes over the limit: exit %d, want %d", code, cmdutil.ExitInvalid)
	}
	if code, out := publishCmd("-v"); code != 0 || !strings.Contains(out, "delete site/tools/get_alerts.json") {
		t.Errorf("delete within the limit: exit %d:\n%s", code, out)
	}
	if code := run(ctx, []string{"publish", dir}, io.Discard, io.Discard); code != cmdutil.ExitUsage {
		t.Errorf("publish without --target: exit %d, want %d", code, cmdutil.ExitUsage)
	}
}

// startPublishServers starts an S3 server with the bucket, and the fake
// CloudFront API that signpost publish is pointed at.
func startPublishServers(t *testing.T, bucket string) (*s3test.Server, *cftest.Server, *s3.Client) {
	t.Helper()
	srv := startS3(t)
	cf := cftest.Start()
	t.Cleanup(cf.Close)
	t.Setenv("AWS_ENDPOINT_URL_CLOUDFRONT", cf.URL)
	client, err := publish.NewS3Client(context.Background(), s3test.Region, srv.Endpoint, publish.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	return srv, cf, client
}

// TestPublishCloudFront drives signpost publish against a real S3 server
// and a fake CloudFront API, for a catalog with two tenants, each behind
// its own distribution: the functions are created, kept and updated as
// the routes change, and only what changed is invalidated.
func TestPublishCloudFront(t *testing.T) {
	srv, cf, client := startPublishServers(t, "discovery")
	ctx := context.Background()

	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("signpost.yaml", "site: {origin: https://example.com, publisher: example.com}\ntenants: [acme, globex]\n"+
		"targets:\n  production:\n    s3: {bucket: discovery, endpoint: \""+srv.Endpoint+"\"}\n"+
		"    cloudfront:\n      tenants:\n        acme: {distributionId: E1ACME, functionName: discovery-acme}\n        globex: {distributionId: E1GLOBEX}\n")
	tool := func(id, description string) string {
		return "tools:\n  - toolId: " + id + "\n    description: " + description + "\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n"
	}
	write("a.yaml", tool("get_forecast", "A forecast."))
	write("b.yaml", tool("get_alerts", "Alerts."))
	publishJSON := func(args ...string) publish.Plan {
		t.Helper()
		var out, errOut strings.Builder
		code := run(ctx, append([]string{"publish", dir, "--target", "production", "--format", "json"}, args...), &out, &errOut)
		var report publish.Plan
		if err := json.Unmarshal([]byte(out.String()), &report); err != nil || code != 0 {
			t.Fatalf("publish %q: exit %d, %v:\n%s%s", args, code, err, out.String(), errOut.String())
		}
		return report
	}
	functions := func(r publish.Plan) string {
		var b strings.Builder
		for _, s := range r.Sites {
			for _, f := range s.CloudFront.Functions {
				fmt.Fprintf(&b, "%s=%s ", f.Name, f.Action)
			}
		}
		return strings.TrimSpace(b.String())
	}

	// A dry run plans the functions and changes nothing.
	r := publishJSON("--dry-run")
	if got := functions(r); got != "discovery-acme-viewer-request=create discovery-acme-viewer-response=create" {
		t.Errorf("dry run functions: %s", got)
	}
	if _, ok := cf.Function("discovery-acme-viewer-request"); ok || cf.Calls("CreateInvalidation") != 0 {
		t.Fatal("a dry run changed the distribution")
	}

	// The first publish creates and publishes the functions, with the
	// code signpost build writes, and has nothing to invalidate.
	r = publishJSON()
	if got := functions(r); got != "discovery-acme-viewer-request=create discovery-acme-viewer-response=create" {
		t.Errorf("first publish functions: %s", got)
	}
	var built strings.Builder
	site := filepath.Join(t.TempDir(), "site")
	if code := run(ctx, []string{"build", dir, "--target", "production", "--out", site}, &built, &built); code != 0 {
		t.Fatalf("build: %s", built.String())
	}
	for name, file := range map[string]string{"discovery-acme-viewer-request": "viewer-request.js", "discovery-acme-viewer-response": "viewer-response.js"} {
		want, err := os.ReadFile(filepath.Join(site, "cloudfront", "tenants", "acme", file))
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := cf.Function(name); !ok || string(f.Live) != string(want) {
			t.Errorf("function %s is not live with the built %s", name, file)
		}
	}
	if n := cf.Calls("CreateInvalidation"); n != 0 {
		t.Errorf("a first publish made %d invalidations", n)
	}
	obj, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("discovery"), Key: aws.String("tenants/globex/" + publish.ErrorDocumentName)})
	if err != nil {
		t.Fatalf("the error page is missing: %v", err)
	}
	obj.Body.Close()
	if aws.ToString(obj.ContentType) != "application/json" {
		t.Errorf("error page Content-Type %q", aws.ToString(obj.ContentType))
	}

	// Changing a tool invalidates its routes and objects and the lists',
	// on each distribution; the functions stay as they are.
	write("a.yaml", tool("get_forecast", "A forecast, described anew."))
	r = publishJSON()
	if got := functions(r); got != "discovery-acme-viewer-request=unchanged discovery-acme-viewer-response=unchanged" {
		t.Errorf("functions after a tool change: %s", got)
	}
	inv := cf.Invalidations()
	if len(inv) != 2 {
		t.Fatalf("%d invalidations, want one per distribution: %+v", len(inv), inv)
	}
	// A document's variants are objects of their own, cached under their
	// own keys: they are invalidated with it.
	want := []string{"/tenants/acme/tool-catalogue.json", "/tenants/acme/tool-catalogue.json.br", "/tenants/acme/tool-catalogue.json.gz",
		"/tenants/acme/tool-catalogue/groups/host_extension.json", "/tenants/acme/tool-catalogue/groups/host_extension.json.br", "/tenants/acme/tool-catalogue/groups/host_extension.json.gz",
		"/tenants/acme/tools.compact.json", "/tenants/acme/tools.compact.json.br", "/tenants/acme/tools.compact.json.gz",
		"/tenants/acme/tools.json", "/tenants/acme/tools.json.br", "/tenants/acme/tools.json.gz",
		"/tenants/acme/tools/get_forecast.compact.json", "/tenants/acme/tools/get_forecast.json",
		"/tool-catalogue.json", "/tool-catalogue/groups/host_extension.json", "/tools", "/tools/get_forecast"}
	if inv[0].DistributionID != "E1ACME" || !slices.Equal(inv[0].Paths, want) {
		t.Errorf("acme invalidation %+v, want paths %q", inv[0], want)
	}
	if inv[1].DistributionID != "E1GLOBEX" || len(inv[1].Paths) != len(want) {
		t.Errorf("globex invalidation %+v", inv[1])
	}
	if ids := r.Sites[0].CloudFront.InvalidationIDs; len(ids) != 1 {
		t.Errorf("the report has invalidation ids %q, want one", ids)
	}

	// A new server card is a new route, but no function names a document:
	// the functions stay as they are; a republish then has nothing to do.
	write("s.yaml", "servers:\n  - name: com.example/weather\n    version: 1.0.0\n    description: Weather.\n    remotes:\n      - {type: streamable-http, url: \"https://mcp.example.com/weather\"}\n")
	r = publishJSON()
	if got := functions(r); got != "discovery-acme-viewer-request=unchanged discovery-acme-viewer-response=unchanged" {
		t.Errorf("functions after a new server: %s", got)
	}
	r = publishJSON()
	if got := functions(r); got != "discovery-acme-viewer-request=unchanged discovery-acme-viewer-response=unchanged" || len(r.Sites[0].Uploads) != 0 || len(r.Sites[0].CloudFront.Invalidations) != 0 {
		t.Errorf("a no-op republish: %+v", r.Sites[0])
	}
	if n := cf.Calls("CreateInvalidation"); n != 4 {
		t.Errorf("%d invalidations in all, want 4 (a tool change and the new catalogs, on two distributions)", n)
	}

	// The text plan names the distribution's work.
	write("b.yaml", tool("get_alerts", "Alerts, described anew."))
	var text strings.Builder
	if code := run(ctx, []string{"publish", dir, "--target", "production", "--dry-run", "-v"}, &text, io.Discard); code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, text.String())
	}
	for _, line := range []string{
		"plan for tenant acme at s3://discovery/tenants/acme/: 14 uploads, 0 deletes,",
		"  function discovery-acme-viewer-request: unchanged\n",
		"  invalidate 18 paths on distribution E1ACME\n    /tenants/acme/tool-catalogue.json\n",
		"  invalidate 18 paths on distribution E1GLOBEX\n",
		"dry run: nothing changed for tenant globex\n",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("dry run output lacks %q:\n%s", line, text.String())
		}
	}
	write("b.yaml", tool("get_alerts", "Alerts."))

	// A failing CloudFront stops the publish with an error naming what failed.
	write("a.yaml", tool("get_forecast", "A forecast, described once more."))
	cf.Fail("CreateInvalidation", 503)
	var errOut strings.Builder
	code := run(ctx, []string{"publish", dir, "--target", "production"}, io.Discard, &errOut)
	if code != cmdutil.ExitInvalid || !strings.Contains(errOut.String(), "invalidate 18 paths on distribution E1ACME") {
		t.Errorf("failing invalidation: exit %d: %s", code, errOut.String())
	}
	// The documents are up, so the next publish finds nothing to upload,
	// but the paths the failed one meant to invalidate stay pending.
	cf.Fail("CreateInvalidation", 0)
	before := len(cf.Invalidations())
	r = publishJSON()
	if c := r.Sites[0].CloudFront; len(r.Sites[0].Uploads) != 0 || len(c.Pending) != 18 || len(c.Invalidations) != 18 || len(c.InvalidationIDs) != 1 {
		t.Errorf("a publish after a failed invalidation: %+v %+v", r.Sites[0], c)
	}
	if n := len(cf.Invalidations()) - before; n != 2 {
		t.Errorf("%d invalidations, want one per distribution", n)
	}
	if r = publishJSON(); len(r.Sites[0].CloudFront.Pending) != 0 {
		t.Errorf("pending paths after they were invalidated: %q", r.Sites[0].CloudFront.Pending)
	}

	// Removing a tool: the changed lists are invalidated and waited for
	// before the delete, and the deleted paths after it.
	if err := os.Remove(filepath.Join(dir, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	cf.CompleteAfter(1)
	// More deletes than --max-deletes refuse the whole publish, before
	// anything changes: a dry run says so too.
	before = len(cf.Invalidations())
	for _, dry := range []bool{true, false} {
		args := []string{"publish", dir, "--target", "production", "--max-deletes", "0", "--format", "json"}
		if dry {
			args = append(args, "--dry-run")
		}
		var out strings.Builder
		errOut.Reset()
		code := run(ctx, args, &out, &errOut)
		if code != cmdutil.ExitInvalid || !strings.Contains(errOut.String(), "2 deletes planned for s3://discovery/tenants/acme/") ||
			!strings.Contains(errOut.String(), "more than --max-deletes 0: nothing published") || !strings.Contains(out.String(), `"refused": true`) {
			t.Fatalf("refused deletes (dry run %t): exit %d: %s\n%s", dry, code, errOut.String(), out.String())
		}
	}
	if n := len(cf.Invalidations()) - before; n != 0 || cf.Calls("UpdateFunction") != 0 {
		t.Errorf("a refused publish made %d invalidations, %d function updates", n, cf.Calls("UpdateFunction"))
	}
	r = publishJSON()
	if len(r.Sites[0].CloudFront.Pending) != 0 {
		t.Errorf("paths pending after a refused publish: %q", r.Sites[0].CloudFront.Pending)
	}
	inv = cf.Invalidations()[before:]
	if len(inv) != 4 || len(r.Sites[0].Deletes) != 2 || len(r.Sites[0].CloudFront.InvalidationIDs) != 2 {
		t.Fatalf("removing a tool: invalidations %+v, site %+v", inv, r.Sites[0])
	}
	// The first holds the lists and is waited for; the second the deleted
	// documents, by route too.
	if first, second := inv[0], inv[1]; !slices.Contains(first.Paths, "/tools") || first.Polls != 2 ||
		!slices.Contains(second.Paths, "/tools/get_alerts") || !slices.Contains(second.Paths, "/tenants/acme/tools/get_alerts.json") || slices.Contains(second.Paths, "/tools") {
		t.Errorf("acme: first invalidation %+v (waited for), then %+v", first, second)
	}
	if r = publishJSON(); len(r.Sites[0].CloudFront.Pending) != 0 || len(r.Sites[0].CloudFront.Invalidations) != 0 {
		t.Errorf("a republish after the deletes: %+v", r.Sites[0].CloudFront)
	}
}

// TestPublishOutput pins what signpost publish prints, byte for byte: the
// text plan and result lines, the JSON report, and the messages of a
// refused publish, of a wait for CloudFront that times out, and of a
// missing bucket.
func TestPublishOutput(t *testing.T) {
	srv := startS3(t)
	cf := cftest.Start()
	defer cf.Close()
	t.Setenv("AWS_ENDPOINT_URL_CLOUDFRONT", cf.URL)
	ctx := context.Background()
	client, err := publish.NewS3Client(ctx, s3test.Region, srv.Endpoint, publish.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("pinned")}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("signpost.yaml", "site: {origin: https://example.com, publisher: example.com}\n"+
		"targets:\n  local: {s3: {bucket: pinned, prefix: site, endpoint: \""+srv.Endpoint+"\"}, cloudfront: {distributionId: E1PINNED, functionName: pinned}}\n")
	tool := func(id, description string) string {
		return "tools:\n  - toolId: " + id + "\n    description: " + description + "\n    source: host-extension\n    safetyTier: read\n    replayPolicy: deterministic\n    egress: none\n"
	}
	write("a.yaml", tool("get_forecast", "A forecast."))
	write("b.yaml", tool("get_alerts", "Alerts."))
	publishCmd := func(wantCode int, args ...string) (string, string) {
		t.Helper()
		var out, errOut strings.Builder
		if code := run(ctx, append([]string{"publish", dir, "--target", "local", "-v"}, args...), &out, &errOut); code != wantCode {
			t.Fatalf("publish %q: exit %d, want %d:\n%s%s", args, code, wantCode, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	same := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", what, got, want)
		}
	}

	out, _ := publishCmd(0, "--dry-run")
	same("dry run", out, `plan for the site without tenants at s3://pinned/site/: 23 uploads, 0 deletes, 0 unchanged; distribution E1PINNED: 2 functions to change, 0 paths to invalidate
  upload site/.signpost-404.json (new)
  upload site/tool-catalogue/groups/host_extension.json (new)
  upload site/tools/get_alerts.compact.json (new)
  upload site/tools/get_alerts.json (new)
  upload site/tools/get_forecast.compact.json (new)
  upload site/tools/get_forecast.json (new)
  upload site/tool-catalogue.json.br (new)
  upload site/tool-catalogue.json.gz (new)
  upload site/tool-catalogue/groups/host_extension.json.br (new)
  upload site/tool-catalogue/groups/host_extension.json.gz (new)
  upload site/tools.compact.json.br (new)
  upload site/tools.compact.json.gz (new)
  upload site/tools.json.br (new)
  upload site/tools.json.gz (new)
  upload site/tool-catalogue.json (new)
  upload site/tools.compact.json (new)
  upload site/tools.json (new)
  upload site/.well-known/ai-catalog.json (new)
  upload site/.well-known/ai-catalog.json.br (new)
  upload site/.well-known/ai-catalog.json.gz (new)
  upload site/.well-known/mcp/catalog.json (new)
  upload site/.well-known/mcp/catalog.json.br (new)
  upload site/.well-known/mcp/catalog.json.gz (new)
  function pinned-viewer-request: create
  function pinned-viewer-response: create
  invalidate 0 paths on distribution E1PINNED
dry run: nothing changed for the site without tenants
`)
	out, _ = publishCmd(0)
	same("publish", out, `plan for the site without tenants at s3://pinned/site/: 23 uploads, 0 deletes, 0 unchanged; distribution E1PINNED: 2 functions to change, 0 paths to invalidate
  upload site/.signpost-404.json (new)
  upload site/tool-catalogue/groups/host_extension.json (new)
  upload site/tools/get_alerts.compact.json (new)
  upload site/tools/get_alerts.json (new)
  upload site/tools/get_forecast.compact.json (new)
  upload site/tools/get_forecast.json (new)
  upload site/tool-catalogue.json.br (new)
  upload site/tool-catalogue.json.gz (new)
  upload site/tool-catalogue/groups/host_extension.json.br (new)
  upload site/tool-catalogue/groups/host_extension.json.gz (new)
  upload site/tools.compact.json.br (new)
  upload site/tools.compact.json.gz (new)
  upload site/tools.json.br (new)
  upload site/tools.json.gz (new)
  upload site/tool-catalogue.json (new)
  upload site/tools.compact.json (new)
  upload site/tools.json (new)
  upload site/.well-known/ai-catalog.json (new)
  upload site/.well-known/ai-catalog.json.br (new)
  upload site/.well-known/ai-catalog.json.gz (new)
  upload site/.well-known/mcp/catalog.json (new)
  upload site/.well-known/mcp/catalog.json.br (new)
  upload site/.well-known/mcp/catalog.json.gz (new)
  function pinned-viewer-request: create
  function pinned-viewer-response: create
  invalidate 0 paths on distribution E1PINNED
published the site without tenants to s3://pinned/site/: 23 uploaded (9312 bytes), 0 deleted, 0 unchanged; distribution E1PINNED: 2 functions updated, 0 paths invalidated
`)

	write("a.yaml", tool("get_forecast", "A forecast, described anew."))
	if err := os.Remove(filepath.Join(dir, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	out, errOut := publishCmd(cmdutil.ExitInvalid, "--max-deletes", "1")
	same("refused", out, `plan for the site without tenants at s3://pinned/site/: 14 uploads, 2 deletes, 7 unchanged; distribution E1PINNED: 0 functions to change, 21 paths to invalidate
  upload site/tool-catalogue/groups/host_extension.json (content changed)
  upload site/tool-catalogue/groups/host_extension.json.br (content changed)
  upload site/tool-catalogue/groups/host_extension.json.gz (content changed)
  upload site/tools/get_forecast.compact.json (content changed)
  upload site/tools/get_forecast.json (content changed)
  upload site/tool-catalogue.json (content changed)
  upload site/tool-catalogue.json.br (content changed)
  upload site/tool-catalogue.json.gz (content changed)
  upload site/tools.compact.json (content changed)
  upload site/tools.compact.json.br (content changed)
  upload site/tools.compact.json.gz (content changed)
  upload site/tools.json (content changed)
  upload site/tools.json.br (content changed)
  upload site/tools.json.gz (content changed)
  delete site/tools/get_alerts.compact.json
  delete site/tools/get_alerts.json
  function pinned-viewer-request: unchanged
  function pinned-viewer-response: unchanged
  invalidate 21 paths on distribution E1PINNED; the changed ones before the deletes, waiting for CloudFront, then the deleted ones
    /site/tool-catalogue.json
    /site/tool-catalogue.json.br
    /site/tool-catalogue.json.gz
    /site/tool-catalogue/groups/host_extension.json
    /site/tool-catalogue/groups/host_extension.json.br
    /site/tool-catalogue/groups/host_extension.json.gz
    /site/tools.compact.json
    /site/tools.compact.json.br
    /site/tools.compact.json.gz
    /site/tools.json
    /site/tools.json.br
    /site/tools.json.gz
    /site/tools/get_alerts.compact.json
    /site/tools/get_alerts.json
    /site/tools/get_forecast.compact.json
    /site/tools/get_forecast.json
    /tool-catalogue.json
    /tool-catalogue/groups/host_extension.json
    /tools
    /tools/get_alerts
    /tools/get_forecast
refused: nothing changed for the site without tenants
`)
	same("refused, stderr", errOut, "signpost: 2 deletes planned for s3://pinned/site/, more than --max-deletes 1: nothing published; check the plan, then raise the limit\n")
	out, _ = publishCmd(cmdutil.ExitInvalid, "--max-deletes", "1", "--format", "json", "--dry-run")
	same("refused, json", out, `{
  "bucket": "pinned",
  "dryRun": true,
  "refused": true,
  "sites": [
    {
      "tenant": "",
      "prefix": "site/",
      "uploads": [
        {
          "key": "site/tool-catalogue/groups/host_extension.json",
          "reason": "content changed"
        },
        {
          "key": "site/tool-catalogue/groups/host_extension.json.br",
          "reason": "content changed"
        },
        {
          "key": "site/tool-catalogue/groups/host_extension.json.gz",
          "reason": "content changed"
        },
        {
          "key": "site/tools/get_forecast.compact.json",
          "reason": "content changed"
        },
        {
          "key": "site/tools/get_forecast.json",
          "reason": "content changed"
        },
        {
          "key": "site/tool-catalogue.json",
          "reason": "content changed"
        },
        {
          "key": "site/tool-catalogue.json.br",
          "reason": "content changed"
        },
        {
          "key": "site/tool-catalogue.json.gz",
          "reason": "content changed"
        },
        {
          "key": "site/tools.compact.json",
          "reason": "content changed"
        },
        {
          "key": "site/tools.compact.json.br",
          "reason": "content changed"
        },
        {
          "key": "site/tools.compact.json.gz",
          "reason": "content changed"
        },
        {
          "key": "site/tools.json",
          "reason": "content changed"
        },
        {
          "key": "site/tools.json.br",
          "reason": "content changed"
        },
        {
          "key": "site/tools.json.gz",
          "reason": "content changed"
        }
      ],
      "deletes": [
        "site/tools/get_alerts.compact.json",
        "site/tools/get_alerts.json"
      ],
      "unchanged": 7,
      "cloudfront": {
        "distributionId": "E1PINNED",
        "functions": [
          {
            "name": "pinned-viewer-request",
            "action": "unchanged"
          },
          {
            "name": "pinned-viewer-response",
            "action": "unchanged"
          }
        ],
        "invalidations": [
          "/site/tool-catalogue.json",
          "/site/tool-catalogue.json.br",
          "/site/tool-catalogue.json.gz",
          "/site/tool-catalogue/groups/host_extension.json",
          "/site/tool-catalogue/groups/host_extension.json.br",
          "/site/tool-catalogue/groups/host_extension.json.gz",
          "/site/tools.compact.json",
          "/site/tools.compact.json.br",
          "/site/tools.compact.json.gz",
          "/site/tools.json",
          "/site/tools.json.br",
          "/site/tools.json.gz",
          "/site/tools/get_alerts.compact.json",
          "/site/tools/get_alerts.json",
          "/site/tools/get_forecast.compact.json",
          "/site/tools/get_forecast.json",
          "/tool-catalogue.json",
          "/tool-catalogue/groups/host_extension.json",
          "/tools",
          "/tools/get_alerts",
          "/tools/get_forecast"
        ],
        "pending": [],
        "invalidationIds": []
      }
    }
  ]
}
`)

	cf.CompleteAfter(1 << 30)
	_, errOut = publishCmd(cmdutil.ExitInvalid, "--invalidation-timeout", "50ms")
	same("timed out, stderr", errOut, "signpost: wait for invalidation I1 on distribution E1PINNED: context deadline exceeded; raise --invalidation-timeout, or publish again later: the paths stay pending until an invalidation succeeds\n")
	out, _ = publishCmd(0, "--dry-run", "--max-invalidation-paths", "4")
	same("pending", out, `plan for the site without tenants at s3://pinned/site/: 0 uploads, 2 deletes, 21 unchanged; distribution E1PINNED: 0 functions to change, 4 paths to invalidate
  delete site/tools/get_alerts.compact.json
  delete site/tools/get_alerts.json
  function pinned-viewer-request: unchanged
  function pinned-viewer-response: unchanged
  invalidate 4 paths on distribution E1PINNED, 21 left pending by an earlier publish; the changed ones before the deletes, waiting for CloudFront, then the deleted ones
    /*
    /site/tools/get_alerts.compact.json
    /site/tools/get_alerts.json
    /tools/get_alerts
dry run: nothing changed for the site without tenants
`)
	cf.CompleteAfter(0)
	out, _ = publishCmd(0, "--max-invalidation-paths", "4")
	lines := strings.SplitAfter(out, "\n")
	same("deletes, last line", lines[len(lines)-2], "published the site without tenants to s3://pinned/site/: 0 uploaded (0 bytes), 2 deleted, 21 unchanged; distribution E1PINNED: 0 functions updated, 4 paths invalidated\n")

	_, errOut = publishCmd(cmdutil.ExitInvalid, "--bucket", "no-such-bucket")
	if _, hint, _ := strings.Cut(errOut, "\n"); hint != "bucket no-such-bucket does not exist: create it, or check the target's bucket and endpoint (--bucket, --endpoint)\n" {
		t.Errorf("missing bucket: %q", errOut)
	}
}
