package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// gitTimeout bounds git rev-parse, which answers at once unless something
// is wrong.
const gitTimeout = 30 * time.Second

// gitTop runs git rev-parse --show-toplevel in dir. ok is false when dir
// is not in a Git repository or git is not installed.
func gitTop(ctx context.Context, dir string) (top string, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	// No prompts, and messages in English: one is recognized below.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	switch {
	case errors.Is(runErr, exec.ErrNotFound):
		return "", false, nil
	case ctx.Err() != nil:
		return "", false, fmt.Errorf("find the top of its Git repository: git rev-parse: %w", ctx.Err())
	case runErr != nil:
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return "", false, nil
		}
		msg, _, _ = strings.Cut(msg, "\n")
		if msg == "" {
			msg = runErr.Error()
		}
		// Taking the folder for the top here could put the workflow where
		// GitHub never runs it: better to stop.
		return "", false, fmt.Errorf("find the top of its Git repository: git rev-parse --show-toplevel: %s: fix what git says, or init a folder outside the repository", msg)
	}
	top = strings.TrimSuffix(stdout.String(), "\n")
	if top == "" {
		return "", false, errors.New("find the top of its Git repository: git rev-parse --show-toplevel printed nothing")
	}
	return filepath.FromSlash(top), true, nil
}
