package publish

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
)

func TestPublishExample(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	if len(docs) == 0 {
		t.Fatal("the example site has no documents")
	}
	api := &counting{S3API: client}
	var progress [][2]int
	p, r := publish(t, api, bucket, dir, docs, applyOptions{Progress: func(done, total int) {
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
		size += d.Body.Len()
	}
	if r.Bytes != size {
		t.Errorf("result: %d bytes, want %d", r.Bytes, size)
	}
	if n := api.count("PutObject"); n != len(docs)+1 {
		t.Errorf("%d PutObject calls, want %d (documents and the manifest)", n, len(docs)+1)
	}
	checkBucket(t, client, bucket, dir, docs)
}

// TestPlanOrder checks that documents come before lists, and lists before
// the catalogs that name them, each level sorted by key.
func TestPlanOrder(t *testing.T) {
	client, bucket := newBucket(t)
	docs, _ := loadExample(t, nil)
	p, err := planS3(context.Background(), client, bucket, "", docs)
	if err != nil {
		t.Fatal(err)
	}
	var docKeys, listKeys []string
	inLists := false
	for _, u := range p.Uploads {
		list := spec.IsIndex(u.Doc.Route.Route)
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
	if !slices.IsSorted(docKeys) {
		t.Errorf("groups not sorted: %q, %q", docKeys, listKeys)
	}
	// The lists first, then the catalogs and the registry's versions that
	// name them, then the registry's lists that name its versions.
	want := []string{"tool-catalogue.json", "tools.compact.json", "tools.json", ".well-known/ai-catalog.json", ".well-known/mcp/catalog.json"}
	for _, s := range []string{"billing/versions/1.8.0", "billing/versions/latest", "docs/versions/3.0.0", "docs/versions/latest", "ops/versions/0.9.4",
		"ops/versions/latest", "tickets/versions/4.2.0", "tickets/versions/latest", "weather/versions/2.3.1", "weather/versions/latest"} {
		want = append(want, "v0.1/servers/com.example/"+s+".json")
	}
	want = append(want, "v0.1/servers.json")
	for _, s := range []string{"billing", "docs", "ops", "tickets", "weather"} {
		want = append(want, "v0.1/servers/com.example/"+s+"/versions.json")
	}
	if !slices.Equal(listKeys, want) {
		t.Errorf("lists and catalogs %q, want %q", listKeys, want)
	}
}

func TestSetBucketCORS(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	if err := (s3Bucket{client, bucket}).setCORS(ctx); err != nil {
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
	publish(t, client, bucket, dir, docs, applyOptions{})
	api := &counting{S3API: client}
	p, r := publish(t, api, bucket, dir, docs, applyOptions{MaxDeletes: -1})
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
	publish(t, client, bucket, dir, docs, applyOptions{})
	before := bucketKeys(t, client, bucket)
	changed, _ := loadExample(t, func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Changed for a dry run."
		c.Tools = slices.DeleteFunc(c.Tools, func(t *tool.Tool) bool { return t.ToolID == "get_weather_alerts" })
	})
	api := &counting{S3API: client}
	p, err := planS3(context.Background(), api, bucket, dir, changed)
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
func changedKeys(a, b []output.Document) []string {
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
	publish(t, client, bucket, dir, docs, applyOptions{})
	changed, _ := loadExample(t, func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Daily weather forecast, described anew."
	})
	diff := changedKeys(docs, changed)
	allowed := []string{"tools.compact.json", "tools.json", "tools/get_forecast.compact.json", "tools/get_forecast.json",
		"tool-catalogue.json", "tool-catalogue/groups/weather.json"}
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
	p, r := publish(t, api, bucket, dir, changed, applyOptions{})
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
	publish(t, client, bucket, dir, docs, applyOptions{})
	changed := slices.Clone(docs)
	i := slices.IndexFunc(changed, func(d output.Document) bool { return d.Route.Key == "tools/get_forecast.json" })
	if i < 0 {
		t.Fatal("no tools/get_forecast.json in the example site")
	}
	changed[i].CacheControl = "public, max-age=60"
	key := normalizePrefix(dir) + changed[i].Route.Key

	api := &counting{S3API: client}
	p, _ := publish(t, api, bucket, dir, changed, applyOptions{})
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
	publish(t, client, bucket, "", docs, applyOptions{})
	_, err := client.DeleteObjects(context.Background(), &s3.DeleteObjectsInput{
		Bucket: aws.String(bucket),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(ManifestName)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := publish(t, client, bucket, "", docs, applyOptions{})
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
	publish(t, client, bucket, dir, docs, applyOptions{})
	removed, _ := loadExample(t, func(c *build.Catalog) {
		findTool(t, c, "get_forecast").Description = "Changed with the removal."
		c.Tools = slices.DeleteFunc(c.Tools, func(t *tool.Tool) bool { return t.ToolID == "get_weather_alerts" })
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
	p, r := publish(t, api, bucket, dir, removed, applyOptions{MaxDeletes: 10})
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
		if _, ok := m.manifest[strings.TrimPrefix(key, prefix)]; ok {
			t.Errorf("the final manifest still has %s", key)
		}
	}
	if len(m.manifest) != len(removed) {
		t.Errorf("the final manifest has %d entries, the site %d documents", len(m.manifest), len(removed))
	}
	checkBucket(t, client, bucket, dir, removed)
}

func TestMaxDeletesRefuses(t *testing.T) {
	client, bucket := newBucket(t)
	docs, dir := loadExample(t, nil)
	publish(t, client, bucket, dir, docs, applyOptions{})
	removed, _ := loadExample(t, func(c *build.Catalog) {
		c.Tools = slices.DeleteFunc(c.Tools, func(t *tool.Tool) bool { return t.ToolID == "get_weather_alerts" })
	})
	api := &counting{S3API: client}
	p, r := publish(t, api, bucket, dir, removed, applyOptions{MaxDeletes: 1})
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
	_, r = publish(t, client, bucket, dir, removed, applyOptions{MaxDeletes: -1})
	if r.Deleted != len(p.Deletes) {
		t.Errorf("second run deleted %d, want %d", r.Deleted, len(p.Deletes))
	}
	checkBucket(t, client, bucket, dir, removed)
}
