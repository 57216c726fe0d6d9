package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// exampleCatalog is the example catalog, relative to this package.
var exampleCatalog = "../catalogs/example"

const (
	testRegion = s3test.Region
)

// testEndpoint is the versitygw started by TestMain; empty when none runs
// and serverMissing says why.
var (
	testEndpoint  string
	serverMissing string
	bucketSeq     atomic.Int64
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	srv, err := s3test.Start()
	if err != nil {
		serverMissing = err.Error()
		return m.Run()
	}
	defer srv.Close()
	testEndpoint = srv.Endpoint
	return m.Run()
}

// testAPI is S3API plus the calls only tests make.
type testAPI interface {
	S3API
	CreateBucket(ctx context.Context, params *s3.CreateBucketInput, optFns ...func(*s3.Options)) (*s3.CreateBucketOutput, error)
	GetBucketCors(ctx context.Context, params *s3.GetBucketCorsInput, optFns ...func(*s3.Options)) (*s3.GetBucketCorsOutput, error)
}

// needServer skips or fails the test when no server runs.
func needServer(tb testing.TB) {
	tb.Helper()
	if testEndpoint != "" {
		return
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("versitygw is required in CI: %s", serverMissing)
	}
	tb.Skipf("no S3 server: %s", serverMissing)
}

// newBucket makes a client and a bucket of its own for the test.
func newBucket(tb testing.TB) (testAPI, string) {
	tb.Helper()
	needServer(tb)
	ctx := context.Background()
	client, err := NewS3Client(ctx, testRegion, testEndpoint)
	if err != nil {
		tb.Fatal(err)
	}
	bucket := fmt.Sprintf("signpost-test-%d", bucketSeq.Add(1))
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		tb.Fatalf("create bucket %s: %v", bucket, err)
	}
	return client, bucket
}

// counting wraps an S3API, counts calls per method and records their order.
// failPutAfter, when > 0, makes every PutObject after that many fail.
type counting struct {
	S3API
	mu           sync.Mutex
	calls        []string // method names in the order the calls completed
	puts         []string // keys of successful PutObject calls
	gets         []string // keys of GetObject calls
	failPutAfter int
	putCalls     int
}

func (c *counting) record(method string) {
	c.mu.Lock()
	c.calls = append(c.calls, method)
	c.mu.Unlock()
}

func (c *counting) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.calls {
		if m == method {
			n++
		}
	}
	return n
}

func (c *counting) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	defer c.record("ListObjectsV2")
	return c.S3API.ListObjectsV2(ctx, in, opts...)
}

func (c *counting) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	c.mu.Lock()
	c.putCalls++
	fail := c.failPutAfter > 0 && c.putCalls > c.failPutAfter
	c.mu.Unlock()
	if fail {
		c.record("PutObject(failed)")
		return nil, errors.New("injected failure")
	}
	out, err := c.S3API.PutObject(ctx, in, opts...)
	c.mu.Lock()
	c.calls = append(c.calls, "PutObject")
	if err == nil {
		c.puts = append(c.puts, aws.ToString(in.Key))
	}
	c.mu.Unlock()
	return out, err
}

func (c *counting) DeleteObjects(ctx context.Context, in *s3.DeleteObjectsInput, opts ...func(*s3.Options)) (*s3.DeleteObjectsOutput, error) {
	c.record("DeleteObjects")
	return c.S3API.DeleteObjects(ctx, in, opts...)
}

func (c *counting) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	c.mu.Lock()
	c.gets = append(c.gets, aws.ToString(in.Key))
	c.mu.Unlock()
	defer c.record("GetObject")
	return c.S3API.GetObject(ctx, in, opts...)
}

func (c *counting) PutBucketCors(ctx context.Context, in *s3.PutBucketCorsInput, opts ...func(*s3.Options)) (*s3.PutBucketCorsOutput, error) {
	defer c.record("PutBucketCors")
	return c.S3API.PutBucketCors(ctx, in, opts...)
}

func (c *counting) putKeys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := slices.Clone(c.puts)
	sort.Strings(keys)
	return keys
}

