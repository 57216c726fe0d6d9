package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/templates"
)

// The values signpost init writes when a flag does not give one. The
// placeholders are valid, so that the catalog validates and builds at once,
// and plainly not real, so that a publish with them fails before it uploads.
const (
	defaultOrigin      = "https://example.com"
	defaultPublisher   = "example.com"
	defaultDisplayName = "Example Corp"
	defaultRegion      = "us-east-1"
	defaultBranch      = "main"
	placeholderBucket  = "replace-with-your-bucket"
	// 123456789012 is the account id of AWS's documentation: no such
	// role can be assumed.
	placeholderRoleARN = "arn:aws:iam::123456789012:role/replace-with-your-publish-role"
)

// The publish choices of signpost init, and the target names they declare.
const (
	publishS3    = "s3"
	publishPages = "pages"
	publishNone  = "none"

	targetS3    = "production"
	targetPages = "pages"
)

// publishFlag is the --publish flag of signpost init.
type publishFlag string

func (f *publishFlag) String() string { return string(*f) }
func (f *publishFlag) Type() string   { return "s3|pages|none" }
func (f *publishFlag) Set(s string) error {
	switch s {
	case publishS3, publishPages, publishNone:
		*f = publishFlag(s)
		return nil
	}
	return errors.New("must be s3, pages or none")
}

// Patterns of the values init writes into YAML, from the JSON Schemas of
// signpost.yaml (publisher, bucket, region) and from what AWS and Git accept.
var (
	publisherPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)
	bucketPattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	regionPattern    = regexp.MustCompile(`^[a-z0-9-]+$`)
	roleARNPattern   = regexp.MustCompile(`^arn:aws(-[a-z]+)*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]+$`)
	branchPattern    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9._-]+)*$`)
	// releasePattern matches the module versions go install can fetch: a
	// release, a pre-release or a pseudo-version, without build metadata
	// such as +dirty.
	releasePattern = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
)

// initOptions are the flags of signpost init.
type initOptions struct {
	origin, publisher, displayName string
	publish                        publishFlag
	bucket, region, roleARN        string
	branch                         string
	force                          bool
}

// initData is what the templates under templates/init are filled with.
type initData struct {
	Origin, Publisher, DisplayName string
	// Publish is s3, pages or none; Target the name of the target of
	// signpost.yaml that the workflow publishes to, "" for none.
	Publish, Target string
	// Bucket, Region and RoleARN are set for s3; BucketSet and RoleARNSet
	// say whether they came from flags or are placeholders.
	Bucket, Region, RoleARN string
	BucketSet, RoleARNSet   bool
	// Branch is the branch whose pushes publish.
	Branch string
	// Version is what the workflow installs signpost at.
	Version string
	// ServerName and ServerURL are the starter MCP server's.
	ServerName, ServerURL string
}

// initFile is one file of the starter repository.
type initFile struct {
	Path string // slash-separated, relative to the folder
	Data []byte
}

func newInitCmd() *cobra.Command {
	opts := initOptions{publish: publishNone, region: defaultRegion, branch: defaultBranch}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a catalog repository: declarations, README and GitHub Actions workflow",
		Long: `Init writes a starter catalog into DIR (default: the current folder), created if
missing: signpost.yaml, an MCP server in servers.yaml, two tools in
tools/notes.yaml, a README.md that explains the flow, and the GitHub Actions
workflow .github/workflows/signpost.yml. The catalog is valid as written:
signpost validate and signpost build work on it at once.

The workflow checks every pull request (validate with inline annotations,
build, and signpost diff against the base commit in the job summary) and, with
--publish, publishes every push to --branch:

  s3     signpost publish --target production, with credentials of the IAM
         role --role-arn, assumed with GitHub's OIDC token (no stored keys);
         signpost.yaml declares the bucket --bucket in --region
  pages  signpost build --target pages, deployed to GitHub Pages
  none   nothing is published (the default)

--origin, --publisher and --display-name fill in signpost.yaml; without them,
and without --bucket and --role-arn for s3, init writes placeholders and says
which ones to replace. The workflow installs signpost at the version that runs
init, or at latest for a development build.

