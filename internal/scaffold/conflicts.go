package scaffold

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/internal/english"
)

// findConflicts names, for the user and sorted, the files of files that
// already exist.
func findConflicts(p place, files []file) ([]string, error) {
	var conflicts []string
	for _, f := range files {
		_, err := os.Lstat(p.dest(f))
		switch {
		case err == nil:
			conflicts = append(conflicts, p.display(f))
		case errors.Is(err, fs.ErrNotExist):
		default:
			return nil, fmt.Errorf("init %s: %w", p.Dir, err)
		}
	}
	slices.Sort(conflicts)
	return conflicts, nil
}

// printConflicts says which files are in the way and what to do. other is
// what the workflow in the way checks and publishes; d is what init was
// asked to write.
func printConflicts(w io.Writer, p place, conflicts []string, other workflow, d templateData) {
	if p.Catalog == "." {
		fmt.Fprintf(w, "%s already has %s that init writes:\n", p.Dir, english.Plural(len(conflicts), "a file", "files"))
	} else {
		fmt.Fprintf(w, "%s and its repository's top already have %s that init writes:\n", p.Dir, english.Plural(len(conflicts), "a file", "files"))
	}
	for _, c := range conflicts {
		fmt.Fprintf(w, "  %s\n", c)
	}
	wf := displayPath(p.Top, workflowPath)
	switch {
	case !slices.Contains(conflicts, wf):
	case other.Catalog != "" && other.Catalog != p.Catalog:
		// A second catalog in the repository: --force alone would stop
		// checking the first, so say how to check both.
		printSecondCatalog(w, p, wf, other, d)
		if len(conflicts) == 1 {
			fmt.Fprintln(w, "Nothing was written.")
			return
		}
	case p.Catalog != ".":
		fmt.Fprintf(w, "The repository has one signpost workflow: with --force, %s checks %s and no other catalog.\n", wf, p.Catalog)
	}
	fmt.Fprintln(w, "Nothing was written. Run again with --force to overwrite them, or init another folder.")
}

// printSecondCatalog says how to check a second catalog with the workflow
// that checks other: copy the steps that name the catalog, which for S3
// include the publish job's, while GitHub Pages can publish only one of
// them.
func printSecondCatalog(w io.Writer, p place, wf string, other workflow, d templateData) {
	from, to := other.Catalog, catalogName(p.Catalog)
	rename := fmt.Sprintf("and in the copies change the catalog folder %s to %s, and the --out folder %s to %s.",
		from, p.Catalog, path.Join(from, "site"), p.site())
	force := "--force"
	var head, both string
	switch other.Publish {
	case PublishS3:
		// The copied steps name the production target, which only
		// --publish s3 declares, and the bucket must be another: the two
		// sites would overwrite each other's files.
		if d.Publish != PublishS3 {
			force = "--publish s3 --force"
		}
		bucket := ""
		if d.Publish != PublishS3 || !d.BucketSet {
			bucket = " (--bucket)"
		}
		head = fmt.Sprintf("%s checks %s and publishes it to S3.", wf, catalogName(from))
		both = fmt.Sprintf("To check and publish both, commit the workflow, run again with %s and put the workflow back (git restore %s). "+
			"Then copy its Validate, Build and Diff steps, and the Publish step of its publish job, %s "+
			"Give %s an S3 bucket of its own%s, one that the workflow's role may write to.",
			force, wf, rename, to, bucket)
	case PublishPages:
		drop := ""
		if d.Publish != PublishPages {
			// The copied Build step names the pages target, which the
			// new catalog does not declare.
			drop = fmt.Sprintf(" In the copy of Build, drop --target pages too: %s declares no pages target.", path.Join(p.Catalog, "signpost.yaml"))
		}
		head = fmt.Sprintf("%s checks %s and publishes it to GitHub Pages.", wf, catalogName(from))
		both = fmt.Sprintf("To check both, commit the workflow, run again with %s and put the workflow back (git restore %s). "+
			"Then copy its Validate, Build and Diff steps, %s%s "+
			"A repository's GitHub Pages site can host only one catalog: the workflow still publishes only %s. "+
			"To publish %s too, give it a repository of its own.",
			force, wf, rename, drop, catalogName(from), to)
	default:
		head = fmt.Sprintf("%s checks %s.", wf, catalogName(from))
		both = fmt.Sprintf("To check both, commit the workflow, run again with %s and put the workflow back (git restore %s). "+
			"Then copy its Validate, Build and Diff steps, %s", force, wf, rename)
	}
	writeWrapped(w, "", "", "One workflow checks one catalog, and "+head)
	writeWrapped(w, "  - ", "    ", fmt.Sprintf("To check %s instead, run again with --force.", to))
	writeWrapped(w, "  - ", "    ", both)
}

