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
