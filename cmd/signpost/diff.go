package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/diff"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/git"
)

// diffFormat is the --format flag of diff.
type diffFormat string

func (f *diffFormat) String() string { return string(*f) }
func (f *diffFormat) Type() string   { return "text|json|markdown" }
func (f *diffFormat) Set(s string) error {
	switch s {
	case build.FormatText, build.FormatJSON, diff.FormatMarkdown:
		*f = diffFormat(s)
		return nil
	}
	return fmt.Errorf("must be text, json or markdown")
}

func newDiffCmd() *cobra.Command {
	format := diffFormat(build.FormatText)
	var failOn, repo, catalog string
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changes between two versions of a catalog, risks first",
		Long: `Diff compares two versions of a catalog and reports the tenants, tools,
servers and other documents (discovery catalogs, server cards) added,
removed and changed, and first of all the risks a reviewer should look at
twice. Each side is one of:

  - a catalog folder (it is validated and built in memory),
  - a built site: a folder with routes.json, as signpost build writes it,
  - a Git revision of the repository (main, HEAD~1, v1.2.0, a commit SHA):
    the catalog folder at that commit is extracted and built.

An argument that names an existing path is a path, even when a branch or
tag has the same name; write the revision differently (refs/heads/NAME) to
mean the revision. Revisions are read from the Git repository that contains
--repo (default: the current folder); the catalog is the folder --catalog
inside it, relative to the repository's top. Without --catalog it is the
other side's place in the repository when that side is a catalog folder of
the same repository, and otherwise where --repo is in the repository, so the
current folder's place. So "signpost diff HEAD~1 ." inside a catalog folder,
or "signpost diff main catalogs/example" from the top, shows what the
working copy changes. Only the files the catalog can be read from are
extracted, as the commit holds them (its .gitattributes are not applied):
*.yaml and *.yml outside folders whose names start with ".", and *.json;
links, submodules and other files are skipped. When the OLD revision has no
catalog (no such folder, or no signpost.yaml in it) at the very place where
the NEW side is a catalog, the change adds the catalog: it is compared with
an empty one, with a note. Anything else without a catalog (a typo in
--catalog, a NEW side elsewhere or without the folder) is an error.

Risks, in the order reports list them:
  tier-raised            a tool's safetyTier went up: pure < read < write < exec
  egress-widened         a tool's egress went up: none < internal < internet
  replay-loosened        a tool's replayPolicy went from stricter to looser:
                         deterministic < idempotent < keyed < unsafe
  tool-added             a new tool whose safetyTier is write or exec
  tool-removed           a toolId is gone, from every tenant or from one;
                         or a tenant's site is gone
  tool-reassigned        a toolId now names another tool: its MCP server,
                         MCP name or source changed
  tenant-widened         a tool is published to a tenant that did not see
                         it, or there is a new tenant
  compact-changed        the compact view was switched on or off, or a tool's
                         compact descriptor changed while its standard one
                         did not
  server-added           a new MCP server: a new endpoint clients send
                         their credentials to
  server-removed         an MCP server is no longer published
  server-remote-changed  a server's remote endpoints changed (one added or
                         removed, or its URL variables or headers), or the
                         card URL of a server another host serves
  origin-changed         the site's origin or publisher, as the discovery
                         catalogs publish them, changed
  route-removed          a route other than the tools' is no longer
                         published: a discovery catalog switched off, a
                         server card moved or removed

--format text (default) is for people, json is the whole change with stable
field names, markdown is a report for a pull-request comment or a GitHub job
summary. --fail-on KIND,... exits 1 after printing when one of those risks
is present ("any" for any risk). Exit status: 0 when done, 1 when a side is
invalid or cannot be read or a --fail-on risk is present, 2 for bad usage.`,
		Example: `  signpost diff HEAD~1 .                          # inside a catalog folder
  signpost diff main HEAD --catalog catalogs/example
  signpost diff main catalogs/example             # the working copy, from the top
  signpost diff site-old catalogs/example         # a built site against a catalog
  signpost diff main . --format markdown >> "$GITHUB_STEP_SUMMARY"
  signpost diff main . --fail-on tier-raised,egress-widened,tool-removed`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var kinds []string
			if cmd.Flags().Changed("fail-on") {
				var err error
				if kinds, err = diff.ParseRiskKinds(failOn); err != nil {
					return usageError{fmt.Errorf("--fail-on: %w", err)}
				}
			}
			ctx := cmd.Context()
			sides := diffSides{repo: repo, catalog: catalog, catalogSet: cmd.Flags().Changed("catalog"), stderr: cmd.ErrOrStderr()}
			// The new side first: whether it is a catalog decides whether
			// an old revision without one is the change that adds it.
			new, _, err := sides.load(ctx, "new", args[1], args[0])
			if err != nil {
				return diffError(err)
			}
			sides.newPlace, sides.newPlaceKnown = sides.lastPlace, sides.lastPlaceKnown
			old, oldEmpty, err := sides.load(ctx, "old", args[0], args[1])
			if err != nil {
				return diffError(err)
			}
			change, err := diff.Compare(old, new)
			if err != nil {
				return err
			}
			change.Old, change.New, change.OldEmpty = args[0], args[1], oldEmpty
			if err := change.Write(cmd.OutOrStdout(), string(format)); err != nil {
				return err
			}
			if kinds != nil && change.HasRisk(kinds...) {
				var found []string
				for _, r := range change.Risks {
					if (slices.Contains(kinds, diff.RiskAny) || slices.Contains(kinds, r.Kind)) && !slices.Contains(found, r.Kind) {
						found = append(found, r.Kind)
					}
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "signpost: the change carries %s, which --fail-on %s names\n", strings.Join(found, ", "), failOn)
				return reportedError{exitInvalid}
			}
			return nil
		},
	}
	cmd.Flags().Var(&format, "format", "output format: text, json or markdown")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when one of these risks (comma-separated, or any) is present: "+strings.Join(diff.RiskKinds(), ", "))
	cmd.Flags().StringVar(&repo, "repo", ".", "a folder inside the Git repository that revisions are read from")
	cmd.Flags().StringVar(&catalog, "catalog", "", "the catalog's folder inside the repository, relative to its top, for revisions (default: the other side's place when it is a catalog folder of the repository, else the place of --repo)")
	return cmd
}

