// Package catalogdir says where a catalog folder is when a command is given
// another: a folder inside the catalog, whose catalog is found upward as
// git finds a repository, or a repository's top with the catalog in a
// folder of its own, below. Loading such a folder as it is would read part
// of a catalog, or several catalogs' files as declarations of one.
package catalogdir

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/english"
)

// The bounds of the search of Find: how deep below the folder
// it looks, how many folders it reads at most, and how many catalogs a
// *BelowError names.
const (
	belowDepth   = 4
	belowFolders = 2000
	belowListed  = 5
)

// BelowError is the error of Find: Dir has no
// signpost.yaml, but folders below it do, so Dir is most likely the wrong
// folder (a repository's top, with the catalog in a folder of its own).
type BelowError struct {
	// Dir is the folder as given.
	Dir string
	// Found are the folders below Dir that hold a signpost.yaml, named as
	// Dir names them (Dir joined with the path below it), slash-separated,
	// sorted, at most five.
	Found []string
	// Total is how many were found, Found's and the rest.
	Total int
}

func (e *BelowError) Error() string {
	if e.Total == 1 {
		return fmt.Sprintf("no %s in %s: the catalog is in %s/", build.ConfigFile, filepath.ToSlash(e.Dir), e.Found[0])
	}
	folders := make([]string, len(e.Found))
	for i, f := range e.Found {
		folders[i] = f + "/"
	}
	list := strings.Join(folders, ", ")
	if more := e.Total - len(e.Found); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Sprintf("no %s in %s, but %s below it have one: %s", build.ConfigFile, filepath.ToSlash(e.Dir), english.Count(e.Total, "folder", "folders"), list)
}

// Find returns a *BelowError when the folder dir has no
// signpost.yaml but folders below it do. It looks at most four levels down
// and reads at most 2,000 folders, skipping folders whose names start with
// "." (such as .git) and node_modules, and symbolic links. It returns nil
// when dir has a signpost.yaml, when none is found below it, and when dir
// cannot be read: Load says what is wrong then.
func Find(dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, build.ConfigFile)); err == nil {
		return nil
	}
	var found []string
	type folder struct {
		rel   string
		depth int
	}
	queue, read := []folder{{".", 0}}, 0
	for len(queue) > 0 && read < belowFolders {
		f := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(f.rel)))
		read++
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			switch {
			case f.rel != "." && name == build.ConfigFile && e.Type().IsRegular():
				found = append(found, f.rel)
			case e.IsDir() && f.depth < belowDepth && !strings.HasPrefix(name, ".") && name != "node_modules":
				queue = append(queue, folder{path.Join(f.rel, name), f.depth + 1})
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	slices.Sort(found)
	e := &BelowError{Dir: dir, Total: len(found)}
	for _, rel := range found[:min(len(found), belowListed)] {
		e.Found = append(e.Found, path.Join(filepath.ToSlash(dir), rel))
	}
	return e
}

// upLevels bounds the folders Up looks at above the one it is given.
const upLevels = 64

// Up returns the catalog folder that holds dir: dir itself when it has a
// signpost.yaml, else the nearest folder above it that has one, named from
// dir ("..", "../.."), as git finds a repository from a folder inside it.
// It stops at a repository's top (a folder with .git) and at the root, and
// returns dir and false when no folder on the way has a signpost.yaml.
func Up(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, false
	}
	rel := dir
	for range upLevels {
		if fi, err := os.Stat(filepath.Join(abs, build.ConfigFile)); err == nil && fi.Mode().IsRegular() {
			return rel, true
		}
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			break
		}
		abs, rel = parent, filepath.Join(rel, "..")
	}
	return dir, false
}
