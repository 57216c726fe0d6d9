package scaffold

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInvalidStarter: when the files would not make a valid catalog,
// init says why, naming the files where they were to go, and leaves no
// trace: not even the folders it created, in the catalog's place or at the
// repository's top.
func TestInvalidStarter(t *testing.T) {
	files := []file{
		{Path: "signpost.yaml", Data: []byte("site: {origin: https://example.com}\n")},
		{Path: "README.md", Data: []byte("# x\n")},
		{Path: workflowPath, Data: []byte("name: x\n"), AtTop: true},
	}
	for _, sub := range []bool{false, true} {
		t.Run(fmt.Sprintf("subfolder %v", sub), func(t *testing.T) {
			root := t.TempDir()
			where := place{Dir: filepath.Join(root, "new"), Top: filepath.Join(root, "new"), Catalog: "."}
			if sub {
				where = place{Dir: filepath.Join(root, "catalogs", "acme"), Top: root, Catalog: "catalogs/acme"}
			}
			err := writeFiles(context.Background(), where, files)
			if err == nil {
				t.Fatal("writeFiles wrote an invalid catalog")
			}
			for _, want := range []string{"the starter catalog would not be valid", filepath.ToSlash(where.Dir) + "/signpost.yaml:1:"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), ".signpost-init-") {
				t.Errorf("error %q names the staging folder", err)
			}
			if got := listTree(t, root); len(got) > 0 {
				t.Errorf("left behind: %v", got)
			}
		})
	}
}

// TestUndo: when a move into place fails, the files already moved are
// taken back, the ones they replaced put back, and the folders init made
// removed, in the catalog's folder and at the repository's top alike.
func TestUndo(t *testing.T) {
	top := t.TempDir()
	where := place{Dir: filepath.Join(top, "catalogs", "acme"), Top: top, Catalog: "catalogs/acme"}
	write := func(rel, data string) {
		p := filepath.Join(top, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An old signpost.yaml that --force would replace, and a folder where
	// the workflow goes: its move fails after the catalog's.
	write("catalogs/acme/signpost.yaml", "# old\n")
	write(".github/workflows/signpost.yml/keep", "x")
	before := listTree(t, top)

	files, err := render(templateData{Origin: DefaultOrigin, Publisher: defaultPublisher, DisplayName: "X", Publish: PublishNone,
		Branch: "main", Ref: FallbackVersion, ServerName: "com.example/notes", ServerURL: "https://mcp.example.com/notes",
		Catalog: where.Catalog, Site: where.site()})
	if err != nil {
		t.Fatal(err)
	}
	err = writeFiles(context.Background(), where, files)
	if err == nil {
		t.Fatal("writeFiles put a file where a folder is")
	}
	for _, want := range []string{"is a folder", "taken back"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if diff := cmp.Diff(before, listTree(t, top)); diff != "" {
		t.Errorf("files after a failed init (-before +after):\n%s", diff)
	}
	if data, err := os.ReadFile(filepath.Join(where.Dir, "signpost.yaml")); err != nil || string(data) != "# old\n" {
		t.Errorf("signpost.yaml = %q, %v; want the old one back", data, err)
	}
}

// listTree lists the files and folders under root, slash-separated.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