// loadExample loads the example catalog; edit, when set, changes it before
// it is compiled. It returns the documents of the first site (acme) and its
// folder.
func loadExample(tb testing.TB, edit func(*build.Catalog)) ([]build.Document, string) {
	tb.Helper()
	ctx := context.Background()
	cat, diags := build.Load(ctx, exampleCatalog)
	if diags.HasErrors() {
		var b strings.Builder
		diags.Write(&b, "text")
		tb.Fatalf("load %s:\n%s", exampleCatalog, b.String())
	}
	if edit != nil {
		edit(cat)
	}
	b, err := build.Compile(ctx, cat)
	if err != nil {
		tb.Fatal(err)
	}
	return b.Sites[0].Documents, b.Sites[0].Dir
}

func findTool(tb testing.TB, cat *build.Catalog, id string) *build.Tool {
	tb.Helper()
	for _, t := range cat.Tools {
		if t.ToolID == id {
			return t
		}
	}
	tb.Fatalf("no tool %s in the example catalog", id)
	return nil
}

func publish(tb testing.TB, api S3API, bucket, prefix string, docs []build.Document, opts ApplyOptions) (*ObjectPlan, *Applied) {
	tb.Helper()
	ctx := context.Background()
	p, err := PlanS3(ctx, api, bucket, prefix, docs)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := p.Apply(ctx, api, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return p, r
}

// bucketKeys lists every key of the bucket.
func bucketKeys(tb testing.TB, api S3API, bucket string) []string {
	tb.Helper()
	var keys []string
	var token *string
	for {
		out, err := api.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), ContinuationToken: token})
		if err != nil {
			tb.Fatal(err)
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		token = out.NextContinuationToken
	}
	sort.Strings(keys)
	return keys
}

// checkBucket reads every document back and compares its headers and
// bytes with the route table, and checks that the bucket holds nothing else
// under prefix but the manifest.
func checkBucket(tb testing.TB, api S3API, bucket, prefix string, docs []build.Document) {
	tb.Helper()
	ctx := context.Background()
	prefix = normalizePrefix(prefix)
	want := []string{prefix + ManifestName}
	for _, d := range docs {
		key := prefix + d.Route.Key
		want = append(want, key)
		out, err := api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			tb.Errorf("get %s: %v", key, err)
			continue
		}
		body, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil {
			tb.Errorf("read %s: %v", key, err)
			continue
		}
		if !bytes.Equal(body, d.Body) {
			tb.Errorf("%s: body differs from the built document (%d bytes, want %d)", key, len(body), len(d.Body))
		}
		if got := aws.ToString(out.ContentType); got != d.ContentType {
			tb.Errorf("%s: Content-Type %q, want %q", key, got, d.ContentType)
		}
		if got := aws.ToString(out.CacheControl); got != d.CacheControl {
			tb.Errorf("%s: Cache-Control %q, want %q", key, got, d.CacheControl)
		}
	}
	sort.Strings(want)
	var got []string
	for _, k := range bucketKeys(tb, api, bucket) {
		if strings.HasPrefix(k, prefix) {
			got = append(got, k)
		}
	}
	if !slices.Equal(got, want) {
		tb.Errorf("bucket keys:\n got %q\nwant %q", got, want)
	}
}

func TestPublishExample(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	if len(docs) == 0 {
		t.Fatal("the example site has no documents")
	}
	api := &counting{S3API: client}
	var progress [][2]int
	p, r := publish(t, api, bucket, dir, docs, ApplyOptions{Progress: func(done, total int) {
		progress = append(progress, [2]int{done, total})
	}})
	if len(progress) != len(docs) {
		t.Errorf("%d progress calls, want %d", len(progress), len(docs))
	}
	for i, pr := range progress {
		if pr != [2]int{i + 1, len(docs)} {
			t.Errorf("progress call %d: %v, want [%d %d]", i, pr, i+1, len(docs))
		}
	}
	if len(p.Uploads) != len(docs) || p.Unchanged != 0 || len(p.Deletes) != 0 {
		t.Errorf("first plan: %d uploads, %d unchanged, %d deletes; want %d, 0, 0", len(p.Uploads), p.Unchanged, len(p.Deletes), len(docs))
	}
	for _, u := range p.Uploads {
		if u.Reason != ReasonNew {
			t.Errorf("%s: reason %q, want %q", u.Key, u.Reason, ReasonNew)
		}
	}
	if r.Uploaded != len(docs) || r.Deleted != 0 {
		t.Errorf("result %+v, want %d uploaded", r, len(docs))
	}
	var size int64
	for _, d := range docs {
		size += int64(len(d.Body))
	}
	if r.Bytes != size {
		t.Errorf("result: %d bytes, want %d", r.Bytes, size)
	}
	if n := api.count("PutObject"); n != len(docs)+1 {
		t.Errorf("%d PutObject calls, want %d (documents and the manifest)", n, len(docs)+1)
	}
	checkBucket(t, client, bucket, dir, docs)
}

