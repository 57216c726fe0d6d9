package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/signpost-dev/signpost/build/target"
)

// The manifest's metadata: what the publish that wrote it was built from,
// and what it left under the prefix.
const (
	// metaInputs is Options.Inputs.
	metaInputs = "signpost-inputs"
	// metaObjects digests the key and ETag of every object of the site's
	// documents, as objectsDigest makes it.
	metaObjects = "signpost-objects"
)

// objectsDigest is the hex SHA-256 of the keys, sorted, each with its
// ETag.
func objectsDigest(etags map[string]string) string {
	keys := make([]string, 0, len(etags))
	for k := range etags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%d %s %s\n", len(k), k, etags[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameInputs reports whether the site under prefix is as a publish from
// inputs left it: its manifest records inputs, the objects beside it are
// the ones it records, with the same ETags, and nothing else of
// signpost's is there (no invalidation left pending).
func (r *remoteSite) sameInputs(prefix, inputs string) bool {
	if inputs == "" || r.meta[metaInputs] != inputs || r.meta[metaObjects] == "" {
		return false
	}
	docs := make(map[string]string, len(r.objects))
	for k, etag := range r.objects {
		if !isOwnObject(k, prefix) {
			docs[k] = etag
		} else if k != prefix+ManifestName {
			return false
		}
	}
	_, listed := r.objects[prefix+ManifestName]
	return listed && objectsDigest(docs) == r.meta[metaObjects]
}

// Unchanged returns the plan of a publish with nothing to do, when the
// bucket alone shows it: every site of target (one per tenant, or one
// without tenants) is as a publish from inputs left it (Options.Inputs).
// Then building the sites again would make the same documents, and they
// are all there. ok is false otherwise, and always for a target with a
// CloudFront distribution, whose functions are compared with the built
// code: the sites must be built and planned (Sites). Unless opts.DryRun,
// the bucket's CORS rule is made right, as Sites does; opts.Listings are
// used, and opts.Planned called, as by Sites.
func Unchanged(ctx context.Context, s3 S3API, target *target.Target, tenants []string, inputs string, opts Options) (p *Plan, ok bool, err error) {
	if inputs == "" || target == nil || target.S3 == nil || target.CloudFront != nil {
		return nil, false, nil
	}
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	bucket := target.S3.Bucket
	p = &Plan{Bucket: bucket, DryRun: opts.DryRun, SameInputs: true}
	for _, tenant := range tenants {
		prefix := normalizePrefix(target.S3.TenantPrefix(tenant))
		remote, listed, err := opts.Listings.site(ctx, bucket, prefix)
		if !listed {
			remote, err = listSite(ctx, s3, bucket, prefix, rangeKeys, nil)
		}
		if err != nil {
			return nil, false, ExplainAWSError(err, bucket)
		}
		if !remote.sameInputs(prefix, inputs) {
			return nil, false, nil
		}
		p.Sites = append(p.Sites, &SitePlan{Tenant: tenant, Prefix: prefix, Uploads: []Upload{}, Deletes: []string{}, Unchanged: len(remote.manifest)})
	}
	if opts.Planned != nil {
		opts.Planned(p)
	}
	if opts.DryRun {
		return p, true, nil
	}
	if err := (s3Bucket{s3, bucket}).setCORS(ctx); err != nil {
		return p, true, ExplainAWSError(err, bucket)
	}
	for _, sp := range p.Sites {
		sp.Applied = &Applied{}
	}
	return p, true, nil
}
