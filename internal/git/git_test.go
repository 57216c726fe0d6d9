package git

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestErrors checks the errors callers tell apart: no repository, no git,
// and a git that says what went wrong.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	repo, _ := catalogtest.GitRepo(t)
	top, err := Top(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(repo); top != filepath.ToSlash(real) && top != real {
		t.Errorf("Top = %q, want %q", top, real)
	}

	outside := t.TempDir()
	var notRepo *NotRepoError
	if _, err := Top(ctx, outside); !errors.As(err, &notRepo) || notRepo.Dir != outside || err.Error() != outside+" is not inside a Git repository" {
		t.Errorf("Top outside a repository: %v", err)
	}
	if got := (&NotRepoError{}).Error(); got != ". is not inside a Git repository" {
		t.Errorf("NotRepoError without a folder: %q", got)
	}

	var gerr *Error
	_, err = run(ctx, repo, "rev-parse", "--verify", "--end-of-options", "nope^{commit}")
	if !errors.As(err, &gerr) || gerr.Command != "rev-parse" || !gerr.exited || strings.Contains(gerr.Message, "\n") || err.Error() != "git rev-parse: "+gerr.Message {
		t.Errorf("a failed git: %#v", err)
	}

	t.Setenv("PATH", "")
	if _, err := Top(ctx, repo); !errors.Is(err, ErrNotInstalled) || err.Error() != "git is not installed or not on PATH" {
		t.Errorf("Top without git: %v", err)
	}
	if _, err := Extract(ctx, repo, "HEAD", "", ExtractOptions{}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("Extract without git: %v", err)
	}
}