// messageWidth is the width init wraps its advice to.
const messageWidth = 80

// writeWrapped writes text to w wrapped at spaces to messageWidth columns
// (a longer word stands on a line of its own): the first line starts with
// first, the others with rest.
func writeWrapped(w io.Writer, first, rest, text string) {
	var b strings.Builder
	line, empty := first, true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > messageWidth {
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
	workflowPagesLine    = regexp.MustCompile(`(?m)^\s*uses: actions/deploy-pages@\S+(\s+#.*)?$`)
)

// maxWorkflowRead bounds how much of an existing workflow is read to find
// the catalog it checks.
const maxWorkflowRead = 1 << 20

// workflow is what the workflow at a repository's top checks and
// publishes, as far as init can tell.
type workflow struct {
	// Catalog is the catalog folder, relative to the top, that the
	// workflow checks when init wrote it: "" when there is none, it
	// cannot be read, or it checks no single catalog.
	Catalog string
	// Publish is where it publishes the catalog to: PublishS3,
	// PublishPages or PublishNone.
	Publish string
}

// readWorkflow reads the workflow at p's top.
func readWorkflow(p place) workflow {
	none := workflow{Publish: PublishNone}
	f, err := os.Open(filepath.Join(p.Top, filepath.FromSlash(workflowPath)))
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
	wf := workflow{Catalog: path.Clean(string(m[0][1])), Publish: PublishNone}
	if s := workflowPublishLine.FindSubmatch(data); s != nil && path.Clean(string(s[1])) == wf.Catalog {
		wf.Publish = PublishS3
	} else if workflowPagesLine.Match(data) {
		wf.Publish = PublishPages
	}
	return wf
}

// readmePath is where init writes the catalog's guide; guidePath, where it
// writes it instead when the folder has a README of its own, which it
// never replaces.
const (
	readmePath = "README.md"
	guidePath  = "SIGNPOST.md"
)

// keepReadme writes the guide of files to guidePath when the catalog's
// folder has a README.md already (a repository's top, say): the team's
// README is theirs. kept names that README for the user, "" when there is
// none.
func keepReadme(p place, files []file) (rest []file, kept string, err error) {
	i := slices.IndexFunc(files, func(f file) bool { return !f.AtTop && f.Path == readmePath })
	if i < 0 {
		return files, "", nil
	}
	if _, err := os.Lstat(p.dest(files[i])); errors.Is(err, fs.ErrNotExist) {
		return files, "", nil
	} else if err != nil {
		return nil, "", fmt.Errorf("init %s: %w", p.Dir, err)
	}
	if wroteGuide(p.dest(files[i])) {
		// The guide of an earlier init: in the way as any file init
		// wrote, replaced with --force.
		return files, "", nil
	}
	rest = slices.Clone(files)
	kept = p.display(rest[i])
	rest[i].Path = guidePath
	return rest, kept, nil
}

// guideMark is a line of every guide init writes, which a team's own
// README does not have.
const guideMark = "[signpost](https://github.com/signpost-dev/signpost) validates the"

// wroteGuide reports whether the file name is a guide init wrote. One that
// cannot be read is not.
func wroteGuide(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkflowRead))
	return err == nil && strings.Contains(string(data), guideMark)
}

// gitignorePath is the .gitignore init writes, relative to the catalog's
// folder.
const gitignorePath = ".gitignore"

// topGitignore is the .gitignore init writes at the top of the repository
// when the catalog is below it: signpost build, run at the top on the
// catalog's folder, writes site/ there.
const topGitignore = `# The site signpost build writes when it runs here: the workflow builds it
# afresh from the declarations, so it stays out of Git.
/site/
`

// keepGitignore takes a .gitignore out of files when its folder already
// has one, the catalog's or, with atTop, the repository's top: it holds the
// user's own rules, so init neither counts it as in the way nor overwrites
// it, forced or not. hint names it for the user when it does not ignore
// site/ yet, "" otherwise.
func keepGitignore(p place, files []file, atTop bool) (rest []file, hint string, err error) {
	i := slices.IndexFunc(files, func(f file) bool { return f.AtTop == atTop && f.Path == gitignorePath })
	if i < 0 {
		return files, "", nil
	}
	f := files[i]
	if _, err := os.Lstat(p.dest(f)); errors.Is(err, fs.ErrNotExist) {
		return files, "", nil
	} else if err != nil {
		return nil, "", fmt.Errorf("init %s: %w", p.Dir, err)
	}
	rest = slices.Delete(slices.Clone(files), i, i+1)
	if ignoresSite(p.dest(f)) {
		return rest, "", nil
	}
	return rest, p.display(f), nil
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
