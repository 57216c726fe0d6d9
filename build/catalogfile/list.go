package catalogfile

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// MaxDepth is how many folders deep a catalog folder may nest. A catalog
// needs a few levels; thousands are an attack on the listing, and each
// level being walked holds an open folder.
const MaxDepth = 64

// DepthError is the error of List when a folder is nested deeper than
// MaxDepth.
type DepthError struct {
	Rel string // the first folder too deep, slash-separated
}

func (e *DepthError) Error() string {
	rel := e.Rel
	if len(rel) > 120 {
		rel = strings.ToValidUTF8(rel[:60], "") + "…" + strings.ToValidUTF8(rel[len(rel)-40:], "")
	}
	return fmt.Sprintf("folder %s is nested more than %d folders deep: a catalog folder is at most %d deep", rel, MaxDepth, MaxDepth)
}

// List returns the slash-separated paths of the entries of root, other than
// folders, that keep accepts, sorted; keep is given each one's path and
// type (fs.FileMode.Type: 0 for a regular file). Folders whose names start
// with "." are not walked.
//
// Each folder is opened from the folder above it, which stays open while
// its contents are listed, so the listing takes time linear in the number
// of entries, whatever their depth: a walk of root.FS() resolves each path
// again from root, one folder at a time. List checks ctx between entries,
// and refuses a folder deeper than MaxDepth (a *DepthError).
func List(ctx context.Context, root *os.Root, keep func(rel string, typ fs.FileMode) bool) ([]string, error) {
	var files []string
	if err := list(ctx, root, "", 0, keep, &files); err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

func list(ctx context.Context, dir *os.Root, rel string, depth int, keep func(string, fs.FileMode) bool, files *[]string) error {
	f, err := dir.Open(".")
	if err != nil {
		return at("open", rel, err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return at("readdirent", rel, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := path.Join(rel, e.Name())
		if !e.IsDir() {
			if keep(p, e.Type()) {
				*files = append(*files, p)
			}
			continue
		}
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if depth+1 > MaxDepth {
			return &DepthError{Rel: p}
		}
		sub, err := dir.OpenRoot(e.Name())
		if err != nil {
			return at("open", p, err)
		}
		err = list(ctx, sub, p, depth+1, keep, files)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// at names the folder of an error, as fs.WalkDir would.
func at(op, rel string, err error) error {
	return &fs.PathError{Op: op, Path: cmpOr(rel, "."), Err: Cause(err)}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
