// Package atomicfile writes files and folders so that a reader, or a run
// that stops half-way, never sees part of them: the old content or the new,
// never a mix (a replaced folder is missing for the moment between two
// renames, never half-written).
package atomicfile

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sync/errgroup"
)

// workers is how many folders WriteDir writes at once: creating files waits
// on the filesystem more than on the CPU.
const workers = 8

// File is one file of a folder WriteDir writes.
type File struct {
	Path string // slash-separated, relative to the folder
	Body []byte
	// Content, when set, follows Body: bytes of a known size that write
	// themselves, such as a document assembled from parts that other
	// files share, or held on disk until written; never joined in memory
	// first.
	Content Sized
	// Stream, when set, writes what follows Content: a large file made as
	// it is written, never held whole.
	Stream func(w io.Writer) error
}

// Sized is bytes of a known size that write themselves.
type Sized interface {
	Len() int64
	io.WriterTo
}

// WriteFile replaces the file at path with data, creating its folder. The
// file is written beside path and renamed into place, unless ctx is done
// before the rename.
func WriteFile(ctx context.Context, path string, data []byte) error {
	return writeMode(ctx, path, data, 0o644)
}

// WritePrivate is WriteFile for a file only its owner may read or write,
// such as one holding secrets: it is never readable by others, not even
// for a moment.
func WritePrivate(ctx context.Context, path string, data []byte) error {
	return writeMode(ctx, path, data, 0o600)
}

func writeMode(ctx context.Context, path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// WriteDir writes files into a new temporary folder beside dir, then puts
// that folder in dir's place: between the two renames dir is briefly
// missing, never half-written. On failure, cancellation included, dir is
// left as it was and the temporary folder is removed. The caller decides
// beforehand whether dir may be replaced at all.
func WriteDir(ctx context.Context, dir string, files []File) error {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	// The folders first, each once: a site has tens of folders and tens of
	// thousands of files, and a MkdirAll per file is a stat per file.
	// Then the files, folder by folder: creating a file takes its folder's
	// lock in the kernel, so that creators in one folder only wait on each
	// other (eight of them spent three times the system time of one on a
	// site of 40,000 files in four folders), while folders are written at
	// the same time.
	byDir := map[string][]int{} // of files: a build's are hundreds of thousands
	for i, f := range files {
		d := filepath.Dir(filepath.Join(tmp, filepath.FromSlash(f.Path)))
		byDir[d] = append(byDir[d], i)
	}
	for d := range byDir {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, d := range slices.Sorted(maps.Keys(byDir)) {
		g.Go(func() error {
			var scratch []byte // of writeFile, reused
			for _, i := range byDir[d] {
				if err := gctx.Err(); err != nil {
					return err
				}
				f := files[i]
				if err := writeFile(gctx, filepath.Join(tmp, filepath.FromSlash(f.Path)), f, &scratch); err != nil {
					return fmt.Errorf("write %s: %w", f.Path, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := swap(tmp, dir); err != nil {
		return err
	}
	done = true
	return nil
}

// writeFile creates the file name with f's Body, Content and Stream. A
// file of much content, or a stream (hundreds of megabytes of route
// table), looks at ctx as it goes, and returns its error once ctx is done.
// A small file is put together in scratch first, and created with the
// fewest system calls (createFile): a build writes tens of thousands.
func writeFile(ctx context.Context, name string, f File, scratch *[]byte) error {
	if f.Content == nil && f.Stream == nil {
		return createFile(name, f.Body)
	}
	size := int64(len(f.Body))
	if f.Content != nil {
		size += f.Content.Len()
	}
	if f.Stream == nil && size <= smallFile {
		*scratch = append((*scratch)[:0], f.Body...)
		if _, err := f.Content.WriteTo(appender{scratch}); err != nil {
			return err
		}
		return createFile(name, *scratch)
	}
	if f.Stream != nil {
		size = 256 << 10
	}
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	// Content is often made of parts of a few bytes (the comma between
	// two descriptors): buffered, a file of 20,000 parts is a few writes,
	// not 20,000.
	w := bufio.NewWriterSize(ctxWriter{ctx, out}, int(max(min(size, 256<<10), 16)))
	w.Write(f.Body) // a bufio.Writer keeps its first error for Flush
	if f.Content != nil {
		_, err = f.Content.WriteTo(w)
	}
	if f.Stream != nil && err == nil {
		err = f.Stream(w)
	}
	if err := errors.Join(err, w.Flush()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// smallFile is the largest file writeFile puts together before creating it.
const smallFile = 256 << 10

// appender is an io.Writer that appends to a slice.
type appender struct{ b *[]byte }

func (a appender) Write(p []byte) (int, error) {
	*a.b = append(*a.b, p...)
	return len(p), nil
}

// ctxWriter writes to w until ctx is done, then returns ctx's error.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// swap puts the complete folder tmp in the place of dir.
func swap(tmp, dir string) error {
	var old string
	if _, err := os.Lstat(dir); err == nil {
		old = filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".old-"+randomSuffix())
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replace %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("replace %s: %w", dir, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove the previous %s: %w", old, err)
		}
	}
	return nil
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
