package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/internal/inputs"
)

// RunOptions are what Run publishes, where, and how.
type RunOptions struct {
	// Dir is the catalog folder.
	Dir string
	// Signer, when set, opens the key that signs the AI catalog of a
	// catalog whose signpost.yaml has signing: (the command's, which knows
	// where keys are); nil publishes unsigned catalogs.
	Signer func(ctx context.Context, cfg *build.Config) (signing.Signer, error)
	// Target names the s3 target of signpost.yaml to publish to; empty is
	// a *NoTargetError, once the catalog has loaded.
	Target string
	// Override replaces fields of the target's s3 settings.
	Override S3Override
	// PlaceholderBucket, when set, is a bucket name that marks a target
	// not set up yet (the one a starter catalog names): publishing to it
	// is a *PlaceholderError.
	PlaceholderBucket string

	// DryRun, MaxDeletes, MaxInvalidationPaths, InvalidationTimeout and
	// Concurrency are those of Options.
	DryRun               bool
	MaxDeletes           int
	MaxInvalidationPaths int
	InvalidationTimeout  time.Duration
	Concurrency          int

	// Planned, when set, is called once every site is planned, before
	// anything changes, as Options.Planned is; also when the bucket shows
	// that nothing needs building.
	Planned func(*Plan)
	// Progress, when set, is told what the publish is doing.
	Progress Progress
	// Clients makes the clients of a target: S3, and CloudFront when it
	// has a distribution. Nil means the SDK's clients with the default
	// credential chain, bounded by Limits.
	Clients func(ctx context.Context, target *target.Target) (S3API, CloudFrontAPI, error)
	// Limits bound every call of the default clients.
	Limits Limits
	// Holder is who the target's lock names while the publish changes the
	// bucket (see LockName); Holder() when empty.
	Holder string
}

// S3Override holds the fields of an s3 target that replace the target's:
// a nil field keeps the target's value, a set one replaces it, empty
// included.
type S3Override struct {
	Bucket, Prefix, Region, Endpoint *string
}

// Stage is a step of Run, as Progress is told of it.
type Stage int

// The stages of Run, in their order.
const (
	// StageLoad reads and checks the catalog, while the bucket is listed.
	StageLoad Stage = iota + 1
	// StageCompile compiles the sites.
	StageCompile
	// StagePlan compares the sites with the bucket and the distributions.
	StagePlan
	// StageApply uploads and deletes, counting each.
	StageApply
)

// Progress is told what Run is doing, for a person waiting on it.
type Progress interface {
	// Stage says Run has moved on to stage, of total things (0 when it
	// does not count them).
	Stage(stage Stage, total int)
	// Count says done of the stage's total things are done; never called
	// concurrently.
	Count(done, total int)
	// Clear says Run is about to report something (diagnostics, the
	// plan): whatever shows the progress should step aside.
	Clear()
}

// Run publishes the catalog in opts.Dir to the target opts.Target names:
// it reads signpost.yaml alone and starts listing the target's bucket, then
// loads the catalog while the listing runs. When every site's manifest
// records the inputs this publish has (the catalog folder, this signpost
// and the target: package internal/inputs) and the bucket holds the
// objects that publish left, nothing is built and the plan says so
// (Unchanged). Otherwise it compiles the sites and publishes them (Sites),
// recording the inputs in each manifest.
//
// Besides the errors of Sites (a *DeleteLimitError with the plan, an
// *AWSError), it returns an *InvalidError for a catalog with errors, a
// *NoTargetError, a *TargetError, an *OverrideError or a *PlaceholderError
// for a target it cannot publish to.
func Run(ctx context.Context, opts RunOptions) (*Plan, error) {
	r := &run{opts: opts}
	r.stage(StageLoad, 0)
	listCtx, stopListing := context.WithCancel(ctx)
	defer stopListing()
	early := r.listEarly(listCtx)

	// The catalog loads while the bucket's manifests are read. When they
	// record the same inputs, the load stops, sparing the CPU for the
	// listing: if it shows every site as that publish left it, nothing
	// needs building; if not, the load starts again.
	loads, stopLoad := r.load(ctx)
	defer func() { stopLoad() }()
	// The Git history dates the registry: what a build depends on too.
	history, err := build.ReadHistory(ctx, opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", opts.Dir, err)
	}
	digest := early.inputs(ctx, opts.Dir, history, r.earlySigner(ctx, early))
	if digest != "" && early.listings.Recorded(ctx, digest) {
		stopLoad()
		plan, ok, err := Unchanged(ctx, early.bucket.api, early.target, early.tenants, digest, Options{DryRun: opts.DryRun, Listings: early.listings, Planned: opts.Planned})
		if ok {
			return plan, err
		}
		// An error is the full publish's to report, after the catalog's.
		loads, stopLoad = r.load(ctx)
	}
	ld := <-loads
	r.clear()
	if ld.diags.HasErrors() {
		return nil, &InvalidError{Dir: opts.Dir, Diagnostics: ld.diags}
	}
	cat := ld.cat
	cat.History = history
	if opts.Signer != nil {
		if cat.Signer, err = opts.Signer(ctx, &cat.Config); err != nil {
			return nil, fmt.Errorf("publish %s: %w", opts.Dir, err)
		}
	}
	target, err := r.target(cat.Config.Targets)
	if err != nil {
		return nil, err
	}
	l := early
	if l == nil || !l.same(target, cat.Config.Tenants) {
		if l, err = r.startListing(listCtx, target, cat.Config.Tenants); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		digest = ""
	}

	r.stage(StageCompile, 0)
	// Only the configuration is needed after Compile: the loaded tools and
	// their schemas, the larger part of a big catalog's memory, go as the
	// sites are compiled.
	cfg := cat.Config
	b, err := build.Compile(ctx, cat)
	if err == nil {
		// S3 holds each variant as an object with its Content-Encoding.
		err = b.Precompress(ctx)
	}
	r.clear()
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", opts.Dir, err)
	}
	if digest != "" && l.inputs(ctx, opts.Dir, history, signerOf(cat.Signer)) != digest {
		digest = "" // the catalog or its key changed while it was read: record nothing
	}
	sopts := Options{DryRun: opts.DryRun, MaxDeletes: opts.MaxDeletes, MaxInvalidationPaths: opts.MaxInvalidationPaths,
		InvalidationTimeout: opts.InvalidationTimeout, Concurrency: opts.Concurrency, CompactView: cfg.CompactView,
		Listings: l.listings, Inputs: digest, Planned: opts.Planned, Holder: opts.Holder}
	if p := opts.Progress; p != nil {
		p.Stage(StagePlan, 0)
		sopts.Progress = func(done, total int) {
			if done == 1 {
				p.Stage(StageApply, total)
			}
			p.Count(done, total)
		}
	}
	return Sites(ctx, l.bucket.api, l.cf, b.Sites, target, sopts)
}

