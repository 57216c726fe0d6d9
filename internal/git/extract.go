package git

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Bounds of a folder extracted from a revision, whatever the options say:
// bytes and files extracted, and tree entries read, extracted or not.
const (
	maxTotal   = 512 << 20
	maxFiles   = 100_000
	maxScanned = 1_000_000
	// maxRecord bounds one line of git's output: a path and an object's
	// name, far longer than any a checkout could hold.
	maxRecord = 64 << 10
)

// ExtractOptions say which files of a folder Extract writes, and how much
// of each: the rule of whatever reads the folder afterwards.
type ExtractOptions struct {
	// Keep reports whether to extract the file at name, slash-separated
	// and relative to the folder; nil keeps every file. Links and
	// submodules are never extracted.
	Keep func(name string) bool
	// MaxFile is the most bytes of one file the reader reads. A larger
	// file is not read from the repository but written as MaxFile+1 zero
	// bytes, so that the reader sees it as too large, as it would in a
	// checkout. 0 is no limit but the bound on the whole.
	MaxFile int64
	// Files names the files Keep keeps, in messages ("files" when empty).
	Files string
	// Skipped, when set, is told of each link and submodule of the folder,
	// which Extract leaves out: it follows no link and reads no submodule.
	Skipped func(name string, submodule bool)
}

// limits are the bounds of extractTree: those of the options and the
// constants above, smaller in tests.
type limits struct {
	entry          int64 // bytes read of one file
	total          int64 // bytes extracted
	files, scanned int   // files extracted, tree entries read
}

func (o ExtractOptions) limits() limits {
	lim := limits{entry: o.MaxFile, total: maxTotal, files: maxFiles, scanned: maxScanned}
	if lim.entry <= 0 {
		// No file over the whole can be extracted anyway.
		lim.entry = lim.total
	}
	return lim
}

// Revision is a folder extracted from a Git revision into a temporary
// folder. Remove it with Close.
type Revision struct {
	// Dir is the temporary folder that holds the extracted files.
	Dir string
	// Commit is the full name of the commit the revision resolved to.
	Commit string
	// Path is the folder's path inside the repository, slash-separated and
	// relative to its top ("" is the top).
	Path string
}

// Close removes the extracted folder.
func (r *Revision) Close() error { return os.RemoveAll(r.Dir) }

// NoFolderError is the error of Extract when the revision has no folder at
// the path asked for: nothing there, or something else than a folder.
type NoFolderError struct {
	// Rev is the revision as given; Path the folder's, as Path of
	// Revision.
	Rev, Path string
	// Found is what the revision holds at Path instead: "" for nothing,
	// else "a file" or "a submodule".
	Found string
}

func (e *NoFolderError) Error() string {
	msg := fmt.Sprintf("revision %s has no folder %q", e.Rev, cmp.Or(e.Path, "."))
	if e.Found != "" {
		msg += " but " + e.Found
	}
	return msg
}

// NoRevisionError is the error of Extract when the revision names no
// commit of the repository.
type NoRevisionError struct {
	// Rev is the revision as given.
	Rev string
}

func (e *NoRevisionError) Error() string {
	return fmt.Sprintf("%q is no commit, branch or tag of the Git repository", e.Rev)
}

// OutsideError is the error of Extract when the folder's path is not
// inside the repository.
type OutsideError struct {
	// Path is the path as given, slash-separated and cleaned.
	Path string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%q must be a folder inside the repository, relative to its top", e.Path)
}

// LimitError is the error of Extract when the folder holds more than it
// extracts: too many entries, or too many or too large files to keep. The
// message says which.
type LimitError struct{ msg string }

func (e *LimitError) Error() string { return e.msg }

func limitErrorf(format string, args ...any) error {
	return &LimitError{msg: fmt.Sprintf(format, args...)}
}

// label names a folder of a revision as git does, REV:PATH, or REV alone
// for the repository's top (git's "REV:" reads as a typo in a message).
func label(rev, path string) string {
	if path == "" {
		return rev
	}
	return rev + ":" + path
}

