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

// BranchSource says where the branch of the workflow comes from.
type BranchSource int

// The sources of the workflow's branch, in the order init looks.
const (
	// BranchGiven: Options.Branch.
	BranchGiven BranchSource = iota
	// BranchOrigin: the default branch of the remote origin, as
	// refs/remotes/origin/HEAD records it.
	BranchOrigin
	// BranchCurrent: the branch HEAD is on, a branch yet to be born
	// included.
	BranchCurrent
	// BranchDefault: DefaultBranch, outside a repository or on a detached
	// HEAD.
	BranchDefault
)

// detectBranch finds the branch the workflow runs on for the repository at
// p: origin's default branch, else the current branch, else DefaultBranch.
func detectBranch(ctx context.Context, p place) (string, BranchSource, error) {
	if !p.Git {
		return DefaultBranch, BranchDefault, nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	b, err := git.RemoteDefaultBranch(ctx, p.Top, "origin")
	if err != nil {
		return "", 0, fmt.Errorf("find the default branch: %w", err)
	}
	if b != "" {
		return b, BranchOrigin, nil
	}
	if b, err = git.CurrentBranch(ctx, p.Top); err != nil {
		return "", 0, fmt.Errorf("find the current branch: %w", err)
	}
	if b != "" {
		return b, BranchCurrent, nil
	}
	return DefaultBranch, BranchDefault, nil
}
