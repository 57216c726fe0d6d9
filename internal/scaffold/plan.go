package scaffold

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/hosts/pages"
)

// Plan is what init would write, and where: Prepare makes one, Write
// carries it out.
type Plan struct {
	place place
	data  templateData
	files []file
	// ignore names the .gitignore files that are left as they are although
	// they do not ignore site/.
	ignore []string
	// conflicts name the files in the way, for the user and sorted.
	conflicts []string
	// branch says where data.Branch comes from.
	branch BranchSource
	// fallback is set when the workflow installs FallbackVersion because
	// the signpost that writes it is not a release and Options chose none.
	fallback bool
	// keptReadme names the folder's own README.md, which init leaves as it
	// is and writes its guide beside; "" when it had none.
	keptReadme string
}

// Prepare checks opts, finds where the files go (the catalog's folder, and
// the top of the Git repository that holds it, for the workflow) and fills
// in the templates, writing nothing. When opts are at fault, the error is
// an *OptionError. Without Options.Branch, the branch is found from Git
// (see Plan.Branch).
func Prepare(ctx context.Context, opts Options) (*Plan, error) {
	detect := opts.Branch == ""
	if detect {
		opts.Branch = DefaultBranch
	}
	d, err := opts.data()
	if err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	p, err := findPlace(ctx, dir)
	if err != nil {
		return nil, err
	}
	source := BranchGiven
	if detect {
		if d.Branch, source, err = detectBranch(ctx, p); err != nil {
			return nil, err
		}
		if !validBranch(d.Branch) {
			return nil, &OptionError{Field: FieldBranch, Value: d.Branch, problem: badBranch}
		}
	}
	d.Catalog, d.Site = p.Catalog, p.site()
	files, err := render(d)
	if err != nil {
		return nil, err
	}
	if p.Catalog != "." {
		files = append(files, file{Path: gitignorePath, Data: []byte(topGitignore), AtTop: true})
	}
	files, keptReadme, err := keepReadme(p, files)
	if err != nil {
		return nil, err
	}
	var ignore []string
	for _, atTop := range []bool{false, true} {
		var hint string
		if files, hint, err = keepGitignore(p, files, atTop); err != nil {
			return nil, err
		}
		if hint != "" {
			ignore = append(ignore, hint)
		}
	}
	conflicts, err := findConflicts(p, files)
	if err != nil {
		return nil, err
	}
	fallback := opts.SignpostVersion == "" && !isRelease(opts.Version)
	return &Plan{place: p, data: d, files: files, ignore: ignore, conflicts: conflicts, branch: source, fallback: fallback, keptReadme: keptReadme}, nil
}

// Signpost returns the version of signpost the workflow installs (its
// SIGNPOST_VERSION), and whether it is FallbackVersion because the
// signpost that writes the workflow is not a release and Options chose
// no version: a release the running signpost knows of, not itself.
func (p *Plan) Signpost() (version string, fallback bool) {
	return p.data.Ref, p.fallback
}

// Branch returns the branch whose pushes the workflow checks and
// publishes, and where it comes from.
func (p *Plan) Branch() (string, BranchSource) {
	return p.data.Branch, p.branch
}

// Conflicts names the files that are in the way, slash-separated and
// sorted, as Options.Dir names the folder (relative to the current folder
// when it is): Write would replace them. A .gitignore already in the catalog's folder is not in the
// way: Write leaves it as it is.
func (p *Plan) Conflicts() []string {
	return p.conflicts
}

// PrintConflicts writes to w which files are in the way, what the
// workflow in the way checks, and what to do. Its first line reads as an
// error message, for the command to put its name before.
func (p *Plan) PrintConflicts(w io.Writer) {
	printConflicts(w, p.place, p.conflicts, readWorkflow(p.place), p.data)
}

// Write writes the files, replacing any in the way, all or none: each goes
// to a staging folder first, the catalog is checked there, and then they
// are moved into place; when a move fails, what was there is put back.
func (p *Plan) Write(ctx context.Context) error {
	return writeFiles(ctx, p.place, p.files)
}

// PrintNext writes to w what Write wrote, the placeholders to replace and
// what to do next.
func (p *Plan) PrintNext(w io.Writer) error {
	return printNext(w, p.place, p.files, p.data, p.ignore, p.branch, p.keptReadme)
}

