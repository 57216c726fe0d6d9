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
	"github.com/aws/smithy-go"
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

// released releases held and checks that its lock is gone.
func released(t *testing.T, held *heldLock, api S3API, bucket, key string) {
	t.Helper()
	if err := held.release(context.Background()); err != nil {
		t.Fatalf("release: %v", err)
	}
	if slices.Contains(bucketKeys(t, api, bucket), key) {
		t.Error("the lock is still there after its release")
	}
}

// lockHooks runs afterPut on each PutObject's answer.
type lockHooks struct {
	S3API
	afterPut func(in *s3.PutObjectInput, err error) error
}

func (h *lockHooks) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	out, err := h.S3API.PutObject(ctx, in, opts...)
	if h.afterPut != nil {
		err = h.afterPut(in, err)
	}
	return out, err
}

// lockPublisher is a publisher of bucket at prefix "p" through api.
func lockPublisher(api S3API, bucket string) *publisher {
	return &publisher{bucket: s3Bucket{api, bucket}, target: &target.Target{S3: &target.S3{Bucket: bucket, Prefix: "p"}}}
}

// TestLockTakeoverRace: two publishes find the same lapsed lock, and one
// takes it over; the other's takeover, conditioned on the lapsed lock's
// ETag, is refused without touching the new lock, and it is told who
// holds the target.
func TestLockTakeoverRace(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	key := "p/" + LockName
	putLock(t, client, bucket, key, lockRecord{Holder: "dead", Started: time.Now().Add(-3 * time.Hour), Expires: time.Now().Add(-2 * time.Hour)})

	stale, staleTag, err := s3Bucket{client, bucket}.readLock(ctx, key)
	if err != nil || staleTag == "" || stale.Holder != "dead" {
		t.Fatalf("the lapsed lock: %+v %q %v", stale, staleTag, err)
	}
	b, _, err := lockPublisher(client, bucket).lock(ctx, "B", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// C writes over the lapsed lock it read: refused, since B replaced it.
	c := &heldLock{bucket: s3Bucket{client, bucket}, key: key, holder: "C", started: time.Now().UTC()}
	if _, err := c.write(ctx, c.record(), staleTag); !preconditionFailed(err) {
		t.Fatalf("a takeover of a lock another publish took over: %v, want 412", err)
	}
	// And a publish that starts now is told B holds it.
	_, _, err = lockPublisher(client, bucket).lock(ctx, "C", time.Hour)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder != "B" {
		t.Fatalf("C: %v, want a *LockedError naming B", err)
	}
	released(t, b, client, bucket, key)
}

// TestLockRenewedAndLost: a held lock is written again, its expiry later;
// once another publish replaces it, the holder's work ends with an error
// that says so, and its release leaves the other's lock alone.
func TestLockRenewedAndLost(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	key := "p/" + LockName
	held, work, err := lockPublisher(client, bucket).lock(ctx, "me", 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := s3Bucket{client, bucket}.readLock(ctx, key)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rec, _, err := s3Bucket{client, bucket}.readLock(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Expires.After(first.Expires) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lock was not renewed")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if held.Lost() != nil || work.Err() != nil {
		t.Fatalf("a renewed lock: lost %v, work %v", held.Lost(), work.Err())
	}

	// Another publish took it over (it had lapsed, say).
	putLock(t, client, bucket, key, lockRecord{Holder: "other", Started: time.Now(), Expires: time.Now().Add(time.Hour)})
	select {
	case <-work.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the work under a lost lock went on")
	}
	if err := held.Lost(); err == nil || !strings.Contains(err.Error(), "other") {
		t.Errorf("lost: %v, want an error naming the new holder", err)
	}
	if err := held.release(ctx); err != nil {
		t.Fatal(err)
	}
	if rec, _, _ := (s3Bucket{client, bucket}).readLock(ctx, key); rec.Holder != "other" {
		t.Errorf("the other publish's lock after the release: %+v", rec)
	}
}

// TestLockOwnRetry: S3 stored the lock but its answer was lost, and the
// SDK's retry found the lock there: it is this publish's own, and held.
func TestLockOwnRetry(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	key := "p/" + LockName
	hooks := &lockHooks{S3API: client}
	hooks.afterPut = func(in *s3.PutObjectInput, err error) error {
		if err == nil && in.IfNoneMatch != nil {
			hooks.afterPut = nil
			// The retry of a write S3 stored.
			in.Body = strings.NewReader("{}")
			_, err = client.PutObject(ctx, in)
		}
		return err
	}
	held, _, err := lockPublisher(hooks, bucket).lock(ctx, "me", time.Hour)
	if err != nil {
		t.Fatalf("a lock whose write was retried: %v", err)
	}
	released(t, held, client, bucket, key)
}

// listHook runs once before the first listing reaches the API.
type listHook struct {
	S3API
	once sync.Once
	hook func()
}

func (h *listHook) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	h.once.Do(h.hook)
	return h.S3API.ListObjectsV2(ctx, in, opts...)
}

// TestLockManifestReadThenChanged: another publish ends between this
// one's read of the manifest and its listing. The plan compares the
// objects with the manifest it read, and holds the bucket to that
// manifest's ETag, not the listing's: whatever this publish then does, the
// manifest left describes the objects left.
func TestLockManifestReadThenChanged(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	target := &target.Target{S3: &target.S3{Bucket: bucket}}
	first := compileExample(t, nil)
	if _, err := Sites(ctx, client, nil, first, target, Options{}); err != nil {
		t.Fatal(err)
	}
	// The other publish changes headers alone (a newer signpost, say).
	other := compileExample(t, nil)
	for _, s := range other {
		for i := range s.Documents {
			s.Documents[i].CacheControl = "public, max-age=60"
		}
	}
	api := &listHook{S3API: client, hook: func() {
		if _, err := Sites(ctx, client, nil, other, target, Options{}); err != nil {
			t.Error(err)
		}
	}}
	_, err := Sites(ctx, api, nil, first, target, Options{})
	var changed *ChangedError
	if err != nil && !errors.As(err, &changed) {
		t.Fatal(err)
	}
	for _, s := range other {
		prefix := normalizePrefix(target.S3.SitePrefix(s))
		m, err := readManifest(ctx, client, bucket, prefix+ManifestName)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range s.Documents {
			out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(prefix + d.Route.Key)})
			if err != nil {
				t.Fatal(err)
			}
			out.Body.Close()
			if got, want := aws.ToString(out.CacheControl), m.manifest[d.Route.Key].CacheControl; got != want {
				t.Errorf("%s: Cache-Control %q, the manifest says %q", d.Route.Key, got, want)
			}
		}
	}
}

