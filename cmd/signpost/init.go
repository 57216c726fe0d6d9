package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"text/template"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
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
	// catalogPathPattern matches the catalog folder paths the workflow can
	// name as they are: no character that YAML or the shell reads
	// specially, and no part that a command could take for a flag.
	catalogPathPattern = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._-]*(/[A-Za-z0-9._][A-Za-z0-9._-]*)*$`)
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
	// Catalog is the catalog's folder relative to the top of its Git
	// repository, slash-separated: "." at the top. It matches
	// catalogPathPattern, so that it can stand unquoted in YAML and in
	// shell commands. Site is the folder, relative to the top, that the
	// workflow builds the site into: site/ in the catalog's folder.
	Catalog, Site string
}

// initFile is one file of the starter repository.
type initFile struct {
	// Path is slash-separated, relative to the catalog's folder, or to the
	// top of the repository when AtTop is set.
	Path  string
	Data  []byte
	AtTop bool
}

func newInitCmd() *cobra.Command {
	opts := initOptions{publish: publishNone, region: defaultRegion, branch: defaultBranch}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a catalog repository: declarations, README and GitHub Actions workflow",
		Long: `Init writes a starter catalog into DIR (default: the current folder), created if
missing: signpost.yaml, an MCP server in servers.yaml, two tools in
tools/notes.yaml, a README.md that explains the flow, a .gitignore that keeps
the built site/ out of Git, and the GitHub Actions workflow
.github/workflows/signpost.yml. The catalog is valid as written: signpost
validate and signpost build work on it at once.

Inside a Git repository, the workflow goes to .github/workflows/signpost.yml
at the repository's top, the only place GitHub runs workflows from, and
every command in it names DIR's path from the top (git rev-parse
--show-toplevel finds the top). Outside one, or without git, DIR is taken
as the top.

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

Init never overwrites: when any of its files exists (the workflow at the
repository's top included, even one written for another catalog), it lists
them, writes nothing and exits 1, unless --force. A .gitignore already in DIR
is the exception: init leaves it as it is, even with --force, and says to add
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
			dir := catalogDir(args)
			data, err := opts.data(cmd, buildVersion())
			if err != nil {
				return usageError{err}
			}
			place, err := findInitPlace(cmd.Context(), dir)
			if err != nil {
				return err
			}
			data.Catalog, data.Site = place.Catalog, place.site()
			files, err := renderInit(data)
			if err != nil {
				return err
			}
			files, ignore, err := keepGitignore(place, files)
			if err != nil {
				return err
			}
			conflicts, err := initConflicts(place, files)
			if err != nil {
				return err
			}
			if len(conflicts) > 0 && !opts.force {
				printConflicts(cmd.ErrOrStderr(), place, conflicts, readInitWorkflow(place), data)
				return reportedError{exitInvalid}
			}
			if err := writeInit(cmd.Context(), place, files); err != nil {
				return err
			}
			return printInit(cmd.OutOrStdout(), place, files, data, ignore)
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

// checkInitOrigin checks --origin as signpost.yaml will and returns its
// host in lower case.
func checkInitOrigin(origin string) (string, error) {
	u, err := spec.ParseOrigin(origin)
	if err != nil {
		return "", fmt.Errorf("--origin: %w", err)
	}
	return strings.ToLower(u.Hostname()), nil
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
		// GitHub reads workflows only at the top of the repository.
		atTop := strings.HasPrefix(rel, "github/")
		// embed leaves out names that start with a dot: the templates
		// drop it, and it is put back here.
		if atTop || rel == "gitignore" {
			rel = "." + rel
		}
		files = append(files, initFile{Path: rel, Data: buf.Bytes(), AtTop: atTop})
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

// initWorkflowPath is where the workflow goes, relative to the top of the
// repository.
const initWorkflowPath = ".github/workflows/signpost.yml"

// initGitTimeout bounds git rev-parse, which answers at once unless
// something is wrong.
const initGitTimeout = 30 * time.Second

// initPlace is where init writes: the catalog's folder, and the top of the
// Git repository that holds it, where the workflow goes.
type initPlace struct {
	// Dir is the catalog's folder as the user named it.
	Dir string
	// Top is the repository's top, named like Dir (relative to the
	// current folder when Dir is); Dir itself outside a repository.
	Top string
	// Catalog is Dir relative to Top, slash-separated; "." when they are
	// the same folder.
	Catalog string
	// Git says whether Dir is in a Git repository (false too when git is
	// not installed).
	Git bool
}

// site is the folder the workflow builds into, relative to the top.
func (p initPlace) site() string {
	return path.Join(p.Catalog, "site")
}

// root is the folder f's Path is relative to.
func (p initPlace) root(f initFile) string {
	if f.AtTop {
		return p.Top
	}
	return p.Dir
}

// dest is where f goes.
func (p initPlace) dest(f initFile) string {
	return filepath.Join(p.root(f), filepath.FromSlash(f.Path))
}

// display names f for the user.
func (p initPlace) display(f initFile) string {
	return displayPath(p.root(f), f.Path)
}

// findInitPlace finds the top of the Git repository that dir is in (dir
// need not exist yet: git runs in its nearest folder that does). Outside a
// repository, or when git is not installed, dir is its own top.
func findInitPlace(ctx context.Context, dir string) (initPlace, error) {
	place := initPlace{Dir: dir, Top: dir, Catalog: "."}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return place, fmt.Errorf("init %s: it is a file, not a folder", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return place, fmt.Errorf("init %s: %w", dir, err)
	}
	base, missing, err := existingFolder(abs)
	if err != nil {
		return place, fmt.Errorf("init %s: %w", dir, err)
	}
	top, ok, err := gitTop(ctx, base)
	if err != nil {
		return place, fmt.Errorf("init %s: %w", dir, err)
	}
	if !ok {
		return place, nil
	}
	place.Git = true
	// git prints the top with links resolved: so is the folder, to compare.
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return place, fmt.Errorf("init %s: the top of its Git repository: %w", dir, err)
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return place, fmt.Errorf("init %s: %w", dir, err)
	}
	rel, err := filepath.Rel(realTop, filepath.Join(append([]string{realBase}, missing...)...))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return place, fmt.Errorf("init %s: git says its repository's top is %s, which does not hold it", dir, top)
	}
	if rel == "." {
		return place, nil
	}
	catalog := filepath.ToSlash(rel)
	if !catalogPathPattern.MatchString(catalog) {
		return place, fmt.Errorf("init %s: its path in the Git repository, %q, cannot stand in the workflow's commands: use folder names of letters, digits, '.', '_' and '-' (not starting with '-')", dir, catalog)
	}
	place.Catalog = catalog
	place.Top = topName(dir, catalog, realTop)
	return place, nil
}

