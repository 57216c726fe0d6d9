package git

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// A folder's history: the commits that changed it, read from the
// repository's objects, each with its time and the files it changed.

// Commit is one commit of a folder's first-parent history.
type Commit struct {
	// Hash is the commit's full object name.
	Hash string
	// Time is its committer time, in seconds since the Unix epoch: when it
	// landed on the branch, for a commit of the first-parent history.
	Time int64
	// Changes are the files of the folder it changed against its first
	// parent, by name relative to the folder.
	Changes []Change
}

// Change is one file a commit changed: its blob before and after, ""
// where there is none (added, deleted).
type Change struct {
	Name     string
	Old, New string
}

// History is the first-parent history of a folder from a revision.
type History struct {
	// Head is the commit the revision resolved to, whether or not it
	// changed the folder; its Changes are not read.
	Head Commit
	// Commits changed the folder, newest first, at most as many as asked.
	Commits []Commit
	// Files are the blobs of the folder's files at Head, by name relative
	// to the folder.
	Files map[string]string
}

// FolderHistory reads the history of the folder dir (relative to the top
// of the repository that contains repo, "" for the top) from rev: the
// commits of rev's first-parent history that changed it, newest first, at
// most max, and its files at rev. A merge counts as the change it made to
// its first parent, as a branch sees it. A shallow clone's history stops
// at its graft. Its errors include an *OutsideError, a *NoRevisionError
// (an unborn branch's HEAD among them) and a *NotRepoError.
func FolderHistory(ctx context.Context, repo, rev, dir string, max int) (*History, error) {
	clean, err := cleanPath(dir)
	if err != nil {
		return nil, err
	}
	top, err := Top(ctx, repo)
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, top, "log", "-1", "--no-walk", "--format=%H %ct", "--end-of-options", rev+"^{commit}", "--")
	if err != nil {
		if exitedError(err) {
			return nil, &NoRevisionError{Rev: rev}
		}
		return nil, err
	}
	head, ok := parseCommitLine(strings.TrimSpace(string(out)))
	if !ok {
		return nil, fmt.Errorf("git log: unexpected commit line %q", out)
	}
	h := &History{Head: head, Files: map[string]string{}}
	// -m --first-parent: a merge as the diff against its first parent;
	// --raw -z: the blobs before and after, names as they are; the
	// pathspec is literal, never a pattern.
	out, err = run(ctx, top, "log", "-m", "--first-parent", "--no-renames", "--no-abbrev", "--raw", "-z",
		"--format=%x00%H %ct", "-n", strconv.Itoa(max), head.Hash, "--", ":(literal)"+cmp.Or(clean, "."))
	if err != nil {
		return nil, err
	}
	if h.Commits, err = parseLog(out, clean); err != nil {
		return nil, err
	}
	if len(h.Commits) == 0 {
		return h, nil // nothing there yet
	}
	// The folder's files at the newest commit that changed it are its
	// files at head.
	files, err := gitListTree(ctx, top, h.Commits[0].Hash+":"+clean, ExtractOptions{}, limits{entry: maxTotal, total: 1 << 62, files: maxFiles, scanned: maxScanned})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", label(rev, clean), err)
	}
	for _, f := range files {
		h.Files[f.name] = f.oid
	}
	return h, nil
}

// parseCommitLine reads "HASH TIME".
func parseCommitLine(s string) (Commit, bool) {
	hash, t, ok := strings.Cut(s, " ")
	secs, err := strconv.ParseInt(t, 10, 64)
	if !ok || !isObjectName(hash) || err != nil {
		return Commit{}, false
	}
	return Commit{Hash: hash, Time: secs}, true
}

