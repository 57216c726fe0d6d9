package build

import (
	"archive/tar"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Limits of a catalog extracted from a Git revision: no file larger than
// Load reads, and a bounded whole.
const (
	revisionMaxEntry   = maxFileSize
	revisionMaxTotal   = 512 << 20
	revisionMaxEntries = 100_000
)

// gitTimeout bounds each git command.
const gitTimeout = 2 * time.Minute

// RevisionCatalog is a catalog folder extracted from a Git revision into a
// temporary folder. Remove it with Close.
type RevisionCatalog struct {
	// Dir is the temporary folder that holds the catalog.
	Dir string
	// Commit is the full name of the commit the revision resolved to.
	Commit string
	// Path is the catalog's folder inside the repository, slash-separated
	// and relative to its top ("" is the top).
	Path string
}

// Close removes the extracted folder.
func (r *RevisionCatalog) Close() error { return os.RemoveAll(r.Dir) }

// GitPrefix returns the path of the folder dir relative to the top of the
// Git repository that contains it ("" at the top), as
// `git rev-parse --show-prefix` prints it, without the trailing slash.
func GitPrefix(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSpace(string(out)), "/"), nil
}

// ExtractRevision resolves rev (a branch, a tag, HEAD~1, a commit SHA) in
// the Git repository that contains repo and extracts the folder catalog
// (relative to the repository's top; "" is the top) at that commit into a
// new temporary folder. It refuses archive entries that would land outside
// the folder, links, and entries larger than Load would read.
func ExtractRevision(ctx context.Context, repo, rev, catalog string) (*RevisionCatalog, error) {
	clean, err := cleanRepoPath(catalog)
	if err != nil {
		return nil, err
	}
	out, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		var gerr *gitError
		if errors.As(err, &gerr) && gerr.exit {
			return nil, fmt.Errorf("%q is neither a path nor a revision of the Git repository: name an existing catalog folder, a built site, or a commit, branch or tag", rev)
		}
		return nil, err
	}
	commit := strings.TrimSpace(string(out))
	// git archive, run below the top, would archive only that folder of the
	// tree: every later command runs at the top.
	out, err = git(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	top := strings.TrimSpace(string(out))
	tree := commit + ":" + clean
	// The commit is a full hex name, so tree cannot be taken for an option.
	typ, err := git(ctx, top, "cat-file", "-t", tree)
	if err != nil || strings.TrimSpace(string(typ)) != "tree" {
		var gerr *gitError
		if err == nil || errors.As(err, &gerr) && gerr.exit {
			return nil, fmt.Errorf("revision %s has no folder %q: name the catalog's folder, relative to the repository's top, with --catalog", rev, cmp.Or(clean, "."))
		}
		return nil, err
	}
	dir, err := os.MkdirTemp("", "signpost-diff-")
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", rev, err)
	}
	rc := &RevisionCatalog{Dir: dir, Commit: commit, Path: clean}
	if err := gitArchive(ctx, top, tree, dir); err != nil {
		_ = rc.Close()
		return nil, fmt.Errorf("extract %s:%s: %w", rev, clean, err)
	}
	return rc, nil
}

// gitArchive extracts the tree-ish tree into dir, reading git archive's
// output as it comes rather than holding it in memory.
func gitArchive(ctx context.Context, repo, tree, dir string) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCommand(ctx, repo, "archive", "--format=tar", tree)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return gitStartError(err)
	}
	xerr := extractTar(ctx, stdout, dir)
	if xerr != nil {
		cancel() // stop git rather than wait for it to write the rest
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if xerr != nil {
		return xerr
	}
	if werr != nil {
		return &gitError{args: []string{"archive"}, stderr: stderr.String(), exit: true, err: werr}
	}
	return nil
}

// cleanRepoPath checks a folder path relative to a repository's top and
// returns it slash-separated and clean, "" for the top.
func cleanRepoPath(p string) (string, error) {
	p = path.Clean(filepath.ToSlash(p))
	if p == "." {
		return "", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", fmt.Errorf("--catalog %q must be a folder inside the repository, relative to its top", p)
	}
	return p, nil
}

// extractTar writes the regular files and folders of a tar archive under
// dir, refusing anything else.
func extractTar(ctx context.Context, r io.Reader, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	var total int64
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n > revisionMaxEntries {
			return fmt.Errorf("more than %d files", revisionMaxEntries)
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read archive: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue // git's record of the commit id
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name == "" || path.Clean(name) != name || !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("refusing %q: it is not a path inside the catalog folder", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(filepath.FromSlash(name), 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if h.Size > revisionMaxEntry {
				return fmt.Errorf("refusing %s: %d bytes, more than the %d a declaration may have", name, h.Size, revisionMaxEntry)
			}
			if total += h.Size; total > revisionMaxTotal {
				return fmt.Errorf("refusing %s: the catalog is larger than %d bytes", name, revisionMaxTotal)
			}
			if err := root.MkdirAll(filepath.FromSlash(path.Dir(name)), 0o755); err != nil {
				return err
			}
			f, err := root.OpenFile(filepath.FromSlash(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("write %s: %w", name, err)
			}
		case tar.TypeSymlink, tar.TypeLink:
			return fmt.Errorf("refusing %s: a link; a catalog is read without following links, so replace it with the file", name)
		default:
			return fmt.Errorf("refusing %s: not a regular file or folder (tar type %q)", name, h.Typeflag)
		}
	}
}

// gitError is a git command that ran and failed.
type gitError struct {
	args   []string
	stderr string
	// exit is set when git ran and exited with a status, as opposed to
	// not starting or being stopped.
	exit bool
	err  error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", e.args[0], msg)
}

func (e *gitError) Unwrap() error { return e.err }

func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// No prompts, and messages in English: some are recognized below.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	return cmd
}

func gitStartError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("git is not installed or not on PATH: install it to compare revisions, or compare catalog folders and built sites instead")
	}
	return fmt.Errorf("run git: %w", err)
}

// git runs git in dir with a timeout and returns its standard output.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCommand(ctx, dir, args...)
	var stdout bytes.Buffer
	var stderr limitedBuffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, gitStartError(err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	if err != nil {
		var exitErr *exec.ExitError
		gerr := &gitError{args: args, stderr: stderr.String(), exit: errors.As(err, &exitErr), err: err}
		if strings.Contains(gerr.stderr, "not a git repository") {
			return nil, fmt.Errorf("%s is not inside a Git repository: run signpost diff in the repository, name it with --repo, or compare catalog folders and built sites instead", cmp.Or(dir, "."))
		}
		return nil, gerr
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
