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
// Load reads (see extractTar), and a bounded whole: bytes and files
// extracted, and archive entries read, extracted or not.
const (
	revisionMaxEntry   = maxFileSize
	revisionMaxTotal   = 512 << 20
	revisionMaxEntries = 100_000
	revisionMaxScanned = 1_000_000
	// revisionMaxNotes bounds the notes of one extraction.
	revisionMaxNotes = 10
)

// extractLimits are the bounds of extractTar: the constants above, smaller
// in tests.
type extractLimits struct {
	entry          int64 // bytes Load reads of one file
	total          int64 // bytes extracted
	files, scanned int   // files extracted, archive entries read
}

func revisionLimits() extractLimits {
	return extractLimits{entry: revisionMaxEntry, total: revisionMaxTotal, files: revisionMaxEntries, scanned: revisionMaxScanned}
}

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
	// Notes are one-line remarks about what was not extracted that a
	// declaration might name (links to .json files), for the user.
	Notes []string
}

// NoCatalogError is the error of ExtractRevision when the revision has no
// folder at the catalog's path: a revision from before the catalog was
// added, or a wrong --catalog.
type NoCatalogError struct {
	// Rev is the revision as given; Path the catalog's folder, as Path of
	// RevisionCatalog.
	Rev, Path string
}

func (e *NoCatalogError) Error() string {
	return fmt.Sprintf("revision %s has no folder %q: name the catalog's folder, relative to the repository's top, with --catalog", e.Rev, cmp.Or(e.Path, "."))
}

// revisionLabel names a folder of a revision as git does, REV:PATH, or REV
// alone for the repository's top (git's "REV:" reads as a typo in a
// message).
func revisionLabel(rev, path string) string {
	if path == "" {
		return rev
	}
	return rev + ":" + path
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
// new temporary folder: only the files Load can read (see extractTar). It
// refuses archive entries that would land outside the folder, devices, and
// an absurd whole. When the revision has no such folder the error is a
// *NoCatalogError.
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
			return nil, &NoCatalogError{Rev: rev, Path: clean}
		}
		return nil, err
	}
	dir, err := os.MkdirTemp("", "signpost-diff-")
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", rev, err)
	}
	rc := &RevisionCatalog{Dir: dir, Commit: commit, Path: clean}
	if rc.Notes, err = gitArchive(ctx, top, tree, dir); err != nil {
		_ = rc.Close()
		return nil, fmt.Errorf("extract %s: %w", revisionLabel(rev, clean), err)
	}
	return rc, nil
}

// gitArchive extracts the tree-ish tree into dir, reading git archive's
// output as it comes rather than holding it in memory.
func gitArchive(ctx context.Context, repo, tree, dir string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCommand(ctx, repo, "archive", "--format=tar", tree)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, gitStartError(err)
	}
	notes, xerr := extractTar(ctx, stdout, dir, revisionLimits())
	if xerr != nil {
		cancel() // stop git rather than wait for it to write the rest
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if xerr != nil {
		return nil, xerr
	}
	if werr != nil {
		return nil, &gitError{args: []string{"archive"}, stderr: stderr.String(), exit: true, err: werr}
	}
	return notes, nil
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

// loadable reports whether Load may read the file at name (slash-separated,
// relative to the catalog folder): a .yaml or .yml declaration outside
// folders whose names start with "." (findFiles skips them), or a .json
// file anywhere, which a declaration may name (resolvePath accepts any
// .json path inside the folder).
func loadable(name string) bool {
	switch path.Ext(name) {
	case ".json":
		return true
	case ".yaml", ".yml":
		for dir := range strings.SplitSeq(path.Dir(name), "/") {
			if strings.HasPrefix(dir, ".") && dir != "." {
				return false
			}
		}
		return true
	}
	return false
}

// extractTar writes under dir the files of a tar archive that Load may
// read (see loadable), and returns notes about what it left out that a
// declaration might name. Everything else is skipped whatever its size:
// other files, links (a catalog is read without following links; a link
// to a .json file gets a note) and folders (created as files need them).
// A file Load may read that is larger than Load reads becomes a file of
// zeros one byte over the limit (sparse where the file system allows), so
// that Load reports it as too large, as it would in a checkout. It refuses
// entries that would land outside dir, devices and other special files,
// and more than lim.files files or lim.total bytes extracted, or
// lim.scanned entries read.
func extractTar(ctx context.Context, r io.Reader, dir string, lim extractLimits) ([]string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	notes := []string{}
	skippedLinks := 0
	var total int64
	files := 0
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read archive: %w", err)
		}
		if n >= lim.scanned {
			return nil, fmt.Errorf("more than %d entries: name the catalog's own folder with --catalog", lim.scanned)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue // git's record of the commit id
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name == "" || path.Clean(name) != name || !filepath.IsLocal(filepath.FromSlash(name)) {
			return nil, fmt.Errorf("refusing %q: it is not a path inside the catalog folder", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			// Created when a file needs it: Load reads no empty folder.
		case tar.TypeReg:
			if !loadable(name) {
				continue
			}
			if files++; files > lim.files {
				return nil, fmt.Errorf("refusing %s: more than %d declaration and .json files: name the catalog's own folder with --catalog", name, lim.files)
			}
			if h.Size <= lim.entry {
				if total += h.Size; total > lim.total {
					return nil, fmt.Errorf("refusing %s: the declaration and .json files are larger than %d bytes: name the catalog's own folder with --catalog", name, lim.total)
				}
			}
			if err := extractFile(root, tr, name, h.Size, lim.entry); err != nil {
				return nil, err
			}
		case tar.TypeSymlink, tar.TypeLink:
			if path.Ext(name) != ".json" {
				continue // Load never reads a link as a declaration
			}
			if skippedLinks++; skippedLinks <= revisionMaxNotes {
				notes = append(notes, fmt.Sprintf("skipped %s: a link, and links are not followed in a revision; a declaration that names it will not find it", name))
			}
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return nil, fmt.Errorf("refusing %s: a device or pipe, not a file", name)
		default:
			return nil, fmt.Errorf("refusing %s: not a regular file, link or folder (tar type %q)", name, h.Typeflag)
		}
	}
	if skippedLinks > revisionMaxNotes {
		notes = append(notes, fmt.Sprintf("skipped %d more links to .json files", skippedLinks-revisionMaxNotes))
	}
	return notes, nil
}

// extractFile writes one file of the archive, of size bytes, at name under
// root; a file over limit becomes limit+1 zero bytes.
func extractFile(root *os.Root, r io.Reader, name string, size, limit int64) error {
	if err := root.MkdirAll(filepath.FromSlash(path.Dir(name)), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	f, err := root.OpenFile(filepath.FromSlash(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if size > limit {
		// Load reads no more than the limit and one byte: what they hold
		// does not matter, only that there are that many.
		err = f.Truncate(limit + 1)
	} else {
		_, err = io.Copy(f, io.LimitReader(r, size))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
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