// existingFolder returns the nearest folder of abs and its parents that
// exists, and the names below it that do not, outermost first.
func existingFolder(abs string) (string, []string, error) {
	var missing []string
	p := abs
	for range 4096 {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			slices.Reverse(missing)
			return p, missing, nil
		case err == nil:
			return "", nil, fmt.Errorf("%s, on its path, is a file, not a folder", filepath.Base(p))
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			// ENOTDIR: a file on the way, found further up.
			return "", nil, err
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		missing = append(missing, filepath.Base(p))
		p = parent
	}
	return "", nil, fmt.Errorf("no folder of %s exists", abs)
}

// gitTop runs git rev-parse --show-toplevel in dir. ok is false when dir
// is not in a Git repository or git is not installed.
func gitTop(ctx context.Context, dir string) (top string, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, initGitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	// No prompts, and messages in English: one is recognized below.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	switch {
	case errors.Is(runErr, exec.ErrNotFound):
		return "", false, nil
	case ctx.Err() != nil:
		return "", false, fmt.Errorf("find the top of its Git repository: git rev-parse: %w", ctx.Err())
	case runErr != nil:
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return "", false, nil
		}
		msg, _, _ = strings.Cut(msg, "\n")
		if msg == "" {
			msg = runErr.Error()
		}
		// Taking the folder for the top here could put the workflow where
		// GitHub never runs it: better to stop.
		return "", false, fmt.Errorf("find the top of its Git repository: git rev-parse --show-toplevel: %s: fix what git says, or init a folder outside the repository", msg)
	}
	top = strings.TrimSuffix(stdout.String(), "\n")
	if top == "" {
		return "", false, errors.New("find the top of its Git repository: git rev-parse --show-toplevel printed nothing")
	}
	return filepath.FromSlash(top), true, nil
}

