package scaffold

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/signpost-dev/signpost/internal/git"
)

// gitTimeout bounds git rev-parse, which answers at once unless something
// is wrong.
const gitTimeout = 30 * time.Second

// gitTop runs git rev-parse --show-toplevel in dir. ok is false when dir
// is not in a Git repository or git is not installed.
func gitTop(ctx context.Context, dir string) (top string, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	top, err = git.Top(ctx, dir)
	var notRepo *git.NotRepoError
	var gerr *git.Error
	switch {
	case errors.Is(err, git.ErrNotInstalled), errors.As(err, &notRepo):
		return "", false, nil
	case errors.As(err, &gerr):
		// Taking the folder for the top here could put the workflow where
		// GitHub never runs it: better to stop.
		return "", false, fmt.Errorf("find the top of its Git repository: git rev-parse --show-toplevel: %s: fix what git says, or init a folder outside the repository", gerr.Message)
	case err != nil:
		return "", false, fmt.Errorf("find the top of its Git repository: %w", err)
	case top == "":
		return "", false, errors.New("find the top of its Git repository: git rev-parse --show-toplevel printed nothing")
	}
	return filepath.FromSlash(top), true, nil
}
