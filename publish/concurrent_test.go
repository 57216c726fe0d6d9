package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/tool"
)

// changeAndAdd edits the example catalog: a new description for
// get_forecast and a new tool, a copy of it visible to every tenant.
func changeAndAdd(c *build.Catalog) {
	var forecast *tool.Tool
	for _, t := range c.Tools {
		if t.ToolID == "get_forecast" {
			forecast = t
		}
	}
	forecast.Description = "Daily weather forecast, described anew."
	added := *forecast
	added.ToolID = "get_forecast_hourly"
	added.Description = "Hourly weather forecast for a point on Earth."
	added.Tenants = nil
	c.Tools = append(c.Tools, &added)
	slices.SortFunc(c.Tools, func(a, b *tool.Tool) int { return strings.Compare(a.ToolID, b.ToolID) })
}

// slowPuts delays every PutObject so that readers see the bucket between
// uploads.
type slowPuts struct {
	S3API
	delay time.Duration
}

func (s *slowPuts) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	time.Sleep(s.delay)
	return s.S3API.PutObject(ctx, in, opts...)
}

// readSite reads the tool list under prefix and every tool document it
// names; it returns the toolIds and the first document missing.
func readSite(ctx context.Context, api S3API, bucket, prefix string) (ids []string, missing string, err error) {
	get := func(key string) ([]byte, error) {
		out, err := api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			return nil, err
		}
		defer out.Body.Close()
		return io.ReadAll(out.Body)
	}
	list, err := get(prefix + "tools.json")
	if err != nil {
		return nil, "", fmt.Errorf("tools.json: %w", err)
	}
	var tools []struct {
		ToolID string `json:"toolId"`
	}
	if err := json.Unmarshal(list, &tools); err != nil {
		return nil, "", fmt.Errorf("tools.json: %w", err)
	}
	for _, t := range tools {
		ids = append(ids, t.ToolID)
		key := prefix + "tools/" + t.ToolID + ".json"
		if _, err := get(key); err != nil {
			if isNotFound(err) {
				return ids, key, nil
			}
			return ids, "", fmt.Errorf("%s: %w", key, err)
		}
	}
	return ids, "", nil
}

func TestConcurrentReaderNeverMisses(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, applyOptions{})
	changed, _ := loadExample(t, changeAndAdd)
	prefix := normalizePrefix(dir)

	ctx := context.Background()
	p, err := planS3(ctx, client, bucket, dir, changed)
	if err != nil {
		t.Fatal(err)
	}
	var (
		stop             atomic.Bool
		wg               sync.WaitGroup
		rounds, sawAdded atomic.Int64
		mu               sync.Mutex
		misses, readErrs []string
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				ids, missing, err := readSite(ctx, client, bucket, prefix)
				mu.Lock()
				if missing != "" {
					misses = append(misses, missing)
				}
				if err != nil {
					readErrs = append(readErrs, err.Error())
				}
				mu.Unlock()
				if slices.Contains(ids, "get_forecast_hourly") {
					sawAdded.Add(1)
				}
				rounds.Add(1)
			}
		}()
	}
	r, err := p.apply(ctx, &slowPuts{S3API: client, delay: 20 * time.Millisecond}, applyOptions{Concurrency: 2})
	// A few rounds over the finished site: every reader completes at least
	// one round that started after the publish, however loaded the machine
	// (bounded, in case a reader is stuck).
	after := rounds.Load()
	for deadline := time.Now().Add(10 * time.Second); rounds.Load() < after+8 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if r.Uploaded != len(p.Uploads) {
		t.Errorf("uploaded %d, want %d", r.Uploaded, len(p.Uploads))
	}
	if len(misses) > 0 {
		t.Errorf("a reader found a tool in tools.json whose document was missing: %q", misses)
	}
	if len(readErrs) > 0 {
		t.Errorf("read errors: %q", readErrs[:min(len(readErrs), 5)])
	}
	if rounds.Load() < 4 || sawAdded.Load() == 0 {
		t.Errorf("%d reader rounds, %d saw the new tool: the test did not watch the publish", rounds.Load(), sawAdded.Load())
	}
	t.Logf("%d reader rounds during and after %d uploads", rounds.Load(), len(p.Uploads))
	checkBucket(t, client, bucket, dir, changed)
}

func TestFailureMidPublish(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, applyOptions{})
	changed, _ := loadExample(t, changeAndAdd)

	ctx := context.Background()
	failing := &counting{S3API: client, failPutAfter: 1}
	p, err := planS3(ctx, failing, bucket, dir, changed)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Uploads) < 3 {
		t.Fatalf("plan has %d uploads; the test needs more", len(p.Uploads))
	}
	_, err = p.apply(ctx, failing, applyOptions{Concurrency: 1, MaxDeletes: -1})
	if err == nil {
		t.Fatal("Apply succeeded with a failing PutObject")
	}
	key := p.Uploads[1].Key
	if !strings.Contains(err.Error(), "publish "+key+":") {
		t.Errorf("error %q does not name the key %s", err, key)
	}
	if !strings.Contains(err.Error(), "injected failure") {
		t.Errorf("error %q does not wrap the cause", err)
	}
	for _, k := range failing.putKeys() {
		if strings.HasSuffix(k, "tools.json") || strings.HasSuffix(k, ManifestName) {
			t.Errorf("%s was uploaded although a document upload failed", k)
		}
	}
	if n := failing.count("DeleteObjects"); n != 0 {
		t.Errorf("%d DeleteObjects calls after a failure", n)
	}

	// A new plan over the half-published bucket finishes the job.
	p2, err := planS3(ctx, client, bucket, dir, changed)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Uploads) >= len(p.Uploads) || len(p2.Uploads) == 0 {
		t.Errorf("second plan has %d uploads; the first had %d, one of which succeeded", len(p2.Uploads), len(p.Uploads))
	}
	if _, err := p2.apply(ctx, client, applyOptions{MaxDeletes: -1}); err != nil {
		t.Fatal(err)
	}
	checkBucket(t, client, bucket, dir, changed)
}