// run is one call of Run.
type run struct {
	opts RunOptions
}

func (r *run) stage(s Stage, total int) {
	if r.opts.Progress != nil {
		r.opts.Progress.Stage(s, total)
	}
}

func (r *run) clear() {
	if r.opts.Progress != nil {
		r.opts.Progress.Clear()
	}
}

// loaded is what build.Load returned.
type loaded struct {
	cat   *build.Catalog
	diags build.Diagnostics
}

// load starts loading the catalog; the channel gets what Load returns,
// and the function stops it.
func (r *run) load(ctx context.Context) (<-chan loaded, context.CancelFunc) {
	loadCtx, stop := context.WithCancel(ctx)
	loads := make(chan loaded, 1)
	go func() {
		cat, diags := build.Load(loadCtx, r.opts.Dir)
		loads <- loaded{cat, diags}
	}()
	return loads, stop
}

// target returns the s3 target of targets that opts.Target names, with
// the fields opts.Override replaces.
func (r *run) target(targets map[string]target.Target) (*target.Target, error) {
	name := r.opts.Target
	if name == "" {
		return nil, &NoTargetError{Targets: targetNames(targets)}
	}
	t, ok := targets[name]
	switch {
	case ok && t.GitHubPages:
		return nil, &TargetError{Name: name, Host: HostGitHubPages}
	case ok && t.Cloudflare != nil:
		return nil, &TargetError{Name: name, Host: HostCloudflare}
	case ok && t.Netlify:
		return nil, &TargetError{Name: name, Host: HostNetlify}
	case !ok || t.S3 == nil:
		return nil, &TargetError{Name: name, Targets: targetNames(targets)}
	}
	dest, err := r.opts.Override.apply(*t.S3)
	if err != nil {
		return nil, err
	}
	if r.opts.PlaceholderBucket != "" && dest.Bucket == r.opts.PlaceholderBucket {
		return nil, &PlaceholderError{Target: name, Bucket: dest.Bucket}
	}
	return &target.Target{S3: &dest, CloudFront: t.CloudFront}, nil
}

// apply returns dest with the fields o replaces, or an *OverrideError when
// one of them breaks the rule of signpost.yaml's s3 targets.
func (o S3Override) apply(dest target.S3) (target.S3, error) {
	for _, f := range []struct {
		value *string
		field *string
	}{{o.Bucket, &dest.Bucket}, {o.Prefix, &dest.Prefix}, {o.Region, &dest.Region}, {o.Endpoint, &dest.Endpoint}} {
		if f.value != nil {
			*f.field = *f.value
		}
	}
	// The fields of signpost.yaml were checked by Load; the overrides
	// follow the same rules.
	problems, err := target.CheckS3(dest)
	if err != nil {
		return dest, err
	}
	for _, p := range problems {
		if o.overrides(p.Field) {
			return dest, &OverrideError{Field: p.Field, Message: p.Message}
		}
	}
	return dest, nil
}