// Extract resolves rev (a branch, a tag, HEAD~1, a commit SHA) in the Git
// repository that contains repo and extracts the folder dir (relative to
// the repository's top; "" is the top) at that commit into a new temporary
// folder: only the files opts keeps, as the commit holds them, whatever
// its .gitattributes say. It refuses tree entries that would land outside
// the folder and an absurd whole. Its errors include an *OutsideError, a
// *NoRevisionError, a *NoFolderError and a *LimitError.
func Extract(ctx context.Context, repo, rev, dir string, opts ExtractOptions) (*Revision, error) {
	clean, err := cleanPath(dir)
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if exitedError(err) {
			return nil, &NoRevisionError{Rev: rev}
		}
		return nil, err
	}
	commit := strings.TrimSpace(string(out))
	// git resolves COMMIT:PATH from the top whatever the folder it runs
	// in, but ls-tree lists only the current folder's part of a tree
	// without --full-tree: every later command runs at the top.
	top, err := Top(ctx, repo)
	if err != nil {
		return nil, err
	}
	// The commit is a full hex name, so tree cannot be taken for an
	// option, and PATH after the colon is read as it is, never as a
	// pattern.
	tree := commit + ":" + clean
	typ, err := run(ctx, top, "cat-file", "-t", tree)
	if err != nil {
		if exitedError(err) {
			return nil, &NoFolderError{Rev: rev, Path: clean}
		}
		return nil, err
	}
	if t := strings.TrimSpace(string(typ)); t != "tree" {
		found := "a file"
		if t == "commit" {
			found = "a submodule"
		}
		return nil, &NoFolderError{Rev: rev, Path: clean, Found: found}
	}
	tmp, err := os.MkdirTemp("", "signpost-diff-")
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", rev, err)
	}
	r := &Revision{Dir: tmp, Commit: commit, Path: clean}
	if err := extractTree(ctx, top, tree, tmp, opts, opts.limits()); err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("extract %s: %w", label(rev, clean), err)
	}
	return r, nil
}

// cleanPath checks a folder path relative to a repository's top and
// returns it slash-separated and clean, "" for the top.
func cleanPath(p string) (string, error) {
	p = path.Clean(filepath.ToSlash(p))
	if p == "." {
		return "", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", &OutsideError{Path: p}
	}
	return p, nil
}

// extractTree writes into dir the files of the Git tree tree (COMMIT:PATH)
// that opts keeps, read from the repository's objects: git ls-tree lists
// the tree and git cat-file gives the files. Unlike git archive, neither
// applies the commit's .gitattributes, which could leave a file out
// (export-ignore) or rewrite it (export-subst) and so hide a change from
// the review. See listTree for what is extracted.
func extractTree(ctx context.Context, repo, tree, dir string, opts ExtractOptions, lim limits) error {
	files, err := gitListTree(ctx, repo, tree, opts, lim)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	// Larger than the reader reads: what they hold does not matter, only
	// their size, so they are not read.
	var small []treeFile
	for _, f := range files {
		if f.size > lim.entry {
			if err := extractFile(root, f.name, nil, f.size, lim.entry); err != nil {
				return err
			}
			continue
		}
		small = append(small, f)
	}
	return gitWriteBlobs(ctx, repo, root, small)
}

// treeFile is one file of a tree to extract.
type treeFile struct {
	name string // slash-separated, relative to the tree
	oid  string // the blob's object name
	size int64
}

// gitListTree runs git ls-tree on tree and reads its output as it comes
// (see listTree), rather than holding it in memory.
func gitListTree(ctx context.Context, repo, tree string, opts ExtractOptions, lim limits) ([]treeFile, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// -r: files of every folder, without the folders; -l: with sizes; -z:
	// names as they are, not quoted, each ended by NUL.
	cmd := command(ctx, repo, "ls-tree", "-r", "-l", "-z", "--full-tree", tree)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, startError(err)
	}
	files, lerr := listTree(ctx, stdout, opts, lim)
	if lerr != nil {
		cancel() // stop git rather than wait for it to write the rest
	}
	_, _ = io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if lerr != nil {
		return nil, lerr
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("git ls-tree: %w", ctx.Err())
	}
	if werr != nil {
		return nil, newError("ls-tree", stderr.String(), true, werr)
	}
	return files, nil
}