// safeError prints its error as terminalSafe does: diff's messages name
// files and folders of the repository, which a change may name with
// control characters.
type safeError struct{ err error }

func (e safeError) Error() string { return build.TerminalSafe(e.err.Error()) }
func (e safeError) Unwrap() error { return e.err }

// diffError words an error of loading a side for the command line, made
// terminal-safe: what to do next, with the flags that say it. An error of
// internal/git ends the message it is in, so the words go at its end.
func diffError(err error) error {
	var (
		notRepo  *git.NotRepoError
		noFolder *git.NoFolderError
		limit    *git.LimitError
		outside  *git.OutsideError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &outside):
		// The path is the flag's value: the flag goes before it.
		msg = strings.TrimSuffix(msg, outside.Error()) + "--catalog " + outside.Error()
	case errors.As(err, &notRepo):
		msg += ": run signpost diff in the repository, name it with --repo, or compare catalog folders and built sites instead"
	case errors.Is(err, git.ErrNotInstalled):
		msg += ": install it to compare revisions, or compare catalog folders and built sites instead"
	case errors.As(err, &noFolder):
		msg += ": name the catalog's folder, relative to the repository's top, with --catalog"
	case errors.As(err, &limit):
		msg += ": name the catalog's own folder with --catalog"
	default:
		return safeError{err}
	}
	return safeError{hintedError{msg, err}}
}

// hintedError is err with msg, its message and what to do, for its
// message.
type hintedError struct {
	msg string
	err error
}

func (e hintedError) Error() string { return e.msg }
func (e hintedError) Unwrap() error { return e.err }

// diffSides loads each side of a diff.
type diffSides struct {
	repo, catalog string
	catalogSet    bool
	stderr        io.Writer
	// lastPlace is the catalog's folder in the repository (relative to its
	// top, "" for the top) of the side load read last, when known: a
	// revision's, or a catalog folder's inside the repository.
	lastPlace      string
	lastPlaceKnown bool
	// newPlace is the new side's lastPlace.
	newPlace      string
	newPlaceKnown bool
}

