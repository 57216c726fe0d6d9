package publish

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/cftest"
)

// newCloudFront starts the fake CloudFront API and returns a real SDK
// client for it.
func newCloudFront(t *testing.T) (*cftest.Server, *cloudfront.Client) {
	t.Helper()
	srv := cftest.Start()
	t.Cleanup(srv.Close)
	client := cloudfront.New(cloudfront.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("test-access", "test-secret", ""),
	})
	return srv, client
}

func upload(key, route, reason string) Upload {
	return Upload{Key: key, Reason: reason, Doc: output.Document{Route: output.Route{Route: route, Key: strings.TrimPrefix(key, "tenants/acme/")}}}
}

func TestInvalidationPaths(t *testing.T) {
	p := &ObjectPlan{
		Prefix: "tenants/acme/",
		Uploads: []Upload{
			upload("tenants/acme/tools/get_forecast.json", "/tools/get_forecast", ReasonContentChanged),
			upload("tenants/acme/tools/get_forecast.compact.json", "/tools/get_forecast", ReasonHeadersChanged),
			upload("tenants/acme/tools/new_tool.json", "/tools/new_tool", ReasonNew),
			upload("tenants/acme/tools.json", "/tools", ReasonContentChanged),
			upload("tenants/acme/.well-known/mcp/catalog.json", "/.well-known/mcp/catalog.json", ReasonContentChanged),
		},
		Deletes:       []string{"tenants/acme/tools/old*tool.json", "tenants/acme/tools/gone.json"},
		deletedRoutes: map[string]string{"tenants/acme/tools/gone.json": "/tools/gone"},
	}
	want := invalidation{
		Updated: []string{
			"/.well-known/mcp/catalog.json",
			"/pending/from/before",
			"/tenants/acme/.well-known/mcp/catalog.json",
			"/tenants/acme/tools.json",
			"/tenants/acme/tools/get_forecast.compact.json",
			"/tenants/acme/tools/get_forecast.json",
			"/tools",
			"/tools/get_forecast",
		},
		Deleted: []string{
			"/tenants/acme/tools/gone.json",
			"/tenants/acme/tools/old%2Atool.json", // a "*" in a key is no wildcard
			"/tools/gone",
		},
	}
	pending := []string{"/pending/from/before", "/tools"}
	if diff := cmp.Diff(want, invalidationPaths(p, pending, 0)); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if got := invalidationPaths(p, pending, 0).Paths(); len(got) != 11 || !slices.IsSorted(got) {
		t.Errorf("all paths %q", got)
	}
	// Over the limit: a wildcard per folder; a file at the top of the
	// site stays itself, and so does a wildcard.
	wantFolders := invalidation{
		Updated: []string{"/.well-known/mcp/*", "/pending/from/*", "/tenants/acme/.well-known/mcp/*", "/tenants/acme/tools.json", "/tenants/acme/tools/*", "/tools", "/tools/*"},
		Deleted: want.Deleted,
	}
	if diff := cmp.Diff(wantFolders, invalidationPaths(p, pending, 7)); diff != "" {
		t.Errorf("collapsed paths (-want +got):\n%s", diff)
	}
	if got := invalidationPaths(p, pending, 2).Deleted; !slices.Equal(got, []string{"/tenants/acme/tools/*", "/tools/*"}) {
		t.Errorf("collapsed deleted paths %q", got)
	}
	if got := invalidationPaths(p, []string{"/tools/*"}, 1); !slices.Equal(got.Updated, []string{"/*"}) || !slices.Equal(got.Deleted, []string{"/*"}) {
		t.Errorf("paths over every limit = %q, want /*", got)
	}
	if got := invalidationPaths(&ObjectPlan{Uploads: []Upload{upload("tools/x.json", "/tools/x", ReasonNew)}}, nil, 0); len(got.Paths()) != 0 {
		t.Errorf("a new document alone gives paths %q, want none", got)
	}
}

