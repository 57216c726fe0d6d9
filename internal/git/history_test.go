package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestFolderHistory reads the first-parent history of a folder: the
// commits that changed it, newest first, a merge as the change it made to
// its first parent, each with its committer time and its files' blobs
// before and after; the folder's files at the revision; and their bytes.
func TestFolderHistory(t *testing.T) {
	ctx := context.Background()
	repo, git := catalogtest.GitRepo(t)
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(when, msg string) string {
		t.Helper()
		t.Setenv("GIT_COMMITTER_DATE", when)
		t.Setenv("GIT_AUTHOR_DATE", when)
		git("add", "-A")
		git("commit", "-q", "--allow-empty", "-m", msg)
		return strings.TrimSpace(git("rev-parse", "HEAD"))
	}
	blob := func(rev, name string) string {
		t.Helper()
		return strings.TrimSpace(git("rev-parse", rev+":"+name))
	}

	var notRev *NoRevisionError
	if _, err := FolderHistory(ctx, repo, "HEAD", "cat", 10); !errors.As(err, &notRev) {
		t.Fatalf("an unborn branch: %v, want a *NoRevisionError", err)
	}

	write("cat/a.yaml", "a: 1\n")
	first := commit("@1000 +0000", "add a")
	git("checkout", "-q", "-b", "side")
	write("cat/b.yaml", "b: 1\n")
	commit("@2000 +0000", "add b on a branch")
	git("checkout", "-q", "main")
	write("other.txt", "outside\n")
	commit("@2500 +0000", "outside the folder")
	t.Setenv("GIT_COMMITTER_DATE", "@3000 +0000")
	git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	merge := strings.TrimSpace(git("rev-parse", "HEAD"))
	write("cat/a.yaml", "a: 2\n")
	last := commit("@4000 +0000", "change a")
	head := commit("@5000 +0000", "nothing in the folder")

	h, err := FolderHistory(ctx, repo, "HEAD", "cat", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := &History{
		Head: Commit{Hash: head, Time: 5000},
		Commits: []Commit{
			{Hash: last, Time: 4000, Changes: []Change{{Name: "a.yaml", Old: blob(first, "cat/a.yaml"), New: blob(last, "cat/a.yaml")}}},
			{Hash: merge, Time: 3000, Changes: []Change{{Name: "b.yaml", New: blob(merge, "cat/b.yaml")}}},
			{Hash: first, Time: 1000, Changes: []Change{{Name: "a.yaml", New: blob(first, "cat/a.yaml")}}},
		},
		Files: map[string]string{"a.yaml": blob(last, "cat/a.yaml"), "b.yaml": blob(merge, "cat/b.yaml")},
	}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("FolderHistory (-want +got):\n%s", diff)
	}

	if h, err := FolderHistory(ctx, repo, "HEAD", "cat", 1); err != nil || len(h.Commits) != 1 || h.Commits[0].Hash != last {
		t.Errorf("at most one commit: %+v, %v", h, err)
	}
	if h, err := FolderHistory(ctx, repo, first, "", 10); err != nil || len(h.Commits) != 1 || h.Files["cat/a.yaml"] == "" {
		t.Errorf("the top from the first commit: %+v, %v", h, err)
	}
	if h, err := FolderHistory(ctx, repo, "HEAD", "none", 10); err != nil || len(h.Commits) != 0 || len(h.Files) != 0 {
		t.Errorf("a folder no commit changed: %+v, %v", h, err)
	}
	var outside *OutsideError
	if _, err := FolderHistory(ctx, repo, "HEAD", "../x", 10); !errors.As(err, &outside) {
		t.Errorf("a folder outside: %v", err)
	}

	a1, a2, b := blob(first, "cat/a.yaml"), blob(last, "cat/a.yaml"), blob(merge, "cat/b.yaml")
	missing := strings.Repeat("ab", 20)
	got, err := Blobs(ctx, repo, []string{a1, missing, a2, b}, BlobOptions{MaxBlob: 64, MaxTotal: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{a1: "a: 1\n", a2: "a: 2\n", b: "b: 1\n"}, texts(got)); diff != "" {
		t.Errorf("Blobs (-want +got):\n%s", diff)
	}
	if got, err := Blobs(ctx, repo, []string{a1, a2}, BlobOptions{MaxBlob: 3, MaxTotal: 1 << 10}); err != nil || len(got) != 0 {
		t.Errorf("blobs over MaxBlob: %v, %v", got, err)
	}
	var limit *LimitError
	if got, err := Blobs(ctx, repo, []string{a1, a2}, BlobOptions{MaxBlob: 64, MaxTotal: 8}); !errors.As(err, &limit) || len(got) != 1 {
		t.Errorf("blobs over MaxTotal: %v, %v", got, err)
	}
	if _, err := Blobs(ctx, repo, []string{"HEAD"}, BlobOptions{MaxBlob: 64, MaxTotal: 64}); err == nil {
		t.Error("Blobs read a name that is no object name")
	}
}

func texts(m map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}
