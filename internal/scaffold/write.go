package scaffold

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build"
)

// writeFiles writes files into the catalog's folder and the repository's
// top: first all of them into a staging folder inside each (the one in the
// catalog's folder is loaded to prove the catalog valid), then each is
// renamed into place, the file it replaces moved aside. When anything
// fails, the moves are undone and the folders init made removed, so that
// both places are as they were.
func writeFiles(ctx context.Context, p place, files []file) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := writing{place: p, stages: map[string]string{}}
	defer func() {
		if err != nil {
			err = w.undo(err)
			return
		}
		if rmErr := w.removeStages(); rmErr != nil {
			err = fmt.Errorf("init %s: remove the staging folder: %w", p.Dir, rmErr)
		}
	}()
	roots := []string{p.Dir}
	if p.Top != p.Dir {
		roots = append(roots, p.Top)
	}
	for _, root := range roots {
		if err := w.mkdirs(root); err != nil {
			return fmt.Errorf("init %s: %w", p.Dir, err)
		}
		// The staging folder's name starts with "." so that nothing that
		// reads the catalog ever sees it.
		stage, err := os.MkdirTemp(root, ".signpost-init-")
		if err != nil {
			return fmt.Errorf("init %s: %w", p.Dir, err)
		}
		w.stages[root] = stage
	}
	for _, f := range files {
		name := filepath.Join(w.stages[p.root(f)], filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return fmt.Errorf("init %s: %w", p.Dir, err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			return fmt.Errorf("init %s: %w", p.Dir, err)
		}
	}
	stage := w.stages[p.Dir]
	if _, diags := build.Load(ctx, stage); diags.HasErrors() {
		var msg strings.Builder
		for _, d := range diags {
			msg.WriteString("\n  " + strings.Replace(d.String(), filepath.ToSlash(stage), filepath.ToSlash(p.Dir), 1))
		}
		return fmt.Errorf("init %s: the starter catalog would not be valid with these flags; nothing written:%s", p.Dir, msg.String())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The catalog's files first, then the workflow: one fixed order, so
	// that what a failed move leaves to undo is predictable.
	order := slices.Clone(files)
	slices.SortStableFunc(order, func(a, b file) int {
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
			return fmt.Errorf("init %s: %w", p.Dir, err)
		}
	}
	return nil
}

// writing is one run of writeFiles: what it made and moved, to undo.
type writing struct {
	place place
	// created are the folders init made, in the order made.
	created []string
	// stages maps each folder files go to (the catalog's, the top) to its
	// staging folder.
	stages map[string]string
	// moved are the files renamed into place, or being renamed.
	moved []moved
}

// moved is one file moved into place. backup is where the file it
// replaces went, "" when there was none; placed says whether the new file
// is in place.
type moved struct {
	dst, backup string
	placed      bool
}

// mkdirs makes dir and its missing parents, and remembers them.
func (w *writing) mkdirs(dir string) error {
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
func (w *writing) move(f file) error {
	dst := w.place.dest(f)
	stage := w.stages[w.place.root(f)]
	if err := w.mkdirs(filepath.Dir(dst)); err != nil {
		return err
	}
	m := moved{dst: dst}
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
func (w *writing) undo(cause error) error {
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
func (w *writing) removeStages() error {
	var errs []error
	for _, stage := range w.stages {
		errs = append(errs, os.RemoveAll(stage))
	}
	return errors.Join(errs...)
}
