//go:build linux || darwin

package atomicfile

import (
	"io"
	"os"
	"syscall"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

// createFile creates the file name with data, as os.WriteFile does with
// mode 0644, in three system calls. os.OpenFile makes five more per file:
// it offers the file to the runtime's network poller (four fcntl calls and
// an epoll_ctl), which never takes a regular file, and a build creates
// tens of thousands of files. In a build without fast paths (package
// fastpath) it is os.WriteFile.
func createFile(name string, data []byte) error {
	if !fastpath.Enabled {
		return os.WriteFile(name, data, 0o644)
	}
	return createFileDirect(name, data)
}

// createFileDirect is createFile in a build with fast paths.
func createFileDirect(name string, data []byte) error {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		switch {
		case err == syscall.EINTR:
			continue
		case err == nil && n == 0:
			err = io.ErrShortWrite
		}
		if err != nil {
			syscall.Close(fd)
			return &os.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}
