package scaffold

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// workflowPath is where the workflow goes, relative to the top of the
// repository.
const workflowPath = ".github/workflows/signpost.yml"

// place is where init writes: the catalog's folder, and the top of the Git
// repository that holds it, where the workflow goes.
type place struct {
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
func (p place) site() string {
	return path.Join(p.Catalog, "site")
}

// root is the folder f's Path is relative to.
func (p place) root(f file) string {
	if f.AtTop {
		return p.Top
	}
	return p.Dir
}

// dest is where f goes.
func (p place) dest(f file) string {
	return filepath.Join(p.root(f), filepath.FromSlash(f.Path))
}

// display names f for the user.
func (p place) display(f file) string {
	return displayPath(p.root(f), f.Path)
}

// displayPath names a file of the new repository for the user: relative to
// the folder they named, with forward slashes.
func displayPath(dir, rel string) string {
	return path.Clean(filepath.ToSlash(dir) + "/" + rel)
}

// findPlace finds the top of the Git repository that dir is in (dir need
// not exist yet: git runs in its nearest folder that does). Outside a
// repository, or when git is not installed, dir is its own top.
func findPlace(ctx context.Context, dir string) (place, error) {
	p := place{Dir: dir, Top: dir, Catalog: "."}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return p, fmt.Errorf("init %s: it is a file, not a folder", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return p, fmt.Errorf("init %s: %w", dir, err)
	}
	base, missing, err := existingFolder(abs)
	if err != nil {
		return p, fmt.Errorf("init %s: %w", dir, err)
	}
	top, ok, err := gitTop(ctx, base)
	if err != nil {
		return p, fmt.Errorf("init %s: %w", dir, err)
	}
	if !ok {
		return p, nil
	}
	p.Git = true
	// git prints the top with links resolved: so is the folder, to compare.
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return p, fmt.Errorf("init %s: the top of its Git repository: %w", dir, err)
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return p, fmt.Errorf("init %s: %w", dir, err)
	}
	rel, err := filepath.Rel(realTop, filepath.Join(append([]string{realBase}, missing...)...))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p, fmt.Errorf("init %s: git says its repository's top is %s, which does not hold it", dir, top)
	}
	if rel == "." {
		return p, nil
	}
	catalog := filepath.ToSlash(rel)
	if !catalogPathPattern.MatchString(catalog) {
		return p, fmt.Errorf("init %s: its path in the Git repository, %q, cannot stand in the workflow's commands: use folder names of letters, digits, '.', '_' and '-' (not starting with '-')", dir, catalog)
	}
	p.Catalog = catalog
	p.Top = topName(dir, catalog, realTop)
	return p, nil
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
