package build

import (
	"testing"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/tool"
)

// bodyOf returns the bytes of d, failing the test when they cannot be read.
func bodyOf(t testing.TB, d output.Document) []byte {
	t.Helper()
	b, err := d.Body.Bytes()
	if err != nil {
		t.Fatalf("read %s: %v", d.Route.Route, err)
	}
	return b
}

// withSchemas returns tl with the schemas Load held in the spill file read
// back, failing the test when they cannot be.
func withSchemas(t testing.TB, tl *tool.Tool) *tool.Tool {
	t.Helper()
	w, err := tl.WithSchemas()
	if err != nil {
		t.Fatalf("tool %s: %v", tl.ToolID, err)
	}
	return w
}