Init never overwrites: when any of its files exists, it lists them, writes
nothing and exits 1, unless --force. It writes every file to a staging folder
first and checks the catalog there, so a failed init leaves DIR as it was.`,
		Example: `  signpost init my-catalog
  signpost init --publish pages --origin https://tools.example.org
  signpost init --publish s3 --origin https://discovery.example.com \
      --bucket example-discovery --region eu-west-1 \
      --role-arn arn:aws:iam::111122223333:role/signpost-publish`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := catalogDir(args)
			data, err := opts.data(cmd, buildVersion())
			if err != nil {
				return usageError{err}
			}
			files, err := renderInit(data)
			if err != nil {
				return err
			}
			conflicts, err := initConflicts(dir, files)
			if err != nil {
				return err
			}
			if len(conflicts) > 0 && !opts.force {
				w := cmd.ErrOrStderr()
				fmt.Fprintf(w, "signpost: %s already has %s that init writes:\n", dir, plural(len(conflicts), "a file", "files"))
				for _, c := range conflicts {
					fmt.Fprintf(w, "  %s\n", displayPath(dir, c))
				}
				fmt.Fprintln(w, "Nothing was written. Run again with --force to overwrite them, or init another folder.")
				return reportedError{exitInvalid}
			}
			if err := writeInit(cmd.Context(), dir, files); err != nil {
				return err
			}
			return printInit(cmd.OutOrStdout(), dir, files, data)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.origin, "origin", "", "https origin the site is served from (default "+defaultOrigin+", a placeholder)")
	f.StringVar(&opts.publisher, "publisher", "", "the organization's domain (default: the host of --origin)")
	f.StringVar(&opts.displayName, "display-name", "", "the organization's name as people write it (default: the publisher)")
	f.Var(&opts.publish, "publish", "what the workflow publishes to from --branch: s3, pages or none")
	f.StringVar(&opts.bucket, "bucket", "", "S3 bucket of the production target, with --publish s3 (default: a placeholder)")
	f.StringVar(&opts.region, "region", opts.region, "region of the bucket, with --publish s3")
	f.StringVar(&opts.roleARN, "role-arn", "", "IAM role the workflow assumes to publish, with --publish s3 (default: a placeholder)")
	f.StringVar(&opts.branch, "branch", opts.branch, "the default branch: pushes to it are checked and published")
	f.BoolVar(&opts.force, "force", false, "overwrite files that exist")
	return cmd
}

// data checks the flags and fills in the defaults.
func (o initOptions) data(cmd *cobra.Command, version string) (initData, error) {
	for _, name := range []string{"origin", "publisher", "display-name", "bucket", "region", "role-arn", "branch"} {
		v := cmd.Flags().Lookup(name).Value.String()
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return initData{}, fmt.Errorf("--%s must not contain control characters such as newlines", name)
		}
	}
	d := initData{
		Origin:      o.origin,
		Publisher:   o.publisher,
		DisplayName: o.displayName,
		Publish:     string(o.publish),
		Branch:      o.branch,
		Version:     workflowVersion(version),
	}
	if d.Origin == "" {
		d.Origin = defaultOrigin
	}
	host, err := checkInitOrigin(d.Origin)
	if err != nil {
		return initData{}, err
	}
	if d.Publisher == "" {
		d.Publisher = host
		if o.origin == "" {
			d.Publisher = defaultPublisher
		}
	}
	if !publisherPattern.MatchString(d.Publisher) {
		if o.publisher == "" {
			return initData{}, fmt.Errorf("the host of --origin, %q, is not a domain name to publish as: give --publisher, like example.com", d.Publisher)
		}
		return initData{}, fmt.Errorf("--publisher %q must be a domain name in lower case, like example.com", d.Publisher)
	}
	if d.DisplayName == "" {
		d.DisplayName = d.Publisher
		if o.origin == "" && o.publisher == "" {
			d.DisplayName = defaultDisplayName
		}
	}
	if !branchPattern.MatchString(d.Branch) || strings.Contains(d.Branch, "..") {
		return initData{}, fmt.Errorf("--branch %q must be a branch name such as main, of letters, digits, '.', '_', '-' and '/'", d.Branch)
	}
	labels := strings.Split(d.Publisher, ".")
	slices.Reverse(labels)
	d.ServerName = strings.Join(labels, ".") + "/notes"
	d.ServerURL = "https://mcp." + d.Publisher + "/notes"

	changed := cmd.Flags().Changed
	if d.Publish != publishS3 {
		for _, name := range []string{"bucket", "region", "role-arn"} {
			if changed(name) {
				return initData{}, fmt.Errorf("--%s is only for --publish s3", name)
			}
		}
	}
	switch d.Publish {
	case publishS3:
		d.Target = targetS3
		d.Bucket, d.BucketSet = o.bucket, o.bucket != ""
		if !d.BucketSet {
			d.Bucket = placeholderBucket
		}
		d.RoleARN, d.RoleARNSet = o.roleARN, o.roleARN != ""
		if !d.RoleARNSet {
			d.RoleARN = placeholderRoleARN
		}
		d.Region = o.region
		if !bucketPattern.MatchString(d.Bucket) {
			return initData{}, fmt.Errorf("--bucket %q is not an S3 bucket name: 3 to 63 lower-case letters, digits, '.' and '-'", d.Bucket)
		}
		if !regionPattern.MatchString(d.Region) {
			return initData{}, fmt.Errorf("--region %q is not an AWS region like us-east-1", d.Region)
		}
		if !roleARNPattern.MatchString(d.RoleARN) {
			return initData{}, fmt.Errorf("--role-arn %q is not an IAM role ARN like arn:aws:iam::111122223333:role/signpost-publish", d.RoleARN)
		}
	case publishPages:
		d.Target = targetPages
	}
	return d, nil
}

// checkInitOrigin checks --origin as signpost.yaml will (scheme and host
// only; https, or http for loopback) and returns its host in lower case.
func checkInitOrigin(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("--origin %q is not a URL like https://example.com", origin)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("--origin %q must be scheme and host only, like https://example.com", origin)
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && (host == "localhost" || host == "127.0.0.1" || host == "::1"):
	default:
		return "", fmt.Errorf("--origin %q must use https (plain http only for loopback hosts)", origin)
	}
	return host, nil
}

// workflowVersion is the version the workflow installs signpost at: the
// running one when go install can fetch it, else latest.
func workflowVersion(v string) string {
	if releasePattern.MatchString(v) {
		return v
	}
	return "latest"
}

// renderInit fills every template under templates/init with d, in the
// order of their paths in the new repository.
func renderInit(d initData) ([]initFile, error) {
	funcs := template.FuncMap{"yaml": yamlScalar}
	var files []initFile
	err := fs.WalkDir(templates.Init, "init", func(name string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		src, err := fs.ReadFile(templates.Init, name)
		if err != nil {
			return err
		}
		t, err := template.New(name).Delims("<%", "%>").Funcs(funcs).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, d); err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(name, "init/"), ".tmpl")
		if strings.HasPrefix(rel, "github/") {
			rel = "." + rel
		}
		files = append(files, initFile{Path: rel, Data: buf.Bytes()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	slices.SortFunc(files, func(a, b initFile) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// yamlScalar writes s as a YAML scalar: plain when that reads back as the
// same string, quoted otherwise (true, 1.0, "a: b" and the like).
func yamlScalar(s string) (string, error) {
	b, err := yaml.Marshal(s)
	if err != nil {
		return "", err
	}
	out := strings.TrimSuffix(string(b), "\n")
	if strings.Contains(out, "\n") {
		return "", fmt.Errorf("%q does not fit on one line", s)
	}
	return out, nil
}

// initConflicts lists the files of files that already exist in dir.
func initConflicts(dir string, files []initFile) ([]string, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("init %s: it is a file, not a folder", dir)
	}
	var conflicts []string
	for _, f := range files {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		switch {
		case err == nil:
			conflicts = append(conflicts, f.Path)
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, fmt.Errorf("init %s: %w", dir, err)
		}
	}
	return conflicts, nil
}

// writeInit writes files into dir: first all of them into a staging folder
// inside dir, where the catalog is loaded to prove it valid, then each is
// renamed into place. A failure before the renames leaves dir as it was.
func writeInit(ctx context.Context, dir string, files []initFile) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	created := false
	if _, statErr := os.Stat(dir); errors.Is(statErr, fs.ErrNotExist) {
		created = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	// The staging folder's name starts with "." so that nothing that reads
	// the catalog in dir ever sees it.
	stage, err := os.MkdirTemp(dir, ".signpost-init-")
	if err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	defer func() {
		if rmErr := os.RemoveAll(stage); rmErr != nil && err == nil {
			err = fmt.Errorf("init %s: remove the staging folder: %w", dir, rmErr)
		}
		if err != nil && created {
			_ = os.Remove(dir) // only if still empty
		}
	}()
	for _, f := range files {
		p := filepath.Join(stage, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("init %s: %w", dir, err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("init %s: %w", dir, err)
		}
	}
	if _, diags := build.Load(ctx, stage); diags.HasErrors() {
		var msg strings.Builder
		for _, d := range diags {
			msg.WriteString("\n  " + strings.Replace(d.String(), filepath.ToSlash(stage), filepath.ToSlash(dir), 1))
		}
		return fmt.Errorf("init %s: the starter catalog would not be valid with these flags; nothing written:%s", dir, msg.String())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var written []string
	for _, f := range files {
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return moveError(dir, written, err)
		}
		if err := os.Rename(filepath.Join(stage, filepath.FromSlash(f.Path)), dst); err != nil {
			return moveError(dir, written, err)
		}
		written = append(written, f.Path)
	}
	return nil
}

// moveError reports a failure halfway through the renames, with the files
// already in place, so that the user knows what to clean up.
func moveError(dir string, written []string, err error) error {
	if len(written) == 0 {
		return fmt.Errorf("init %s: %w; nothing written", dir, err)
	}
	return fmt.Errorf("init %s: %w; already written: %s", dir, err, strings.Join(written, ", "))
}

// printInit tells what init wrote, what to do next and which placeholders
// to replace.
func printInit(w io.Writer, dir string, files []initFile, d initData) error {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "wrote %s\n", displayPath(dir, f.Path))
	}
	var todo []string
	config, workflow := displayPath(dir, "signpost.yaml"), displayPath(dir, ".github/workflows/signpost.yml")
	if d.Origin == defaultOrigin {
		todo = append(todo, fmt.Sprintf("%s: site.origin %s, site.publisher %s", config, d.Origin, d.Publisher))
	}
	if d.Publish == publishS3 && !d.BucketSet {
		todo = append(todo, fmt.Sprintf("%s: the bucket %s", config, d.Bucket))
	}
	if d.Publish == publishS3 && !d.RoleARNSet {
		todo = append(todo, fmt.Sprintf("%s: the role %s", workflow, d.RoleARN))
	}
	if len(todo) > 0 {
		b.WriteString("\nReplace the placeholders before the first publish:\n")
		for _, t := range todo {
			b.WriteString("  " + t + "\n")
		}
	}
	arg := ""
	if dir != "." {
		arg = " " + dir
	}
	fmt.Fprintf(&b, "\nNext: signpost validate%s, signpost build%s, then push to GitHub.\n", arg, arg)
	switch d.Publish {
	case publishS3:
		fmt.Fprintf(&b, "The README says how to set up the IAM role that %s assumes.\n", workflow)
	case publishPages:
		b.WriteString("Before the first publish, set Source to \"GitHub Actions\" in the repository's Settings > Pages.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// displayPath names a file of the new repository for the user: relative to
// the folder they named, with forward slashes.
func displayPath(dir, rel string) string {
	return path.Clean(filepath.ToSlash(dir) + "/" + rel)
}
