package publish

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	cffunctions "github.com/signpost-dev/signpost/hosts/cloudfront"
	"golang.org/x/sync/errgroup"
)

// DefaultMaxDeletes is how many objects a site may delete unless told
// otherwise: enough for ordinary removals, few enough that a wrong prefix
// or an emptied catalog does not wipe a bucket.
const DefaultMaxDeletes = 256

// InvalidationPathLimit is the most paths CloudFront lets be in progress
// on a distribution: the most Options.MaxInvalidationPaths can be.
const InvalidationPathLimit = 3000

// DefaultInvalidationTimeout bounds the wait for an invalidation before
// deletes; CloudFront usually completes one in under a few minutes.
const DefaultInvalidationTimeout = 15 * time.Minute

// invalidationPollInterval is how often publish asks whether an
// invalidation is complete.
const invalidationPollInterval = 10 * time.Second

// Options tunes Sites.
type Options struct {
	// DryRun stops after the plan: nothing changes.
	DryRun bool
	// MaxDeletes bounds the deletes of each site: when a site plans more,
	// the whole publish is refused before anything changes. A negative
	// value allows any number; the zero value allows none.
	MaxDeletes int
	// MaxInvalidationPaths is how many paths an invalidation lists before
	// they are collapsed into wildcards: DefaultMaxInvalidationPaths when
	// <= 0, at most InvalidationPathLimit.
	MaxInvalidationPaths int
	// InvalidationTimeout bounds the wait for CloudFront to drop the old
	// lists before anything is deleted: DefaultInvalidationTimeout when
	// <= 0.
	InvalidationTimeout time.Duration
	// CompactView is the catalog's compact view setting
	// (build.Config.CompactView), which the code of the CloudFront
	// Functions depends on.
	CompactView bool
	// Concurrency is the number of uploads in flight, at most
	// MaxConcurrency; DefaultConcurrency when <= 0.
	Concurrency int
	// Holder is who the lock of the target names while this publish
	// changes the bucket (see LockName); Holder() when empty.
	Holder string
	// Planned, when set, is called once every site is planned, before
	// anything changes (and for a dry run or a refused publish too): the
	// moment to show the plan.
	Planned func(*Plan)
	// Listings, when set, are the listings of the sites' prefixes that
	// Prefetch started; a site whose prefix it did not list is listed
	// when planned.
	Listings *Listings
	// Progress, when set, is called after each upload and each delete
	// batch of a site with the work done and the site's total, never
	// concurrently.
	Progress func(done, total int)
	// Inputs, when set, is the digest of what the sites were built from
	// (package internal/inputs). Each site's manifest records it, with a
	// digest of the site's objects, so that a later publish from the same
	// inputs can tell from the bucket that it has nothing to do
	// (Unchanged).
	Inputs string
}

// Plan is what a publish plans for each site and, once carried out, what it
// did.
type Plan struct {
	Bucket string `json:"bucket"`
	DryRun bool   `json:"dryRun"`
	// Refused is set when a site plans more deletes than
	// Options.MaxDeletes: then nothing is published.
	Refused bool `json:"refused"`
	// SameInputs is set when Unchanged found every site as the last
	// publish left it, from the same inputs: nothing was built.
	SameInputs bool        `json:"sameInputs,omitempty"`
	Sites      []*SitePlan `json:"sites"`
}

// SitePlan is the plan of one site: its objects, and its distribution's
// functions and invalidations.
type SitePlan struct {
	Tenant string `json:"tenant"`
	// Prefix is where the site's objects go in the bucket: empty, or
	// ending with "/".
	Prefix string `json:"prefix"`
	// Uploads holds the documents first, then the lists and catalogs.
	Uploads []Upload `json:"uploads"`
	// Deletes holds the keys of the objects the site no longer has.
	Deletes []string `json:"deletes"`
	// Unchanged counts the documents already in the bucket as built.
	Unchanged int `json:"unchanged"`
	// CloudFront is set when the target has a distribution.
	CloudFront *DistributionPlan `json:"cloudfront,omitempty"`
	// Applied is set once the plan is carried out.
	Applied *Applied `json:"applied,omitempty"`

	objects *ObjectPlan
	inv     invalidation
}

