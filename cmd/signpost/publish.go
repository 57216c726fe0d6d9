package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/scaffold"
	"github.com/signpost-dev/signpost/publish"
	"github.com/spf13/cobra"
)

// publishOptions are the IO, argument and flags of signpost publish.
type publishOptions struct {
	io  cmdutil.Streams
	dir string

	target, format string
	// s3 holds --bucket, --prefix, --region and --endpoint; override
	// points at those given, which replace the target's.
	s3       target.S3
	override publish.S3Override
	dryRun   bool
	// verbose lists each key of the plan; quiet prints errors only.
	verbose, quiet      bool
	maxDeletes          int
	maxPaths            int
	invalidationTimeout time.Duration
	concurrency         int
}

// newPublishCmd is signpost publish; runF, runPublish when nil, runs it
// with the options the command line gives.
func newPublishCmd(runF func(*publishOptions) error) *cobra.Command {
	if runF == nil {
		runF = runPublish
	}
	o := &publishOptions{
		maxDeletes:          publish.DefaultMaxDeletes,
		maxPaths:            publish.DefaultMaxInvalidationPaths,
		concurrency:         publish.DefaultConcurrency,
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
			o.io, o.dir = cmdutil.StreamsOf(cmd), catalogDir(args)
			f := cmd.Flags()
			for _, v := range []struct {
				flag     string
				value    *string
				override **string
			}{
				{"bucket", &o.s3.Bucket, &o.override.Bucket}, {"prefix", &o.s3.Prefix, &o.override.Prefix},
				{"region", &o.s3.Region, &o.override.Region}, {"endpoint", &o.s3.Endpoint, &o.override.Endpoint},
			} {
				if f.Changed(v.flag) {
					*v.override = v.value
				}
			}
			return runF(o)
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
	f.IntVar(&o.concurrency, "concurrency", o.concurrency, fmt.Sprintf("uploads in flight, 1 to %d", publish.MaxConcurrency))
	cmdutil.EnumVar(f, &o.format, "format", build.FormatText, reportFormats(), "output format: text or json")
	return cmd
}

// runPublish builds the catalog of o and publishes it as o says.
func runPublish(o *publishOptions) error {
	out := o.io.Out
	if err := o.check(); err != nil {
		return err
	}
	var err error
	if o.dir, err = findCatalogDir("publish", o.dir); err != nil {
		return err
	}
	var prog *progressLine
	if !o.quiet {
		prog = newProgress(o.io.ErrOut)
	}
	defer prog.Stop()
	ro := publish.RunOptions{Dir: o.dir, Target: o.target, Override: o.override, PlaceholderBucket: scaffold.PlaceholderBucket,
		DryRun: o.dryRun, MaxDeletes: o.maxDeletes, MaxInvalidationPaths: o.maxPaths, InvalidationTimeout: o.invalidationTimeout, Concurrency: o.concurrency,
		Signer: func(ctx context.Context, cfg *build.Config) (signing.Signer, error) {
			return openSigner(ctx, o.dir, cfg)
		}}
	if prog != nil {
		ro.Progress = publishProgress{prog}
	}
	if o.format == build.FormatText && !o.quiet {
		ro.Planned = func(p *publish.Plan) { prog.Clear(); printPlan(out, p, o.verbose) }
	}
	plan, err := publish.Run(o.io.Ctx, ro)
	prog.Stop()
	var refused *publish.DeleteLimitError
	if err != nil && !errors.As(err, &refused) {
		return publishError(out, err)
	}
	if o.format == build.FormatJSON || !o.quiet {
		if err := writePublished(out, o.format, plan); err != nil {
			return err
		}
	}
	if refused != nil {
		_ = cmdutil.PrintLine(o.io.ErrOut, "signpost: %s, more than --max-deletes %d: nothing published; check the plan, then raise the limit", refused.Planned(), refused.Limit)
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	return nil
}

// publishProgress shows the stages of publish.Run on the progress line.
type publishProgress struct{ *progressLine }

// Stage shows the step of publish.Run that s names.
func (p publishProgress) Stage(s publish.Stage, total int) {
	step := ""
	switch s {
	case publish.StageLoad:
		step = "publish: reading and checking the catalog"
	case publish.StageCompile:
		step = "publish: compiling the sites"
	case publish.StagePlan:
		step = "publish: planning"
	case publish.StageApply:
		step = "publish: uploading and deleting"
	}
	p.Step(step, total)
}

// publishError words an error of publish.Run for the command line: the
// diagnostics of an invalid catalog on stdout, and the flags that answer
// the others.
func publishError(stdout io.Writer, err error) error {
	var (
		invalid     *publish.InvalidError
		noTarget    *publish.NoTargetError
		target      *publish.TargetError
		override    *publish.OverrideError
		placeholder *publish.PlaceholderError
	)
	switch {
	case errors.As(err, &invalid):
		_ = invalid.Diagnostics.Write(stdout, build.FormatText)
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	case errors.As(err, &noTarget):
		return cmdutil.UsageError{Err: fmt.Errorf("--target is required: %s", noTarget.Declared())}
	case errors.As(err, &target):
		return cmdutil.UsageError{Err: errors.New(targetMessage(target))}
	case errors.As(err, &override):
		return cmdutil.UsageError{Err: fmt.Errorf("--%s: %s", override.Field, override.Message)}
	case errors.As(err, &placeholder):
		return cmdutil.HintedError{Msg: fmt.Sprintf("target %s names the bucket %s that signpost init wrote as a placeholder: set its s3.bucket in %s, or pass --bucket", placeholder.Target, placeholder.Bucket, build.ConfigFile), Err: err}
	}
	return flagHints(err)
}

// targetMessage says why publish does not upload to the target of e, and
// what does.
func targetMessage(e *publish.TargetError) string {
	switch e.Host {
	case publish.HostGitHubPages:
		return fmt.Sprintf("target %s is a GitHub Pages target, which publish does not upload to: build it with signpost build --target %s and deploy it with the Pages workflow (signpost init --publish pages writes one)", e.Name, e.Name)
	case publish.HostCloudflare:
		return fmt.Sprintf("target %s is a Cloudflare target, which publish does not upload to: build it with signpost build --target %s and deploy each site's folder with wrangler deploy (signpost init --publish cloudflare writes a workflow that does)", e.Name, e.Name)
	case publish.HostNetlify:
		return fmt.Sprintf("target %s is a Netlify target, which publish does not upload to: build it with signpost build --target %s and deploy each site's folder, with its netlify/functions, with netlify deploy (signpost init --publish netlify writes a workflow that does)", e.Name, e.Name)
	}
	return fmt.Sprintf("--target must name an s3 target of %s; it declares %s", build.ConfigFile, e.Declared())
}

// check reports the mistakes in the flags that need no catalog.
func (o *publishOptions) check() error {
	switch {
	case o.maxPaths < 1 || o.maxPaths > publish.InvalidationPathLimit:
		return cmdutil.UsageError{Err: fmt.Errorf("--max-invalidation-paths must be 1 to %d: CloudFront allows %d paths in progress per distribution", publish.InvalidationPathLimit, publish.InvalidationPathLimit)}
	case o.invalidationTimeout <= 0:
		return cmdutil.UsageError{Err: fmt.Errorf("--invalidation-timeout must be positive")}
	case o.concurrency < 1 || o.concurrency > publish.MaxConcurrency:
		return cmdutil.UsageError{Err: fmt.Errorf("--concurrency must be 1 to %d", publish.MaxConcurrency)}
	case o.verbose && o.quiet:
		return cmdutil.UsageError{Err: fmt.Errorf("-v and --quiet cannot be used together")}
	}
	return nil
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
	return cmdutil.HintedError{Msg: strings.Replace(err.Error(), part.Error(), text, 1), Err: err}
}

// writePublished writes the plan and what was done: the JSON report, or a
// line per site.
func writePublished(w io.Writer, format string, p *publish.Plan) error {
	if format == build.FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	return printPublished(w, p)
}

// printPlan prints each site's plan: a line of counts of its uploads,
// deletes and its distribution's work, and with verbose, its uploads with
// their reasons, its deletes, its functions and the paths it invalidates.
// The keys are the bucket's: each line leaves through lines, redacted and
// safe for a terminal.
func printPlan(w io.Writer, p *publish.Plan, verbose bool) {
	var plan cmdutil.Lines
	defer func() { _ = plan.Write(w) }()
	if p.SameInputs {
		plan.Add("s3://%s holds what the last publish made from this catalog and this signpost: nothing to build", p.Bucket)
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
		plan.Add("plan for %s at s3://%s/%s: %s, %s, %d unchanged%s", spec.SiteName(s.Tenant), p.Bucket, s.Prefix,
			english.Count(len(s.Uploads), "upload", "uploads"), english.Count(len(s.Deletes), "delete", "deletes"), s.Unchanged, cf)
		if !verbose {
			continue
		}
		for _, u := range s.Uploads {
			plan.Add("  upload %s (%s)", u.Key, u.Reason)
		}
		for _, k := range s.Deletes {
			plan.Add("  delete %s", k)
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
			plan.Add("  function %s: %s%s", f.Name, f.Action, note)
		}
		note := ""
		if n := len(c.Pending); n > 0 {
			note = fmt.Sprintf(", %d left pending by an earlier publish", n)
		}
		if s.WaitsBeforeDeletes() {
			note += "; the changed ones before the deletes, waiting for CloudFront, then the deleted ones"
		}
		plan.Add("  invalidate %s on distribution %s%s", english.Count(len(c.Invalidations), "path", "paths"), c.DistributionID, note)
		for _, q := range c.Invalidations {
			plan.Add("    %s", q)
		}
	}
}

// printPublished prints the one-line result of each site, through lines
// as printPlan's.
func printPublished(w io.Writer, p *publish.Plan) error {
	var done cmdutil.Lines
	for _, s := range p.Sites {
		name := spec.SiteName(s.Tenant)
		switch {
		case p.Refused:
			done.Add("refused: nothing changed for %s", name)
		case p.DryRun:
			done.Add("dry run: nothing changed for %s", name)
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
			done.Add("published %s to s3://%s/%s: %d uploaded (%d bytes), %d deleted, %d unchanged%s",
				name, p.Bucket, s.Prefix, s.Applied.Uploaded, s.Applied.Bytes, s.Applied.Deleted, s.Unchanged, extra)
		}
	}
	return done.Write(w)
}
