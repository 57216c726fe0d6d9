package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// journal wraps an S3API and a CloudFrontAPI and records, in one log, the
// calls that change something, in the order they complete: "put KEY",
// "delete KEY...", "code NAME" (a function created or updated), "function
// NAME" (published), "invalidate DISTRIBUTION PATH..." and "poll
// DISTRIBUTION STATUS".
type journal struct {
	S3API
	CloudFrontAPI
	mu  sync.Mutex
	log []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	j.log = append(j.log, fmt.Sprintf(format, args...))
	j.mu.Unlock()
}

func (j *journal) entries() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.log)
}

func (j *journal) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	out, err := j.S3API.PutObject(ctx, in, opts...)
	if err == nil {
		j.add("put %s", aws.ToString(in.Key))
	}
	return out, err
}

func (j *journal) DeleteObjects(ctx context.Context, in *s3.DeleteObjectsInput, opts ...func(*s3.Options)) (*s3.DeleteObjectsOutput, error) {
	out, err := j.S3API.DeleteObjects(ctx, in, opts...)
	if err == nil {
		var keys []string
		for _, o := range in.Delete.Objects {
			keys = append(keys, aws.ToString(o.Key))
		}
		j.add("delete %s", strings.Join(keys, " "))
	}
	return out, err
}

func (j *journal) CreateFunction(ctx context.Context, in *cloudfront.CreateFunctionInput, opts ...func(*cloudfront.Options)) (*cloudfront.CreateFunctionOutput, error) {
	out, err := j.CloudFrontAPI.CreateFunction(ctx, in, opts...)
	if err == nil {
		j.add("code %s", aws.ToString(in.Name))
	}
	return out, err
}

func (j *journal) UpdateFunction(ctx context.Context, in *cloudfront.UpdateFunctionInput, opts ...func(*cloudfront.Options)) (*cloudfront.UpdateFunctionOutput, error) {
	out, err := j.CloudFrontAPI.UpdateFunction(ctx, in, opts...)
	if err == nil {
		j.add("code %s", aws.ToString(in.Name))
	}
	return out, err
}

func (j *journal) PublishFunction(ctx context.Context, in *cloudfront.PublishFunctionInput, opts ...func(*cloudfront.Options)) (*cloudfront.PublishFunctionOutput, error) {
	out, err := j.CloudFrontAPI.PublishFunction(ctx, in, opts...)
	if err == nil {
		j.add("function %s", aws.ToString(in.Name))
	}
	return out, err
}

func (j *journal) CreateInvalidation(ctx context.Context, in *cloudfront.CreateInvalidationInput, opts ...func(*cloudfront.Options)) (*cloudfront.CreateInvalidationOutput, error) {
	out, err := j.CloudFrontAPI.CreateInvalidation(ctx, in, opts...)
	if err == nil {
		j.add("invalidate %s %s", aws.ToString(in.DistributionId), strings.Join(in.InvalidationBatch.Paths.Items, " "))
	}
	return out, err
}

func (j *journal) GetInvalidation(ctx context.Context, in *cloudfront.GetInvalidationInput, opts ...func(*cloudfront.Options)) (*cloudfront.GetInvalidationOutput, error) {
	out, err := j.CloudFrontAPI.GetInvalidation(ctx, in, opts...)
	if err == nil && out.Invalidation != nil {
		j.add("poll %s %s", aws.ToString(in.DistributionId), aws.ToString(out.Invalidation.Status))
	}
	return out, err
}

// exampleTarget is an S3 target of bucket, under prefix p, with acme's
// distribution managing its functions and globex's not.
func exampleTarget(bucket string) *target.Target {
	return &target.Target{
		S3: &target.S3{Bucket: bucket, Prefix: "p"},
		CloudFront: &target.CloudFront{Distributions: map[string]target.Distribution{
			"acme":   {ID: "E1ACME", FunctionName: "acme"},
			"globex": {ID: "E1GLOBEX"},
		}},
	}
}

