// Package inputs digests what a build's output depends on: the files of the
// catalog folder and the signpost that builds them, with whatever else the
// caller names (a publish target). A build is deterministic, so two builds
// of one digest are the same bytes: a publish records the digest with each
// site, and a later publish from the same digest can tell from the bucket
// alone that building again would change nothing.
package inputs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Bounds of what Digest reads. A catalog folder is small; one that is not
// (a repository's top with its dependencies) has no digest and is built.
const (
	maxFiles = 100_000
	maxBytes = 1 << 30
)

// format versions the digest: a change of what it covers changes it.
const format = "signpost-inputs/1"

// ErrNoDigest is the error of a folder Digest declines: over its bounds, or
// holding an entry that is neither a folder nor a regular file (a link,
// whose target may change without the folder changing).
var ErrNoDigest = errors.New("no digest of the catalog folder")

// Digest returns the hex SHA-256 of extra, of the running executable, and
// of the path and bytes of every file under the folder dir, except in .git
// folders.
func Digest(ctx context.Context, dir string, extra []byte) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d\n%s\n", format, len(extra), extra)
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if err := hashFile(ctx, h, func() (io.ReadCloser, error) { return os.Open(exe) }); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	files, total := 0, int64(0)
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case d.IsDir() && d.Name() == ".git":
			return fs.SkipDir
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%w: %s is not a regular file", ErrNoDigest, p)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if files++; files > maxFiles {
			return fmt.Errorf("%w: more than %d files", ErrNoDigest, maxFiles)
		}
		if total += fi.Size(); total > maxBytes {
			return fmt.Errorf("%w: more than %d bytes", ErrNoDigest, maxBytes)
		}
		fmt.Fprintf(h, "file %s\n", strconv.Quote(p))
		return hashFile(ctx, h, func() (io.ReadCloser, error) { return root.Open(p) })
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile writes the length and SHA-256 of the file open opens to h.
func hashFile(ctx context.Context, h io.Writer, open func() (io.ReadCloser, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := open()
	if err != nil {
		return err
	}
	defer f.Close()
	fh := sha256.New()
	n, err := io.Copy(fh, f)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(h, "%d %x\n", n, fh.Sum(nil))
	return err
}
