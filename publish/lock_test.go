package publish

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/target"
)

// putLock writes a lock object as another publish would.
func putLock(t *testing.T, api S3API, bucket, key string, rec lockRecord) {
	t.Helper()
	data, _ := json.Marshal(rec)
	if _, err := api.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(string(data))}); err != nil {
		t.Fatal(err)
	}
}

// TestLock publishes to a target another publish holds, then to one whose
// holder died, and checks that the lock is gone when a publish ends.
func TestLock(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	sites := compileExample(t, nil)
	target := &target.Target{S3: &target.S3{Bucket: bucket, Prefix: "discovery"}}
	key := "discovery/" + LockName

	// Held: nothing changes, and the error names the holder.
	putLock(t, client, bucket, key, lockRecord{Holder: "ci-runner-7, GitHub Actions run 42", Started: time.Now().Add(-time.Minute), Expires: time.Now().Add(time.Hour)})
	api := &counting{S3API: client}
	_, err := Sites(ctx, api, nil, sites, target, Options{Holder: "me"})
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder != "ci-runner-7, GitHub Actions run 42" || !strings.Contains(err.Error(), "ci-runner-7") {
		t.Fatalf("a held target: %v, want a *LockedError naming the holder", err)
	}
	if got := api.putKeys(); len(got) != 0 || api.count("PutObject") != 1 || api.count("DeleteObjects") != 0 {
		t.Errorf("a held target: PUTs %q of %d and %d deletes, want only the lock's attempt, refused", got, api.count("PutObject"), api.count("DeleteObjects"))
	}
	if keys := bucketKeys(t, client, bucket); !slices.Equal(keys, []string{key}) {
		t.Errorf("a held target: the bucket holds %q, want only the other publish's lock", keys)
	}

	// Lapsed: the lock of a publish that died is taken over, and this
	// publish's own lock is gone when it ends.
	putLock(t, client, bucket, key, lockRecord{Holder: "dead", Started: time.Now().Add(-3 * time.Hour), Expires: time.Now().Add(-2 * time.Hour)})
	if _, err := Sites(ctx, client, nil, sites, target, Options{Holder: "me"}); err != nil {
		t.Fatalf("a lapsed lock: %v", err)
	}
	if slices.Contains(bucketKeys(t, client, bucket), key) {
		t.Error("the lock is still there after the publish")
	}

	// Nothing to do: no lock is written.
	api = &counting{S3API: client}
	if _, err := Sites(ctx, api, nil, sites, target, Options{Holder: "me"}); err != nil {
		t.Fatal(err)
	}
	if got := api.putKeys(); len(got) != 0 {
		t.Errorf("a republish with nothing to do put %q", got)
	}
}

// TestLockStalePlan: a publish whose plan another publish made stale
// (the manifest changed between its listing and its lock) changes nothing.
func TestLockStalePlan(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	target := &target.Target{S3: &target.S3{Bucket: bucket}}
	first := compileExample(t, nil)
	if _, err := Sites(ctx, client, nil, first, target, Options{}); err != nil {
		t.Fatal(err)
	}
	second := compileExample(t, func(c *build.Catalog) { findTool(t, c, "get_forecast").Description = "Changed." })
	third := compileExample(t, func(c *build.Catalog) { findTool(t, c, "get_forecast").Description = "Changed by another." })
	_, err := Sites(ctx, client, nil, second, target, Options{Planned: func(*Plan) {
		// Another publish ends after this one listed the bucket.
		if _, err := Sites(ctx, client, nil, third, target, Options{}); err != nil {
			t.Error(err)
		}
	}})
	var changed *ChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("a stale plan: %v, want a *ChangedError", err)
	}
	if slices.Contains(bucketKeys(t, client, bucket), LockName) {
		t.Error("the lock is still there after the refused publish")
	}
	for _, s := range third {
		checkBucket(t, client, bucket, target.S3.SitePrefix(s), s.Documents)
	}
}

// TestLockConcurrent runs two publishes of different builds to one target
// at once: one publishes, the other is refused, and the bucket holds
// exactly the build of the one that published.
func TestLockConcurrent(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	target := &target.Target{S3: &target.S3{Bucket: bucket}}
	builds := [][]*output.Site{
		compileExample(t, nil),
		compileExample(t, func(c *build.Catalog) { findTool(t, c, "get_forecast").Description = "The other build." }),
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Sites(ctx, client, nil, builds[i], target, Options{Holder: "publish " + string(rune('A'+i))})
		}()
	}
	wg.Wait()
	var locked *LockedError
	var changed *ChangedError
	won := -1
	for i, err := range errs {
		switch {
		case err == nil:
			won = i
		case errors.As(err, &locked), errors.As(err, &changed):
		default:
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	if won < 0 {
		// Both refused is possible only when each saw the other's lock;
		// one publish alone then succeeds.
		if _, err := Sites(ctx, client, nil, builds[0], target, Options{}); err != nil {
			t.Fatal(err)
		}
		won = 0
	}
	for _, s := range builds[won] {
		checkBucket(t, client, bucket, target.S3.SitePrefix(s), s.Documents)
	}
}
