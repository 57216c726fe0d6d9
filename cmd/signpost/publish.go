package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/publish"
)

// defaultMaxDeletes is how many objects publish deletes at most unless told
// otherwise: enough for ordinary removals, few enough that a wrong prefix or
// an emptied catalog does not wipe a bucket.
const defaultMaxDeletes = 256

func newPublishCmd() *cobra.Command {
	var target, format string
	var s3 build.S3Target
	var dryRun bool
	maxDeletes := defaultMaxDeletes
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
(-1: no limit) refuses every delete and fails. The bucket gets the CORS rule
the specs call for.

Credentials come from the default AWS chain (environment, shared files, SSO,
instance roles) and are never printed. With --endpoint (S3-compatible storage)
the bucket is addressed path-style.

CloudFront invalidations and function updates are not done yet: build
--target writes the functions for you to attach.`,
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
			b, err := build.Compile(ctx, cat)
			if err != nil {
				return fmt.Errorf("publish %s: %w", dir, err)
			}
			client, err := publish.NewS3Client(ctx, dest.Region, dest.Endpoint)
			if err != nil {
				return fmt.Errorf("publish: %w", err)
			}

			report := publishReport{Bucket: dest.Bucket, DryRun: dryRun}
			var plans []*publish.Plan
			for _, s := range b.Sites {
				prefix := dest.Prefix
				if s.Tenant != "" {
					prefix = path.Join(prefix, s.Dir)
				}
				p, err := publish.PlanS3(ctx, client, dest.Bucket, prefix, s.Documents)
				if err != nil {
					return err
				}
				plans = append(plans, p)
				report.Sites = append(report.Sites, newSiteReport(s.Tenant, p))
			}
			out := cmd.OutOrStdout()
			if format == "text" {
				for i, p := range plans {
					printPlan(out, report.Sites[i].Tenant, p)
				}
			}
			if !dryRun {
				if err := publish.SetBucketCORS(ctx, client, dest.Bucket); err != nil {
					return err
				}
				for i, p := range plans {
					res, err := p.Apply(ctx, client, publish.ApplyOptions{MaxDeletes: maxDeletes, Progress: progress(cmd.ErrOrStderr())})
					if err != nil {
						return err
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
			for _, s := range report.Sites {
				if s.Applied != nil && s.Applied.DeletesRefused {
					fmt.Fprintf(cmd.ErrOrStderr(), "signpost: %d deletes planned for %s, more than --max-deletes %d: none made; check the plan, then raise the limit\n", len(s.Deletes), s.Prefix, maxDeletes)
					return reportedError{exitInvalid}
				}
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
	f.IntVar(&maxDeletes, "max-deletes", maxDeletes, "most objects deleted; more refuses every delete (-1: no limit)")
	f.StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// publishReport is what publish planned and did, for --format json.
type publishReport struct {
	Bucket string       `json:"bucket"`
	DryRun bool         `json:"dryRun"`
	Sites  []siteReport `json:"sites"`
}

type siteReport struct {
	Tenant    string           `json:"tenant"`
	Prefix    string           `json:"prefix"`
	Uploads   []uploadReport   `json:"uploads"`
	Deletes   []string         `json:"deletes"`
	Unchanged int              `json:"unchanged"`
	Applied   *publish.Applied `json:"applied,omitempty"`
}

type uploadReport struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

func newSiteReport(tenant string, p *publish.Plan) siteReport {
	r := siteReport{Tenant: tenant, Prefix: p.Prefix, Uploads: []uploadReport{}, Deletes: p.Deletes, Unchanged: p.Unchanged}
	if r.Deletes == nil {
		r.Deletes = []string{}
	}
	for _, u := range p.Uploads {
		r.Uploads = append(r.Uploads, uploadReport{Key: u.Key, Reason: u.Reason})
	}
	return r
}

func printPlan(w io.Writer, tenant string, p *publish.Plan) {
	site := "site"
	if tenant != "" {
		site = "tenant " + tenant
	}
	fmt.Fprintf(w, "plan for %s at s3://%s/%s: %d uploads, %d deletes, %d unchanged\n", site, p.Bucket, p.Prefix, len(p.Uploads), len(p.Deletes), p.Unchanged)
	for _, u := range p.Uploads {
		fmt.Fprintf(w, "  upload %s (%s)\n", u.Key, u.Reason)
	}
	for _, k := range p.Deletes {
		fmt.Fprintf(w, "  delete %s\n", k)
	}
}

// printPublished prints the one-line result of each site.
func printPublished(w io.Writer, r publishReport) {
	for _, s := range r.Sites {
		name := "site"
		if s.Tenant != "" {
			name = "tenant " + s.Tenant
		}
		switch {
		case r.DryRun:
			fmt.Fprintf(w, "dry run: nothing changed for %s\n", name)
		case s.Applied != nil:
			fmt.Fprintf(w, "published %s to s3://%s/%s: %d uploaded (%d bytes), %d deleted, %d unchanged\n",
				name, r.Bucket, s.Prefix, s.Applied.Uploaded, s.Applied.Bytes, s.Applied.Deleted, s.Unchanged)
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
