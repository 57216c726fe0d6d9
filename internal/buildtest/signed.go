package buildtest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// SignedCommit is the commit time Signed builds the signed test catalog at.
var SignedCommit = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// SignedDir is the signed test catalog (build/testdata/signed).
func SignedDir(t testing.TB) string {
	return filepath.Join(catalogtest.ModuleRoot(t), "build", "testdata", "signed")
}

// Signed compiles the signed test catalog, signed with the test key of
// seed (catalogtest.SigningKey: "current" is the catalog's, "previous" the
// one its DID document keeps from a rotation), at SignedCommit.
func Signed(t testing.TB, seed string) *output.Build {
	t.Helper()
	return CompileEdited(t, SignedDir(t), func(cat *build.Catalog) {
		s, err := signing.NewKeySigner(catalogtest.SigningKey(t, seed))
		if err != nil {
			t.Fatal(err)
		}
		cat.Signer = s
		cat.History = &build.History{Head: SignedCommit}
	})
}
