package publish

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/signpost-dev/signpost/build/target"
)

// TestUnchanged publishes the example's sites with an inputs digest and
// checks that Unchanged finds them as published, with no write and no
// build, and that anything else under a prefix, an object changed or gone,
// other inputs, or a distribution make it say no.
func TestUnchanged(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	sites := compileExample(t, nil)
	tenants := []string{}
	for _, s := range sites {
		tenants = append(tenants, s.Tenant)
	}
	tgt := &target.Target{S3: &target.S3{Bucket: bucket, Prefix: "discovery"}}
	if _, _, err := Unchanged(ctx, client, tgt, tenants, "inputs-1", Options{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := Unchanged(ctx, client, tgt, tenants, "inputs-1", Options{}); ok {
		t.Fatal("an empty bucket is unchanged")
	}
	if _, err := Sites(ctx, client, nil, sites, tgt, Options{Inputs: "inputs-1"}); err != nil {
		t.Fatal(err)
	}
	unchanged := func(inputs string, opts Options) (*Plan, bool, *counting) {
		t.Helper()
		api := &counting{S3API: client}
		p, ok, err := Unchanged(ctx, api, tgt, tenants, inputs, opts)
		if err != nil {
			t.Fatal(err)
		}
		return p, ok, api
	}
	var prefixes []string
	for _, tn := range tenants {
		prefixes = append(prefixes, tgt.S3.TenantPrefix(tn))
	}
	listings := Prefetch(ctx, client, bucket, prefixes)
	if !listings.Recorded(ctx, "inputs-1") || listings.Recorded(ctx, "inputs-2") {
		t.Error("Recorded does not tell the inputs the manifests record")
	}
	if (*Listings)(nil).Recorded(ctx, "inputs-1") || Prefetch(ctx, client, bucket, prefixes[:1]).Recorded(ctx, "") {
		t.Error("no listings, or no inputs, are recorded")
	}
	if p, ok, api := unchanged("inputs-1", Options{Listings: listings}); !ok || len(p.Sites) != len(sites) || api.count("ListObjectsV2") != 0 {
		t.Errorf("from the prefetched listings: ok %v, plan %+v, %d listings; want ok, every site, none listed again", ok, p, api.count("ListObjectsV2"))
	}
	p, ok, api := unchanged("inputs-1", Options{})
	if !ok {
		t.Fatal("the sites just published from the same inputs are not unchanged")
	}
	if n, puts := api.count("PutBucketCors"), api.putKeys(); n != 0 || len(puts) != 0 {
		t.Errorf("unchanged: %d PutBucketCors and PUTs %v, want none", n, puts)
	}
	if !p.SameInputs || len(p.Sites) != len(sites) {
		t.Fatalf("plan %+v, want one site per tenant, from the same inputs", p)
	}
	for i, sp := range p.Sites {
		objects := 0 // each document and its variants
		for j := range sites[i].Documents {
			objects += len(sites[i].Documents[j].Objects())
		}
		if sp.Tenant != sites[i].Tenant || sp.Unchanged != objects || len(sp.Uploads)+len(sp.Deletes) != 0 || sp.Applied == nil {
			t.Errorf("site %q: %+v, want %d unchanged and nothing done", sites[i].Tenant, sp, objects)
		}
	}
	if p, ok, api := unchanged("inputs-1", Options{DryRun: true}); !ok || !p.DryRun || api.count("GetBucketCors") != 0 {
		t.Errorf("dry run: ok %v, plan %+v, %d GetBucketCors; want ok, a dry run, no CORS call", ok, p, api.count("GetBucketCors"))
	}
	if _, ok, _ := unchanged("inputs-2", Options{}); ok {
		t.Error("other inputs are unchanged")
	}
	if _, ok, _ := Unchanged(ctx, client, &target.Target{S3: tgt.S3, CloudFront: &target.CloudFront{}}, tenants, "inputs-1", Options{}); ok {
		t.Error("a target with a distribution is unchanged")
	}

	// Each change to the bucket makes it changed, and the republish
	// (from the same inputs) puts it right.
	prefix := normalizePrefix(tgt.S3.SitePrefix(sites[0]))
	doc := prefix + sites[0].Documents[0].Route.Key
	for name, change := range map[string]func() error{
		"an object added": func() error {
			return s3Bucket{client, bucket}.put(ctx, object{key: prefix + "tools/extra.json", body: []byte("{}\n"), contentType: "application/json", cacheControl: "no-cache"})
		},
		"an object changed": func() error {
			return s3Bucket{client, bucket}.put(ctx, object{key: doc, body: []byte("{}\n"), contentType: "application/json", cacheControl: "no-cache"})
		},
		"an object deleted": func() error {
			_, err := client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(doc)}}}})
			return err
		},
		"an invalidation pending": func() error {
			return s3Bucket{client, bucket}.put(ctx, object{key: prefix + PendingInvalidationName, body: []byte("[]\n"), contentType: "application/json", cacheControl: "no-store"})
		},
	} {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := unchanged("inputs-1", Options{}); ok {
			t.Errorf("%s: unchanged", name)
		}
		if name == "an invalidation pending" {
			_, err := client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String(prefix + PendingInvalidationName)}}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Sites(ctx, client, nil, sites, tgt, Options{Inputs: "inputs-1", MaxDeletes: -1}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := unchanged("inputs-1", Options{}); !ok {
			t.Errorf("%s: not unchanged after the republish", name)
		}
	}

	// The same sites from other inputs rewrite only the manifests, for
	// their metadata, under the target's lock; then a republish writes
	// nothing.
	api = &counting{S3API: client}
	if _, err := Sites(ctx, api, nil, sites, tgt, Options{Inputs: "inputs-2"}); err != nil {
		t.Fatal(err)
	}
	manifests := []string{normalizePrefix(tgt.S3.Prefix) + LockName}
	for _, s := range sites {
		manifests = append(manifests, normalizePrefix(tgt.S3.SitePrefix(s))+ManifestName)
	}
	if got := api.putKeys(); !slices.Equal(got, manifests) {
		t.Errorf("republish from other inputs put %q, want the manifests %q", got, manifests)
	}
	if _, ok, _ := unchanged("inputs-2", Options{}); !ok {
		t.Error("not unchanged after the republish from other inputs")
	}
	api = &counting{S3API: client}
	if _, err := Sites(ctx, api, nil, sites, tgt, Options{Inputs: "inputs-2"}); err != nil {
		t.Fatal(err)
	}
	if puts := api.putKeys(); len(puts) != 0 {
		t.Errorf("no-op republish put %q, want nothing", puts)
	}
}