// branchLine says which pushes the workflow acts on, and why that branch.
func branchLine(p place, d templateData, source BranchSource) string {
	var why string
	switch source {
	case BranchGiven:
		why = "as given"
	case BranchOrigin:
		why = "the default branch of origin"
	case BranchCurrent:
		why = "the current branch; no origin records a default branch"
	case BranchDefault:
		why = "the usual default: the repository's HEAD is detached"
		if !p.Git {
			why = "the usual default: not in a Git repository yet"
		}
	}
	does := "checks"
	if d.Publish != PublishNone {
		does = "checks and publishes"
	}
	return fmt.Sprintf("The workflow %s every push to %s (%s).\n", does, d.Branch, why)
}

// printNext tells what init wrote, what to do next and which placeholders
// to replace. ignore names the .gitignore files init left as they were
// although they do not ignore site/.
func printNext(w io.Writer, p place, files []file, d templateData, ignore []string, source BranchSource, keptReadme string) error {
	var wrote []string
	for _, f := range files {
		wrote = append(wrote, "wrote "+p.display(f)+"\n")
	}
	slices.Sort(wrote)
	var b strings.Builder
	b.WriteString(strings.Join(wrote, ""))
	config, wf := displayPath(p.Dir, "signpost.yaml"), displayPath(p.Top, workflowPath)
	for _, name := range ignore {
		fmt.Fprintf(&b, "\n%s is left as it was: add a line /site/ to it to keep the\nsite that signpost build writes out of Git.\n", name)
	}
	guide := displayPath(p.Dir, readmePath)
	if keptReadme != "" {
		guide = displayPath(p.Dir, guidePath)
		fmt.Fprintf(&b, "\n%s is left as it was: the catalog's guide is %s.\n", keptReadme, guide)
	}
	b.WriteString("\n" + branchLine(p, d, source))
	if d.Publish == PublishPages {
		// Before the user builds on it: what the site will lack there.
		b.WriteString("\nWhat GitHub Pages cannot do (signpost build --target pages reports each gap):\n")
		for _, l := range pages.Limits() {
			b.WriteString("  " + l + ".\n")
		}
	}
	if p.Catalog != "." {
		fmt.Fprintf(&b, "\nThe workflow is at the top of the Git repository, where GitHub runs it:\n%s checks the catalog at %s.\n", wf, p.Catalog)
	}
	var todo []string
	if d.Origin == DefaultOrigin {
		todo = append(todo, fmt.Sprintf("%s: site.origin %s, site.publisher %s", config, d.Origin, d.Publisher))
	}
	if d.Publish == PublishS3 && !d.BucketSet {
		todo = append(todo, fmt.Sprintf("%s: the bucket %s", config, d.Bucket))
	}
	if d.Publish == PublishS3 && !d.RoleARNSet {
		todo = append(todo, fmt.Sprintf("%s: the role %s", wf, d.RoleARN))
	}
	if len(todo) > 0 {
		b.WriteString("\nReplace the placeholders before the first publish:\n")
		for _, t := range todo {
			b.WriteString("  " + t + "\n")
		}
	}
	arg, buildArgs := "", ""
	if p.Dir != "." {
		// signpost build writes to site in the current folder: out of
		// the catalog's folder, where its .gitignore does not keep it
		// out of Git. The workflow too builds into the catalog's folder.
		arg = " " + p.Dir
		buildArgs = arg + " --out " + displayPath(p.Dir, "site")
	}
	switch {
	case p.Git:
		fmt.Fprintf(&b, "\nNext: signpost validate%s, signpost build%s, then commit and push to GitHub.\n", arg, buildArgs)
	case p.Dir == ".":
		fmt.Fprintf(&b, "\nNext: signpost validate, signpost build, then git init, commit and push to GitHub.\n")
	default:
		// Outside a repository the folder is the repository's top: the
		// workflow is in it.
		fmt.Fprintf(&b, "\nNext: signpost validate%s, signpost build%s, then git init%s, commit and push to GitHub.\n", arg, buildArgs, arg)
	}
	switch d.Publish {
	case PublishS3:
		fmt.Fprintf(&b, "%s says how to set up the IAM role that %s assumes.\n", guide, wf)
	case PublishPages:
		b.WriteString("Before the first publish, set Source to \"GitHub Actions\" in the repository's Settings > Pages.\n")
	case PublishCloudflare:
		fmt.Fprintf(&b, "Before the first publish, add the repository secrets CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID; %s says how.\n", guide)
	case PublishNetlify:
		fmt.Fprintf(&b, "Before the first publish, add the repository secrets NETLIFY_AUTH_TOKEN and NETLIFY_SITE_ID; %s says how.\n", guide)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
