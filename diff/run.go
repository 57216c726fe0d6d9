package diff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/catalogdir"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/git"
)

// Options say what Run compares.
type Options struct {
	// Old and New are the two sides, each a catalog folder (validated and
	// built in memory), a built site (a folder holding routes.json) or a
	// Git revision, whose catalog folder is extracted and built. An
	// argument that names an existing path is a path, even when a branch
	// or tag has the same name.
	Old, New string
	// Repo is a folder inside the Git repository revisions are read from.
	Repo string
	// Catalog is the catalog's folder in the repository, relative to its
	// top, for revisions; "." is the top. When "", it is the other side's
	// place in the repository when that side is a catalog folder of the
	// same repository, and otherwise Repo's place.
	Catalog string
	// Note, when set, is told what the user should know that is no error:
	// what a revision's extraction left out that a declaration might name,
	// and an old side compared as an empty catalog. Notes name the
	// repository's files as they are.
	Note func(msg string)
}

// InvalidError is the error of Run when a side is a catalog whose
// declarations have errors. The diagnostics of a revision name its files
// REV:PATH, as git does.
type InvalidError struct {
	// Side is "old" or "new"; Arg the side as given.
	Side, Arg   string
	Diagnostics build.Diagnostics
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%s side %s: the catalog is invalid (%s): fix it, or compare another version", e.Side, e.Arg, english.Count(e.Diagnostics.Errors(), "error", "errors"))
}

// NotCatalogError is the error of Run, wrapped with the side, when a
// revision's folder has no signpost.yaml: it is more likely the wrong
// folder than an empty catalog, and comparing with nothing would report
// every tool as new.
type NotCatalogError struct {
	// Rev is the revision as given; Path the folder's in the repository,
	// as git.Revision's.
	Rev, Path string
}

func (e *NotCatalogError) Error() string {
	return fmt.Sprintf("%s has no %s in %q, so it is not a catalog folder", e.Rev, build.ConfigFile, place(e.Path))
}

// Run reads both sides, the new one first, and compares them. An old side
// that is a revision without the catalog (no such folder, or no
// signpost.yaml in it) where the new side is a catalog at that very place
// is the change that adds it: it is compared as an empty catalog, with a
// note, and Change.OldEmpty is set. Besides the errors of reading each side
// and of Compare, it returns an *InvalidError, a *NotCatalogError, and the
// errors of internal/git, such as a *git.NoFolderError and a
// *git.NotRepoError, and a *catalogdir.BelowError for a folder side
// that has catalogs below it rather than in it.
func Run(ctx context.Context, opts Options) (*Change, error) {
	r := &sides{opts: opts}
	// The new side first: whether it is a catalog decides whether an old
	// revision without one is the change that adds it.
	new, err := r.load(ctx, "new", opts.New, opts.Old)
	if err != nil {
		return nil, err
	}
	r.newPlace, r.newPlaced = new.place, new.placed
	old, err := r.load(ctx, "old", opts.Old, opts.New)
	if err != nil {
		return nil, err
	}
	c, err := Compare(old.build, new.build)
	if err != nil {
		return nil, err
	}
	if old.config != nil && new.config != nil {
		c.diffTargets(old.config.Targets, new.config.Targets)
		c.diffLimits(old.config.Limits, new.config.Limits)
		c.sortRisks()
	}
	c.Old, c.New, c.OldEmpty = opts.Old, opts.New, old.empty
	c.redact()
	return c, nil
}

// sides reads the sides of a Run.
type sides struct {
	opts Options
	// newPlace is the new side's place, once it is read.
	newPlace  string
	newPlaced bool
}

// side is one side read.
type side struct {
	build *output.Build
	// config is the side's signpost.yaml, for its publish targets and
	// limits; nil for a built site, which does not record them.
	config *build.Config
	// empty is set for an old revision without the catalog.
	empty bool
	// place is the catalog's folder in the repository (relative to its
	// top, "" for the top) when placed: a revision's, or a catalog
	// folder's inside the repository.
	place  string
	placed bool
}

// load builds one side, arg: a built site, a catalog folder or a Git
// revision (see revision). other is the other side's argument. A folder
// without signpost.yaml is an error, as for a revision.
func (r *sides) load(ctx context.Context, which, arg, other string) (side, error) {
	fi, err := os.Stat(arg)
	switch {
	case err == nil && !fi.IsDir():
		return side{}, fmt.Errorf("%s side %s is a file: name a catalog folder, a built site (a folder with %s) or a Git revision", which, arg, output.RouteTableFile)
	case err == nil && output.IsBuild(ctx, arg):
		b, err := openBuiltSite(ctx, which, arg)
		return side{build: b}, err
	case err == nil:
		if err := catalogdir.Find(arg); err != nil {
			return side{}, fmt.Errorf("%s side %s: %w", which, arg, err)
		}
		var s side
		if prefix, same, gerr := git.Folder(ctx, r.opts.Repo, arg); gerr == nil && same {
			s.place, s.placed = repoPlace(prefix), true
		}
		var history *build.History
		if history, err = build.ReadHistory(ctx, arg); err != nil {
			return side{}, fmt.Errorf("%s side %s: %w", which, arg, err)
		}
		s.build, s.config, err = compile(ctx, which, arg, arg, "", history)
		return s, err
	case !errors.Is(err, fs.ErrNotExist):
		return side{}, fmt.Errorf("%s side %s: %w", which, arg, err)
	}
	return r.revision(ctx, which, arg, other)
}

// note tells opts.Note, if set.
func (r *sides) note(format string, args ...any) {
	if r.opts.Note != nil {
		r.opts.Note(fmt.Sprintf(format, args...))
	}
}

// compile loads and builds the catalog folder dir, its registry dated by
// history. prefix, when set, replaces dir in diagnostics: a revision's
// folder is temporary.
func compile(ctx context.Context, which, arg, dir, prefix string, history *build.History) (*output.Build, *build.Config, error) {
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
		return nil, nil, &InvalidError{Side: which, Arg: arg, Diagnostics: diags}
	}
	cat.History = history
	b, err := build.Compile(ctx, cat)
	if err != nil {
		return nil, nil, fmt.Errorf("%s side %s: %w", which, arg, err)
	}
	return b, &cat.Config, nil
}

// openBuiltSite reads a build output folder, checking every document
// against its route table, as serve and publish do.
func openBuiltSite(ctx context.Context, which, dir string) (*output.Build, error) {
	o, err := output.Open(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%s side %s: %w", which, dir, err)
	}
	return o, nil
}