func TestInvalidate(t *testing.T) {
	srv, client := newCloudFront(t)
	ctx := context.Background()
	paths := []string{"/tools", "/tools.json"}
	for range 2 {
		id, err := invalidate(ctx, client, "E2EXAMPLE", paths)
		if err != nil {
			t.Fatal(err)
		}
		if id == "" {
			t.Error("no invalidation id")
		}
	}
	got := srv.Invalidations()
	if len(got) != 2 || got[0].DistributionID != "E2EXAMPLE" || !slices.Equal(got[0].Paths, paths) {
		t.Fatalf("invalidations %+v", got)
	}
	if got[0].CallerReference == got[1].CallerReference {
		t.Error("two invalidations share a caller reference: CloudFront would take the second for a retry of the first")
	}
	if id, err := invalidate(ctx, client, "E2EXAMPLE", nil); id != "" || err != nil || srv.Calls("CreateInvalidation") != 2 {
		t.Errorf("no paths: id %q, err %v, %d calls; want nothing done", id, err, srv.Calls("CreateInvalidation"))
	}
	srv.Fail("CreateInvalidation", http.StatusServiceUnavailable)
	_, err := invalidate(ctx, client, "E2EXAMPLE", paths)
	if err == nil || !strings.Contains(err.Error(), "invalidate 2 paths on distribution E2EXAMPLE") {
		t.Errorf("failing service: error %v, want one naming the distribution", err)
	}
}

func TestFunctionLifecycle(t *testing.T) {
	srv, client := newCloudFront(t)
	ctx := context.Background()
	req, _ := functionNames("example")
	v1 := []byte("function handler(event) { return event.request; }\n")
	v2 := []byte("function handler(event) { var r = event.request; return r; }\n")

	for _, step := range []struct {
		code []byte
		want string
	}{
		{v1, FunctionCreate},
		{v1, FunctionUnchanged},
		{v2, FunctionUpdate},
		{v2, FunctionUnchanged},
	} {
		p, err := planFunction(ctx, client, req, step.code, "")
		if err != nil {
			t.Fatal(err)
		}
		if p.Action != step.want {
			t.Fatalf("plan for %q: %s, want %s", step.code, p.Action, step.want)
		}
		if err := applyFunction(ctx, client, p); err != nil {
			t.Fatal(err)
		}
		f, ok := srv.Function(req)
		if !ok || string(f.Live) != string(step.code) || string(f.Development) != string(step.code) {
			t.Fatalf("after %s: function %+v, want %q live", step.want, f, step.code)
		}
		if f.Runtime != "cloudfront-js-2.0" {
			t.Errorf("runtime %q, want cloudfront-js-2.0", f.Runtime)
		}
	}
	if n := srv.Calls("UpdateFunction") + srv.Calls("CreateFunction"); n != 2 {
		t.Errorf("%d creates and updates for two changes of code", n)
	}

	// Code changed in the DEVELOPMENT stage by someone else since the
	// plan: the update still names the version it replaces, read just
	// before it, so it goes through, and publishing makes it live.
	srv.AddFunction("other-viewer-request", []byte("old"))
	p, err := planFunction(ctx, client, "other-viewer-request", v1, "")
	if err != nil || p.Action != FunctionUpdate {
		t.Fatalf("plan %+v, %v", p, err)
	}
	srv.Fail("PublishFunction", http.StatusServiceUnavailable)
	err = applyFunction(ctx, client, p)
	if err == nil || !strings.Contains(err.Error(), "publish CloudFront function other-viewer-request") {
		t.Errorf("failing publish: error %v, want one naming the function", err)
	}
	srv.Fail("PublishFunction", 0)
	// The next run sees the live code still old and finishes the job.
	p, err = planFunction(ctx, client, "other-viewer-request", v1, "")
	if err != nil || p.Action != FunctionUpdate {
		t.Fatalf("replan %+v, %v", p, err)
	}
	if err := applyFunction(ctx, client, p); err != nil {
		t.Fatal(err)
	}
	if f, _ := srv.Function("other-viewer-request"); string(f.Live) != string(v1) {
		t.Errorf("live code %q after a retry", f.Live)
	}

	srv.Fail("GetFunction", http.StatusForbidden)
	if _, err := planFunction(ctx, client, req, v1, ""); err == nil || !strings.Contains(err.Error(), "read CloudFront function "+req) {
		t.Errorf("failing read: error %v", err)
	}
}

func TestErrorDocument(t *testing.T) {
	d := ErrorDocument()
	want := `{"error":{"status":404,"message":"no tool or document at this path in this catalog"}}` + "\n"
	if string(buildtest.Body(t, d)) != want || d.Route.Key != ErrorDocumentName || d.ContentType != spec.ContentTypeJSON || d.CacheControl != "no-store" {
		t.Errorf("error document %+v %q", d.Route, buildtest.Body(t, d))
	}
}

