//go:build windows

package content

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// CreateFile's FILE_FLAG_DELETE_ON_CLOSE (the system removes the file when
// its last handle is closed) and FILE_ATTRIBUTE_TEMPORARY (kept in memory
// while memory allows).
const (
	fileFlagDeleteOnClose  = 0x04000000
	fileAttributeTemporary = 0x100
)

// createSpillFile makes an empty file in dir that the system removes when
// its handle is closed, however the process ends: Windows does not remove
// a file that is open.
func createSpillFile(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for range 100 {
		name := filepath.Join(dir, "signpost-spill-"+strconv.FormatUint(rand.Uint64(), 36))
		p, err := syscall.UTF16PtrFromString(name)
		if err != nil {
			return nil, err
		}
		h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE,
			syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE, nil,
			syscall.CREATE_NEW, fileAttributeTemporary|fileFlagDeleteOnClose, 0)
		if errors.Is(err, syscall.ERROR_FILE_EXISTS) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "create", Path: name, Err: err}
		}
		return os.NewFile(uintptr(h), name), nil
	}
	return nil, &os.PathError{Op: "create", Path: dir, Err: os.ErrExist}
}
