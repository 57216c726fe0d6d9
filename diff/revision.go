package diff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/git"
)

// revision builds the side arg, a Git revision: its catalog folder (see
// Options.Catalog) extracted as the commit holds it, only the files Load
// reads. other is the other side's argument: when it is a catalog folder
// of the repository, the revision is read at its place. An old side
// without the catalog where the new side is one is empty (see Run).
func (r *sides) revision(ctx context.Context, which, arg, other string) (side, error) {
	catalog := r.opts.Catalog
	if catalog == "" {
		var err error
		if catalog, err = r.defaultCatalog(ctx, other); err != nil {
			return side{}, fmt.Errorf("%s side %s is not a path, and reading it as a Git revision failed: %w", which, arg, err)
		}
	}
	var skips skipNotes
	opts := git.ExtractOptions{Keep: build.Reads, MaxFile: source.MaxFileSize, Files: "declaration and .json files", Skipped: skips.add}
	rev, err := git.Extract(ctx, r.opts.Repo, arg, catalog, opts)
	if err != nil {
		var none *git.NoFolderError
		var norev *git.NoRevisionError
		switch {
		case which == "old" && errors.As(err, &none) && none.Found == "" && r.emptyOldAllowed(none.Path):
			r.note("%s side: revision %s has no folder %q: comparing against an empty catalog", which, arg, place(none.Path))
			return side{build: &output.Build{}, empty: true}, nil
		case errors.As(err, &norev):
			return side{}, fmt.Errorf("%s side: %q is neither a path nor a revision of the Git repository: name an existing catalog folder, a built site, or a commit, branch or tag", which, arg)
		}
		return side{}, fmt.Errorf("%s side: %w", which, err)
	}
	defer rev.Close()
	s := side{place: repoPlace(rev.Path), placed: true}
	if _, err := os.Stat(filepath.Join(rev.Dir, build.ConfigFile)); err != nil && which == "old" && r.emptyOldAllowed(rev.Path) {
		// The new side has a catalog here and the old one has none: the
		// change adds it, as when signpost init writes one at the top of
		// a repository with history.
		r.note("%s side: revision %s has no %s in %q: comparing against an empty catalog", which, arg, build.ConfigFile, place(rev.Path))
		return side{build: &output.Build{}, empty: true, place: s.place, placed: true, config: &build.Config{}}, nil
	} else if err != nil {
		return side{}, fmt.Errorf("%s side: %w", which, &NotCatalogError{Rev: arg, Path: rev.Path})
	}
	for _, n := range skips.list() {
		r.note("%s side %s: %s", which, arg, n)
	}
	// Diagnostics name files as REV:PATH, as git does.
	prefix := arg + ":"
	if rev.Path != "" {
		prefix += rev.Path + "/"
	}
	// The registry's dates: the revision's own history.
	history, err := build.ReadRevisionHistory(ctx, r.opts.Repo, rev.Commit, rev.Path)
	if err != nil {
		return side{}, fmt.Errorf("%s side %s: %w", which, arg, err)
	}
	s.build, s.config, err = compile(ctx, which, arg, rev.Dir, prefix, history)
	return s, err
}

// defaultCatalog is the catalog's folder in the repository when
// Options.Catalog is "": the place of the other side, other, when it is a
// catalog folder of the same repository, so that "signpost diff main
// catalogs/example" compares like with like from the top; else the place
// of Options.Repo, so that "signpost diff HEAD~1 ." does inside a catalog
// folder. A built site is no catalog: its place says nothing of the
// catalog's. Once the new side is read, its place is known and git is not
// asked again.
func (r *sides) defaultCatalog(ctx context.Context, other string) (string, error) {
	if r.newPlaced {
		return r.newPlace, nil
	}
	if fi, err := os.Stat(other); err == nil && fi.IsDir() && !output.IsBuild(ctx, other) {
		prefix, same, err := git.Folder(ctx, r.opts.Repo, other)
		if err != nil {
			return "", err
		}
		if same {
			return prefix, nil
		}
	}
	return git.Prefix(ctx, r.opts.Repo)
}

// emptyOldAllowed reports whether an old revision without a catalog at
// place may be compared as empty: only when the new side is a catalog at
// that very place, which the change then adds. A wrong Options.Catalog, or
// a new side elsewhere, stays an error, so that a gate on the change's
// risks never passes against nothing.
func (r *sides) emptyOldAllowed(place string) bool {
	return r.newPlaced && r.newPlace == repoPlace(place)
}

// repoPlace is a folder's path relative to a repository's top in one
// form: no slashes around it, "" for the top.
func repoPlace(p string) string {
	return strings.Trim(path.Clean("/"+strings.Trim(p, "/")), "/")
}

// place names a folder of the repository in messages: "." for the top.
func place(p string) string { return cmp.Or(p, ".") }

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