// TestPublishInvalidatesChangedTool publishes the example to S3, changes
// one tool and removes another, and checks the invalidation names exactly
// their routes and objects and those of the lists that name them.
func TestPublishInvalidatesChangedTool(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	first, _ := publish(t, client, bucket, dir, docs, applyOptions{})
	if got := invalidationPaths(first, nil, 0).Paths(); len(got) != 0 {
		t.Errorf("a first publish invalidates %q, want nothing", got)
	}
	changed, _ := loadExample(t, func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Daily weather forecast, described anew."
		c.Tools = slices.DeleteFunc(c.Tools, func(t *tool.Tool) bool { return t.ToolID == "get_weather_alerts" })
	})
	p, _ := publish(t, client, bucket, dir, changed, applyOptions{MaxDeletes: 10})
	pre := "/" + dir
	want := []string{
		pre + "/tool-catalogue.json",
		pre + "/tool-catalogue/groups/weather.json",
		"/tool-catalogue.json",
		"/tool-catalogue/groups/weather.json",
		pre + "/tools.compact.json",
		pre + "/tools.json",
		pre + "/tools/get_forecast.compact.json",
		pre + "/tools/get_forecast.json",
		pre + "/tools/get_weather_alerts.compact.json",
		pre + "/tools/get_weather_alerts.json",
		"/tools",
		"/tools/get_forecast",
		"/tools/get_weather_alerts",
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, invalidationPaths(p, nil, 0).Paths()); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// TestBeforeListsOrder checks that the hook runs after the last document
// and before the first list or catalog, and that its error stops Apply.
func TestBeforeListsOrder(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	api := &counting{S3API: client}
	before := -1
	publish(t, api, bucket, dir, docs, applyOptions{BeforeLists: func(context.Context) error {
		api.mu.Lock()
		before = len(api.puts)
		api.mu.Unlock()
		return nil
	}})
	if before <= 0 {
		t.Fatalf("BeforeLists ran after %d uploads", before)
	}
	for i, key := range api.puts {
		if i < before && isList(key) {
			t.Errorf("list %s uploaded before the hook", key)
		}
		if i >= before && !isList(key) && !strings.HasSuffix(key, ManifestName) {
			t.Errorf("document %s uploaded after the hook", key)
		}
	}

	failing := errors.New("routing not switched")
	p, err := planS3(context.Background(), client, bucket, dir, docs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.apply(context.Background(), client, applyOptions{BeforeLists: func(context.Context) error { return failing }}); err != failing {
		t.Errorf("Apply with a failing hook: %v, want its error", err)
	}
}

// TestFunctionNeverPublished checks that a function created but never
// published (an earlier publish failed between the two calls) is updated
// and published, not created again.
func TestFunctionNeverPublished(t *testing.T) {
	srv, client := newCloudFront(t)
	ctx := context.Background()
	code := []byte("function handler(event) { return event.request; }\n")
	p, err := planFunction(ctx, client, "site-viewer-request", code, "")
	if err != nil || p.Action != FunctionCreate {
		t.Fatalf("plan %+v, %v", p, err)
	}
	srv.Fail("PublishFunction", http.StatusServiceUnavailable)
	if err := applyFunction(ctx, client, p); err == nil {
		t.Fatal("publish did not fail")
	}
	srv.Fail("PublishFunction", 0)
	p, err = planFunction(ctx, client, "site-viewer-request", code, "")
	if err != nil || p.Action != FunctionUpdate {
		t.Fatalf("plan of a function never published: %+v, %v; want update", p, err)
	}
	if err := applyFunction(ctx, client, p); err != nil {
		t.Fatal(err)
	}
	if f, _ := srv.Function("site-viewer-request"); string(f.Live) != string(code) {
		t.Errorf("live code %q", f.Live)
	}
}

func TestWaitInvalidation(t *testing.T) {
	srv, client := newCloudFront(t)
	ctx := context.Background()
	srv.CompleteAfter(2)
	id, err := invalidate(ctx, client, "E2EXAMPLE", []string{"/tools"})
	if err != nil {
		t.Fatal(err)
	}
	if err := waitInvalidation(ctx, client, "E2EXAMPLE", id, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if polls := srv.Invalidations()[0].Polls; polls != 3 {
		t.Errorf("%d polls, want 3 (two in progress, then completed)", polls)
	}
	srv.CompleteAfter(1 << 30)
	id, err = invalidate(ctx, client, "E2EXAMPLE", []string{"/tools"})
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = waitInvalidation(tctx, client, "E2EXAMPLE", id, 5*time.Millisecond)
	var timeout *InvalidationTimeoutError
	if !errors.As(err, &timeout) || timeout.ID != id || timeout.DistributionID != "E2EXAMPLE" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait that times out: %v", err)
	}
	want := "wait for invalidation " + id + " on distribution E2EXAMPLE: context deadline exceeded; publish again later: the paths stay pending until an invalidation succeeds"
	if err.Error() != want {
		t.Errorf("a wait that times out: %q, want %q", err, want)
	}
}

// TestPendingInvalidation checks that the pending paths survive in the
// bucket until cleared, and that no plan deletes signpost's own objects.
func TestPendingInvalidation(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	docs, dir := loadExample(t, nil)
	p, _ := publish(t, client, bucket, dir, docs, applyOptions{})
	if got, err := readPendingInvalidation(ctx, client, p); err != nil || got != nil || hasPendingInvalidation(p) {
		t.Fatalf("pending before any: %q, %v", got, err)
	}
	paths := []string{"/tools", "/tools/get_forecast"}
	if err := savePendingInvalidation(ctx, client, p, "E1", paths); err != nil {
		t.Fatal(err)
	}
	p, err := planS3(ctx, client, bucket, dir, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Deletes) != 0 || len(p.Uploads) != 0 {
		t.Errorf("a plan with a pending object: uploads %v, deletes %q; want none", p.Uploads, p.Deletes)
	}
	if got, err := readPendingInvalidation(ctx, client, p); err != nil || !slices.Equal(got, paths) || !hasPendingInvalidation(p) {
		t.Errorf("pending %q, %v; want %q", got, err, paths)
	}
	// Paths left for another distribution count too: the site's objects
	// changed whichever distribution was in front of them.
	if err := savePendingInvalidation(ctx, client, p, "E2OTHER", paths); err != nil {
		t.Fatal(err)
	}
	if got, _ := readPendingInvalidation(ctx, client, p); !slices.Equal(got, paths) {
		t.Errorf("pending paths of another distribution: %q, want %q", got, paths)
	}
	if err := clearPendingInvalidation(ctx, client, p); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(bucketKeys(t, client, bucket), p.Prefix+PendingInvalidationName) {
		t.Error("the pending object is still there after Clear")
	}
}

// TestBeforeDeletesOrder checks that the hook runs after the manifest and
// before the first delete, only when there are deletes, and that its error
// leaves every object in place.
func TestBeforeDeletesOrder(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	ran := false
	publish(t, client, bucket, dir, docs, applyOptions{BeforeDeletes: func(context.Context) error { ran = true; return nil }})
	if ran {
		t.Error("BeforeDeletes ran for a plan without deletes")
	}
	fewer := docs[:len(docs)-1]
	api := &counting{S3API: client}
	hookAt := -1
	publish(t, api, bucket, dir, fewer, applyOptions{MaxDeletes: 1, BeforeDeletes: func(context.Context) error {
		api.mu.Lock()
		hookAt = len(api.calls)
		api.mu.Unlock()
		return nil
	}})
	if hookAt < 0 || hookAt >= len(api.calls) || api.calls[hookAt] != "DeleteObjects" {
		t.Errorf("calls %q, hook before call %d: want it just before DeleteObjects", api.calls, hookAt)
	}

	p, err := planS3(context.Background(), client, bucket, dir, docs[:len(docs)-2])
	if err != nil {
		t.Fatal(err)
	}
	failing := errors.New("lists not yet invalidated")
	if _, err := p.apply(context.Background(), client, applyOptions{MaxDeletes: 1, BeforeDeletes: func(context.Context) error { return failing }}); err != failing {
		t.Errorf("Apply with a failing hook: %v, want its error", err)
	}
	if keys := bucketKeys(t, client, bucket); !slices.Contains(keys, normalizePrefix(dir)+docs[len(docs)-2].Route.Key) {
		t.Error("a document was deleted although the hook failed")
	}
	// With a document changed too, the manifest (keeping the entry of the
	// object about to go) is put before the hook.
	changed := slices.Clone(docs[:len(docs)-3])
	changed[0].Body = content.New(append(slices.Clone(buildtest.Body(t, changed[0])), ' '))
	changed[0].SHA256 = "changed"
	api = &counting{S3API: client}
	putsBefore := -1
	publish(t, api, bucket, dir, changed, applyOptions{MaxDeletes: 10, BeforeDeletes: func(context.Context) error {
		api.mu.Lock()
		putsBefore = len(api.puts)
		api.mu.Unlock()
		return nil
	}})
	if putsBefore < 1 || !strings.HasSuffix(api.puts[putsBefore-1], ManifestName) {
		t.Errorf("puts %q, hook after %d of them: want the manifest put just before the hook", api.puts, putsBefore)
	}
}

// TestNewVariantsBeforeLists publishes the example without variants, as a
// bucket published before signpost made them, then with them, and checks
// that every variant is in the bucket when the hook that switches the
// functions runs: the new functions lead a client that accepts gzip or
// brotli to the lists' variants at once. Then it changes a tool, and
// checks that the lists' variants, which the bucket now has, go up after
// the hook, with their lists (a group's go up with it, before).
func TestNewVariantsBeforeLists(t *testing.T) {
	client, bucket := newBucket(t)
	plain, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, plain, applyOptions{})

	upgrade := func(edit func(*build.Catalog)) (variants, atHook, puts []string) {
		t.Helper()
		var docs []output.Document
		for _, s := range compileExample(t, edit) {
			if s.Dir == dir {
				docs = s.Documents
			}
		}
		for _, d := range docs {
			for _, v := range d.Variants {
				variants = append(variants, dir+"/"+v.Key)
			}
		}
		api := &counting{S3API: client}
		publish(t, api, bucket, dir, docs, applyOptions{MaxDeletes: -1, BeforeLists: func(context.Context) error {
			atHook = bucketKeys(t, client, bucket)
			api.mu.Lock()
			puts = slices.Clone(api.puts)
			api.mu.Unlock()
			return nil
		}})
		if atHook == nil {
			t.Fatal("the hook did not run")
		}
		return variants, atHook, puts
	}

	variants, atHook, before := upgrade(nil)
	if len(variants) == 0 {
		t.Fatal("the example has no variants")
	}
	for _, key := range variants {
		if !slices.Contains(atHook, key) {
			t.Errorf("variant %s is not in the bucket when the functions switch", key)
		}
	}
	for _, key := range before {
		if isList(key) && !strings.HasSuffix(key, ".br") && !strings.HasSuffix(key, ".gz") {
			t.Errorf("list %s uploaded before the hook", key)
		}
	}

	_, _, before = upgrade(func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Daily weather forecast, described anew."
	})
	for _, key := range before {
		if isList(strings.TrimSuffix(strings.TrimSuffix(key, ".br"), ".gz")) {
			t.Errorf("%s, which changed, uploaded before the hook: a list's variants go up with it", key)
		}
	}
}

