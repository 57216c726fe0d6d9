//go:build !(linux || darwin)

package atomicfile

import "os"

// createFile creates the file name with data, as os.WriteFile does with
// mode 0644.
func createFile(name string, data []byte) error {
	return os.WriteFile(name, data, 0o644)
}

// createFileDirect is createFile: os.WriteFile is the only way here.
func createFileDirect(name string, data []byte) error { return createFile(name, data) }