// TestPlanOrder checks that documents come before lists and catalogs, each
// group sorted by key.
func TestPlanOrder(t *testing.T) {
	client, bucket := newBucket(t)
	docs, _ := loadExample(t, nil)
	p, err := PlanS3(context.Background(), client, bucket, "", docs)
	if err != nil {
		t.Fatal(err)
	}
	var docKeys, listKeys []string
	inLists := false
	for _, u := range p.Uploads {
		list := isListOrCatalog(&u.Doc)
		if inLists && !list {
			t.Fatalf("document %s after a list or catalog", u.Key)
		}
		inLists = list
		if list {
			listKeys = append(listKeys, u.Key)
		} else {
			docKeys = append(docKeys, u.Key)
		}
	}
	if !slices.IsSorted(docKeys) || !slices.IsSorted(listKeys) {
		t.Errorf("groups not sorted: %q, %q", docKeys, listKeys)
	}
	want := []string{".well-known/ai-catalog.json", ".well-known/mcp/catalog.json", "tools.compact.json", "tools.json"}
	if !slices.Equal(listKeys, want) {
		t.Errorf("lists and catalogs %q, want %q", listKeys, want)
	}
}

func TestSetBucketCORS(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	if err := setBucketCORS(ctx, client, bucket); err != nil {
		t.Fatal(err)
	}
	out, err := client.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.CORSRules) != 1 {
		t.Fatalf("%d CORS rules, want 1", len(out.CORSRules))
	}
	r := out.CORSRules[0]
	check := func(what string, got, want []string) {
		if !slices.Equal(got, want) {
			t.Errorf("%s %q, want %q", what, got, want)
		}
	}
	check("AllowedOrigins", r.AllowedOrigins, []string{"*"})
	check("AllowedMethods", r.AllowedMethods, []string{"GET", "HEAD"})
	check("AllowedHeaders", r.AllowedHeaders, []string{"Content-Type", "If-None-Match"})
	check("ExposeHeaders", r.ExposeHeaders, []string{"ETag"})
	if aws.ToInt32(r.MaxAgeSeconds) != 86400 {
		t.Errorf("MaxAgeSeconds %d, want 86400", aws.ToInt32(r.MaxAgeSeconds))
	}
}

func TestRepublishNoop(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, ApplyOptions{})
	api := &counting{S3API: client}
	p, r := publish(t, api, bucket, dir, docs, ApplyOptions{MaxDeletes: -1})
	if len(p.Uploads) != 0 || len(p.Deletes) != 0 || p.Unchanged != len(docs) {
		t.Errorf("plan: %d uploads, %d deletes, %d unchanged; want 0, 0, %d", len(p.Uploads), len(p.Deletes), p.Unchanged, len(docs))
	}
	if r.Uploaded != 0 || r.Deleted != 0 {
		t.Errorf("result %+v", r)
	}
	if n, d := api.count("PutObject"), api.count("DeleteObjects"); n != 0 || d != 0 {
		t.Errorf("%d PutObject and %d DeleteObjects calls, want none", n, d)
	}
	if n := api.count("ListObjectsV2"); n != 1 {
		t.Errorf("%d ListObjectsV2 calls, want 1", n)
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, ApplyOptions{})
	before := bucketKeys(t, client, bucket)
	changed, _ := loadExample(t, func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Changed for a dry run."
		c.Tools = slices.DeleteFunc(c.Tools, func(t *build.Tool) bool { return t.ToolID == "get_weather_alerts" })
	})
	api := &counting{S3API: client}
	p, err := PlanS3(context.Background(), api, bucket, dir, changed)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Uploads) == 0 || len(p.Deletes) == 0 {
		t.Errorf("plan: %d uploads and %d deletes; want some of each", len(p.Uploads), len(p.Deletes))
	}
	if n, d := api.count("PutObject"), api.count("DeleteObjects"); n != 0 || d != 0 {
		t.Errorf("planning made %d PutObject and %d DeleteObjects calls", n, d)
	}
	if after := bucketKeys(t, client, bucket); !slices.Equal(before, after) {
		t.Errorf("bucket changed by planning:\nbefore %q\n after %q", before, after)
	}
	checkBucket(t, client, bucket, dir, docs)
}

