package git

import (
	"context"
	"errors"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestBranches checks the branch of HEAD, unborn, born and detached, and
// the default branch a remote records.
func TestBranches(t *testing.T) {
	ctx := context.Background()
	repo, git := catalogtest.GitRepo(t)
	git("symbolic-ref", "HEAD", "refs/heads/master")
	branch := func() string {
		t.Helper()
		b, err := CurrentBranch(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := branch(); got != "master" {
		t.Errorf("CurrentBranch on an unborn master = %q", got)
	}
	git("commit", "-q", "--allow-empty", "-m", "first")
	git("checkout", "-q", "-b", "feature/x")
	if got := branch(); got != "feature/x" {
		t.Errorf("CurrentBranch on feature/x = %q", got)
	}
	git("checkout", "-q", "--detach")
	if got := branch(); got != "" {
		t.Errorf("CurrentBranch detached = %q, want \"\"", got)
	}

	if got, err := RemoteDefaultBranch(ctx, repo, "origin"); err != nil || got != "" {
		t.Errorf("RemoteDefaultBranch without origin = %q, %v", got, err)
	}
	git("update-ref", "refs/remotes/origin/trunk", "HEAD")
	git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	if got, err := RemoteDefaultBranch(ctx, repo, "origin"); err != nil || got != "trunk" {
		t.Errorf("RemoteDefaultBranch = %q, %v, want trunk", got, err)
	}

	var notRepo *NotRepoError
	if _, err := CurrentBranch(ctx, t.TempDir()); !errors.As(err, &notRepo) {
		t.Errorf("CurrentBranch outside a repository: %v", err)
	}
}
