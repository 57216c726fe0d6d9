package build

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

const signedDir = "testdata/signed"

// signedCommit is the commit time the signed test catalog is built at.
var signedCommit = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// compileSigned loads the signed test catalog and compiles it with the
// fixed test key, at signedCommit.
func compileSigned(t *testing.T, dir string) map[string]string {
	t.Helper()
	cat, diags := Load(t.Context(), dir)
	if diags.HasErrors() {
		var b strings.Builder
		_ = diags.Write(&b, FormatText)
		t.Fatalf("load %s:\n%s", dir, b.String())
	}
	s, err := signing.NewKeySigner(catalogtest.SigningKey(t, "current"))
	if err != nil {
		t.Fatal(err)
	}
	cat.Signer = s
	cat.History = &History{Head: signedCommit}
	b, err := Compile(t.Context(), cat)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if err := b.Write(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	return catalogtest.ReadTree(t, out)
}

// TestSignedGolden: the DID document and the signed AI catalog of the
// signed test catalog, byte for byte (go test ./build -update rewrites
// them); two builds are the same bytes, the file signer being
// deterministic; and no file holds the private key.
func TestSignedGolden(t *testing.T) {
	got := compileSigned(t, signedDir)
	again := compileSigned(t, signedDir)
	if diff := cmp.Diff(got, again); diff != "" {
		t.Fatalf("two signed builds differ:\n%s", diff)
	}
	key := catalogtest.SigningKey(t, "current")
	d, _ := key.Bytes()
	secret := base64.RawURLEncoding.EncodeToString(d)
	for name, body := range got {
		if strings.Contains(body, secret) || strings.Contains(body, `"d":`) {
			t.Errorf("%s holds the private key", name)
		}
	}
	golden := filepath.Join("testdata", "golden", "signed")
	for _, name := range []string{"public/.well-known/did.json", "public/.well-known/ai-catalog.json"} {
		p := filepath.Join(golden, filepath.FromSlash(name))
		if *update {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(got[name]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got[name]); diff != "" {
			t.Errorf("%s differs from %s (-want +got); run go test ./build -update if the change is intended:\n%s", name, p, diff)
		}
	}
}

// TestSigningNeedsCommit: a catalog without a commit is not signed with
// the clock's time: Compile refuses it.
func TestSigningNeedsCommit(t *testing.T) {
	cat, diags := Load(t.Context(), signedDir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	cat.Signer, _ = signing.NewKeySigner(catalogtest.SigningKey(t, "current"))
	if _, err := Compile(t.Context(), cat); err == nil || !strings.Contains(err.Error(), "commit the catalog") {
		t.Fatalf("Compile without a history: %v", err)
	}
}