// changedKeys returns the site keys whose bodies differ between two builds
// or that only one has.
func changedKeys(a, b []build.Document) []string {
	sums := map[string]string{}
	for _, d := range a {
		sums[d.Route.Key] = d.SHA256
	}
	var keys []string
	for _, d := range b {
		if sums[d.Route.Key] != d.SHA256 {
			keys = append(keys, d.Route.Key)
		}
	}
	sort.Strings(keys)
	return keys
}

func TestChangeOneTool(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, ApplyOptions{})
	changed, _ := loadExample(t, func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Daily weather forecast, described anew."
	})
	diff := changedKeys(docs, changed)
	allowed := []string{"tools.compact.json", "tools.json", "tools/get_forecast.compact.json", "tools/get_forecast.json"}
	for _, k := range diff {
		if !slices.Contains(allowed, k) {
			t.Errorf("changing one tool's description changed %s", k)
		}
	}
	for _, k := range []string{"tools.json", "tools/get_forecast.json"} {
		if !slices.Contains(diff, k) {
			t.Errorf("changing one tool's description left %s unchanged", k)
		}
	}
	prefix := normalizePrefix(dir)
	want := []string{prefix + ManifestName}
	for _, k := range diff {
		want = append(want, prefix+k)
	}
	sort.Strings(want)

	api := &counting{S3API: client}
	p, r := publish(t, api, bucket, dir, changed, ApplyOptions{})
	for _, u := range p.Uploads {
		if u.Reason != ReasonContentChanged {
			t.Errorf("%s: reason %q, want %q", u.Key, u.Reason, ReasonContentChanged)
		}
	}
	if got := api.putKeys(); !slices.Equal(got, want) {
		t.Errorf("uploaded\n %q\nwant\n %q", got, want)
	}
	if r.Uploaded != len(diff) || p.Unchanged != len(docs)-len(diff) {
		t.Errorf("result %+v, plan unchanged %d; want %d uploaded, %d unchanged", r, p.Unchanged, len(diff), len(docs)-len(diff))
	}
	checkBucket(t, client, bucket, dir, changed)
}

func TestHeadersOnlyChange(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, ApplyOptions{})
	changed := slices.Clone(docs)
	i := slices.IndexFunc(changed, func(d build.Document) bool { return d.Route.Key == "tools/get_forecast.json" })
	if i < 0 {
		t.Fatal("no tools/get_forecast.json in the example site")
	}
	changed[i].CacheControl = "public, max-age=60"
	key := normalizePrefix(dir) + changed[i].Route.Key

	api := &counting{S3API: client}
	p, _ := publish(t, api, bucket, dir, changed, ApplyOptions{})
	if len(p.Uploads) != 1 || p.Uploads[0].Key != key || p.Uploads[0].Reason != ReasonHeadersChanged {
		t.Errorf("plan uploads %+v, want %s with reason %q", p.Uploads, key, ReasonHeadersChanged)
	}
	if got, want := api.putKeys(), []string{normalizePrefix(dir) + ManifestName, key}; !slices.Equal(got, want) {
		t.Errorf("uploaded %q, want %q", got, want)
	}
	if n := api.count("GetObject"); n != 1 || api.gets[0] != normalizePrefix(dir)+ManifestName {
		t.Errorf("GetObject calls %q, want the manifest only", api.gets)
	}
	checkBucket(t, client, bucket, dir, changed)
}

