//go:build !windows

package content

import "os"

// createSpillFile makes an empty file in dir that has no name: removed as
// soon as it is made, it is gone whenever its descriptor is closed, however
// the process ends.
func createSpillFile(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "signpost-spill-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