// topName names the repository's top realTop for the user: dir without its
// last parts when they are the catalog's path, else relative to the
// current folder (absolute when dir is).
func topName(dir, catalog, realTop string) string {
	clean := path.Clean(filepath.ToSlash(dir))
	cand := ""
	switch {
	case clean == catalog:
		cand = "."
	case strings.HasSuffix(clean, "/"+catalog):
		cand = strings.TrimSuffix(clean, "/"+catalog)
		if cand == "" {
			cand = "/"
		}
	}
	// A link on the way could make dir's parts differ from the path the
	// top holds the folder at: trust the name only when it is the top.
	if cand != "" && sameFolder(filepath.FromSlash(cand), realTop) {
		return filepath.FromSlash(cand)
	}
	if !filepath.IsAbs(dir) {
		if wd, err := os.Getwd(); err == nil {
			if wd, err = filepath.EvalSymlinks(wd); err == nil {
				if rel, err := filepath.Rel(wd, realTop); err == nil {
					return rel
				}
			}
		}
	}
	return realTop
}

// sameFolder reports whether a and b name the same existing folder.
func sameFolder(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// initConflicts names, for the user and sorted, the files of files that
// already exist.
func initConflicts(place initPlace, files []initFile) ([]string, error) {
	var conflicts []string
	for _, f := range files {
		_, err := os.Lstat(place.dest(f))
		switch {
		case err == nil:
			conflicts = append(conflicts, place.display(f))
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, fmt.Errorf("init %s: %w", place.Dir, err)
		}
	}
	slices.Sort(conflicts)
	return conflicts, nil
}

// printConflicts says which files are in the way and what to do. other is
// what the workflow in the way checks and publishes; d is what init was
// asked to write.
func printConflicts(w io.Writer, place initPlace, conflicts []string, other initWorkflow, d initData) {
	if place.Catalog == "." {
		fmt.Fprintf(w, "signpost: %s already has %s that init writes:\n", place.Dir, english.Plural(len(conflicts), "a file", "files"))
	} else {
		fmt.Fprintf(w, "signpost: %s and its repository's top already have %s that init writes:\n", place.Dir, english.Plural(len(conflicts), "a file", "files"))
	}
	for _, c := range conflicts {
		fmt.Fprintf(w, "  %s\n", c)
	}
	workflow := displayPath(place.Top, initWorkflowPath)
	switch {
	case !slices.Contains(conflicts, workflow):
	case other.Catalog != "" && other.Catalog != place.Catalog:
		// A second catalog in the repository: --force alone would stop
		// checking the first, so say how to check both.
		printSecondCatalog(w, place, workflow, other, d)
		if len(conflicts) == 1 {
			fmt.Fprintln(w, "Nothing was written.")
			return
		}
	case place.Catalog != ".":
		fmt.Fprintf(w, "The repository has one signpost workflow: with --force, %s checks %s and no other catalog.\n", workflow, place.Catalog)
	}
	fmt.Fprintln(w, "Nothing was written. Run again with --force to overwrite them, or init another folder.")
}

// printSecondCatalog says how to check a second catalog with the workflow
// that checks other: copy the steps that name the catalog, which for S3
// include the publish job's, while GitHub Pages can publish only one of
// them.
func printSecondCatalog(w io.Writer, place initPlace, workflow string, other initWorkflow, d initData) {
	from, to := other.Catalog, catalogName(place.Catalog)
	rename := fmt.Sprintf("and in the copies change the catalog folder %s to %s, and the --out folder %s to %s.",
		from, place.Catalog, path.Join(from, "site"), place.site())
	force := "--force"
	var head, both string
	switch other.Publish {
	case publishS3:
		// The copied steps name the production target, which only
		// --publish s3 declares, and the bucket must be another: the two
		// sites would overwrite each other's files.
		if d.Publish != publishS3 {
			force = "--publish s3 --force"
		}
		bucket := ""
		if d.Publish != publishS3 || !d.BucketSet {
			bucket = " (--bucket)"
		}
		head = fmt.Sprintf("%s checks %s and publishes it to S3.", workflow, catalogName(from))
		both = fmt.Sprintf("To check and publish both, commit the workflow, run again with %s and put the workflow back (git restore %s). "+
			"Then copy its Validate, Build and Diff steps, and the Publish step of its publish job, %s "+
			"Give %s an S3 bucket of its own%s, one that the workflow's role may write to.",
			force, workflow, rename, to, bucket)
	case publishPages:
		drop := ""
		if d.Publish != publishPages {
			// The copied Build step names the pages target, which the
			// new catalog does not declare.
			drop = fmt.Sprintf(" In the copy of Build, drop --target pages too: %s declares no pages target.", path.Join(place.Catalog, "signpost.yaml"))
		}
		head = fmt.Sprintf("%s checks %s and publishes it to GitHub Pages.", workflow, catalogName(from))
		both = fmt.Sprintf("To check both, commit the workflow, run again with %s and put the workflow back (git restore %s). "+
			"Then copy its Validate, Build and Diff steps, %s%s "+
			"A repository's GitHub Pages site can host only one catalog: the workflow still publishes only %s. "+
			"To publish %s too, give it a repository of its own.",
			force, workflow, rename, drop, catalogName(from), to)
	default:
		head = fmt.Sprintf("%s checks %s.", workflow, catalogName(from))
		both = fmt.Sprintf("To check both, commit the workflow, run again with %s and put the workflow back (git restore %s). "+
			"Then copy its Validate, Build and Diff steps, %s", force, workflow, rename)
	}
	writeWrapped(w, "", "", "One workflow checks one catalog, and "+head)
	writeWrapped(w, "  - ", "    ", fmt.Sprintf("To check %s instead, run again with --force.", to))
	writeWrapped(w, "  - ", "    ", both)
}

// initMessageWidth is the width init wraps its advice to.
const initMessageWidth = 80

// writeWrapped writes text to w wrapped at spaces to initMessageWidth
// columns (a longer word stands on a line of its own): the first line
// starts with first, the others with rest.
func writeWrapped(w io.Writer, first, rest, text string) {
	var b strings.Builder
	line, empty := first, true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > initMessageWidth {
			b.WriteString(line + "\n")
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line, empty = line+word, false
	}
	b.WriteString(line + "\n")
	fmt.Fprint(w, b.String())
}

// catalogName names a catalog folder, relative to the repository's top,
// in a sentence.
func catalogName(catalog string) string {
	if catalog == "." {
		return "the catalog at the repository's top"
	}
	return catalog
}

// The lines of a workflow that init wrote that say what it checks and
// publishes: the catalog folder in the Validate step, the Publish step of
// an S3 publish (the catalog folder first), and the deployment of a
// GitHub Pages publish.
var (
	workflowValidateLine = regexp.MustCompile(`(?m)^\s*run: signpost validate (\S+) --format github\s*$`)
	workflowPublishLine  = regexp.MustCompile(`(?m)^\s*run: signpost publish (\S+) --target \S+\s*$`)
	workflowPagesLine    = regexp.MustCompile(`(?m)^\s*uses: actions/deploy-pages@\S+\s*$`)
)

// maxWorkflowRead bounds how much of an existing workflow is read to find
// the catalog it checks.
const maxWorkflowRead = 1 << 20

// initWorkflow is what the workflow at a repository's top checks and
// publishes, as far as init can tell.
type initWorkflow struct {
	// Catalog is the catalog folder, relative to the top, that the
	// workflow checks when init wrote it: "" when there is none, it
	// cannot be read, or it checks no single catalog.
	Catalog string
	// Publish is where it publishes the catalog to: publishS3,
	// publishPages or publishNone.
	Publish string
}

// readInitWorkflow reads the workflow at place's top.
func readInitWorkflow(place initPlace) initWorkflow {
	none := initWorkflow{Publish: publishNone}
	f, err := os.Open(filepath.Join(place.Top, filepath.FromSlash(initWorkflowPath)))
	if err != nil {
		return none
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkflowRead))
	if err != nil {
		return none
	}
	m := workflowValidateLine.FindAllSubmatch(data, 2)
	if len(m) != 1 || !catalogPathPattern.Match(m[0][1]) {
		return none
	}
	wf := initWorkflow{Catalog: path.Clean(string(m[0][1])), Publish: publishNone}
	if p := workflowPublishLine.FindSubmatch(data); p != nil && path.Clean(string(p[1])) == wf.Catalog {
		wf.Publish = publishS3
	} else if workflowPagesLine.Match(data) {
		wf.Publish = publishPages
	}
	return wf
}