func TestMissingManifestIsHeadersChange(t *testing.T) {
	client, bucket := newBucket(t)
	docs, _ := loadExample(t, nil)
	publish(t, client, bucket, "", docs, ApplyOptions{})
	_, err := client.DeleteObjects(context.Background(), &s3.DeleteObjectsInput{
		Bucket: aws.String(bucket),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(ManifestName)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := publish(t, client, bucket, "", docs, ApplyOptions{})
	if len(p.Uploads) != len(docs) {
		t.Errorf("%d uploads, want every document", len(p.Uploads))
	}
	for _, u := range p.Uploads {
		if u.Reason != ReasonHeadersChanged {
			t.Errorf("%s: reason %q, want %q", u.Key, u.Reason, ReasonHeadersChanged)
		}
	}
	checkBucket(t, client, bucket, "", docs)
}

func TestRemoveTool(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, ApplyOptions{})
	removed, _ := loadExample(t, func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Changed with the removal."
		c.Tools = slices.DeleteFunc(c.Tools, func(t *build.Tool) bool { return t.ToolID == "get_weather_alerts" })
	})
	prefix := normalizePrefix(dir)
	var wantDeletes []string
	for _, d := range docs {
		if strings.HasPrefix(d.Route.Key, "tools/get_weather_alerts.") {
			wantDeletes = append(wantDeletes, prefix+d.Route.Key)
		}
	}
	if len(wantDeletes) == 0 {
		t.Fatal("no documents of get_weather_alerts in the example site")
	}

	api := &counting{S3API: client}
	p, r := publish(t, api, bucket, dir, removed, ApplyOptions{MaxDeletes: 10})
	if !slices.Equal(p.Deletes, wantDeletes) {
		t.Errorf("deletes %q, want %q", p.Deletes, wantDeletes)
	}
	if r.Deleted != len(wantDeletes) || r.DeletesRefused {
		t.Errorf("result %+v, want %d deleted", r, len(wantDeletes))
	}
	// The k-th PutObject call put api.puts[k]. Only the manifest may come
	// after the deletes: it keeps the deleted objects' entries until they
	// are gone.
	lastPut, firstDelete, k := -1, -1, 0
	for i, c := range api.calls {
		switch c {
		case "PutObject":
			if !strings.HasSuffix(api.puts[k], ManifestName) {
				lastPut = i
			}
			k++
		case "DeleteObjects":
			if firstDelete < 0 {
				firstDelete = i
			}
		}
	}
	if lastPut < 0 || firstDelete < 0 || firstDelete < lastPut {
		t.Errorf("calls in order %q (puts %q): every DeleteObjects must come after the last document PutObject", api.calls, api.puts)
	}
	if last := api.puts[len(api.puts)-1]; !strings.HasSuffix(last, ManifestName) || api.calls[len(api.calls)-1] != "PutObject" {
		t.Errorf("calls %q: the manifest without the deleted objects must be put last", api.calls)
	}
	// What is left is the manifest of the site as built: no entry of a
	// deleted object.
	m, err := readManifest(context.Background(), client, bucket, prefix+ManifestName)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range wantDeletes {
		if _, ok := m[strings.TrimPrefix(key, prefix)]; ok {
			t.Errorf("the final manifest still has %s", key)
		}
	}
	if len(m) != len(removed) {
		t.Errorf("the final manifest has %d entries, the site %d documents", len(m), len(removed))
	}
	checkBucket(t, client, bucket, dir, removed)
}

func TestMaxDeletesRefuses(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, ApplyOptions{})
	removed, _ := loadExample(t, func(c *build.Catalog) {
		c.Tools = slices.DeleteFunc(c.Tools, func(t *build.Tool) bool { return t.ToolID == "get_weather_alerts" })
	})
	api := &counting{S3API: client}
	p, r := publish(t, api, bucket, dir, removed, ApplyOptions{MaxDeletes: 1})
	if len(p.Deletes) < 2 {
		t.Fatalf("plan has %d deletes; the test needs more than MaxDeletes", len(p.Deletes))
	}
	if !r.DeletesRefused || r.Deleted != 0 {
		t.Errorf("result %+v, want deletes refused", r)
	}
	if n := api.count("DeleteObjects"); n != 0 {
		t.Errorf("%d DeleteObjects calls, want none", n)
	}
	if r.Uploaded != len(p.Uploads) || r.Uploaded == 0 {
		t.Errorf("uploaded %d, want the plan's %d", r.Uploaded, len(p.Uploads))
	}
	// The refused objects are still there; the site's documents are current.
	keys := bucketKeys(t, client, bucket)
	for _, k := range p.Deletes {
		if !slices.Contains(keys, k) {
			t.Errorf("%s was deleted", k)
		}
	}
	// A later run with a larger bound deletes them.
	_, r = publish(t, client, bucket, dir, removed, ApplyOptions{MaxDeletes: -1})
	if r.Deleted != len(p.Deletes) {
		t.Errorf("second run deleted %d, want %d", r.Deleted, len(p.Deletes))
	}
	checkBucket(t, client, bucket, dir, removed)
}
