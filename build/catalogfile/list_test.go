package catalogfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// nest makes depth folders named a, each in the one before, under root,
// and a file deep.yaml in the deepest; each is made from the one above,
// so that making them takes time linear in depth.
func nest(t *testing.T, root *os.Root, depth int) {
	t.Helper()
	dir := root
	for range depth {
		if err := dir.Mkdir("a", 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := dir.OpenRoot("a")
		if err != nil {
			t.Fatal(err)
		}
		if dir != root {
			dir.Close()
		}
		dir = sub
	}
	if err := dir.WriteFile("deep.yaml", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir != root {
		dir.Close()
	}
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

func regularYAML(rel string, typ fs.FileMode) bool {
	return strings.HasSuffix(rel, ".yaml") && typ.IsRegular()
}

// TestList lists what a walk of the folder lists: regular files that keep
// accepts, in sorted order, skipping folders whose names start with ".".
func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.yaml", "a/z.yaml", "a/b/c.yaml", "a/b/c.json", ".git/x.yaml", "a/.hidden/y.yaml", "a/.dot.yaml", "a-b/x.yaml"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("b.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	var types []string
	got, err := List(context.Background(), openRoot(t, dir), func(rel string, typ fs.FileMode) bool {
		types = append(types, fmt.Sprintf("%s %v", rel, typ))
		return regularYAML(rel, typ)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a-b/x.yaml", "a/.dot.yaml", "a/b/c.yaml", "a/z.yaml", "b.yaml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if !slices.Contains(types, "link.yaml L---------") {
		t.Errorf("keep was given %v, not the symbolic link's type", types)
	}
}

// TestListDeep: a folder nested deeper than MaxDepth is refused, naming
// it, at once; a walk of root.FS() took time quadratic in the depth
// (2,000 folders: 5 s, 4,000: 26 s, 31,000: 41 s).
func TestListDeep(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	nest(t, root, 500)
	var err error
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		_, err = List(context.Background(), root, regularYAML)
	}()
	select {
	case <-done:
		t.Logf("took %v", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("List has not returned after 5 s")
	}
	var de *DepthError
	if !errors.As(err, &de) || de.Rel != strings.Repeat("a/", MaxDepth)+"a" {
		t.Fatalf("error %v, want a *DepthError at the 65th folder", err)
	}
	want := "folder a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/…/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a is nested more than 64 folders deep: a catalog folder is at most 64 deep"
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}

	// MaxDepth folders deep is fine.
	dir = t.TempDir()
	root = openRoot(t, dir)
	nest(t, root, MaxDepth)
	got, err := List(context.Background(), root, regularYAML)
	if err != nil || len(got) != 1 || got[0] != strings.Repeat("a/", MaxDepth)+"deep.yaml" {
		t.Errorf("List = %v, %v", got, err)
	}
}

// TestListCanceled: List stops between entries once its context is done.
func TestListCanceled(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	for i := range 100 {
		if err := root.WriteFile(fmt.Sprintf("f%03d.yaml", i), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []string
	_, err := List(ctx, root, func(rel string, _ fs.FileMode) bool {
		seen = append(seen, rel)
		cancel()
		return true
	})
	if !errors.Is(err, context.Canceled) || len(seen) != 1 {
		t.Errorf("error %v after %d entries, want context.Canceled after 1", err, len(seen))
	}
}
