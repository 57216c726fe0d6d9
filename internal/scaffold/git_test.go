package scaffold

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestGitTop checks each outcome of gitTop: a top, no repository or no git
// (not an error: the folder is its own top), and a git that fails.
func TestGitTop(t *testing.T) {
	ctx := context.Background()
	top, _ := catalogtest.GitRepo(t)
	sub := filepath.Join(top, "sub")
	got, ok, err := gitTop(ctx, top)
	real, _ := filepath.EvalSymlinks(top)
	if err != nil || !ok || got != real {
		t.Errorf("gitTop(repository) = %q, %v, %v; want %q", got, ok, err, real)
	}
	if _, ok, err := gitTop(ctx, t.TempDir()); ok || err != nil {
		t.Errorf("gitTop(outside) = %v, %v; want not ok, no error", ok, err)
	}
	_, _, err = gitTop(ctx, sub)
	if want := "find the top of its Git repository: git rev-parse --show-toplevel: chdir " + sub + ": no such file or directory: fix what git says, or init a folder outside the repository"; err == nil || err.Error() != want {
		t.Errorf("gitTop(missing folder) = %v, want %s", err, want)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := gitTop(cancelled, top); err == nil || !strings.HasPrefix(err.Error(), "find the top of its Git repository: git rev-parse: context canceled") {
		t.Errorf("gitTop(cancelled) = %v", err)
	}
	t.Setenv("PATH", "")
	if _, ok, err := gitTop(ctx, top); ok || err != nil {
		t.Errorf("gitTop without git = %v, %v; want not ok, no error", ok, err)
	}
}

// TestPrepareBranch checks the branch Prepare finds, and where from: an
// unborn master, origin's default branch, a detached HEAD, no repository,
// and a branch given.
func TestPrepareBranch(t *testing.T) {
	ctx := context.Background()
	branch := func(opts Options) (string, BranchSource) {
		t.Helper()
		plan, err := Prepare(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		return plan.Branch()
	}
	top, git := catalogtest.GitRepo(t)
	git("symbolic-ref", "HEAD", "refs/heads/master")
	catalog := filepath.Join(top, "catalog")
	if b, src := branch(Options{Dir: catalog}); b != "master" || src != BranchCurrent {
		t.Errorf("unborn master: %q, %v", b, src)
	}
	if b, src := branch(Options{Dir: catalog, Branch: "release"}); b != "release" || src != BranchGiven {
		t.Errorf("given: %q, %v", b, src)
	}
	git("commit", "-q", "--allow-empty", "-m", "first")
	git("update-ref", "refs/remotes/origin/trunk", "HEAD")
	git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	if b, src := branch(Options{Dir: catalog}); b != "trunk" || src != BranchOrigin {
		t.Errorf("origin's: %q, %v", b, src)
	}
	git("symbolic-ref", "--delete", "refs/remotes/origin/HEAD")
	git("checkout", "-q", "--detach")
	if b, src := branch(Options{Dir: catalog}); b != DefaultBranch || src != BranchDefault {
		t.Errorf("detached: %q, %v", b, src)
	}
	if b, src := branch(Options{Dir: t.TempDir()}); b != DefaultBranch || src != BranchDefault {
		t.Errorf("no repository: %q, %v", b, src)
	}
	// A branch the workflow cannot name is refused, as if given.
	git("checkout", "-q", "-b", "we$rd")
	_, err := Prepare(ctx, Options{Dir: catalog})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Field != FieldBranch || oe.Value != "we$rd" {
		t.Errorf("a branch with $: %v", err)
	}
}
