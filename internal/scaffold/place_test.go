package scaffold

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestFindPlace: inside a Git repository, the workflow's place is the
// repository's top, named as the user named the folder, and the catalog's
// path is the folder's relative to it.
func TestFindPlace(t *testing.T) {
	outside := t.TempDir()
	top, _ := catalogtest.GitRepo(t)
	if err := os.WriteFile(filepath.Join(top, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(top, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cwd, dir string
		want           place
		err            string
	}{
		{name: "outside a repository", dir: filepath.Join(outside, "a", "b"),
			want: place{Dir: filepath.Join(outside, "a", "b"), Top: filepath.Join(outside, "a", "b"), Catalog: "."}},
		{name: "the top", dir: top, want: place{Dir: top, Top: top, Catalog: ".", Git: true}},
		{name: "a new subfolder", dir: filepath.Join(top, "catalogs", "acme", "x"),
			want: place{Dir: filepath.Join(top, "catalogs", "acme", "x"), Top: top, Catalog: "catalogs/acme/x", Git: true}},
		{name: "relative", cwd: filepath.Dir(top), dir: "repo/catalogs/acme",
			want: place{Dir: "repo/catalogs/acme", Top: "repo", Catalog: "catalogs/acme", Git: true}},
		{name: "relative, below", cwd: filepath.Join(top, "catalogs"), dir: "acme",
			want: place{Dir: "acme", Top: "..", Catalog: "catalogs/acme", Git: true}},
		{name: "the current folder", cwd: filepath.Join(top, "catalogs"), dir: ".",
			want: place{Dir: ".", Top: "..", Catalog: "catalogs", Git: true}},
		{name: "a name the workflow cannot hold", dir: filepath.Join(top, "my catalog"),
			err: `its path in the Git repository, "my catalog", cannot stand in the workflow's commands`},
		{name: "a name like a flag", dir: filepath.Join(top, "-x"),
			err: `"-x", cannot stand in the workflow's commands`},
		{name: "a file on the way", dir: filepath.Join(top, "file", "x"),
			err: "file, on its path, is a file, not a folder"},
		{name: "a file", dir: filepath.Join(top, "file"),
			err: "it is a file, not a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cwd != "" {
				t.Chdir(tt.cwd)
			}
			got, err := findPlace(context.Background(), tt.dir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one that says %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("place (-want +got):\n%s", diff)
			}
		})
	}
}