// emptyOldAllowed reports whether an old revision without a catalog at
// place may be compared as empty: only when the new side is a catalog at
// that very place, which the change then adds. A typo in --catalog, or a
// new side elsewhere, stays an error, so that a --fail-on gate never
// passes against nothing.
func (d *diffSides) emptyOldAllowed(place string) bool {
	return d.newPlaceKnown && d.newPlace == repoPlace(place)
}

// repoPlace is a folder's path relative to a repository's top in one
// form: no slashes around it, "" for the top.
func repoPlace(p string) string {
	p = strings.Trim(path.Clean("/"+strings.Trim(p, "/")), "/")
	return p
}

// load builds one side, arg: a built site, a catalog folder or a Git
// revision. other is the other side's argument: when it is a catalog
// folder of the repository, a revision is read at its place. An old side
// that is a revision without the catalog (no such folder, or no
// signpost.yaml in it) while the new side is a catalog at that same place
// is the change that adds it: an empty build, and empty is set. Otherwise a folder without
// signpost.yaml is an error: it is more likely the wrong folder than an
// empty catalog, and comparing with nothing would report every tool as new
// and pass a --fail-on gate silently.
func (d *diffSides) load(ctx context.Context, which, arg, other string) (b *build.Build, empty bool, err error) {
	d.lastPlace, d.lastPlaceKnown = "", false
	fi, err := os.Stat(arg)
	switch {
	case err == nil && !fi.IsDir():
		return nil, false, fmt.Errorf("%s side %s is a file: name a catalog folder, a built site (a folder with %s) or a Git revision", which, arg, build.RouteTableFile)
	case err == nil && build.IsOutput(arg):
		b, err := openBuiltSite(ctx, which, arg)
		return b, false, err
	case err == nil:
		if prefix, same, gerr := git.Folder(ctx, d.repo, arg); gerr == nil && same {
			d.lastPlace, d.lastPlaceKnown = repoPlace(prefix), true
		}
		b, err := d.compile(ctx, which, arg, arg, "")
		return b, false, err
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, fmt.Errorf("%s side %s: %w", which, arg, err)
	}
	catalog := d.catalog
	if !d.catalogSet {
		if catalog, err = d.defaultCatalog(ctx, other); err != nil {
			return nil, false, fmt.Errorf("%s side %s is not a path, and reading it as a Git revision failed: %w", which, arg, err)
		}
	}
	var skips skipNotes
	opts := git.ExtractOptions{Keep: build.Reads, MaxFile: source.MaxFileSize, Files: "declaration and .json files", Skipped: skips.add}
	rev, err := git.Extract(ctx, d.repo, arg, catalog, opts)
	if err != nil {
		var none *git.NoFolderError
		var norev *git.NoRevisionError
		switch {
		case which == "old" && errors.As(err, &none) && none.Found == "" && d.emptyOldAllowed(none.Path):
			d.note("signpost: %s side: revision %s has no folder %q: comparing against an empty catalog", which, arg, cmp.Or(none.Path, "."))
			return &build.Build{}, true, nil
		case errors.As(err, &norev):
			return nil, false, fmt.Errorf("%s side: %q is neither a path nor a revision of the Git repository: name an existing catalog folder, a built site, or a commit, branch or tag", which, arg)
		}
		return nil, false, fmt.Errorf("%s side: %w", which, err)
	}
	defer rev.Close()
	d.lastPlace, d.lastPlaceKnown = repoPlace(rev.Path), true
	if _, err := os.Stat(filepath.Join(rev.Dir, build.ConfigFile)); err != nil && which == "old" && d.emptyOldAllowed(rev.Path) {
		// The new side has a catalog here and the old one has none: the
		// change adds it, as when signpost init writes one at the top of
		// a repository with history.
		d.note("signpost: %s side: revision %s has no %s in %q: comparing against an empty catalog", which, arg, build.ConfigFile, cmp.Or(rev.Path, "."))
		return &build.Build{}, true, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("%s side: %s has no %s in %q, so it is not a catalog folder: name the catalog's folder, relative to the repository's top, with --catalog", which, arg, build.ConfigFile, cmp.Or(rev.Path, "."))
	}
	for _, n := range skips.list() {
		d.note("signpost: %s side %s: %s", which, arg, n)
	}
	// Diagnostics name files as REV:PATH, as git does.
	prefix := arg + ":"
	if rev.Path != "" {
		prefix += rev.Path + "/"
	}
	b, err = d.compile(ctx, which, arg, rev.Dir, prefix)
	return b, false, err
}

