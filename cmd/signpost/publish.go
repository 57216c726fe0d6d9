package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/publish"
)

// maxInvalidationPaths is the most paths CloudFront lets be in progress on
// a distribution.
const maxInvalidationPaths = 3000

// defaultInvalidationTimeout bounds the wait for an invalidation before
// deletes; CloudFront usually completes one in under a few minutes.
const defaultInvalidationTimeout = 15 * time.Minute

// invalidationPollInterval is how often publish asks whether an
// invalidation is complete.
const invalidationPollInterval = 10 * time.Second

// defaultMaxDeletes is how many objects publish deletes at most unless told
// otherwise: enough for ordinary removals, few enough that a wrong prefix or
// an emptied catalog does not wipe a bucket.
const defaultMaxDeletes = 256

func newPublishCmd() *cobra.Command {
	var target, format string
	var s3 build.S3Target
	var dryRun bool
	maxDeletes := defaultMaxDeletes
	maxPaths := publish.DefaultMaxInvalidationPaths
	invalidationTimeout := defaultInvalidationTimeout
	cmd := &cobra.Command{
		Use:   "publish [DIR] --target NAME",
		Short: "Upload a catalog's sites to S3, in an order that never breaks a link",
		Long: `Publish builds the catalog in DIR (default: the current folder) in memory and
uploads each site to the bucket of an S3 target of signpost.yaml, whose fields
--bucket, --prefix, --region and --endpoint override. With tenants, each site
goes under PREFIX/tenants/ID.

It plans before it acts and prints the plan: each upload with its reason (new,
content changed, headers changed) and each delete. A change of headers alone
is found from a manifest object, without reading the documents. --dry-run
stops after the plan.

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
build changes their code) switch over once the documents are uploaded and
before the lists are. The routes and objects whose content changed or that
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
			ctx := cmd.Context()
			dir := catalogDir(args)
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("--format must be text or json")}
			}
			if maxPaths < 1 || maxPaths > maxInvalidationPaths {
				return usageError{fmt.Errorf("--max-invalidation-paths must be 1 to %d: CloudFront allows %d paths in progress per distribution", maxInvalidationPaths, maxInvalidationPaths)}
			}
			if invalidationTimeout <= 0 {
				return usageError{fmt.Errorf("--invalidation-timeout must be positive")}
			}
			if target == "" {
				return usageError{fmt.Errorf("--target is required: name an s3 target of %s", build.ConfigFile)}
			}
			cat, diags := build.Load(ctx, dir)
			if diags.HasErrors() {
				_ = diags.Write(cmd.OutOrStdout(), build.FormatText)
				return reportedError{exitInvalid}
			}
			t, ok := cat.Config.Targets[target]
			if !ok || t.S3 == nil {
				return usageError{fmt.Errorf("--target must name an s3 target of %s; it declares %s", build.ConfigFile, targetNames(cat.Config.Targets))}
			}
			dest := *t.S3
			for _, o := range []struct {
				flag, value string
				field       *string
			}{
				{"bucket", s3.Bucket, &dest.Bucket}, {"prefix", s3.Prefix, &dest.Prefix},
				{"region", s3.Region, &dest.Region}, {"endpoint", s3.Endpoint, &dest.Endpoint},
			} {
				if cmd.Flags().Changed(o.flag) {
					*o.field = o.value
				}
			}
			if dest.Bucket == placeholderBucket {
				return fmt.Errorf("target %s names the bucket %s that signpost init wrote as a placeholder: set its s3.bucket in %s, or pass --bucket", target, placeholderBucket, build.ConfigFile)
			}
			b, err := build.Compile(ctx, cat)
			if err != nil {
				return fmt.Errorf("publish %s: %w", dir, err)
			}
			client, err := publish.NewS3Client(ctx, dest.Region, dest.Endpoint)
			if err != nil {
				return fmt.Errorf("publish: %w", err)
			}
			var cf publish.CloudFrontAPI
			if t.CloudFront != nil {
				if cf, err = publish.NewCloudFrontClient(ctx); err != nil {
					return fmt.Errorf("publish: %w", err)
				}
			}

			report := publishReport{Bucket: dest.Bucket, DryRun: dryRun}
			var sites []*sitePublish
			for _, s := range b.Sites {
				sp, err := planSite(ctx, client, cf, &dest, t.CloudFront, s, cat.Config.CompactView, maxPaths)
				if err != nil {
					return flagHints(publish.ExplainAWSError(err, dest.Bucket))
				}
				sites = append(sites, sp)
				report.Sites = append(report.Sites, sp.report)
			}
			out := cmd.OutOrStdout()
			if format == "text" {
				for _, sp := range sites {
					printPlan(out, sp)
				}
			}
			// Too many deletes usually mean a wrong prefix or an emptied
			// catalog: refuse the whole publish, before changing anything.
			var tooMany []string
			for _, s := range report.Sites {
				if maxDeletes >= 0 && len(s.Deletes) > maxDeletes {
					tooMany = append(tooMany, fmt.Sprintf("%d deletes planned for s3://%s/%s", len(s.Deletes), report.Bucket, s.Prefix))
				}
			}
			report.Refused = len(tooMany) > 0
			if !dryRun && !report.Refused {
				if err := publish.SetBucketCORS(ctx, client, dest.Bucket); err != nil {
					return flagHints(publish.ExplainAWSError(err, dest.Bucket))
				}
				for i, sp := range sites {
					opts := publish.ApplyOptions{MaxDeletes: maxDeletes, Progress: progress(cmd.ErrOrStderr())}
					res, err := sp.apply(ctx, client, cf, opts, invalidationTimeout)
					if err != nil {
						return flagHints(publish.ExplainAWSError(err, dest.Bucket))
					}
					report.Sites[i].Applied = res
				}
			}
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(report); err != nil {
					return err
				}
			} else {
				printPublished(out, report)
			}
			if report.Refused {
				fmt.Fprintf(cmd.ErrOrStderr(), "signpost: %s, more than --max-deletes %d: nothing published; check the plan, then raise the limit\n", strings.Join(tooMany, "; "), maxDeletes)
				return reportedError{exitInvalid}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "target", "", "s3 target of signpost.yaml to publish to")
	f.StringVar(&s3.Bucket, "bucket", "", "bucket, instead of the target's")
	f.StringVar(&s3.Prefix, "prefix", "", "key prefix, instead of the target's")
	f.StringVar(&s3.Region, "region", "", "region, instead of the target's")
	f.StringVar(&s3.Endpoint, "endpoint", "", "endpoint of S3-compatible storage, instead of the target's")
	f.BoolVar(&dryRun, "dry-run", false, "print the plan and change nothing")
	f.IntVar(&maxDeletes, "max-deletes", maxDeletes, "most objects a site may delete; more refuse the whole publish (-1: no limit)")
	f.IntVar(&maxPaths, "max-invalidation-paths", maxPaths, "most paths one CloudFront invalidation lists before they are collapsed into wildcards")
	f.DurationVar(&invalidationTimeout, "invalidation-timeout", invalidationTimeout, "longest wait for CloudFront to drop the old lists before documents are deleted")
	f.StringVar(&format, "format", "text", "output format: text or json")
	return cmd
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
	return rephrasedError{err, strings.Replace(err.Error(), part.Error(), text, 1)}
}

type rephrasedError struct {
	err error
	msg string
}

func (e rephrasedError) Error() string { return e.msg }
func (e rephrasedError) Unwrap() error { return e.err }

// publishReport is what publish planned and did, for --format json.
type publishReport struct {
	Bucket string `json:"bucket"`
	DryRun bool   `json:"dryRun"`
	// Refused is set when a site plans more deletes than --max-deletes:
	// then nothing is published.
	Refused bool         `json:"refused"`
	Sites   []siteReport `json:"sites"`
}

type siteReport struct {
	Tenant     string            `json:"tenant"`
	Prefix     string            `json:"prefix"`
	Uploads    []uploadReport    `json:"uploads"`
	Deletes    []string          `json:"deletes"`
	Unchanged  int               `json:"unchanged"`
	CloudFront *cloudFrontReport `json:"cloudfront,omitempty"`
	Applied    *publish.Applied  `json:"applied,omitempty"`
}

type uploadReport struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// cloudFrontReport is what publish plans and does to a site's
// distribution.
type cloudFrontReport struct {
	DistributionID string           `json:"distributionId"`
	Functions      []functionReport `json:"functions"`
	// Invalidations are every path to invalidate; Pending those an earlier
	// publish left, included in Invalidations.
	Invalidations   []string `json:"invalidations"`
	Pending         []string `json:"pending"`
	InvalidationIDs []string `json:"invalidationIds"`
}

type functionReport struct {
	Name   string `json:"name"`
	Action string `json:"action"`
}

// sitePublish is the plan of one site: its objects, and its distribution's
// functions and invalidations.
type sitePublish struct {
	plan         *publish.Plan
	functions    []publish.FunctionPlan
	distribution string
	inv          publish.Invalidation
	report       siteReport
}

// planSite plans the publishing of one site to the bucket of dest and, with
// cf set, to the site's distribution.
func planSite(ctx context.Context, s3 publish.S3API, cf publish.CloudFrontAPI, dest *build.S3Target, cft *build.CloudFrontTarget, s *build.Site, compactView bool, maxPaths int) (*sitePublish, error) {
	prefix := dest.Prefix
	if s.Tenant != "" {
		prefix = path.Join(prefix, s.Dir)
	}
	docs := s.Documents
	if cft != nil {
		// The page the distribution answers unknown keys with.
		docs = append(slices.Clip(docs), publish.ErrorDocument())
	}
	p, err := publish.PlanS3(ctx, s3, dest.Bucket, prefix, docs)
	if err != nil {
		return nil, err
	}
	sp := &sitePublish{plan: p}
	sp.report = siteReport{Tenant: s.Tenant, Prefix: p.Prefix, Uploads: []uploadReport{}, Deletes: p.Deletes, Unchanged: p.Unchanged}
	if sp.report.Deletes == nil {
		sp.report.Deletes = []string{}
	}
	for _, u := range p.Uploads {
		sp.report.Uploads = append(sp.report.Uploads, uploadReport{Key: u.Key, Reason: u.Reason})
	}
	if cft == nil {
		return sp, nil
	}
	dist := cft.Distributions[s.Tenant]
	sp.distribution = dist.ID
	pending, err := publish.ReadPendingInvalidation(ctx, s3, p)
	if err != nil {
		return nil, err
	}
	sp.inv = publish.InvalidationPaths(p, pending, maxPaths)
	sp.report.CloudFront = &cloudFrontReport{DistributionID: dist.ID, Functions: []functionReport{},
		Invalidations: orEmpty(sp.inv.Paths()), Pending: orEmpty(pending), InvalidationIDs: []string{}}
	if dist.FunctionName == "" {
		return sp, nil
	}
	req, resp, err := s.CloudFrontFunctions(dest, compactView)
	if err != nil {
		return nil, err
	}
	reqName, respName := publish.FunctionNames(dist.FunctionName)
	for _, f := range []struct {
		name string
		code []byte
	}{{reqName, req}, {respName, resp}} {
		fp, err := publish.PlanFunction(ctx, cf, f.name, f.code)
		if err != nil {
			return nil, err
		}
		sp.functions = append(sp.functions, fp)
		sp.report.CloudFront.Functions = append(sp.report.CloudFront.Functions, functionReport{Name: fp.Name, Action: fp.Action})
	}
	return sp, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// apply carries out the plan of the site, and its distribution's part:
//
//  1. the paths to invalidate are recorded as pending in the bucket, so
//     that a publish that fails half-way leaves them to the next one;
//  2. documents are uploaded, the functions switched over, the lists and
//     catalogs uploaded (Plan.Apply);
//  3. when there are deletes, the changed paths are invalidated first and
//     the invalidation waited for (at most wait), so that no cache serves an
//     old list naming a document about to be deleted; then the deletes;
//  4. the rest is invalidated, and the pending paths cleared; when the
//     deletes were refused, the paths stay pending for the publish that
//     makes them.
func (sp *sitePublish) apply(ctx context.Context, s3 publish.S3API, cf publish.CloudFrontAPI, opts publish.ApplyOptions, wait time.Duration) (*publish.Applied, error) {
	all := sp.inv.Paths()
	cfr := sp.report.CloudFront
	if sp.distribution != "" && len(all) > 0 {
		if err := publish.SavePendingInvalidation(ctx, s3, sp.plan, sp.distribution, all); err != nil {
			return nil, err
		}
	}
	opts.BeforeLists = sp.applyFunctions(cf)
	invalidated := false
	if sp.distribution != "" && len(sp.inv.Updated) > 0 {
		opts.BeforeDeletes = func(ctx context.Context) error {
			id, err := publish.Invalidate(ctx, cf, sp.distribution, sp.inv.Updated)
			if err != nil {
				return err
			}
			cfr.InvalidationIDs = append(cfr.InvalidationIDs, id)
			wctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			if err := publish.WaitInvalidation(wctx, cf, sp.distribution, id, invalidationPollInterval); err != nil {
				return err
			}
			invalidated = true
			return nil
		}
	}
	res, err := sp.plan.Apply(ctx, s3, opts)
	if err != nil || sp.distribution == "" {
		return res, err
	}
	if res.DeletesRefused {
		// Nothing was deleted. Invalidate what changed, and leave every
		// path pending: the publish that makes the deletes then
		// invalidates the lists again and waits before deleting.
		id, err := publish.Invalidate(ctx, cf, sp.distribution, sp.inv.Updated)
		if id != "" {
			cfr.InvalidationIDs = append(cfr.InvalidationIDs, id)
		}
		return res, err
	}
	rest := all
	if invalidated {
		rest = sp.inv.Deleted
	}
	id, err := publish.Invalidate(ctx, cf, sp.distribution, rest)
	if err != nil {
		return res, err
	}
	if id != "" {
		cfr.InvalidationIDs = append(cfr.InvalidationIDs, id)
	}
	if len(all) > 0 || publish.HasPendingInvalidation(sp.plan) {
		if err := publish.ClearPendingInvalidation(ctx, s3, sp.plan); err != nil {
			return res, err
		}
	}
	return res, nil
}

// applyFunctions returns the step that brings the site's functions up to
// date, or nil when there is none. Apply runs it once the documents are
// uploaded and before the lists: the new routes then lead to objects that
// exist, and no list names a route the distribution does not serve yet.
func (sp *sitePublish) applyFunctions(cf publish.CloudFrontAPI) func(context.Context) error {
	if len(sp.functions) == 0 {
		return nil
	}
	return func(ctx context.Context) error {
		for _, f := range sp.functions {
			if err := publish.ApplyFunction(ctx, cf, f); err != nil {
				return err
			}
		}
		return nil
	}
}

func siteName(tenant string) string {
	if tenant == "" {
		return "site"
	}
	return "tenant " + tenant
}

func printPlan(w io.Writer, sp *sitePublish) {
	p := sp.plan
	fmt.Fprintf(w, "plan for %s at s3://%s/%s: %d uploads, %d deletes, %d unchanged\n", siteName(sp.report.Tenant), p.Bucket, p.Prefix, len(p.Uploads), len(p.Deletes), p.Unchanged)
	for _, u := range p.Uploads {
		fmt.Fprintf(w, "  upload %s (%s)\n", u.Key, u.Reason)
	}
	for _, k := range p.Deletes {
		fmt.Fprintf(w, "  delete %s\n", k)
	}
	if sp.distribution == "" {
		return
	}
	for _, f := range sp.functions {
		fmt.Fprintf(w, "  function %s: %s\n", f.Name, f.Action)
	}
	all := sp.inv.Paths()
	note := ""
	if n := len(sp.report.CloudFront.Pending); n > 0 {
		note = fmt.Sprintf(", %d left pending by an earlier publish", n)
	}
	if len(p.Deletes) > 0 && len(sp.inv.Updated) > 0 {
		note += "; the changed ones before the deletes, waiting for CloudFront, then the deleted ones"
	}
	fmt.Fprintf(w, "  invalidate %s on distribution %s%s\n", count(len(all), "path"), sp.distribution, note)
	for _, q := range all {
		fmt.Fprintf(w, "    %s\n", q)
	}
}

// count is n and noun, in the plural unless n is 1.
func count(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, english.Plural(n, noun, noun+"s"))
}

// printPublished prints the one-line result of each site.
func printPublished(w io.Writer, r publishReport) {
	for _, s := range r.Sites {
		name := siteName(s.Tenant)
		switch {
		case r.Refused:
			fmt.Fprintf(w, "refused: nothing changed for %s\n", name)
		case r.DryRun:
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
				extra = fmt.Sprintf("; distribution %s: %d functions updated, %s invalidated", c.DistributionID, updated, count(len(c.Invalidations), "path"))
			}
			fmt.Fprintf(w, "published %s to s3://%s/%s: %d uploaded (%d bytes), %d deleted, %d unchanged%s\n",
				name, r.Bucket, s.Prefix, s.Applied.Uploaded, s.Applied.Bytes, s.Applied.Deleted, s.Unchanged, extra)
		}
	}
}

// progress reports uploads on a terminal, and stays silent otherwise.
func progress(w io.Writer) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(f, "\r%d/%d", done, total)
		if done == total {
			fmt.Fprint(f, "\r\033[K")
		}
	}
}