// TestNewVariantsOfChangedCatalogs: upgrading a bucket published without
// variants while the AI catalog changes too, the AI catalog's new
// variants go up with it, after the lists, not before the functions: a
// variant of the new catalog names what the new lists do. The lists' new
// variants, their lists unchanged, still go up before the functions.
func TestNewVariantsOfChangedCatalogs(t *testing.T) {
	client, bucket := newBucket(t)
	plain, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, plain, applyOptions{})
	var docs []output.Document
	for _, s := range compileExample(t, func(c *build.Catalog) { c.Config.DisplayName = "Another Example" }) {
		if s.Dir == dir {
			docs = s.Documents
		}
	}
	api := &counting{S3API: client}
	var before []string
	publish(t, api, bucket, dir, docs, applyOptions{MaxDeletes: -1, BeforeLists: func(context.Context) error {
		api.mu.Lock()
		before = slices.Clone(api.puts)
		api.mu.Unlock()
		return nil
	}})
	for _, key := range []string{dir + "/.well-known/ai-catalog.json.br", dir + "/.well-known/ai-catalog.json.gz"} {
		if slices.Contains(before, key) {
			t.Errorf("%s, of a catalog that changes, went up before the functions switched", key)
		}
		if !slices.Contains(api.putKeys(), key) {
			t.Errorf("%s was not uploaded", key)
		}
	}
	for _, key := range []string{dir + "/tools.json.br", dir + "/tools.json.gz"} {
		if !slices.Contains(before, key) {
			t.Errorf("%s, new, of a list that does not change, went up after the functions switched", key)
		}
	}
}