// initGitignorePath is the .gitignore init writes, relative to the
// catalog's folder.
const initGitignorePath = ".gitignore"

// keepGitignore takes the .gitignore out of files when the catalog's folder
// already has one: it holds the user's own rules, so init neither counts it
// as in the way nor overwrites it, --force or not. hint names it for the
// user when it does not ignore site/ yet, "" otherwise.
func keepGitignore(place initPlace, files []initFile) (rest []initFile, hint string, err error) {
	i := slices.IndexFunc(files, func(f initFile) bool { return !f.AtTop && f.Path == initGitignorePath })
	if i < 0 {
		return files, "", nil
	}
	f := files[i]
	if _, err := os.Lstat(place.dest(f)); errors.Is(err, fs.ErrNotExist) {
		return files, "", nil
	} else if err != nil {
		return nil, "", fmt.Errorf("init %s: %w", place.Dir, err)
	}
	rest = slices.Delete(slices.Clone(files), i, i+1)
	if ignoresSite(place.dest(f)) {
		return rest, "", nil
	}
	return rest, place.display(f), nil
}

// ignoresSite reports whether the .gitignore at name has a line that
// ignores the site/ folder next to it. One that cannot be read does not.
func ignoresSite(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkflowRead))
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(data)) {
		switch strings.TrimSpace(line) {
		case "site/", "/site/", "site", "/site":
			return true
		}
	}
	return false
}

