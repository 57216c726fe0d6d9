package scaffold

import (
	"context"
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
