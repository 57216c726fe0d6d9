// Package catalogfile reads the files of a catalog folder as Load does:
// which files it reads (Reads: the declarations, and the .json files they
// name, a path a declaration names resolved inside the folder by Resolve),
// regular files only (a named pipe or a device could block or never end),
// within the size limit of a source file, each in one allocation of its
// size.
package catalogfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Reread reads the file rel of the catalog folder dir again, after Load.
func Reread(dir, rel string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return Read(root, rel)
}

// Read reads the file rel (slash-separated) of root: a regular file, within
// source.MaxFileSize. An error does not name the file: the caller does.
func Read(root *os.Root, rel string) ([]byte, error) {
	name := filepath.FromSlash(rel)
	// Only regular files: opening a FIFO blocks until someone writes to it,
	// and a device may never end. The mode is checked before opening, and
	// again on the opened file, in case the name changed in between.
	fi, err := root.Stat(name)
	if err != nil {
		return nil, Cause(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, Cause(err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, Cause(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi)
	}
	var data []byte
	if fastpath.Enabled {
		data, err = readAll(f, fi.Size(), source.MaxFileSize+1)
	} else { // the reference readAll is held to
		data, err = io.ReadAll(io.LimitReader(f, source.MaxFileSize+1))
	}
	if err != nil {
		return nil, Cause(err)
	}
	if len(data) > source.MaxFileSize {
		return nil, fmt.Errorf("file is larger than %d bytes: split it into several files", source.MaxFileSize)
	}
	return data, nil
}

// readAll reads r to its end or to limit bytes, whichever comes first,
// into a buffer of size+1 bytes to begin with: a file is read in one
// allocation when its size has not changed since it was measured.
// io.ReadAll would grow a buffer from 512 bytes, copying and clearing
// twice the bytes of a 16 MB file.
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	data := make([]byte, 0, min(max(size, 0), limit-1)+1)
	for int64(len(data)) < limit {
		if len(data) == cap(data) {
			data = slices.Grow(data, 1)[:len(data)]
		}
		n, err := r.Read(data[len(data):min(int64(cap(data)), limit)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
	return data, nil
}

// notRegular is the error of a catalog file that is not a regular file.
func notRegular(fi fs.FileInfo) error {
	kind := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		kind = "a folder"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("is %s: a catalog reads regular files only", kind)
}

// Cause is the error under a *fs.PathError, whose path is the caller's to
// name as it shows it; other errors are returned as they are.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
