//go:build unix

package build

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestLoadRefusesFIFO: a schema file that is a named pipe is refused at
// once, not read (reading would block until someone writes to it).
func TestLoadRefusesFIFO(t *testing.T) {
	dir := catalogtest.Write(t, map[string]string{
		"signpost.yaml": testConfig,
		"tools.yaml":    "tools:\n" + toolDecl("inputSchema", "{file: p.json}"),
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "p.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan Diagnostics, 1)
	go func() {
		_, diags := Load(ctx, dir)
		done <- diags
	}()
	select {
	case diags := <-done:
		if !diags.HasErrors() || !strings.Contains(diags.Sort()[0].Message, "cannot read p.json: is a named pipe (FIFO): a catalog reads regular files only") {
			t.Errorf("diagnostics %v, want a refusal of the FIFO", diags)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}
