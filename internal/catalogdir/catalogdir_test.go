package catalogdir

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestFind checks the folders that are catalogs, or have none
// below them, and one with a catalog below it.
func TestFind(t *testing.T) {
	dir := catalogtest.Write(t, map[string]string{
		"repo/catalog/signpost.yaml":     "",
		"repo/catalog/sub/signpost.yaml": "",
		"empty/README.md":                "",
	})
	for _, none := range []string{"repo/catalog", "empty", "missing"} {
		if err := Find(filepath.Join(dir, none)); err != nil {
			t.Errorf("%s: %v, want nil", none, err)
		}
	}
	err := Find(filepath.Join(dir, "repo"))
	var below *BelowError
	if !errors.As(err, &below) || below.Total != 2 || len(below.Found) != 2 {
		t.Fatalf("repo: %#v", err)
	}
	if want := filepath.ToSlash(dir) + "/repo/catalog"; below.Found[0] != want {
		t.Errorf("Found[0] = %q, want %q", below.Found[0], want)
	}
}

// TestUp finds the catalog that holds a folder, and stops at a
// repository's top.
func TestUp(t *testing.T) {
	dir := catalogtest.Write(t, map[string]string{
		"repo/.git/HEAD":                        "",
		"repo/catalog/signpost.yaml":            "",
		"repo/catalog/tools/deep/x.yaml":        "",
		"repo/other/y.yaml":                     "",
		"signpost.yaml":                         "",
		"repo/catalog/tools/signpost.yaml/keep": "", // a folder of that name is no catalog
	})
	for _, c := range []struct {
		from, want string
		ok         bool
	}{
		{"repo/catalog", "repo/catalog", true},
		{"repo/catalog/tools/deep", "repo/catalog/tools/deep/../..", true},
		// Above the repository's top is not looked at: the signpost.yaml
		// there is another project's.
		{"repo/other", "repo/other", false},
		{"repo", "repo", false},
	} {
		got, ok := Up(filepath.Join(dir, c.from))
		if want := filepath.Join(dir, c.want); got != want || ok != c.ok {
			t.Errorf("Up(%s) = %s, %v; want %s, %v", c.from, got, ok, want, c.ok)
		}
	}
}
