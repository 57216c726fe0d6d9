package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/scaffold"
)

// The publish choices of signpost init.
const (
	publishS3         = scaffold.PublishS3
	publishPages      = scaffold.PublishPages
	publishCloudflare = scaffold.PublishCloudflare
	publishNetlify    = scaffold.PublishNetlify
	publishNone       = scaffold.PublishNone
)

// initOptions are the IO, argument and flags of signpost init.
type initOptions struct {
	io                             cmdutil.Streams
	dir                            string
	origin, publisher, displayName string
	publish                        string
	bucket, region, roleARN        string
	branch                         string
	signpostVersion                string
	force                          bool
	// set names the flags given on the command line, so that init tells
	// the S3 flags apart from their defaults.
	set map[string]bool
}

// initFlags are the flags of signpost init that give the fields of
// scaffold.Options.
var initFlags = map[scaffold.Field]string{
	scaffold.FieldOrigin:          "origin",
	scaffold.FieldPublisher:       "publisher",
	scaffold.FieldDisplayName:     "display-name",
	scaffold.FieldPublish:         "publish",
	scaffold.FieldBucket:          "bucket",
	scaffold.FieldRegion:          "region",
	scaffold.FieldRoleARN:         "role-arn",
	scaffold.FieldBranch:          "branch",
	scaffold.FieldSignpostVersion: "signpost-version",
}

// newInitCmd is signpost init; runF, runInit when nil, runs it with the
// options the command line gives.
func newInitCmd(runF func(*initOptions) error) *cobra.Command {
	if runF == nil {
		runF = runInit
	}
	opts := &initOptions{publish: publishNone, region: scaffold.DefaultRegion}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a catalog repository: declarations, README and GitHub Actions workflow",
		Long: `Init writes a starter catalog into DIR (default: the current folder), created if
missing: signpost.yaml, an MCP server in servers.yaml, two tools in
tools/notes.yaml, a README.md that explains the flow (SIGNPOST.md when DIR has
a README of its own, which init never replaces), a .gitignore that keeps
the built site/ out of Git, and the GitHub Actions workflow
.github/workflows/signpost.yml. The catalog is valid as written: signpost
validate and signpost build work on it at once.

Inside a Git repository, the workflow goes to .github/workflows/signpost.yml
at the repository's top, the only place GitHub runs workflows from, and
every command in it names DIR's path from the top (git rev-parse
--show-toplevel finds the top); a .gitignore there keeps out the site/ that
signpost build DIR writes when run at the top. Outside one, or without git,
DIR is taken as the top.

The workflow checks every pull request (validate with inline annotations,
build, and signpost diff against the base commit in the job summary) and, with
--publish, publishes every push to --branch:

  s3     signpost publish --target production, with credentials of the IAM
         role --role-arn, assumed with GitHub's OIDC token (no stored keys);
         signpost.yaml declares the bucket --bucket in --region
  pages  signpost build --target pages, deployed to GitHub Pages
  cloudflare
         signpost build --target cloudflare, each site's Worker deployed with
         wrangler (cloudflare/wrangler-action), with the repository secrets
         CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID
  netlify  signpost build --target netlify, deployed with the Netlify CLI and
         the repository secrets NETLIFY_AUTH_TOKEN and NETLIFY_SITE_ID
  none   nothing is published (the default)

--origin, --publisher and --display-name fill in signpost.yaml; without them,
and without --bucket and --role-arn for s3, init writes placeholders and says
which ones to replace.

--branch is the branch the workflow checks and publishes pushes to. Without
it, init asks Git: the default branch of the remote origin
(refs/remotes/origin/HEAD, which git clone records), else the current
branch (a branch with no commit yet included), else main. It prints which
branch it chose and why.

The workflow names the signpost it installs once, in its env
SIGNPOST_VERSION: the release that runs init, installed from its release
archive with the signpost GitHub Action. A signpost that is not a release
(built from a clone, or with go run) writes ` + scaffold.FallbackVersion + `, says so, and
the workflow installs it with go install. --signpost-version chooses
another: a release, a pseudo-version or a full commit hash, never latest.

Init never overwrites: when any of its files exists (the workflow at the
repository's top included, even one written for another catalog), it lists
them, writes nothing and exits 1, unless --force. A .gitignore already in DIR
(or at the top) is the exception: init leaves it as it is, even with --force, and says to add
/site/ to it unless it has that line. It writes every file to a
staging folder first and checks the catalog there, then moves the files into
place, and puts back what was there if a move fails: a failed init leaves DIR
and the repository's top as they were.`,
		Example: `  signpost init my-catalog
  signpost init catalogs/acme     # in a repository: the workflow goes to its top
  signpost init --publish pages --origin https://tools.example.org
  signpost init --publish s3 --origin https://discovery.example.com \
      --bucket example-discovery --region eu-west-1 \
      --role-arn arn:aws:iam::111122223333:role/signpost-publish`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.io, opts.dir = cmdutil.StreamsOf(cmd), catalogDir(args)
			opts.set = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { opts.set[f.Name] = true })
			return runF(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.origin, "origin", "", "https origin the site is served from (default "+scaffold.DefaultOrigin+", a placeholder)")
	f.StringVar(&opts.publisher, "publisher", "", "the organization's domain (default: the host of --origin)")
	f.StringVar(&opts.displayName, "display-name", "", "the organization's name as people write it (default: the publisher)")
	cmdutil.EnumVar(f, &opts.publish, "publish", opts.publish, []string{publishS3, publishPages, publishCloudflare, publishNetlify, publishNone}, "what the workflow publishes to from --branch: s3, pages, cloudflare, netlify or none")
	f.StringVar(&opts.bucket, "bucket", "", "S3 bucket of the production target, with --publish s3 (default: a placeholder)")
	f.StringVar(&opts.region, "region", opts.region, "region of the bucket, with --publish s3")
	f.StringVar(&opts.roleARN, "role-arn", "", "IAM role the workflow assumes to publish, with --publish s3 (default: a placeholder)")
	f.StringVar(&opts.branch, "branch", "", "the default branch: pushes to it are checked and published (default: origin's default branch, else the current branch, else "+scaffold.DefaultBranch+")")
	f.StringVar(&opts.signpostVersion, "signpost-version", "", "the signpost the workflow installs: a release, a pseudo-version or a commit (default: this signpost when it is a release, else "+scaffold.FallbackVersion+")")
	f.BoolVar(&opts.force, "force", false, "overwrite files that exist")
	return cmd
}

