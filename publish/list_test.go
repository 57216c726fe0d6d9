package publish

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"
)

// listCalls records the ListObjectsV2 calls made through it.
type listCalls struct {
	S3API
	mu     sync.Mutex
	starts []string // StartAfter of each call, "" for none
	// ignoreStartAfter lists from the start whatever the call asks: a
	// bucket that does not list as S3 does.
	ignoreStartAfter bool
}

func (l *listCalls) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	l.mu.Lock()
	l.starts = append(l.starts, aws.ToString(in.StartAfter))
	l.mu.Unlock()
	if l.ignoreStartAfter && in.StartAfter != nil {
		c := *in
		c.StartAfter = nil
		in = &c
	}
	return l.S3API.ListObjectsV2(ctx, in, opts...)
}

// TestListSiteInRanges publishes the example, adds objects the manifest
// does not name (before its first key, between its keys, after its last,
// and beside the prefix), and lists the prefix in ranges: the listing is
// the one a single paginated listing gives.
func TestListSiteInRanges(t *testing.T) {
	client, bucket := newBucket(t)
	ctx := context.Background()
	docs, dir := loadExample(t, nil)
	if len(docs) < 3*5 {
		t.Fatalf("the example site has %d documents, too few for ranges of 5", len(docs))
	}
	publish(t, client, bucket, dir, docs, applyOptions{})
	prefix := normalizePrefix(dir)
	for _, key := range []string{prefix + "!first", prefix + "tools/extra.json", prefix + "zz/last.json", prefix + ".well-known/zz.json", "beside/" + dir + "/x.json", strings.TrimSuffix(prefix, "/") + "-sibling/x.json"} {
		if err := (s3Bucket{client, bucket}).put(ctx, object{key: key, body: []byte("{}\n"), contentType: "application/json", cacheControl: "no-cache"}); err != nil {
			t.Fatal(err)
		}
	}
	// Many keys where the manifest expects few take whole pages.
	const crowd = 40
	for i := range crowd {
		if err := (s3Bucket{client, bucket}).put(ctx, object{key: fmt.Sprintf("%s%s-crowd-%02d", prefix, docs[len(docs)/2].Route.Key, i), body: []byte("{}\n"), contentType: "application/json", cacheControl: "no-cache"}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := listObjects(ctx, client, bucket, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(docs)+1+4+crowd { // the documents, the manifest, the objects added under the prefix
		t.Fatalf("one listing found %d objects, want %d", len(want), len(docs)+5+crowd)
	}
	api := &listCalls{S3API: client}
	got, err := listSite(ctx, api, bucket, prefix, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.objects); diff != "" {
		t.Errorf("listing in ranges differs (-one listing +ranges):\n%s", diff)
	}
	ranges := 0
	for _, s := range api.starts {
		if s != "" {
			ranges++
		}
	}
	n := min(len(docs)/5, maxRanges)
	if ranges != n-1 {
		t.Errorf("%d listings started after a key, want %d: %q", ranges, n-1, api.starts)
	}
	if len(api.starts) > 3*n {
		t.Errorf("%d ListObjectsV2 calls for %d ranges, want at most 3 each", len(api.starts), n)
	}
	if len(got.manifest) != len(docs) {
		t.Errorf("manifest read with %d entries, want %d", len(got.manifest), len(docs))
	}

	// A bucket that ignores StartAfter is listed again in one listing.
	odd := &listCalls{S3API: client, ignoreStartAfter: true}
	got, err = listSite(ctx, odd, bucket, prefix, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.objects); diff != "" {
		t.Errorf("listing of a bucket out of order differs (-one listing +ranges):\n%s", diff)
	}
	if last := odd.starts[len(odd.starts)-1]; last != "" {
		t.Errorf("last listing started after %q, want a listing from the start", last)
	}
}

// TestSplitKeys checks the ranges: about even, every key in exactly one,
// none for fewer than two ranges' keys, and at most maxRanges.
func TestSplitKeys(t *testing.T) {
	keys := func(n int) []string {
		var ks []string
		for i := range n {
			ks = append(ks, string(rune('a'+i/26))+string(rune('a'+i%26)))
		}
		slices.Sort(ks)
		return ks
	}
	if got := splitKeys(keys(9), 5); len(got) != 1 || got[0] != (bound{expect: 9}) {
		t.Errorf("9 keys by 5: %+v, want one range", got)
	}
	got := splitKeys(keys(10), 5)
	want := []bound{{after: "", through: "ae", expect: 5}, {after: "ae", through: "", expect: 5}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(bound{})); diff != "" {
		t.Errorf("10 keys by 5 (-want +got):\n%s", diff)
	}
	ks := keys(500)
	got = splitKeys(ks, 10)
	if len(got) != maxRanges {
		t.Fatalf("500 keys by 10: %d ranges, want %d", len(got), maxRanges)
	}
	total := 0
	for i, b := range got {
		n := 0
		for _, k := range ks {
			if (b.after == "" || k > b.after) && (b.through == "" || k <= b.through) {
				n++
			}
		}
		if n != b.expect {
			t.Errorf("range %d holds %d keys, expects %d", i, n, b.expect)
		}
		total += n
	}
	if total != len(ks) {
		t.Errorf("ranges hold %d keys, want %d", total, len(ks))
	}
}
