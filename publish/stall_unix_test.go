//go:build unix

package publish

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// TestStalledEndpoint stops the S3 server in the middle of a publish
// (SIGSTOP: connections stay open, nothing answers). The publish must fail
// within its limits, with a message naming the endpoint and what to do;
// once the server resumes, the next publish must complete the site, and
// the one after must find nothing to do.
func TestStalledEndpoint(t *testing.T) {
	needServer(t) // a binary to run; this test runs a server of its own
	srv, err := s3test.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	limits := Limits{Attempt: 2 * time.Second, Attempts: 2}
	client, err := NewS3Client(ctx, s3test.Region, srv.Endpoint, limits)
	if err != nil {
		t.Fatal(err)
	}
	const bucket = "stalled"
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	sites := compileExample(t, nil)
	target := &target.Target{S3: &target.S3{Bucket: bucket, Region: s3test.Region, Endpoint: srv.Endpoint}}

	var pause sync.Once
	paused := false
	opts := Options{Concurrency: 2, Progress: func(done, total int) {
		if done >= 10 {
			pause.Do(func() {
				if err := srv.Pause(); err != nil {
					t.Error(err)
				}
				paused = true
			})
		}
	}}
	ctx1, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	start := time.Now()
	_, err = Sites(ctx1, client, nil, sites, target, opts)
	took := time.Since(start)
	if resumeErr := srv.Resume(); resumeErr != nil {
		t.Fatal(resumeErr)
	}
	if !paused {
		t.Fatalf("the publish ended before the server was paused: %v", err)
	}
	var ae *AWSError
	switch {
	case err == nil:
		t.Fatal("the publish succeeded against a stopped server")
	case !errors.As(err, &ae) || ae.Cause != CauseTimeout:
		t.Errorf("error %v, want an AWSError of cause CauseTimeout", err)
	case !strings.Contains(err.Error(), strings.TrimPrefix(srv.Endpoint, "http://")) || !strings.Contains(err.Error(), "did not answer in time"):
		t.Errorf("error %q does not name the endpoint and what to do", err)
	}
	t.Logf("failed after %v: %v", took.Round(time.Millisecond), err)
	// Two tries of 2 s each for the calls under way, and the SDK's backoff.
	if took > 30*time.Second {
		t.Errorf("the publish took %v to fail", took)
	}

	// A try cut short can leave the server a stray object (versitygw lists
	// an upload it had not finished); the next publish deletes it.
	dry, err := Sites(ctx, client, nil, sites, target, Options{DryRun: true, MaxDeletes: -1})
	if err != nil {
		t.Fatalf("plan after the server resumed: %v", err)
	}
	for _, s := range dry.Sites {
		t.Logf("%s: %d uploads, deletes %q", s.Tenant, len(s.Uploads), s.Deletes)
	}
	if _, err := Sites(ctx, client, nil, sites, target, Options{MaxDeletes: -1}); err != nil {
		t.Fatalf("publish after the server resumed: %v", err)
	}
	plan, err := Sites(ctx, client, nil, sites, target, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plan.Sites {
		if len(s.Uploads) != 0 || len(s.Deletes) != 0 {
			t.Errorf("%s: %d uploads, %d deletes left after the publish that followed the stall", s.Tenant, len(s.Uploads), len(s.Deletes))
		}
	}
}
