package git

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// timeout bounds each git command.
const timeout = 2 * time.Minute

// ErrNotInstalled is the error of every function here when git cannot be
// found on PATH.
var ErrNotInstalled = errors.New("git is not installed or not on PATH")

// NotRepoError is the error of a git command run outside a Git repository.
type NotRepoError struct {
	// Dir is the folder git ran in.
	Dir string
}

func (e *NotRepoError) Error() string {
	return fmt.Sprintf("%s is not inside a Git repository", cmp.Or(e.Dir, "."))
}

// Error is a git command that ran and failed.
type Error struct {
	// Command is git's command, such as "rev-parse".
	Command string
	// Message is the first line of what git wrote to its standard error,
	// or else how it failed.
	Message string
	// exited is set when git ran and exited with a status, as opposed to
	// not starting or being stopped.
	exited bool
	err    error
}

func newError(command, stderr string, exited bool, err error) *Error {
	msg := strings.TrimSpace(stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = err.Error()
	}
	return &Error{Command: command, Message: msg, exited: exited, err: err}
}

func (e *Error) Error() string { return fmt.Sprintf("git %s: %s", e.Command, e.Message) }

func (e *Error) Unwrap() error { return e.err }

// exitedError reports whether err is an *Error of a git that exited with a
// status: git's answer, rather than a failure to ask.
func exitedError(err error) bool {
	var gerr *Error
	return errors.As(err, &gerr) && gerr.exited
}

// Prefix returns the path of the folder dir relative to the top of the Git
// repository that contains it ("" at the top), as
// `git rev-parse --show-prefix` prints it, without the trailing slash.
func Prefix(ctx context.Context, dir string) (string, error) {
	out, err := run(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(out), "\n"), "/"), nil
}

// Top returns the top folder of the Git repository that contains dir, as
// git prints it.
func Top(ctx context.Context, dir string) (string, error) {
	out, err := run(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// Folder returns the path of the folder dir relative to the top of the Git
// repository that contains repo, as Prefix does, and true when dir is a
// folder of that same repository; false when it is in no repository or in
// another one (a submodule, a nested repository).
func Folder(ctx context.Context, repo, dir string) (string, bool, error) {
	top, err := Top(ctx, repo)
	if err != nil {
		return "", false, err
	}
	dirTop, err := Top(ctx, dir)
	var notRepo *NotRepoError
	switch {
	case errors.As(err, &notRepo), exitedError(err):
		return "", false, nil
	case err != nil:
		return "", false, err
	case dirTop != top:
		return "", false, nil
	}
	prefix, err := Prefix(ctx, dir)
	if err != nil {
		return "", false, err
	}
	return prefix, true, nil
}

func command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// No prompts, and messages in English: some are recognized below.
	// Replace refs are local: a revision is read as its objects are, not
	// as a local replacement would show it.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_NO_REPLACE_OBJECTS=1")
	return cmd
}

func startError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return ErrNotInstalled
	}
	return fmt.Errorf("run git: %w", err)
}

// run runs git in dir with a timeout and returns its standard output.
func run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := command(ctx, dir, args...)
	var stdout bytes.Buffer
	var stderr limitedBuffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, startError(err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	if err != nil {
		if strings.Contains(stderr.String(), "not a git repository") {
			return nil, &NotRepoError{Dir: dir}
		}
		var exitErr *exec.ExitError
		return nil, newError(args[0], stderr.String(), errors.As(err, &exitErr), err)
	}
	return stdout.Bytes(), nil
}

// limitedBuffer keeps the first 4 KiB written to it: enough of git's
// stderr for a message.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4<<10 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// symbolicRef returns the ref that the symbolic ref name points at, "" when
// name is no symbolic ref (a detached HEAD, a missing origin/HEAD). It
// works on an unborn branch.
func symbolicRef(ctx context.Context, dir, name string) (string, error) {
	out, err := run(ctx, dir, "symbolic-ref", "--quiet", name)
	if err != nil {
		// --quiet: exit status 1, and nothing said, for no symbolic ref.
		var exitErr *exec.ExitError
		if exitedError(err) && errors.As(err, &exitErr) && exitErr.ExitCode() == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// CurrentBranch returns the branch that HEAD of the repository containing
// dir is on, a branch yet to be born included; "" when HEAD is detached.
func CurrentBranch(ctx context.Context, dir string) (string, error) {
	ref, err := symbolicRef(ctx, dir, "HEAD")
	if err != nil {
		return "", err
	}
	name, _ := strings.CutPrefix(ref, "refs/heads/")
	if name == ref {
		return "", nil
	}
	return name, nil
}

// RemoteDefaultBranch returns the default branch of the remote named
// remote, as refs/remotes/REMOTE/HEAD records it (git clone sets it, git
// remote set-head updates it); "" when it is not recorded.
func RemoteDefaultBranch(ctx context.Context, dir, remote string) (string, error) {
	prefix := "refs/remotes/" + remote + "/"
	ref, err := symbolicRef(ctx, dir, prefix+"HEAD")
	if err != nil {
		return "", err
	}
	name, ok := strings.CutPrefix(ref, prefix)
	if !ok {
		return "", nil
	}
	return name, nil
}
