package build

import (
	"bufio"
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
	"strconv"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/source"
)

// Limits of a catalog extracted from a Git revision: no file larger than
// Load reads (see extractTree), and a bounded whole: bytes and files
// extracted, and tree entries read, extracted or not.
const (
	revisionMaxEntry   = source.MaxFileSize
	revisionMaxTotal   = 512 << 20
	revisionMaxEntries = 100_000
	revisionMaxScanned = 1_000_000
	// revisionMaxNotes bounds the notes of one extraction.
	revisionMaxNotes = 10
	// revisionMaxRecord bounds one line of git's output: a path and an
	// object's name, far longer than any a checkout could hold.
	revisionMaxRecord = 64 << 10
)

// extractLimits are the bounds of extractTree: the constants above,
// smaller in tests.
type extractLimits struct {
	entry          int64 // bytes Load reads of one file
	total          int64 // bytes extracted
	files, scanned int   // files extracted, tree entries read
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
	// declaration might name (links to .json files, submodules), for the
	// user. They hold the repository's file names as they are.
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
	return strings.TrimSuffix(strings.TrimSuffix(string(out), "\n"), "/"), nil
}

// gitTop returns the top folder of the Git repository that contains dir,
// as git prints it.
func gitTop(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// GitFolder returns the path of the folder dir relative to the top of the
// Git repository that contains repo, as GitPrefix does, and true when dir
// is a folder of that same repository; false when it is in no repository
// or in another one (a submodule, a nested repository).
func GitFolder(ctx context.Context, repo, dir string) (string, bool, error) {
	top, err := gitTop(ctx, repo)
	if err != nil {
		return "", false, err
	}
	dirTop, err := gitTop(ctx, dir)
	var notRepo *notRepoError
	var gerr *gitError
	switch {
	case errors.As(err, &notRepo), errors.As(err, &gerr) && gerr.exit:
		return "", false, nil
	case err != nil:
		return "", false, err
	case dirTop != top:
		return "", false, nil
	}
	prefix, err := GitPrefix(ctx, dir)
	if err != nil {
		return "", false, err
	}
	return prefix, true, nil
}

// ExtractRevision resolves rev (a branch, a tag, HEAD~1, a commit SHA) in
// the Git repository that contains repo and extracts the folder catalog
// (relative to the repository's top; "" is the top) at that commit into a
// new temporary folder: only the files Load can read (see extractTree),
// as the commit holds them, whatever its .gitattributes say. It refuses
// tree entries that would land outside the folder and an absurd whole.
// When the revision has no such path the error is a *NoCatalogError; a
// file or submodule there is another error.
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
	// git resolves COMMIT:PATH from the top whatever the folder it runs
	// in, but ls-tree lists only the current folder's part of a tree
	// without --full-tree: every later command runs at the top.
	top, err := gitTop(ctx, repo)
	if err != nil {
		return nil, err
	}
	// The commit is a full hex name, so tree cannot be taken for an
	// option, and PATH after the colon is read as it is, never as a
	// pattern.
	tree := commit + ":" + clean
	typ, err := git(ctx, top, "cat-file", "-t", tree)
	if err != nil {
		var gerr *gitError
		if errors.As(err, &gerr) && gerr.exit {
			return nil, &NoCatalogError{Rev: rev, Path: clean}
		}
		return nil, err
	}
	if t := strings.TrimSpace(string(typ)); t != "tree" {
		what := "a file"
		if t == "commit" {
			what = "a submodule"
		}
		return nil, fmt.Errorf("revision %s has no folder %q but %s: name the catalog's folder, relative to the repository's top, with --catalog", rev, cmp.Or(clean, "."), what)
	}
	dir, err := os.MkdirTemp("", "signpost-diff-")
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", rev, err)
	}
	rc := &RevisionCatalog{Dir: dir, Commit: commit, Path: clean}
	if rc.Notes, err = extractTree(ctx, top, tree, dir, revisionLimits()); err != nil {
		_ = rc.Close()
		return nil, fmt.Errorf("extract %s: %w", revisionLabel(rev, clean), err)
	}
	return rc, nil
}

// extractTree writes into dir the files of the Git tree tree (COMMIT:PATH)
// that Load may read, read from the repository's objects: git ls-tree
// lists the tree and git cat-file gives the files. Unlike git archive,
// neither applies the commit's .gitattributes, which could leave a file
// out (export-ignore) or rewrite it (export-subst) and so hide a change
// from the review. See listTree for what is extracted.
func extractTree(ctx context.Context, repo, tree, dir string, lim extractLimits) ([]string, error) {
	files, notes, err := gitListTree(ctx, repo, tree, lim)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Larger than Load reads: what they hold does not matter, only their
	// size, so they are not read.
	var small []treeFile
	for _, f := range files {
		if f.size > lim.entry {
			if err := extractFile(root, f.name, nil, f.size, lim.entry); err != nil {
				return nil, err
			}
			continue
		}
		small = append(small, f)
	}
	if err := gitWriteBlobs(ctx, repo, root, small); err != nil {
		return nil, err
	}
	return notes, nil
}