// overrides reports whether o replaces the s3 field named field.
func (o S3Override) overrides(field string) bool {
	switch field {
	case "bucket":
		return o.Bucket != nil
	case "prefix":
		return o.Prefix != nil
	case "region":
		return o.Region != nil
	case "endpoint":
		return o.Endpoint != nil
	}
	return false
}

// targetNames are the names of targets, sorted.
func targetNames(targets map[string]target.Target) []string {
	names := make([]string, 0, len(targets))
	for n := range targets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// targetListing is a publish's clients and the listings of the bucket it
// started with them.
type targetListing struct {
	target   *target.Target
	tenants  []string
	config   *build.Config // signpost.yaml as listEarly read it, when it did
	bucket   s3Bucket
	cf       CloudFrontAPI
	listings *Listings
}

// startListing makes the clients target needs and starts listing the
// prefixes of tenants' sites in its bucket, until ctx ends.
func (r *run) startListing(ctx context.Context, target *target.Target, tenants []string) (*targetListing, error) {
	clients := r.opts.Clients
	if clients == nil {
		clients = r.clients
	}
	s3c, cf, err := clients(ctx, target)
	if err != nil {
		return nil, err
	}
	sites := tenants
	if len(sites) == 0 {
		sites = []string{""}
	}
	prefixes := make([]string, len(sites))
	for i, t := range sites {
		prefixes[i] = target.S3.TenantPrefix(t)
	}
	return &targetListing{target: target, tenants: tenants, bucket: s3Bucket{s3c, target.S3.Bucket}, cf: cf, listings: Prefetch(ctx, s3c, target.S3.Bucket, prefixes)}, nil
}

// clients makes the SDK's clients target needs: S3, and CloudFront when
// it has a distribution.
func (r *run) clients(ctx context.Context, target *target.Target) (S3API, CloudFrontAPI, error) {
	s3c, err := NewS3Client(ctx, target.S3.Region, target.S3.Endpoint, r.opts.Limits)
	if err != nil {
		return nil, nil, err
	}
	if target.CloudFront == nil {
		return s3c, nil, nil
	}
	cf, err := NewCloudFrontClient(ctx, r.opts.Limits)
	if err != nil {
		return nil, nil, err
	}
	return s3c, cf, nil
}

// listEarly starts listing the bucket from signpost.yaml alone, before
// Load reads the declarations: listing a large bucket and loading a large
// catalog both take seconds, and neither needs the other. It returns nil
// when signpost.yaml or the target has a problem; Load and target report
// it.
func (r *run) listEarly(ctx context.Context) *targetListing {
	if r.opts.Target == "" {
		return nil
	}
	cfg, diags := build.LoadConfig(ctx, r.opts.Dir)
	if diags.HasErrors() {
		return nil
	}
	target, err := r.target(cfg.Targets)
	if err != nil {
		return nil
	}
	l, err := r.startListing(ctx, target, cfg.Tenants)
	if err != nil {
		return nil
	}
	l.config = cfg
	return l
}

// inputs is the digest of what the sites of l are built from: the catalog
// folder dir, this signpost, the target, the Git history that dates the
// registry, and the key that signs the AI catalog, named by signer (see
// signerOf); "" when l is nil, the folder has no digest (see package
// inputs) or the key could not be opened, so that nothing is recorded and
// every publish builds.
func (l *targetListing) inputs(ctx context.Context, dir string, history *build.History, signer string) string {
	if l == nil || signer == noSigner {
		return ""
	}
	target, err := json.Marshal(l.target)
	if err != nil {
		return ""
	}
	if h := history.Digest(); h != "" {
		target = append(append(target, "\nhistory "...), h...)
	}
	if signer != "" {
		target = append(append(target, "\nsigner "...), signer...)
	}
	d, err := inputs.Digest(ctx, dir, target)
	if err != nil {
		return ""
	}
	return d
}

// noSigner is what earlySigner says of a key it could not open.
const noSigner = "\x00"

// earlySigner opens the key that signs the AI catalog, as signpost.yaml
// (read before the catalog, for l) names it, and names it by signerOf: a
// key in the environment, in a file outside the catalog folder or in AWS
// KMS is no file of the folder, so that without it in the inputs a
// rotated key would leave the bucket signed with the old one. noSigner
// when it cannot be opened (the full publish then says why).
func (r *run) earlySigner(ctx context.Context, l *targetListing) string {
	if l == nil || r.opts.Signer == nil {
		return ""
	}
	if l.config == nil {
		return noSigner
	}
	s, err := r.opts.Signer(ctx, l.config)
	if err != nil {
		return noSigner
	}
	return signerOf(s)
}

// signerOf names a signing key in the inputs: its JWK thumbprint, and
// whether it signs deterministically; "" for none.
func signerOf(s signing.Signer) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%s deterministic=%t", s.KeyID(), s.Deterministic())
}

// same reports whether l lists for target and tenants, as Load read them.
func (l *targetListing) same(target *target.Target, tenants []string) bool {
	return reflect.DeepEqual(l.target, target) && slices.Equal(l.tenants, tenants)
}