// removeAndChange edits the example catalog: one tool described anew, one
// removed, and one server removed, which changes the routes the functions
// know.
func removeAndChange(c *build.Catalog) {
	for _, t := range c.Tools {
		if t.ToolID == "get_forecast" {
			t.Description = "Daily weather forecast, described anew."
		}
	}
	c.Tools = slices.DeleteFunc(c.Tools, func(t *tool.Tool) bool { return t.ToolID == "get_weather_alerts" })
	c.Servers = slices.DeleteFunc(c.Servers, func(s *build.Server) bool { return s.Name == "com.example/weather" })
	// No function names a document: gating acme's site is what changes
	// its functions.
	c.Config.TenantSites = map[string]build.TenantSite{"acme": {Access: gate.Access{Token: true}}}
}

func isList(key string) bool {
	for _, l := range []string{"/tools.json", "/tools.compact.json", "/tool-catalogue.json", "/.well-known/mcp/catalog.json", "/.well-known/ai-catalog.json"} {
		if strings.HasSuffix(key, l) {
			return true
		}
	}
	// The registry's documents name the tool list, the cards, or its versions.
	return strings.Contains("/"+key, "/v0.1/servers")
}

// TestSitesOrder publishes the example catalog, then a change that updates
// and deletes documents and changes the routes, and checks the order the
// package comment promises, call by call: pending paths, documents,
// functions, lists, manifest, the changed paths invalidated and waited for,
// deletes, the deleted paths invalidated, the pending paths cleared.
func TestSitesOrder(t *testing.T) {
	client, bucket := newBucket(t)
	srv, cf := newCloudFront(t)
	ctx := context.Background()
	target := exampleTarget(bucket)
	opts := Options{MaxDeletes: -1}
	first, err := Sites(ctx, client, cf, compileExample(t, nil), target, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Sites[0].CloudFront.Functions; len(got) != 2 || got[0].Action != FunctionCreate || got[0].Name != "acme-viewer-request" {
		t.Errorf("first publish functions %+v", got)
	}
	if n := srv.Calls("CreateInvalidation"); n != 0 {
		t.Errorf("a first publish made %d invalidations", n)
	}

	j := &journal{S3API: client, CloudFrontAPI: cf}
	p, err := Sites(ctx, j, j, compileExample(t, removeAndChange), target, opts)
	if err != nil {
		t.Fatal(err)
	}
	acme := p.Sites[0]
	if acme.Tenant != "acme" || acme.Prefix != "p/tenants/acme/" || len(acme.Deletes) == 0 || !acme.WaitsBeforeDeletes() {
		t.Fatalf("acme's plan %+v", acme)
	}
	if got := acme.CloudFront.Functions; got[0].Action != FunctionUpdate || got[1].Action != FunctionUpdate {
		t.Fatalf("acme's functions %v %v: the gate should change both functions", got[0].Action, got[1].Action)
	}
	if a := acme.Applied; a == nil || a.Deleted != len(acme.Deletes) || a.Uploaded != len(acme.Uploads) {
		t.Errorf("acme applied %+v", acme.Applied)
	}
	if ids := acme.CloudFront.InvalidationIDs; len(ids) != 2 {
		t.Errorf("acme's invalidations %q, want two: the changed paths, then the deleted ones", ids)
	}

	// The steps of acme's site, in the order they happened.
	pre := acme.Prefix
	var steps []string
	for _, e := range j.entries() {
		verb, rest, _ := strings.Cut(e, " ")
		switch {
		case verb == "put" || verb == "delete":
			key, _, _ := strings.Cut(rest, " ")
			if !strings.HasPrefix(key, pre) {
				continue
			}
			switch {
			case key == pre+PendingInvalidationName:
				verb += " pending"
			case key == pre+ManifestName:
				verb += " manifest"
			case isList(strings.TrimSuffix(strings.TrimSuffix(key, ".br"), ".gz")): // a list or one of its variants
				verb += " list"
			default:
				verb += " document"
			}
		case verb == "code" || verb == "function":
			if !strings.HasPrefix(rest, "acme-") {
				continue
			}
		case verb == "invalidate" || verb == "poll":
			if !strings.HasPrefix(rest, "E1ACME ") {
				continue
			}
			if verb == "invalidate" && slices.Contains(strings.Fields(rest), "/tools/get_weather_alerts") {
				verb += " deleted"
			} else if verb == "invalidate" {
				verb += " changed"
			}
		}
		if len(steps) == 0 || steps[len(steps)-1] != verb {
			steps = append(steps, verb)
		}
	}
	want := []string{
		"put pending",
		"put document",
		"code", "function", "code", "function", // viewer-request, then viewer-response
		"put list",
		"put manifest",
		"invalidate changed",
		"poll",
		"delete document",
		"put manifest",
		"invalidate deleted",
		"delete pending",
	}
	if !slices.Equal(steps, want) {
		t.Errorf("acme's steps\n %q\nwant\n %q\nlog:\n%s", steps, want, strings.Join(j.entries(), "\n"))
	}
	for _, key := range acme.Deletes {
		if slices.Contains(bucketKeys(t, client, bucket), key) {
			t.Errorf("%s is still in the bucket", key)
		}
	}
}

// TestSitesRefusedAndDryRun checks that a plan over the delete limit, or a
// dry run, changes nothing, and that the plan is shown first either way.
func TestSitesRefusedAndDryRun(t *testing.T) {
	client, bucket := newBucket(t)
	_, cf := newCloudFront(t)
	ctx := context.Background()
	target := exampleTarget(bucket)
	if _, err := Sites(ctx, client, cf, compileExample(t, nil), target, Options{}); err != nil {
		t.Fatal(err)
	}
	before := bucketKeys(t, client, bucket)
	changed := compileExample(t, removeAndChange)
	for _, dry := range []bool{true, false} {
		j := &journal{S3API: client, CloudFrontAPI: cf}
		var shown *Plan
		p, err := Sites(ctx, j, j, changed, target, Options{DryRun: dry, MaxDeletes: 1, Planned: func(p *Plan) { shown = p }})
		var refused *DeleteLimitError
		if !errors.As(err, &refused) || p == nil || !p.Refused || shown != p || p.DryRun != dry {
			t.Fatalf("dry run %t: plan %+v, error %v; want a refusal, shown", dry, p, err)
		}
		if refused.Bucket != bucket || refused.Limit != 1 || len(refused.Sites) != 2 || refused.Sites[0].Prefix != "p/tenants/acme/" || refused.Sites[0].Deletes != len(p.Sites[0].Deletes) {
			t.Errorf("refusal %+v", refused)
		}
		if log := j.entries(); len(log) != 0 {
			t.Errorf("a refused publish changed %q", log)
		}
		if p.Sites[0].Applied != nil {
			t.Error("a refused publish reports what it applied")
		}
	}
	j := &journal{S3API: client, CloudFrontAPI: cf}
	p, err := Sites(ctx, j, j, changed, target, Options{DryRun: true, MaxDeletes: -1})
	if err != nil || p.Refused || len(p.Sites[0].Uploads) == 0 {
		t.Fatalf("dry run: %+v, %v", p, err)
	}
	if log := j.entries(); len(log) != 0 {
		t.Errorf("a dry run changed %q", log)
	}
	if after := bucketKeys(t, client, bucket); !slices.Equal(before, after) {
		t.Errorf("the bucket changed:\nbefore %q\n after %q", before, after)
	}
}

// TestSitesPending checks that the paths of a publish whose invalidation
// failed are invalidated by the next one, and then cleared.
func TestSitesPending(t *testing.T) {
	client, bucket := newBucket(t)
	srv, cf := newCloudFront(t)
	ctx := context.Background()
	target := exampleTarget(bucket)
	if _, err := Sites(ctx, client, cf, compileExample(t, nil), target, Options{}); err != nil {
		t.Fatal(err)
	}
	changed := compileExample(t, func(c *build.Catalog) {
		for _, t := range c.Tools {
			if t.ToolID == "get_forecast" {
				t.Description = "Daily weather forecast, described anew."
			}
		}
	})
	srv.Fail("CreateInvalidation", http.StatusServiceUnavailable)
	if _, err := Sites(ctx, client, cf, changed, target, Options{}); err == nil || !strings.Contains(err.Error(), "on distribution E1ACME") {
		t.Fatalf("failing invalidation: %v", err)
	}
	srv.Fail("CreateInvalidation", 0)
	p, err := Sites(ctx, client, cf, changed, target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	acme := p.Sites[0]
	if len(acme.Uploads) != 0 || len(acme.CloudFront.Pending) == 0 || !slices.Equal(acme.CloudFront.Pending, acme.CloudFront.Invalidations) || len(acme.CloudFront.InvalidationIDs) != 1 {
		t.Errorf("the publish after a failed invalidation: %+v %+v", acme, acme.CloudFront)
	}
	if slices.Contains(bucketKeys(t, client, bucket), acme.Prefix+PendingInvalidationName) {
		t.Error("the pending paths are still there once invalidated")
	}
	if p, err = Sites(ctx, client, cf, changed, target, Options{}); err != nil || len(p.Sites[0].CloudFront.Pending) != 0 || len(p.Sites[0].CloudFront.Invalidations) != 0 {
		t.Errorf("a republish: %+v, %v", p.Sites[0].CloudFront, err)
	}
}

// TestSitesInvalidationTimeout checks that a wait for CloudFront that runs
// out stops the publish before any delete, with the paths left pending.
func TestSitesInvalidationTimeout(t *testing.T) {
	client, bucket := newBucket(t)
	srv, cf := newCloudFront(t)
	ctx := context.Background()
	target := exampleTarget(bucket)
	if _, err := Sites(ctx, client, cf, compileExample(t, nil), target, Options{}); err != nil {
		t.Fatal(err)
	}
	srv.CompleteAfter(1 << 30)
	p, err := Sites(ctx, client, cf, compileExample(t, removeAndChange), target, Options{MaxDeletes: -1, InvalidationTimeout: 50 * time.Millisecond})
	var timeout *InvalidationTimeoutError
	if !errors.As(err, &timeout) || timeout.DistributionID != "E1ACME" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait that times out: %v", err)
	}
	keys := bucketKeys(t, client, bucket)
	for _, k := range append(slices.Clone(p.Sites[0].Deletes), p.Sites[0].Prefix+PendingInvalidationName) {
		if !slices.Contains(keys, k) {
			t.Errorf("%s is gone after a wait that timed out", k)
		}
	}
}

// TestSitesErrors checks the errors of Sites: a target it cannot publish
// to, and an AWS error with its usual cause.
func TestSitesErrors(t *testing.T) {
	client, _ := newBucket(t)
	ctx := context.Background()
	sites := compileExample(t, nil)
	if _, err := Sites(ctx, client, nil, sites, &target.Target{GitHubPages: true}, Options{}); err == nil {
		t.Error("a target without S3 was published to")
	}
	if _, err := Sites(ctx, client, nil, sites, exampleTarget("b"), Options{}); err == nil {
		t.Error("a target with CloudFront was published to without a CloudFront client")
	}
	if _, err := Sites(ctx, client, nil, sites, &target.Target{S3: &target.S3{Bucket: "b"}}, Options{MaxInvalidationPaths: InvalidationPathLimit + 1}); err == nil {
		t.Error("more invalidation paths than CloudFront allows were accepted")
	}
	if _, err := Sites(ctx, client, nil, sites, &target.Target{S3: &target.S3{Bucket: "b"}}, Options{Concurrency: MaxConcurrency + 1}); err == nil {
		t.Error("more uploads in flight than MaxConcurrency were accepted")
	}
	p, err := Sites(ctx, client, nil, sites, &target.Target{S3: &target.S3{Bucket: "no-such-bucket-here"}}, Options{})
	var ae *AWSError
	if !errors.As(err, &ae) || ae.Cause != CauseNoSuchBucket || ae.Bucket != "no-such-bucket-here" || p != nil {
		t.Errorf("a missing bucket: %v", err)
	}
}

// TestSitesWithoutCloudFront checks a target without a distribution: no
// error page, no CloudFront section, and nothing to invalidate.
func TestSitesWithoutCloudFront(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	var progress int
	p, err := Sites(ctx, client, nil, compileExample(t, nil), &target.Target{S3: &target.S3{Bucket: bucket}}, Options{Progress: func(done, total int) { progress++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sites) != 2 || p.Sites[1].Prefix != "tenants/globex/" || p.Sites[0].CloudFront != nil || p.Sites[0].WaitsBeforeDeletes() {
		t.Fatalf("plan %+v", p)
	}
	uploaded := 0
	for _, s := range p.Sites {
		uploaded += s.Applied.Uploaded
		for _, u := range s.Uploads {
			if strings.HasSuffix(u.Key, ErrorDocumentName) {
				t.Errorf("%s uploaded without a distribution", u.Key)
			}
		}
	}
	if progress != uploaded {
		t.Errorf("%d progress calls for %d uploads", progress, uploaded)
	}
}

// A republish that changes nothing writes nothing: no object, and not the
// bucket's CORS rule, which the first publish set and the second finds
// right. A rule changed by hand is put back.
func TestSitesNoopWritesNothing(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	sites := compileExample(t, nil)
	target := &target.Target{S3: &target.S3{Bucket: bucket}}
	publishOnce := func() *counting {
		t.Helper()
		api := &counting{S3API: client}
		if _, err := Sites(ctx, api, nil, sites, target, Options{}); err != nil {
			t.Fatal(err)
		}
		return api
	}
	if first := publishOnce(); first.count("PutBucketCors") != 1 {
		t.Fatalf("first publish: %d PutBucketCors, want 1", first.count("PutBucketCors"))
	}
	second := publishOnce()
	if n, puts := second.count("PutBucketCors"), second.putKeys(); n != 0 || len(puts) != 0 {
		t.Errorf("no-op republish: %d PutBucketCors and PUTs %v, want none", n, puts)
	}
	if _, err := client.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(bucket), CORSConfiguration: &types.CORSConfiguration{
		CORSRules: []types.CORSRule{{AllowedOrigins: []string{"https://one.example"}, AllowedMethods: []string{"GET"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if third := publishOnce(); third.count("PutBucketCors") != 1 {
		t.Errorf("republish after the rule changed: %d PutBucketCors, want 1", third.count("PutBucketCors"))
	}
	got, err := client.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(bucket)})
	if err != nil || !sameCORS(got.CORSRules, bucketCORS()) {
		t.Errorf("the bucket's CORS rule is %+v (%v), want signpost's", got, err)
	}
}

// Sites plans from the listings Prefetch started, without listing those
// prefixes again, and lists a prefix Prefetch did not: the plan is the one
// a plain publish makes.
func TestSitesPrefetched(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	sites := compileExample(t, nil)
	target := &target.Target{S3: &target.S3{Bucket: bucket, Prefix: "discovery"}}
	if _, err := Sites(ctx, client, nil, sites, target, Options{}); err != nil {
		t.Fatal(err)
	}
	edited := compileExample(t, func(c *build.Catalog) { c.Tools[0].Description += " Changed." })
	plain, err := Sites(ctx, client, nil, edited, target, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	api := &counting{S3API: client}
	listings := Prefetch(ctx, api, bucket, []string{target.S3.TenantPrefix(sites[0].Tenant)})
	// Only the first site was prefetched: the second is listed by Sites.
	got, err := Sites(ctx, api, nil, edited, target, Options{DryRun: true, Listings: listings})
	if err != nil {
		t.Fatal(err)
	}
	if n := api.count("ListObjectsV2"); n != 2 {
		t.Errorf("%d listings, want 2: one prefetched, one by Sites", n)
	}
	if diff := cmp.Diff(plain, got, cmpopts.IgnoreUnexported(SitePlan{})); diff != "" {
		t.Errorf("plan from prefetched listings differs (-plain +prefetched):\n%s", diff)
	}
}

// A build without its variants is refused before anything is listed or
// written: the CloudFront function would ask for the lists' variants by
// key and answer 404.
func TestSitesRefuseWithoutVariants(t *testing.T) {
	client, bucket := newBucket(t)
	sites := buildtest.CompileEdited(t, exampleCatalog, nil).Sites
	_, err := Sites(context.Background(), client, nil, sites, &target.Target{S3: &target.S3{Bucket: bucket}}, Options{})
	const want = "publish: .well-known/ai-catalog.json has no precompressed variants, which the CloudFront function asks for: precompress the build before publishing it (build.Precompress, as Run does)"
	if err == nil || err.Error() != want {
		t.Fatalf("a build without variants: %v, want %q", err, want)
	}
	if keys := bucketKeys(t, client, bucket); len(keys) != 0 {
		t.Errorf("the refused publish wrote %q", keys)
	}
}