// writeInit writes files into the catalog's folder and the repository's
// top: first all of them into a staging folder inside each (the one in the
// catalog's folder is loaded to prove the catalog valid), then each is
// renamed into place, the file it replaces moved aside. When anything
// fails, the moves are undone and the folders init made removed, so that
// both places are as they were.
func writeInit(ctx context.Context, place initPlace, files []initFile) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := initWrite{place: place, stages: map[string]string{}}
	defer func() {
		if err != nil {
			err = w.undo(err)
			return
		}
		if rmErr := w.removeStages(); rmErr != nil {
			err = fmt.Errorf("init %s: remove the staging folder: %w", place.Dir, rmErr)
		}
	}()
	roots := []string{place.Dir}
	if place.Top != place.Dir {
		roots = append(roots, place.Top)
	}
	for _, root := range roots {
		if err := w.mkdirs(root); err != nil {
			return fmt.Errorf("init %s: %w", place.Dir, err)
		}
		// The staging folder's name starts with "." so that nothing that
		// reads the catalog ever sees it.
		stage, err := os.MkdirTemp(root, ".signpost-init-")
		if err != nil {
			return fmt.Errorf("init %s: %w", place.Dir, err)
		}
		w.stages[root] = stage
	}
	for _, f := range files {
		p := filepath.Join(w.stages[place.root(f)], filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("init %s: %w", place.Dir, err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("init %s: %w", place.Dir, err)
		}
	}
	stage := w.stages[place.Dir]
	if _, diags := build.Load(ctx, stage); diags.HasErrors() {
		var msg strings.Builder
		for _, d := range diags {
			msg.WriteString("\n  " + strings.Replace(d.String(), filepath.ToSlash(stage), filepath.ToSlash(place.Dir), 1))
		}
		return fmt.Errorf("init %s: the starter catalog would not be valid with these flags; nothing written:%s", place.Dir, msg.String())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The catalog's files first, then the workflow: one fixed order, so
	// that what a failed move leaves to undo is predictable.
	order := slices.Clone(files)
	slices.SortStableFunc(order, func(a, b initFile) int {
		switch {
		case a.AtTop == b.AtTop:
			return 0
		case a.AtTop:
			return 1
		}
		return -1
	})
	for _, f := range order {
		if err := w.move(f); err != nil {
			return fmt.Errorf("init %s: %w", place.Dir, err)
		}
	}
	return nil
}

// initWrite is one run of writeInit: what it made and moved, to undo.
type initWrite struct {
	place initPlace
	// created are the folders init made, in the order made.
	created []string
	// stages maps each folder files go to (the catalog's, the top) to its
	// staging folder.
	stages map[string]string
	// moved are the files renamed into place, or being renamed.
	moved []initMove
}

// initMove is one file moved into place. backup is where the file it
// replaces went, "" when there was none; placed says whether the new file
// is in place.
type initMove struct {
	dst, backup string
	placed      bool
}

// mkdirs makes dir and its missing parents, and remembers them.
func (w *initWrite) mkdirs(dir string) error {
	var missing []string
	for p := filepath.Clean(dir); len(missing) < 4096; p = filepath.Dir(p) {
		_, err := os.Stat(p)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for _, p := range slices.Backward(missing) {
		if err := os.Mkdir(p, 0o755); err != nil {
			return err
		}
		w.created = append(w.created, p)
	}
	return nil
}

// move renames f from its staging folder into place, moving the file
// there aside into the staging folder.
func (w *initWrite) move(f initFile) error {
	dst := w.place.dest(f)
	stage := w.stages[w.place.root(f)]
	if err := w.mkdirs(filepath.Dir(dst)); err != nil {
		return err
	}
	m := initMove{dst: dst}
	fi, err := os.Lstat(dst)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a folder: init writes a file there; move the folder away", w.place.display(f))
	case err == nil:
		// The staging folder's .old is outside what Load reads, and on
		// the same file system as dst.
		backup := filepath.Join(stage, ".old", filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
			return err
		}
		if err := os.Rename(dst, backup); err != nil {
			return err
		}
		m.backup = backup
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	w.moved = append(w.moved, m)
	if err := os.Rename(filepath.Join(stage, filepath.FromSlash(f.Path)), dst); err != nil {
		return err
	}
	w.moved[len(w.moved)-1].placed = true
	return nil
}

// undo puts back every file that was moved away, removes the files put in
// place and the folders made, and returns cause with what could not be
// undone. A staging folder that still holds a file that was there before
// is kept, and named.
func (w *initWrite) undo(cause error) error {
	var failed []string
	keep := map[string]bool{}
	for _, m := range slices.Backward(w.moved) {
		if m.placed {
			if err := os.Remove(m.dst); err != nil {
				failed = append(failed, err.Error())
				continue
			}
		}
		if m.backup != "" {
			if err := os.Rename(m.backup, m.dst); err != nil {
				failed = append(failed, fmt.Sprintf("%v (the file that was there is kept at %s)", err, m.backup))
				for root, stage := range w.stages {
					if strings.HasPrefix(m.backup, stage+string(filepath.Separator)) {
						keep[root] = true
					}
				}
			}
		}
	}
	for root, stage := range w.stages {
		if !keep[root] {
			if err := os.RemoveAll(stage); err != nil {
				failed = append(failed, err.Error())
			}
		}
	}
	for _, dir := range slices.Backward(w.created) {
		_ = os.Remove(dir) // only if empty: a kept staging folder stays
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		return fmt.Errorf("%w; undoing it failed too, check by hand: %s", cause, strings.Join(failed, "; "))
	}
	if len(w.moved) > 0 {
		return fmt.Errorf("%w; nothing written: the files already moved into place were taken back", cause)
	}
	return cause
}

// removeStages removes the staging folders, and with them the files that
// were replaced.
func (w *initWrite) removeStages() error {
	var errs []error
	for _, stage := range w.stages {
		errs = append(errs, os.RemoveAll(stage))
	}
	return errors.Join(errs...)
}

// printInit tells what init wrote, what to do next and which placeholders
// to replace. ignore names the .gitignore init left as it was because it
// does not ignore site/, "" when there is none.
func printInit(w io.Writer, place initPlace, files []initFile, d initData, ignore string) error {
	var wrote []string
	for _, f := range files {
		wrote = append(wrote, "wrote "+place.display(f)+"\n")
	}
	slices.Sort(wrote)
	var b strings.Builder
	b.WriteString(strings.Join(wrote, ""))
	config, workflow := displayPath(place.Dir, "signpost.yaml"), displayPath(place.Top, initWorkflowPath)
	if ignore != "" {
		fmt.Fprintf(&b, "\n%s is left as it was: add a line /site/ to it to keep the\nsite that signpost build writes out of Git.\n", ignore)
	}
	if place.Catalog != "." {
		fmt.Fprintf(&b, "\nThe workflow is at the top of the Git repository, where GitHub runs it:\n%s checks the catalog at %s.\n", workflow, place.Catalog)
	}
	var todo []string
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
	arg, buildArgs := "", ""
	if place.Dir != "." {
		// signpost build writes to site in the current folder: out of
		// the catalog's folder, where its .gitignore does not keep it
		// out of Git. The workflow too builds into the catalog's folder.
		arg = " " + place.Dir
		buildArgs = arg + " --out " + displayPath(place.Dir, "site")
	}
	switch {
	case place.Git:
		fmt.Fprintf(&b, "\nNext: signpost validate%s, signpost build%s, then commit and push to GitHub.\n", arg, buildArgs)
	case place.Dir == ".":
		fmt.Fprintf(&b, "\nNext: signpost validate, signpost build, then git init, commit and push to GitHub.\n")
	default:
		// Outside a repository the folder is the repository's top: the
		// workflow is in it.
		fmt.Fprintf(&b, "\nNext: signpost validate%s, signpost build%s, then git init%s, commit and push to GitHub.\n", arg, buildArgs, arg)
	}
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