// runInit prepares the starter repository of o, refuses to overwrite
// without --force, writes it, and says what comes next.
func runInit(o *initOptions) error {
	ctx, stdout, stderr := o.io.Ctx, o.io.Out, o.io.ErrOut
	plan, err := scaffold.Prepare(ctx, o.scaffold())
	if err != nil {
		return initFlagError(err)
	}
	if len(plan.Conflicts()) > 0 && !o.force {
		fmt.Fprint(stderr, "signpost: ")
		plan.PrintConflicts(stderr)
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	if err := plan.Write(ctx); err != nil {
		return err
	}
	if err := plan.PrintNext(stdout); err != nil {
		return err
	}
	if v, fallback := plan.Signpost(); fallback {
		_, err := fmt.Fprintf(stdout, "\nThis signpost (%s) is not a release: the workflow installs signpost %s (SIGNPOST_VERSION); choose another with --signpost-version.\n", versionInfo().Version, v)
		return err
	}
	return nil
}

// scaffold maps the flags to the options of scaffold.Prepare. The S3
// flags are given only when set, so that init can tell them apart from
// their defaults.
func (o *initOptions) scaffold() scaffold.Options {
	given := func(name string, v string) *string {
		if !o.set[name] {
			return nil
		}
		return &v
	}
	in := versionInfo()
	return scaffold.Options{
		Dir:         o.dir,
		Origin:      o.origin,
		Publisher:   o.publisher,
		DisplayName: o.displayName,
		Publish:     string(o.publish),
		Bucket:      given("bucket", o.bucket),
		Region:      given("region", o.region),
		RoleARN:     given("role-arn", o.roleARN),
		Branch:      o.branch,
		Version:     in.Version,

		SignpostVersion: o.signpostVersion,
	}
}

// initFlagError words a *scaffold.OptionError with the flags of signpost
// init, as a usage error. Other errors are returned as they are.
func initFlagError(err error) error {
	var oe *scaffold.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	return cmdutil.UsageError{Err: errors.New(oe.Message(func(f scaffold.Field) string { return "--" + initFlags[f] }))}
}