// treeFile is one file of a tree that Load may read.
type treeFile struct {
	name string // slash-separated, relative to the tree
	oid  string // the blob's object name
	size int64
}

// gitListTree runs git ls-tree on tree and reads its output as it comes
// (see listTree), rather than holding it in memory.
func gitListTree(ctx context.Context, repo, tree string, lim extractLimits) ([]treeFile, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// -r: files of every folder, without the folders; -l: with sizes; -z:
	// names as they are, not quoted, each ended by NUL.
	cmd := gitCommand(ctx, repo, "ls-tree", "-r", "-l", "-z", "--full-tree", tree)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, gitStartError(err)
	}
	files, notes, lerr := listTree(ctx, stdout, lim)
	if lerr != nil {
		cancel() // stop git rather than wait for it to write the rest
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if lerr != nil {
		return nil, nil, lerr
	}
	if ctx.Err() != nil {
		return nil, nil, fmt.Errorf("git ls-tree: %w", ctx.Err())
	}
	if werr != nil {
		return nil, nil, &gitError{args: []string{"ls-tree"}, stderr: stderr.String(), exit: true, err: werr}
	}
	return files, notes, nil
}

// listTree reads the output of git ls-tree -r -l -z and returns the files
// Load may read (see Reads), and notes about what it left out that a
// declaration might name. Everything else is skipped whatever its size:
// other files, links (a catalog is read without following links; a link
// to a .json file gets a note) and submodules (their files are in another
// repository; each gets a note). It counts a file larger than Load reads
// as one byte over the limit, as extractTree writes it. It refuses
// entries that would land outside the tree's folder, entries that are
// none of those, and more than lim.files files or lim.total bytes to
// extract, or lim.scanned entries read.
func listTree(ctx context.Context, r io.Reader, lim extractLimits) ([]treeFile, []string, error) {
	br := bufio.NewReaderSize(r, revisionMaxRecord)
	var files []treeFile
	notes := []string{}
	skipped := 0
	note := func(s string) {
		if skipped++; skipped <= revisionMaxNotes {
			notes = append(notes, s)
		}
	}
	var total int64
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		rec, err := br.ReadSlice(0)
		if errors.Is(err, io.EOF) && len(rec) == 0 {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, nil, fmt.Errorf("read git ls-tree: an entry is longer than %d bytes", revisionMaxRecord)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("read git ls-tree: %w", err)
		}
		if n >= lim.scanned {
			return nil, nil, fmt.Errorf("more than %d entries: name the catalog's own folder with --catalog", lim.scanned)
		}
		// MODE SP TYPE SP OBJECT SP SIZE TAB NAME NUL, SIZE padded with
		// spaces, "-" for submodules.
		meta, name, ok := strings.Cut(strings.TrimSuffix(string(rec), "\x00"), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || !isObjectName(fields[2]) {
			return nil, nil, fmt.Errorf("read git ls-tree: unexpected entry %q", rec)
		}
		mode, typ, oid := fields[0], fields[1], fields[2]
		if name == "" || name == "." || path.Clean(name) != name || !filepath.IsLocal(filepath.FromSlash(name)) {
			return nil, nil, fmt.Errorf("refusing %q: it is not a path inside the catalog folder", name)
		}
		var want string
		switch mode {
		case "100644", "100755", "120000":
			want = "blob"
		case "160000":
			want = "commit"
		default:
			return nil, nil, fmt.Errorf("refusing %s: not a file, link or submodule (mode %s)", name, mode)
		}
		if typ != want {
			return nil, nil, fmt.Errorf("refusing %s: a %s object with mode %s, where git writes a %s", name, typ, mode, want)
		}
		switch mode {
		case "100644", "100755":
			if !Reads(name) {
				continue
			}
			size, err := strconv.ParseInt(fields[3], 10, 64)
			if err != nil || size < 0 {
				return nil, nil, fmt.Errorf("read git ls-tree: unexpected size %q of %s", fields[3], name)
			}
			if len(files) >= lim.files {
				return nil, nil, fmt.Errorf("refusing %s: more than %d declaration and .json files: name the catalog's own folder with --catalog", name, lim.files)
			}
			// A file over the limit is written as limit+1 bytes.
			if total += min(size, lim.entry+1); total > lim.total {
				return nil, nil, fmt.Errorf("refusing %s: the declaration and .json files are larger than %d bytes: name the catalog's own folder with --catalog", name, lim.total)
			}
			files = append(files, treeFile{name: name, oid: oid, size: size})
		case "120000":
			if path.Ext(name) == ".json" {
				note(fmt.Sprintf("skipped %s: a link, and links are not followed in a revision; a declaration that names it will not find it", name))
			}
			// Load never reads a link as a declaration.
		case "160000":
			note(fmt.Sprintf("skipped %s: a submodule, and submodules are not read in a revision; its declarations and .json files are left out", name))
		}
	}
	if skipped > revisionMaxNotes {
		notes = append(notes, fmt.Sprintf("skipped %d more links to .json files and submodules", skipped-revisionMaxNotes))
	}
	return files, notes, nil
}