// TestLockRenewalAnswerLost: a renewal S3 stored but whose answer was lost
// is refused when the SDK tries it again; the lock read back is this
// publish's own, so the publish goes on, and its release deletes it.
func TestLockRenewalAnswerLost(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	key := "p/" + LockName
	var mu sync.Mutex
	lostAnswers := 1
	hooks := &lockHooks{S3API: client}
	hooks.afterPut = func(in *s3.PutObjectInput, err error) error {
		mu.Lock()
		defer mu.Unlock()
		if err == nil && in.IfMatch != nil && lostAnswers > 0 {
			lostAnswers--
			// S3 stored the renewal; the SDK's retry of it, its If-Match
			// now stale, is what the publish hears.
			return &smithy.GenericAPIError{Code: "PreconditionFailed", Message: "At least one of the pre-conditions you specified did not hold"}
		}
		return err
	}
	held, work, err := lockPublisher(hooks, bucket).lock(ctx, "me", 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		done := lostAnswers == 0
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no renewal was made")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // more renewals, on the ETag read back
	if err := held.Lost(); err != nil || work.Err() != nil {
		t.Fatalf("a renewal whose answer was lost: lost %v, work %v", err, work.Err())
	}
	released(t, held, client, bucket, key)
}

// TestLockReleaseAfterUnseenRenewal: the lock holds this publish's record
// under an ETag it never saw (a renewal stopped in flight was stored): the
// release reads it back and deletes it.
func TestLockReleaseAfterUnseenRenewal(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	key := "p/" + LockName
	held, _, err := lockPublisher(client, bucket).lock(ctx, "me", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	rec := held.record()
	rec.Expires = rec.Expires.Add(time.Minute)
	putLock(t, client, bucket, key, rec)
	released(t, held, client, bucket, key)
}
