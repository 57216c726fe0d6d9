package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/inputs"
	"github.com/signpost-dev/signpost/internal/scaffold"
	"github.com/signpost-dev/signpost/publish"
)

// publishOptions are the flags of signpost publish.
type publishOptions struct {
	target, format string
	// s3 holds --bucket, --prefix, --region and --endpoint, which
	// override the target's when given.
	s3     build.S3Target
	dryRun bool
	// verbose lists each key of the plan; quiet prints errors only.
	verbose, quiet      bool
	maxDeletes          int
	maxPaths            int
	invalidationTimeout time.Duration
}

func newPublishCmd() *cobra.Command {
	o := &publishOptions{
		maxDeletes:          publish.DefaultMaxDeletes,
		maxPaths:            publish.DefaultMaxInvalidationPaths,
		invalidationTimeout: publish.DefaultInvalidationTimeout,
	}
	cmd := &cobra.Command{
		Use:   "publish [DIR] --target NAME",
		Short: "Upload a catalog's sites to S3, in an order that never breaks a link",
		Long: `Publish builds the catalog in DIR (default: the current folder) in memory and
uploads each site to the bucket of an S3 target of signpost.yaml, whose fields
--bucket, --prefix, --region and --endpoint override. With tenants, each site
goes under PREFIX/tenants/ID.

It plans before it acts and prints the plan: for each site, how many objects
it uploads, deletes and leaves unchanged, and how many CloudFront Functions
it changes and paths it invalidates; with -v, each upload with its reason
(new, content changed, headers changed), each delete, each function and each
path. --quiet prints errors only. A change of headers alone is found from a
manifest object, without reading the documents. --dry-run stops after the
plan. --format json prints the whole plan, and what was done, as one object.

The manifest also records a digest of what the sites were built from (every
file of DIR but .git, this signpost binary, the target) and of the objects the
publish left. A republish from the same digest, of a bucket that still holds
exactly those objects, has nothing to do: it says so and builds nothing.
Anything else (a changed file, another signpost, an object changed by hand,
a target with a cloudfront distribution) builds and compares as above.

--target names an s3 target of signpost.yaml. GitHub Pages, Cloudflare and
Netlify targets are not published from here: signpost build --target NAME
lays the site out for the host, and the workflow of signpost init --publish
pages, cloudflare or netlify deploys it with the host's own tool.

Then it uploads every document, then the lists and catalogs that name them,
then the manifest, then deletes what the site no longer has: at no moment does
a published list or catalog point at a missing document. Objects carry their
Content-Type and Cache-Control, and no ACL. More deletes than --max-deletes
(-1: no limit) in any site refuse the whole publish before anything changes,
a dry run included: they usually mean a wrong prefix or an emptied catalog.
The bucket gets the CORS rule the specs call for.

Credentials come from the default AWS chain (environment, shared files, SSO,
instance roles) and are never printed. With --endpoint (S3-compatible storage)
the bucket is addressed path-style.

With a cloudfront distribution in the target, each site's plan also lists
the distribution's work, done in this order: the two CloudFront Functions
(when functionName is set: created if missing, updated and published when the
build changes their code, or when the viewer-request function's key value
store association differs from keyValueStoreArn) switch over once the
documents are uploaded and before the lists are. The routes and objects whose content changed or that
are deleted are invalidated (new documents need none), collapsed into
wildcards past --max-invalidation-paths: with deletes, the changed ones
first, waiting up to --invalidation-timeout for CloudFront to drop the old
lists before anything is deleted, then the deleted ones. The paths are kept
in the bucket (.signpost-invalidation.json) until invalidated, so a publish
that fails half-way leaves them to the next one.
Each site also gets the object .signpost-404.json, the page the distribution
answers unknown keys with (see templates/aws). CloudFront calls use the same
credential chain; AWS_ENDPOINT_URL_CLOUDFRONT points them elsewhere.`,
		Example: `  signpost publish catalogs/example --target production --dry-run
  signpost publish --target production --max-deletes 10
  signpost publish --target local --endpoint http://127.0.0.1:7070 --format json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPublish(cmd, catalogDir(args), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.target, "target", "", "s3 target of signpost.yaml to publish to")
	f.StringVar(&o.s3.Bucket, "bucket", "", "bucket, instead of the target's")
	f.StringVar(&o.s3.Prefix, "prefix", "", "key prefix, instead of the target's")
	f.StringVar(&o.s3.Region, "region", "", "region, instead of the target's")
	f.StringVar(&o.s3.Endpoint, "endpoint", "", "endpoint of S3-compatible storage, instead of the target's")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the plan and change nothing")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list each upload, delete, function and invalidated path of the plan")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print errors only")
	f.IntVar(&o.maxDeletes, "max-deletes", o.maxDeletes, "most objects a site may delete; more refuse the whole publish (-1: no limit)")
	f.IntVar(&o.maxPaths, "max-invalidation-paths", o.maxPaths, "most paths one CloudFront invalidation lists before they are collapsed into wildcards")
	f.DurationVar(&o.invalidationTimeout, "invalidation-timeout", o.invalidationTimeout, "longest wait for CloudFront to drop the old lists before documents are deleted")
	enumVar(f, &o.format, "format", build.FormatText, reportFormats(), "output format: text or json")
	return cmd
}

// runPublish builds the catalog in dir and publishes it as o says.
func runPublish(cmd *cobra.Command, dir string, o *publishOptions) error {
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	if err := o.check(); err != nil {
		return err
	}
	if err := checkCatalogDir("publish", dir); err != nil {
		return err
	}
	var prog *progressLine
	if !o.quiet {
		prog = newProgress(cmd.ErrOrStderr())
	}
	defer prog.Stop()
	prog.Step("publish: reading and checking the catalog", 0)
	listCtx, stopListing := context.WithCancel(ctx)
	defer stopListing()
	early := o.listEarly(listCtx, cmd, dir)
	var planned func(*publish.Plan)
	if o.format == build.FormatText && !o.quiet {
		planned = func(p *publish.Plan) { prog.Clear(); printPlan(out, p, o.verbose) }
	}
	// The catalog loads while the bucket's manifests are read. When they
	// record the same inputs, the load stops, sparing the CPU for the
	// listing: if it shows every site as that publish left it, nothing
	// needs building; if not, the load starts again.
	type loaded struct {
		cat   *build.Catalog
		diags build.Diagnostics
	}
	load := func() (<-chan loaded, context.CancelFunc) {
		loadCtx, stop := context.WithCancel(ctx)
		loads := make(chan loaded, 1)
		go func() {
			cat, diags := build.Load(loadCtx, dir)
			loads <- loaded{cat, diags}
		}()
		return loads, stop
	}
	loads, stopLoad := load()
	defer func() { stopLoad() }()
	digest := early.inputs(ctx, dir)
	if digest != "" && early.listings.Recorded(ctx, digest) {
		stopLoad()
		plan, ok, err := publish.Unchanged(ctx, early.s3, early.target, early.tenants, digest, publish.Options{DryRun: o.dryRun, Listings: early.listings, Planned: planned})
		if ok {
			prog.Stop()
			if err != nil {
				return flagHints(err)
			}
			if o.format == build.FormatJSON || !o.quiet {
				return writePublished(out, o.format, plan)
			}
			return nil
		}
		// An error is the full publish's to report, after the catalog's.
		loads, stopLoad = load()
	}
	ld := <-loads
	cat, diags := ld.cat, ld.diags
	prog.Clear()
	if diags.HasErrors() {
		_ = diags.Write(out, build.FormatText)
		return reportedError{exitInvalid}
	}
	if o.target == "" {
		return usageError{fmt.Errorf("--target is required: %s", declaredTargets(cat.Config.Targets))}
	}
	target, err := o.publishTarget(cmd, cat.Config.Targets)
	if err != nil {
		return err
	}
	l := early
	if l == nil || !l.same(target, cat.Config.Tenants) {
		if l, err = startListing(listCtx, target, cat.Config.Tenants); err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		digest = ""
	}
	s3c, cf, listings := l.s3, l.cf, l.listings
	prog.Step("publish: compiling the sites", 0)
	b, err := build.Compile(ctx, cat)
	prog.Clear()
	if err != nil {
		return fmt.Errorf("publish %s: %w", dir, err)
	}
	if digest != "" && l.inputs(ctx, dir) != digest {
		digest = "" // the catalog changed while it was read: record nothing
	}
	opts := publish.Options{DryRun: o.dryRun, MaxDeletes: o.maxDeletes, MaxInvalidationPaths: o.maxPaths,
		InvalidationTimeout: o.invalidationTimeout, CompactView: cat.Config.CompactView, Listings: listings,
		Inputs: digest, Planned: planned}
	if prog != nil {
		prog.Step("publish: planning", 0)
		opts.Progress = func(done, total int) {
			if done == 1 {
				prog.Step("publish: uploading and deleting", total)
			}
			prog.Count(done, total)
		}
	}
	plan, err := publish.Sites(ctx, s3c, cf, b.Sites, target, opts)
	var refused *publish.DeleteLimitError
	if err != nil && !errors.As(err, &refused) {
		return flagHints(err)
	}
	if o.format == build.FormatJSON || !o.quiet {
		if err := writePublished(out, o.format, plan); err != nil {
			return err
		}
	}
	if refused != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "signpost: %s, more than --max-deletes %d: nothing published; check the plan, then raise the limit\n", refused.Planned(), refused.Limit)
		return reportedError{exitInvalid}
	}
	return nil
}

// check reports the mistakes in the flags that need no catalog.
func (o *publishOptions) check() error {
	switch {
	case o.maxPaths < 1 || o.maxPaths > publish.InvalidationPathLimit:
		return usageError{fmt.Errorf("--max-invalidation-paths must be 1 to %d: CloudFront allows %d paths in progress per distribution", publish.InvalidationPathLimit, publish.InvalidationPathLimit)}
	case o.invalidationTimeout <= 0:
		return usageError{fmt.Errorf("--invalidation-timeout must be positive")}
	case o.verbose && o.quiet:
		return usageError{fmt.Errorf("-v and --quiet cannot be used together")}
	}
	return nil
}

// declaredTargets says which targets signpost.yaml declares, for the
// error of a publish without --target.
func declaredTargets(targets map[string]build.Target) string {
	if len(targets) == 0 {
		return fmt.Sprintf("this catalog declares no targets: add an s3 target to targets: in %s", build.ConfigFile)
	}
	return fmt.Sprintf("this catalog has %s %s", english.Plural(len(targets), "target", "targets"), targetNames(targets))
}

// publishTarget returns the s3 target of targets that --target names, with
// the bucket, prefix, region and endpoint the flags override.
func (o *publishOptions) publishTarget(cmd *cobra.Command, targets map[string]build.Target) (*build.Target, error) {
	t, ok := targets[o.target]
	if ok && t.GitHubPages {
		return nil, usageError{fmt.Errorf("target %s is a GitHub Pages target, which publish does not upload to: build it with signpost build --target %s and deploy it with the Pages workflow (signpost init --publish pages writes one)", o.target, o.target)}
	}
	if ok && t.Cloudflare != nil {
		return nil, usageError{fmt.Errorf("target %s is a Cloudflare target, which publish does not upload to: build it with signpost build --target %s and deploy each site's folder with wrangler deploy (signpost init --publish cloudflare writes a workflow that does)", o.target, o.target)}
	}
	if ok && t.Netlify {
		return nil, usageError{fmt.Errorf("target %s is a Netlify target, which publish does not upload to: build it with signpost build --target %s and deploy each site's folder, with its netlify/functions, with netlify deploy (signpost init --publish netlify writes a workflow that does)", o.target, o.target)}
	}
	if !ok || t.S3 == nil {
		return nil, usageError{fmt.Errorf("--target must name an s3 target of %s; it declares %s", build.ConfigFile, targetNames(targets))}
	}
	dest := *t.S3
	for _, f := range []struct {
		flag, value string
		field       *string
	}{
		{"bucket", o.s3.Bucket, &dest.Bucket}, {"prefix", o.s3.Prefix, &dest.Prefix},
		{"region", o.s3.Region, &dest.Region}, {"endpoint", o.s3.Endpoint, &dest.Endpoint},
	} {
		if cmd.Flags().Changed(f.flag) {
			*f.field = f.value
		}
	}
	// The fields of signpost.yaml were checked by Load; the flags' values
	// follow the same rules.
	problems, err := build.CheckS3Target(dest)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		if cmd.Flags().Changed(p.Field) {
			return nil, usageError{fmt.Errorf("--%s: %s", p.Field, p.Message)}
		}
	}
	if dest.Bucket == scaffold.PlaceholderBucket {
		return nil, fmt.Errorf("target %s names the bucket %s that signpost init wrote as a placeholder: set its s3.bucket in %s, or pass --bucket", o.target, scaffold.PlaceholderBucket, build.ConfigFile)
	}
	return &build.Target{S3: &dest, CloudFront: t.CloudFront}, nil
}

// listing is a publish's clients and the listings of the bucket it
// started with them.
type listing struct {
	target   *build.Target
	tenants  []string
	s3       publish.S3API
	cf       publish.CloudFrontAPI
	listings *publish.Listings
}

// startListing makes the clients target needs and starts listing the
// prefixes of tenants' sites in its bucket, until ctx ends.
func startListing(ctx context.Context, target *build.Target, tenants []string) (*listing, error) {
	s3c, cf, err := publishClients(ctx, target)
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
	return &listing{target, tenants, s3c, cf, publish.Prefetch(ctx, s3c, target.S3.Bucket, prefixes)}, nil
}

// listEarly starts listing the bucket from signpost.yaml alone, before
// Load reads the declarations: listing a large bucket and loading a large
// catalog both take seconds, and neither needs the other. It returns nil
// when signpost.yaml or the target has a problem; Load and publishTarget
// report it.
func (o *publishOptions) listEarly(ctx context.Context, cmd *cobra.Command, dir string) *listing {
	if o.target == "" {
		return nil
	}
	cfg, diags := build.LoadConfig(ctx, dir)
	if diags.HasErrors() {
		return nil
	}
	target, err := o.publishTarget(cmd, cfg.Targets)
	if err != nil {
		return nil
	}
	l, err := startListing(ctx, target, cfg.Tenants)
	if err != nil {
		return nil
	}
	return l
}

// inputs is the digest of what the sites of l are built from: the catalog
// folder dir, this signpost, and the target; "" when l is nil or the folder
// has no digest (see package inputs), so that nothing is recorded and
// every publish builds.
func (l *listing) inputs(ctx context.Context, dir string) string {
	if l == nil {
		return ""
	}
	target, err := json.Marshal(l.target)
	if err != nil {
		return ""
	}
	d, err := inputs.Digest(ctx, dir, target)
	if err != nil {
		return ""
	}
	return d
}

// same reports whether l lists for target and tenants, as Load read them.
func (l *listing) same(target *build.Target, tenants []string) bool {
	return reflect.DeepEqual(l.target, target) && slices.Equal(l.tenants, tenants)
}

// publishClients makes the clients target needs: S3, and CloudFront when
// it has a distribution.
func publishClients(ctx context.Context, target *build.Target) (publish.S3API, publish.CloudFrontAPI, error) {
	s3c, err := publish.NewS3Client(ctx, target.S3.Region, target.S3.Endpoint, publish.Limits{})
	if err != nil {
		return nil, nil, err
	}
	if target.CloudFront == nil {
		return s3c, nil, nil
	}
	cf, err := publish.NewCloudFrontClient(ctx, publish.Limits{})
	if err != nil {
		return nil, nil, err
	}
	return s3c, cf, nil
}

// flagHints returns err with the hints of package publish that a flag of
// publish answers naming the flag: a missing bucket, a bucket in another
// region, a wait for CloudFront that ran out.
func flagHints(err error) error {
	var ae *publish.AWSError
	if errors.As(err, &ae) {
		switch ae.Cause {
		case publish.CauseNoSuchBucket:
			err = rephrased(err, ae, ae.Err.Error()+"\n"+ae.Hint()+" (--bucket, --endpoint)")
		case publish.CauseWrongRegion:
			err = rephrased(err, ae, ae.Err.Error()+"\n"+ae.Hint()+", or --region")
		}
	}
	var timeout *publish.InvalidationTimeoutError
	if errors.As(err, &timeout) {
		err = rephrased(err, timeout, timeout.Waited()+"; raise --invalidation-timeout, or publish again later: the paths stay pending until an invalidation succeeds")
	}
	return err
}

// rephrased is err with the message of part, an error in its chain,
// replaced by text.
func rephrased(err, part error, text string) error {
	return hintedError{strings.Replace(err.Error(), part.Error(), text, 1), err}
}

// writePublished writes the plan and what was done: the JSON report, or a
// line per site.
func writePublished(w io.Writer, format string, p *publish.Plan) error {
	if format == build.FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	printPublished(w, p)
	return nil
}

// printPlan prints each site's plan: a line of counts of its uploads,
// deletes and its distribution's work, and with verbose, its uploads with
// their reasons, its deletes, its functions and the paths it invalidates.
func printPlan(w io.Writer, p *publish.Plan, verbose bool) {
	if p.SameInputs {
		fmt.Fprintf(w, "s3://%s holds what the last publish made from this catalog and this signpost: nothing to build\n", p.Bucket)
	}
	for _, s := range p.Sites {
		cf := ""
		if c := s.CloudFront; c != nil && c.DistributionID != "" {
			changed := 0
			for _, f := range c.Functions {
				if f.Action != publish.FunctionUnchanged {
					changed++
				}
			}
			cf = fmt.Sprintf("; distribution %s: %s to change, %s to invalidate", c.DistributionID,
				english.Count(changed, "function", "functions"), english.Count(len(c.Invalidations), "path", "paths"))
		}
		fmt.Fprintf(w, "plan for %s at s3://%s/%s: %s, %s, %d unchanged%s\n", spec.SiteName(s.Tenant), p.Bucket, s.Prefix,
			english.Count(len(s.Uploads), "upload", "uploads"), english.Count(len(s.Deletes), "delete", "deletes"), s.Unchanged, cf)
		if !verbose {
			continue
		}
		for _, u := range s.Uploads {
			fmt.Fprintf(w, "  upload %s (%s)\n", u.Key, u.Reason)
		}
		for _, k := range s.Deletes {
			fmt.Fprintf(w, "  delete %s\n", k)
		}
		c := s.CloudFront
		if c == nil || c.DistributionID == "" {
			continue
		}
		for _, f := range c.Functions {
			note := ""
			if change := f.KeyValueStoreChange(); change != "" {
				note = " (" + change + ")"
			}
			fmt.Fprintf(w, "  function %s: %s%s\n", f.Name, f.Action, note)
		}
		note := ""
		if n := len(c.Pending); n > 0 {
			note = fmt.Sprintf(", %d left pending by an earlier publish", n)
		}
		if s.WaitsBeforeDeletes() {
			note += "; the changed ones before the deletes, waiting for CloudFront, then the deleted ones"
		}
		fmt.Fprintf(w, "  invalidate %s on distribution %s%s\n", english.Count(len(c.Invalidations), "path", "paths"), c.DistributionID, note)
		for _, q := range c.Invalidations {
			fmt.Fprintf(w, "    %s\n", q)
		}
	}
}

// printPublished prints the one-line result of each site.
func printPublished(w io.Writer, p *publish.Plan) {
	for _, s := range p.Sites {
		name := spec.SiteName(s.Tenant)
		switch {
		case p.Refused:
			fmt.Fprintf(w, "refused: nothing changed for %s\n", name)
		case p.DryRun:
			fmt.Fprintf(w, "dry run: nothing changed for %s\n", name)
		case s.Applied != nil:
			extra := ""
			if c := s.CloudFront; c != nil {
				updated := 0
				for _, f := range c.Functions {
					if f.Action != publish.FunctionUnchanged {
						updated++
					}
				}
				extra = fmt.Sprintf("; distribution %s: %s updated, %s invalidated", c.DistributionID, english.Count(updated, "function", "functions"), english.Count(len(c.Invalidations), "path", "paths"))
			}
			fmt.Fprintf(w, "published %s to s3://%s/%s: %d uploaded (%d bytes), %d deleted, %d unchanged%s\n",
				name, p.Bucket, s.Prefix, s.Applied.Uploaded, s.Applied.Bytes, s.Applied.Deleted, s.Unchanged, extra)
		}
	}
}
