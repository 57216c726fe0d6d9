package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/signpost-dev/signpost/internal/s3test"
	"github.com/signpost-dev/signpost/publish"
)

// TestPublishCommand drives signpost publish against a real S3 server:
// dry run, first publish, no-op republish, JSON output, and the delete
// limit.
func TestPublishCommand(t *testing.T) {
	srv, err := s3test.Start()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("versitygw is required in CI: %v", err)
		}
		t.Skipf("no S3 server: %v", err)
	}
	defer srv.Close()
	ctx := context.Background()
	client, err := publish.NewS3Client(ctx, s3test.Region, srv.Endpoint)
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

	code, out := publishCmd("--dry-run")
	if code != 0 || !strings.Contains(out, "upload site/tools/get_forecast.json (new)") || !strings.Contains(out, "dry run: nothing changed") || count() != 0 {
		t.Fatalf("dry run: exit %d, %d objects:\n%s", code, count(), out)
	}
	code, out = publishCmd()
	if code != 0 || !strings.Contains(out, "published site to s3://discovery/site") {
		t.Fatalf("publish: exit %d:\n%s", code, out)
	}
	code, out = publishCmd("--format", "json")
	var report publishReport
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 0 {
		t.Fatalf("republish: exit %d, %v:\n%s", code, err, out)
	}
	if s := report.Sites[0]; len(s.Uploads) != 0 || s.Applied == nil || s.Applied.Uploaded != 0 {
		t.Errorf("a no-op republish uploaded: %+v", s)
	}

	os.Remove(filepath.Join(dir, "b.yaml"))
	if code, _ := publishCmd("--max-deletes", "1"); code != exitInvalid {
		t.Errorf("deletes over the limit: exit %d, want %d", code, exitInvalid)
	}
	if code, out := publishCmd(); code != 0 || !strings.Contains(out, "delete site/tools/get_alerts.json") {
		t.Errorf("delete within the limit: exit %d:\n%s", code, out)
	}
	if code := run(ctx, []string{"publish", dir}, io.Discard, io.Discard); code != exitUsage {
		t.Errorf("publish without --target: exit %d, want %d", code, exitUsage)
	}
}