// defaultCatalog is the catalog's folder in the repository when --catalog
// is not given: the place of the other side, other, when it is a catalog
// folder of the same repository, so that "signpost diff main
// catalogs/example" compares like with like from the top; else the place
// of --repo, so that "signpost diff HEAD~1 ." does inside a catalog folder.
// A built site is no catalog: its place says nothing of the catalog's.
// Once the new side is read, its place is known and git is not asked again.
func (d *diffSides) defaultCatalog(ctx context.Context, other string) (string, error) {
	if d.newPlaceKnown {
		return d.newPlace, nil
	}
	if fi, err := os.Stat(other); err == nil && fi.IsDir() && !build.IsOutput(other) {
		prefix, same, err := git.Folder(ctx, d.repo, other)
		if err != nil {
			return "", err
		}
		if same {
			return prefix, nil
		}
	}
	return git.Prefix(ctx, d.repo)
}

// maxNotes bounds the notes of one revision.
const maxNotes = 10

// skipNotes words what the extraction of a revision left out that a
// declaration might name: links to .json files, which a checkout's would
// follow (Load never reads a link as a declaration), and submodules, whose
// files are in another repository. It keeps maxNotes, then counts.
type skipNotes struct {
	notes []string
	more  int
}

// add is git.ExtractOptions.Skipped.
func (s *skipNotes) add(name string, submodule bool) {
	var note string
	switch {
	case submodule:
		note = fmt.Sprintf("skipped %s: a submodule, and submodules are not read in a revision; its declarations and .json files are left out", name)
	case path.Ext(name) == ".json":
		note = fmt.Sprintf("skipped %s: a link, and links are not followed in a revision; a declaration that names it will not find it", name)
	default:
		return
	}
	if len(s.notes) < maxNotes {
		s.notes = append(s.notes, note)
	} else {
		s.more++
	}
}

// list returns the notes, in the order of the tree.
func (s *skipNotes) list() []string {
	if s.more > 0 {
		return append(s.notes, fmt.Sprintf("skipped %d more links to .json files and submodules", s.more))
	}
	return s.notes
}

// note prints one line to stderr, made terminal-safe: it may name files
// of the repository.
func (d diffSides) note(format string, args ...any) {
	fmt.Fprintln(d.stderr, build.TerminalSafe(fmt.Sprintf(format, args...)))
}

// compile loads and builds the catalog folder dir. prefix, when set,
// replaces dir in diagnostics: a revision's folder is temporary.
func (d diffSides) compile(ctx context.Context, which, arg, dir, prefix string) (*build.Build, error) {
	cat, diags := build.Load(ctx, dir)
	if diags.HasErrors() {
		if prefix != "" {
			for i := range diags {
				if rel, err := filepath.Rel(dir, diags[i].File); err == nil && filepath.IsLocal(rel) {
					diags[i].File = prefix + filepath.ToSlash(rel)
				} else if err == nil && rel == "." {
					diags[i].File = strings.TrimSuffix(prefix, "/")
				}
				diags[i].Message = strings.ReplaceAll(diags[i].Message, dir, strings.TrimSuffix(prefix, "/"))
			}
		}
		// Diagnostics name the catalog's files: terminal-safe, as notes.
		for _, dg := range diags {
			if dg.Severity == build.Error {
				d.note("%s", dg)
			}
		}
		d.note("signpost: %s side %s: the catalog is invalid (%d %s): fix it, or compare another version", which, arg, diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
		return nil, reportedError{exitInvalid}
	}
	b, err := build.Compile(ctx, cat)
	if err != nil {
		return nil, fmt.Errorf("%s side %s: %w", which, arg, err)
	}
	return b, nil
}

// openBuiltSite reads a build output folder, checking every document
// against its route table, as serve and publish do.
func openBuiltSite(ctx context.Context, which, dir string) (*build.Build, error) {
	o, err := build.Open(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%s side %s: %w", which, dir, err)
	}
	return o.Build(), nil
}
