package publish

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/sync/errgroup"
)

// A listing of tens of thousands of objects is tens of requests, and each
// waits on the bucket. When the bucket's manifest names enough keys, the
// listing is split into ranges of keys that are listed at the same time:
// S3 lists keys in UTF-8 binary order, and a range is (lo, hi], started
// after lo and stopped at the first key past hi. The manifest's keys are
// where the objects were at the last publish, so the ranges come out about
// even; keys the manifest does not name (an object added by hand) are
// listed by the range they fall in, so nothing under the prefix is missed.

// Listing ranges.
const (
	// rangeKeys is about how many keys of the manifest each range holds:
	// a few pages of ListObjectsV2.
	rangeKeys = 2500
	// maxRanges bounds the listings of one prefix in flight.
	maxRanges = 8
	// maxPage is the most keys one ListObjectsV2 call returns.
	maxPage = 1000
)

// remoteSite is what a plan reads of a site's prefix: its objects and the
// manifest the last publish left.
type remoteSite struct {
	// objects maps every key under the prefix to its ETag without quotes.
	objects map[string]string
	remoteManifest
}

// listSite reads the manifest under prefix and lists every object under
// it: in ranges listed at the same time when the manifest names at least
// two ranges' keys, in one paginated listing otherwise, or when the bucket
// does not list in order. perRange is rangeKeys, except in tests. read,
// when set, is called with the manifest's metadata once it is read.
func listSite(ctx context.Context, api S3API, bucket, prefix string, perRange int, read func(meta map[string]string)) (*remoteSite, error) {
	rm, err := readManifest(ctx, api, bucket, prefix+ManifestName)
	if err != nil {
		return nil, err
	}
	if read != nil {
		read(rm.meta)
	}
	keys := make([]string, 0, len(rm.manifest))
	for k := range rm.manifest {
		keys = append(keys, prefix+k)
	}
	slices.Sort(keys)
	objects, err := listRanges(ctx, api, bucket, prefix, splitKeys(keys, perRange))
	if errors.Is(err, errOutOfOrder) {
		objects, err = listObjects(ctx, api, bucket, prefix)
	}
	if err != nil {
		return nil, err
	}
	return &remoteSite{objects: objects, remoteManifest: *rm}, nil
}

// splitKeys returns the bounds of ranges of about perRange of the sorted
// keys each, at most maxRanges of them: ranges[i] is (bounds[i-1],
// bounds[i]], the first range starting at the prefix and the last running
// to its end. Fewer than two ranges' keys give no bounds: one range.
func splitKeys(keys []string, perRange int) []bound {
	n := min(len(keys)/max(perRange, 1), maxRanges)
	if n < 2 {
		return []bound{{expect: len(keys)}}
	}
	bounds := make([]bound, n)
	for i := range n {
		first, last := i*len(keys)/n, (i+1)*len(keys)/n // keys[first:last]
		bounds[i].expect = last - first
		if i > 0 {
			bounds[i].after = keys[first-1]
		}
		if i < n-1 {
			bounds[i].through = keys[last-1]
		}
	}
	return bounds
}

// bound is one range of a listing: the keys after after ("" for the start
// of the prefix) through through ("" for its end). expect is how many keys
// the manifest has in it, so that the last page asks for no more than it
// needs.
type bound struct {
	after, through string
	expect         int
}

// errOutOfOrder is the error of a range listed out of key order: the
// bucket does not list as S3 does, and ranges cannot be trusted.
var errOutOfOrder = errors.New("the bucket lists keys out of order")

// listRanges lists the ranges at the same time and merges them.
func listRanges(ctx context.Context, api S3API, bucket, prefix string, ranges []bound) (map[string]string, error) {
	if len(ranges) == 1 && ranges[0].after == "" && ranges[0].through == "" {
		return listObjects(ctx, api, bucket, prefix)
	}
	parts := make([]map[string]string, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range ranges {
		g.Go(func() error {
			var err error
			parts[i], err = listRange(gctx, api, bucket, prefix, r)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	objects := make(map[string]string, n)
	for _, p := range parts {
		for k, v := range p {
			objects[k] = v
		}
	}
	return objects, nil
}

// listRange lists the keys of one range. The keys of a bounded range must
// come in strictly increasing order, each after r.after; otherwise it
// returns errOutOfOrder.
func listRange(ctx context.Context, api S3API, bucket, prefix string, r bound) (map[string]string, error) {
	objects := make(map[string]string, r.expect)
	bounded := r.after != "" || r.through != ""
	last := r.after
	var token *string
	for {
		in := &s3.ListObjectsV2Input{Bucket: aws.String(bucket), ContinuationToken: token}
		if prefix != "" {
			in.Prefix = aws.String(prefix)
		}
		if token == nil && r.after != "" {
			in.StartAfter = aws.String(r.after)
		}
		if left := r.expect - len(objects); r.through != "" && left > 0 {
			// One key past the range tells it is done without another
			// call. A range with more keys than the manifest names takes
			// whole pages.
			in.MaxKeys = aws.Int32(int32(min(left+1, maxPage)))
		}
		out, err := api.ListObjectsV2(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("list s3://%s/%s: %w", bucket, prefix, err)
		}
		for _, o := range out.Contents {
			key := aws.ToString(o.Key)
			if bounded && key <= last {
				return nil, errOutOfOrder
			}
			last = key
			if r.through != "" && key > r.through {
				return objects, nil
			}
			objects[key] = strings.Trim(aws.ToString(o.ETag), `"`)
		}
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil {
			return objects, nil
		}
		token = out.NextContinuationToken
	}
}

// listObjects lists the keys under prefix in bucket, with their ETags
// without quotes, in one paginated listing.
func listObjects(ctx context.Context, api S3API, bucket, prefix string) (map[string]string, error) {
	return listRange(ctx, api, bucket, prefix, bound{})
}
