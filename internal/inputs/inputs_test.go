package inputs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDigest checks what changes the digest (a file's bytes, its name, a
// new file, the extra bytes) and what does not (the folder's own path,
// .git).
func TestDigest(t *testing.T) {
	ctx := context.Background()
	digest := func(dir, extra string) string {
		t.Helper()
		d, err := Digest(ctx, dir, []byte(extra))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		write(t, dir, "signpost.yaml", "site: {}\n")
		write(t, dir, "tools/x.yaml", "tools: []\n")
	}
	base := digest(a, "target")
	if got := digest(b, "target"); got != base {
		t.Error("the same files in another folder give another digest")
	}
	write(t, b, ".git/HEAD", "ref: refs/heads/main\n")
	if got := digest(b, "target"); got != base {
		t.Error(".git changed the digest")
	}
	if digest(a, "other target") == base {
		t.Error("other extra bytes give the same digest")
	}
	write(t, b, "tools/x.yaml", "tools: [] \n")
	if digest(b, "target") == base {
		t.Error("a changed file gives the same digest")
	}
	write(t, b, "tools/x.yaml", "tools: []\n")
	write(t, b, "tools/y.yaml", "")
	if digest(b, "target") == base {
		t.Error("a new empty file gives the same digest")
	}
	os.Remove(filepath.Join(b, "tools/y.yaml"))
	os.Rename(filepath.Join(b, "tools/x.yaml"), filepath.Join(b, "tools/z.yaml"))
	if digest(b, "target") == base {
		t.Error("a renamed file gives the same digest")
	}
	if err := os.Symlink("z.yaml", filepath.Join(b, "tools/link.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := Digest(ctx, b, nil); !errors.Is(err, ErrNoDigest) {
		t.Errorf("a folder with a link: %v, want ErrNoDigest", err)
	}
}