// DistributionPlan is what a publish plans and does to a site's
// distribution.
type DistributionPlan struct {
	DistributionID string `json:"distributionId"`
	// Functions are the site's two CloudFront Functions, when the target
	// names them.
	Functions []FunctionPlan `json:"functions"`
	// Invalidations are every path to invalidate; Pending those an earlier
	// publish left, included in Invalidations.
	Invalidations []string `json:"invalidations"`
	Pending       []string `json:"pending"`
	// InvalidationIDs are the invalidations made, once carried out.
	InvalidationIDs []string `json:"invalidationIds"`
}

// WaitsBeforeDeletes reports whether the changed paths are invalidated, and
// the invalidation waited for, before the deletes: when the site has both.
func (s *SitePlan) WaitsBeforeDeletes() bool {
	return s.CloudFront != nil && len(s.Deletes) > 0 && len(s.inv.Updated) > 0
}

// distributionID is the ID of the site's distribution, "" without one.
func (s *SitePlan) distributionID() string {
	if s.CloudFront == nil {
		return ""
	}
	return s.CloudFront.DistributionID
}

// haveVariants refuses sites whose documents of spec.AlwaysPrecompressed
// routes lack their variants: the viewer-request function asks for those
// objects by key, so that such a site would answer its lists with 404.
func haveVariants(sites []*output.Site) error {
	for _, s := range sites {
		for _, d := range s.Documents {
			if spec.AlwaysPrecompressed(d.Route.Route) && len(d.Encoded) != len(spec.Encodings()) {
				return fmt.Errorf("publish: %s has no precompressed variants, which the CloudFront function asks for: precompress the build before publishing it (build.Precompress, as Run does)", d.Route.Key)
			}
		}
	}
	return nil
}