// isObjectName reports whether s is a full object name: 40 hex digits
// (SHA-1) or 64 (SHA-256).
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// gitWriteBlobs writes files under root, reading their content from one
// git cat-file --batch: raw, without filters or conversions.
func gitWriteBlobs(ctx context.Context, repo string, root *os.Root, files []treeFile) error {
	if len(files) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := gitCommand(ctx, repo, "cat-file", "--batch")
	// At most lim.files names of 65 bytes: small enough to hand over at
	// once, and exec writes it while git answers.
	var names bytes.Buffer
	for _, f := range files {
		names.WriteString(f.oid + "\n")
	}
	cmd.Stdin = &names
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return gitStartError(err)
	}
	rerr := readBlobs(ctx, stdout, root, files)
	// Whether the time ran out is decided before cancelling below, which
	// would make every read error look like one.
	timedOut := ctx.Err()
	if rerr != nil {
		cancel()
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if timedOut != nil {
		// A timeout kills git: say so, rather than what reading saw.
		return fmt.Errorf("git cat-file: %w", timedOut)
	}
	if rerr != nil {
		return rerr
	}
	if werr != nil {
		return &gitError{args: []string{"cat-file"}, stderr: stderr.String(), exit: true, err: werr}
	}
	return nil
}

// readBlobs reads the answers of git cat-file --batch to the names of
// files, in order ("OBJECT blob SIZE LF CONTENT LF" each), and writes each
// file under root. An answer other than the blob of the size git ls-tree
// listed is an error.
func readBlobs(ctx context.Context, r io.Reader, root *os.Root, files []treeFile) error {
	br := bufio.NewReaderSize(r, revisionMaxRecord)
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("read %s: git cat-file: %w", f.name, cmp.Or(ignoreEOF(err), io.ErrUnexpectedEOF))
		}
		want := fmt.Sprintf("%s blob %d\n", f.oid, f.size)
		if string(line) == f.oid+" missing\n" {
			return fmt.Errorf("read %s: the repository does not have its object %s (a shallow or partial clone?): fetch the revision's history, then compare again", f.name, f.oid)
		}
		if string(line) != want {
			return fmt.Errorf("read %s: git cat-file answered %q, not %q", f.name, line, want)
		}
		if err := extractFile(root, f.name, br, f.size, f.size); err != nil {
			return err
		}
		if b, err := br.ReadByte(); err != nil || b != '\n' {
			return fmt.Errorf("read %s: git cat-file: no line end after the content", f.name)
		}
	}
	return nil
}

// ignoreEOF returns err, or nil for io.EOF.
func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
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

// extractFile writes a file of size bytes read from r at name under root,
// creating its folders; a file over limit becomes limit+1 zero bytes
// (sparse where the file system allows), and r is not read: Load reads no
// more than the limit and one byte, so that it reports the file as too
// large, as it would in a checkout. A name already written is an error.
func extractFile(root *os.Root, name string, r io.Reader, size, limit int64) error {
	if err := root.MkdirAll(filepath.FromSlash(path.Dir(name)), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	f, err := root.OpenFile(filepath.FromSlash(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if size > limit {
		err = f.Truncate(limit + 1)
	} else {
		_, err = io.CopyN(f, r, size)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
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
	// Replace refs are local: a revision is read as its objects are, not
	// as a local replacement would show it.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_NO_REPLACE_OBJECTS=1")
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
			return nil, &notRepoError{dir: dir}
		}
		return nil, gerr
	}
	return stdout.Bytes(), nil
}

// notRepoError is a git command run outside a Git repository.
type notRepoError struct{ dir string }

func (e *notRepoError) Error() string {
	return fmt.Sprintf("%s is not inside a Git repository: run signpost diff in the repository, name it with --repo, or compare catalog folders and built sites instead", cmp.Or(e.dir, "."))
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