// listTree reads the output of git ls-tree -r -l -z and returns the files
// opts keeps. Everything else is skipped whatever its size: other files,
// links (never followed) and submodules (their files are in another
// repository); opts.Skipped is told of each link and submodule. It counts
// a file larger than lim.entry as one byte over it, as extractTree writes
// it. It refuses entries that would land outside the tree's folder,
// entries that are none of those, and more than lim.files files or
// lim.total bytes to extract, or lim.scanned entries read.
func listTree(ctx context.Context, r io.Reader, opts ExtractOptions, lim limits) ([]treeFile, error) {
	br := bufio.NewReaderSize(r, maxRecord)
	kept := cmp.Or(opts.Files, "files")
	var files []treeFile
	var total int64
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := br.ReadSlice(0)
		if errors.Is(err, io.EOF) && len(rec) == 0 {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("read git ls-tree: an entry is longer than %d bytes", maxRecord)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read git ls-tree: %w", err)
		}
		if n >= lim.scanned {
			return nil, limitErrorf("more than %d entries", lim.scanned)
		}
		// MODE SP TYPE SP OBJECT SP SIZE TAB NAME NUL, SIZE padded with
		// spaces, "-" for submodules.
		meta, name, ok := strings.Cut(strings.TrimSuffix(string(rec), "\x00"), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || !isObjectName(fields[2]) {
			return nil, fmt.Errorf("read git ls-tree: unexpected entry %q", rec)
		}
		mode, typ, oid := fields[0], fields[1], fields[2]
		if name == "" || name == "." || path.Clean(name) != name || !filepath.IsLocal(filepath.FromSlash(name)) {
			return nil, fmt.Errorf("refusing %q: it is not a path inside the catalog folder", name)
		}
		var want string
		switch mode {
		case "100644", "100755", "120000":
			want = "blob"
		case "160000":
			want = "commit"
		default:
			return nil, fmt.Errorf("refusing %s: not a file, link or submodule (mode %s)", name, mode)
		}
		if typ != want {
			return nil, fmt.Errorf("refusing %s: a %s object with mode %s, where git writes a %s", name, typ, mode, want)
		}
		switch mode {
		case "100644", "100755":
			if opts.Keep != nil && !opts.Keep(name) {
				continue
			}
			size, err := strconv.ParseInt(fields[3], 10, 64)
			if err != nil || size < 0 {
				return nil, fmt.Errorf("read git ls-tree: unexpected size %q of %s", fields[3], name)
			}
			if len(files) >= lim.files {
				return nil, limitErrorf("refusing %s: more than %d %s", name, lim.files, kept)
			}
			// A file over the limit is written as limit+1 bytes.
			if total += min(size, lim.entry+1); total > lim.total {
				return nil, limitErrorf("refusing %s: the %s are larger than %d bytes", name, kept, lim.total)
			}
			files = append(files, treeFile{name: name, oid: oid, size: size})
		case "120000", "160000":
			if opts.Skipped != nil {
				opts.Skipped(name, mode == "160000")
			}
		}
	}
	return files, nil
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
	oids := make([]string, len(files))
	for i, f := range files {
		oids[i] = f.oid
	}
	return catFileBatch(ctx, repo, oids, func(ctx context.Context, r io.Reader) error {
		return readBlobs(ctx, r, root, files)
	})
}

// catFileBatch runs one git cat-file --batch on the objects oids, within
// the timeout, and hands its answers to read. Its error is, in this
// order: the timeout, read's, git's own.
func catFileBatch(ctx context.Context, repo string, oids []string, read func(context.Context, io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := command(ctx, repo, "cat-file", "--batch")
	// At most lim.files names of 65 bytes: small enough to hand over at
	// once, and exec writes it while git answers.
	var names bytes.Buffer
	for _, o := range oids {
		names.WriteString(o + "\n")
	}
	cmd.Stdin = &names
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return startError(err)
	}
	rerr := read(ctx, stdout)
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
		return newError("cat-file", stderr.String(), true, werr)
	}
	return nil
}

// readBlobs reads the answers of git cat-file --batch to the names of
// files, in order ("OBJECT blob SIZE LF CONTENT LF" each), and writes each
// file under root. An answer other than the blob of the size git ls-tree
// listed is an error.
func readBlobs(ctx context.Context, r io.Reader, root *os.Root, files []treeFile) error {
	br := bufio.NewReaderSize(r, maxRecord)
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

// extractFile writes a file of size bytes read from r at name under root,
// creating its folders; a file over limit becomes limit+1 zero bytes
// (sparse where the file system allows), and r is not read: the reader
// reads no more than the limit and one byte, so that it reports the file
// as too large, as it would in a checkout. A name already written is an
// error.
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
