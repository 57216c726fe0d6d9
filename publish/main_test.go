package publish

import (
	"bytes"
	"context"
	"errors"
	"flag"
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
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/internal/buildtest"
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
	flag.Parse()
	if testing.Short() {
		serverMissing = "not started in -short mode, which installs nothing"
		return m.Run()
	}
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
	if testing.Short() {
		tb.Skip("publishes to versitygw, which make test installs: not in -short mode")
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
	client, err := NewS3Client(ctx, testRegion, testEndpoint, Limits{})
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

func (c *counting) GetBucketCors(ctx context.Context, in *s3.GetBucketCorsInput, opts ...func(*s3.Options)) (*s3.GetBucketCorsOutput, error) {
	defer c.record("GetBucketCors")
	return c.S3API.GetBucketCors(ctx, in, opts...)
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
func loadExample(tb testing.TB, edit func(*build.Catalog)) ([]output.Document, string) {
	tb.Helper()
	b := buildtest.CompileEdited(tb, exampleCatalog, edit)
	return b.Sites[0].Documents, b.Sites[0].Dir
}

// compileExample compiles the example catalog, after edit when set.
// compileExample compiles the example catalog, edited, with the variants
// Run gives a build before Sites publishes it.
func compileExample(tb testing.TB, edit func(*build.Catalog)) []*output.Site {
	tb.Helper()
	b := buildtest.CompileEdited(tb, exampleCatalog, edit)
	if err := b.Precompress(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return b.Sites
}

func findTool(tb testing.TB, cat *build.Catalog, id string) *tool.Tool {
	tb.Helper()
	for _, t := range cat.Tools {
		if t.ToolID == id {
			return t
		}
	}
	tb.Fatalf("no tool %s in the example catalog", id)
	return nil
}

func publish(tb testing.TB, api S3API, bucket, prefix string, docs []output.Document, opts applyOptions) (*ObjectPlan, *Applied) {
	tb.Helper()
	ctx := context.Background()
	p, err := planS3(ctx, api, bucket, prefix, docs)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := p.apply(ctx, api, opts)
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
func checkBucket(tb testing.TB, api S3API, bucket, prefix string, docs []output.Document) {
	tb.Helper()
	ctx := context.Background()
	prefix = normalizePrefix(prefix)
	want := []string{prefix + ManifestName}
	var objects []output.Document // each document, then its variants
	for i := range docs {
		objects = append(objects, docs[i].Objects()...)
	}
	for _, d := range objects {
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
		if !bytes.Equal(body, buildtest.Body(tb, d)) {
			tb.Errorf("%s: body differs from the built document (%d bytes, want %d)", key, len(body), d.Body.Len())
		}
		if got := aws.ToString(out.ContentType); got != d.ContentType {
			tb.Errorf("%s: Content-Type %q, want %q", key, got, d.ContentType)
		}
		if got := aws.ToString(out.CacheControl); got != d.CacheControl {
			tb.Errorf("%s: Cache-Control %q, want %q", key, got, d.CacheControl)
		}
		if got := aws.ToString(out.ContentEncoding); got != d.Encoding {
			tb.Errorf("%s: Content-Encoding %q, want %q", key, got, d.Encoding)
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