// Sites publishes each of sites to the bucket of target, under its prefix
// (and with tenants under the site's folder), and keeps the site's
// distribution current when target has CloudFront; cf may be nil when it
// has not. It plans every site first, then, unless opts.DryRun is set or
// the plan is refused, gives the bucket its CORS rule and carries out each
// site's plan in the order of the package comment.
//
// Each document's precompressed variants are objects of their own, with
// their Content-Encoding: sites come from a build given its variants
// (build.Precompress, as Run does), since the viewer-request function asks
// for those of the routes of spec.AlwaysPrecompressed; sites without them
// are refused before anything is listed.
//
// It returns the plan with what was done. A plan with more deletes than
// opts.MaxDeletes in any site is returned with a *DeleteLimitError, before
// anything changes. Errors of AWS calls with a usual cause are an
// *AWSError.
func Sites(ctx context.Context, s3 S3API, cf CloudFrontAPI, sites []*output.Site, target *target.Target, opts Options) (*Plan, error) {
	if target == nil || target.S3 == nil {
		return nil, errors.New("publish: the target has no S3 bucket")
	}
	if target.CloudFront != nil && cf == nil {
		return nil, errors.New("publish: the target has a CloudFront distribution, and no CloudFront client was given")
	}
	if opts.MaxInvalidationPaths > InvalidationPathLimit {
		return nil, fmt.Errorf("publish: %d invalidation paths asked for; CloudFront allows %d in progress per distribution", opts.MaxInvalidationPaths, InvalidationPathLimit)
	}
	if opts.Concurrency > MaxConcurrency {
		return nil, fmt.Errorf("publish: %d uploads in flight asked for; at most %d", opts.Concurrency, MaxConcurrency)
	}
	if err := haveVariants(sites); err != nil {
		return nil, err
	}
	pub := &publisher{bucket: s3Bucket{s3, target.S3.Bucket}, cf: cf, target: target, opts: opts}
	bucket := target.S3.Bucket
	p := &Plan{Bucket: bucket, DryRun: opts.DryRun, Sites: make([]*SitePlan, len(sites))}
	// The sites are planned at once: planning is listing, which waits on
	// the network, and each site lists its own prefix.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, s := range sites {
		g.Go(func() error {
			sp, err := pub.planSite(gctx, s)
			p.Sites[i] = sp
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, ExplainAWSError(err, bucket)
	}
	// Too many deletes usually mean a wrong prefix or an emptied catalog:
	// refuse the whole publish, before changing anything.
	var refusal *DeleteLimitError
	for _, sp := range p.Sites {
		if opts.MaxDeletes >= 0 && len(sp.Deletes) > opts.MaxDeletes {
			if refusal == nil {
				refusal = &DeleteLimitError{Bucket: bucket, Limit: opts.MaxDeletes}
			}
			refusal.Sites = append(refusal.Sites, SiteDeletes{Prefix: sp.Prefix, Deletes: len(sp.Deletes)})
		}
	}
	p.Refused = refusal != nil
	if opts.Planned != nil {
		opts.Planned(p)
	}
	if refusal != nil {
		return p, refusal
	}
	if opts.DryRun {
		return p, nil
	}
	if !p.idle() {
		// Nothing changes the bucket but under its lock, and only as it was
		// planned: a publish that ended since the listing makes the plan
		// stale.
		held, work, err := pub.lock(ctx, cmp.Or(opts.Holder, Holder()), lockRenewal)
		if err != nil {
			return p, ExplainAWSError(err, bucket)
		}
		err = pub.unchangedSince(work, p)
		if err == nil {
			err = pub.applyAll(work, p)
		}
		rerr := held.release(context.WithoutCancel(ctx))
		switch {
		case held.Lost() != nil && ctx.Err() == nil:
			err = held.Lost()
		case err == nil && rerr != nil:
			err = fmt.Errorf("publish: the sites are published, but the lock stays until it lapses: %w", rerr)
		case err != nil && rerr != nil:
			err = fmt.Errorf("%w (and the lock stays until it lapses: %v)", err, rerr)
		}
		return p, ExplainAWSError(err, bucket)
	}
	return p, ExplainAWSError(pub.applyAll(ctx, p), bucket)
}

// applyAll carries out the plan p: the bucket's CORS rule, then each site.
func (pub *publisher) applyAll(ctx context.Context, p *Plan) error {
	if err := pub.bucket.setCORS(ctx); err != nil {
		return err
	}
	for _, sp := range p.Sites {
		if err := pub.apply(ctx, sp); err != nil {
			return err
		}
	}
	return nil
}

// idle reports whether carrying out p changes no object, function or
// cache: a republish of what the bucket holds.
func (p *Plan) idle() bool {
	for _, sp := range p.Sites {
		if len(sp.Uploads) > 0 || len(sp.Deletes) > 0 || sp.objects == nil || sp.objects.manifestChanged || hasPendingInvalidation(sp.objects) {
			return false
		}
		if cf := sp.CloudFront; cf != nil {
			if len(cf.Invalidations) > 0 {
				return false
			}
			for _, f := range cf.Functions {
				if f.Action != FunctionUnchanged {
					return false
				}
			}
		}
	}
	return true
}

// publisher is one publish to a target: the target's bucket with its S3
// client, the CloudFront client (nil without a distribution), the target,
// and the options. Sites makes one and hands it down.
type publisher struct {
	bucket s3Bucket
	cf     CloudFrontAPI
	target *target.Target
	opts   Options
}

// planSite plans the publishing of one site to the bucket of the target
// and, when the target has CloudFront, to the site's distribution. It
// changes nothing.
func (pub *publisher) planSite(ctx context.Context, s *output.Site) (*SitePlan, error) {
	dest, cft, opts := pub.target.S3, pub.target.CloudFront, pub.opts
	prefix := dest.SitePrefix(s)
	docs := s.Documents
	if cft != nil {
		// The page the distribution answers unknown keys with.
		docs = append(slices.Clip(docs), ErrorDocument())
	}
	remote, listed, err := opts.Listings.site(ctx, dest.Bucket, normalizePrefix(prefix))
	if !listed {
		remote, err = listSite(ctx, pub.bucket.api, dest.Bucket, normalizePrefix(prefix), rangeKeys, nil)
	}
	if err != nil {
		return nil, err
	}
	op, err := planListed(dest.Bucket, prefix, docs, remote, opts.Inputs)
	if err != nil {
		return nil, err
	}
	sp := &SitePlan{Tenant: s.Tenant, Prefix: op.Prefix, Uploads: orEmpty(slices.Clone(op.Uploads)), Deletes: orEmpty(slices.Clone(op.Deletes)), Unchanged: op.Unchanged, objects: op}
	if cft == nil {
		return sp, nil
	}
	dist := cft.Distributions[s.Tenant]
	pending, err := readPendingInvalidation(ctx, pub.bucket.api, op)
	if err != nil {
		return nil, err
	}
	sp.inv = invalidationPaths(op, pending, opts.MaxInvalidationPaths)
	sp.CloudFront = &DistributionPlan{DistributionID: dist.ID, Functions: []FunctionPlan{},
		Invalidations: orEmpty(sp.inv.Paths()), Pending: orEmpty(pending), InvalidationIDs: []string{}}
	if dist.FunctionName == "" {
		return sp, nil
	}
	req, resp, err := cffunctions.Functions(s, dest, opts.CompactView)
	if err != nil {
		return nil, err
	}
	reqName, respName := functionNames(dist.FunctionName)
	// Only the viewer-request function reads the key value store; the
	// viewer-response function never has one.
	for _, f := range []struct {
		name  string
		code  []byte
		store string
	}{{reqName, req, dist.KeyValueStoreARN}, {respName, resp, ""}} {
		fp, err := planFunction(ctx, pub.cf, f.name, f.code, f.store)
		if err != nil {
			return nil, err
		}
		sp.CloudFront.Functions = append(sp.CloudFront.Functions, fp)
	}
	return sp, nil
}

func orEmpty[E any](s []E) []E {
	if s == nil {
		return []E{}
	}
	return s
}

// apply carries out the plan of the site s, and its distribution's part,
// and records what it did in s.Applied and s.CloudFront.InvalidationIDs:
//
//  1. the paths to invalidate are recorded as pending in the bucket, so
//     that a publish that fails half-way leaves them to the next one;
//  2. documents are uploaded, the functions switched over, the lists and
//     catalogs uploaded, then the manifest (ObjectPlan.Apply);
//  3. when there are deletes, the changed paths are invalidated first and
//     the invalidation waited for (at most opts.InvalidationTimeout), so
//     that no cache serves an old list naming a document about to be
//     deleted; then the deletes;
//  4. the rest is invalidated, and the pending paths cleared; when the
//     deletes were refused, the paths stay pending for the publish that
//     makes them.
func (pub *publisher) apply(ctx context.Context, s *SitePlan) error {
	s3, cf, opts := pub.bucket.api, pub.cf, pub.opts
	dist := s.distributionID()
	all := s.inv.Paths()
	if dist != "" && len(all) > 0 {
		if err := savePendingInvalidation(ctx, s3, s.objects, dist, all); err != nil {
			return err
		}
	}
	wait := opts.InvalidationTimeout
	if wait <= 0 {
		wait = DefaultInvalidationTimeout
	}
	aopts := applyOptions{MaxDeletes: opts.MaxDeletes, Concurrency: opts.Concurrency, Progress: opts.Progress, BeforeLists: s.applyFunctions(cf)}
	invalidated := false
	if dist != "" && len(s.inv.Updated) > 0 {
		aopts.BeforeDeletes = func(ctx context.Context) error {
			id, err := invalidate(ctx, cf, dist, s.inv.Updated)
			if err != nil {
				return err
			}
			s.CloudFront.InvalidationIDs = append(s.CloudFront.InvalidationIDs, id)
			wctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			if err := waitInvalidation(wctx, cf, dist, id, invalidationPollInterval); err != nil {
				return err
			}
			invalidated = true
			return nil
		}
	}
	res, err := s.objects.apply(ctx, s3, aopts)
	if err != nil {
		return err
	}
	s.Applied = res
	if dist == "" {
		return nil
	}
	if res.DeletesRefused {
		// Nothing was deleted. Invalidate what changed, and leave every
		// path pending: the publish that makes the deletes then
		// invalidates the lists again and waits before deleting.
		id, err := invalidate(ctx, cf, dist, s.inv.Updated)
		if id != "" {
			s.CloudFront.InvalidationIDs = append(s.CloudFront.InvalidationIDs, id)
		}
		return err
	}
	rest := all
	if invalidated {
		rest = s.inv.Deleted
	}
	id, err := invalidate(ctx, cf, dist, rest)
	if err != nil {
		return err
	}
	if id != "" {
		s.CloudFront.InvalidationIDs = append(s.CloudFront.InvalidationIDs, id)
	}
	if len(all) > 0 || hasPendingInvalidation(s.objects) {
		if err := clearPendingInvalidation(ctx, s3, s.objects); err != nil {
			return err
		}
	}
	return nil
}

// applyFunctions returns the step that brings the site's functions up to
// date, or nil when there is none. ObjectPlan.Apply runs it once the
// documents and the variants the bucket did not have are uploaded, and
// before the lists: the new routes then lead to objects that exist, and no
// list names a route the distribution does not serve yet.
func (s *SitePlan) applyFunctions(cf CloudFrontAPI) func(context.Context) error {
	if s.CloudFront == nil || len(s.CloudFront.Functions) == 0 {
		return nil
	}
	return func(ctx context.Context) error {
		for _, f := range s.CloudFront.Functions {
			if err := applyFunction(ctx, cf, f); err != nil {
				return err
			}
		}
		return nil
	}
}