// parseLog reads the output of git log --raw -z --format=%x00%H %ct: per
// commit, NUL, "HASH TIME", NUL, then per file changed ":MODES OLD NEW
// STATUS", NUL, NAME, NUL. Names are relative to the repository's top;
// they come back relative to the folder dir.
func parseLog(out []byte, dir string) ([]Commit, error) {
	var commits []Commit
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := strings.TrimPrefix(string(fields[i]), "\n")
		switch {
		case f == "":
			continue
		case strings.HasPrefix(f, ":"):
			if len(commits) == 0 || i+1 >= len(fields) {
				return nil, fmt.Errorf("git log: unexpected change %q", f)
			}
			i++
			name := string(fields[i])
			parts := strings.Fields(f)
			if len(parts) != 5 || !isObjectName(parts[2]) || !isObjectName(parts[3]) {
				return nil, fmt.Errorf("git log: unexpected change %q", f)
			}
			if dir != "" {
				rel, ok := strings.CutPrefix(name, dir+"/")
				if !ok {
					continue // outside the folder (not asked for)
				}
				name = rel
			}
			if path.Clean(name) != name || strings.HasPrefix(name, "../") {
				return nil, fmt.Errorf("git log: refusing the name %q", name)
			}
			// A link or a submodule is no file: as if it were not there.
			c := Change{Name: name, Old: fileBlob(strings.TrimPrefix(parts[0], ":"), parts[2]), New: fileBlob(parts[1], parts[3])}
			last := &commits[len(commits)-1]
			last.Changes = append(last.Changes, c)
		default:
			c, ok := parseCommitLine(f)
			if !ok {
				return nil, fmt.Errorf("git log: unexpected line %q", f)
			}
			commits = append(commits, c)
		}
	}
	return commits, nil
}

// fileBlob returns the blob oid of a file of mode, or "" for no object
// (all zeros) or an entry that is no regular file.
func fileBlob(mode, oid string) string {
	if strings.Trim(oid, "0") == "" || mode != "100644" && mode != "100755" {
		return ""
	}
	return oid
}

// BlobOptions bound what Blobs reads.
type BlobOptions struct {
	// MaxBlob is the largest blob read: a larger one is left out.
	MaxBlob int64
	// MaxTotal bounds the bytes of the blobs read together: Blobs stops
	// before the blob that would pass it and returns what it read, with
	// a *LimitError.
	MaxTotal int64
}

// Blobs reads the blobs oids of the repository that contains repo, in one
// git cat-file --batch: raw, without filters. A blob the repository does
// not have (a shallow or partial clone) or over opts.MaxBlob is left out
// of the result.
func Blobs(ctx context.Context, repo string, oids []string, opts BlobOptions) (map[string][]byte, error) {
	got := map[string][]byte{}
	if len(oids) == 0 {
		return got, nil
	}
	for _, o := range oids {
		if !isObjectName(o) {
			return nil, fmt.Errorf("git cat-file: %q is no object name", o)
		}
	}
	err := catFileBatch(ctx, repo, oids, func(ctx context.Context, r io.Reader) error {
		return readBatch(ctx, r, oids, opts, got)
	})
	var limit *LimitError
	switch {
	case errors.As(err, &limit):
		return got, err
	case err != nil:
		return nil, err
	}
	return got, nil
}

// readBatch reads the answers of git cat-file --batch to oids, in order.
func readBatch(ctx context.Context, r io.Reader, oids []string, opts BlobOptions, got map[string][]byte) error {
	br := bufio.NewReaderSize(r, maxRecord)
	var total int64
	for _, o := range oids {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("git cat-file: %w", errors.Join(ignoreEOF(err), io.ErrUnexpectedEOF))
		}
		head := strings.Fields(string(line))
		if len(head) == 2 && head[0] == o && head[1] == "missing" {
			continue
		}
		if len(head) != 3 || head[0] != o {
			return fmt.Errorf("git cat-file answered %q for %s", line, o)
		}
		size, err := strconv.ParseInt(head[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("git cat-file answered %q for %s", line, o)
		}
		if head[1] != "blob" || size > opts.MaxBlob {
			if _, err := br.Discard(int(size)); err != nil {
				return fmt.Errorf("git cat-file: %w", errors.Join(ignoreEOF(err), io.ErrUnexpectedEOF))
			}
		} else {
			if total+size > opts.MaxTotal {
				return limitErrorf("the blobs are larger than %d bytes", opts.MaxTotal)
			}
			total += size
			data := make([]byte, size)
			if _, err := io.ReadFull(br, data); err != nil {
				return fmt.Errorf("git cat-file: %w", errors.Join(ignoreEOF(err), io.ErrUnexpectedEOF))
			}
			got[o] = data
		}
		if b, err := br.ReadByte(); err != nil || b != '\n' {
			return errors.New("git cat-file: no line end after the content")
		}
	}
	return nil
}
