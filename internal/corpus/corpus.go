// Package corpus gives tests the real-world data kept beside the
// repository, in ../shared/corpus (the recorded tools of real MCP servers,
// registry server.json documents and OpenAPI documents) and
// ../shared/reference (the official schemas). A missing file skips what
// needs it on a developer's machine and fails the test in CI.
package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// ToolFiles are the corpus's recorded tool lists: 164 real MCP tools.
var ToolFiles = []string{"github-mcp-server.tools.json", "kubernetes-mcp-server.tools.json"}

// Dir returns the corpus folder: shared/corpus beside the folder that holds
// the module's go.mod, found from the test's working directory up.
func Dir(t testing.TB) string {
	t.Helper()
	c := sharedDir(t, "corpus")
	if _, err := os.Stat(c); errors.Is(err, fs.ErrNotExist) && os.Getenv("CI") == "" {
		t.Skipf("corpus not available: %v", err)
	}
	return c
}

// sharedDir is the folder name of shared, beside the module's folder.
func sharedDir(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(filepath.Dir(catalogtest.ModuleRoot(t)), "shared", name)
}

// Reference returns the bytes of a file of shared/reference (the official
// schemas, name slash-separated), and false when it is missing on a
// developer's machine, where the test leaves out what needs it. In CI a
// missing file fails the test.
func Reference(t testing.TB, name string) ([]byte, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedDir(t, "reference"), filepath.FromSlash(name)))
	switch {
	case errors.Is(err, fs.ErrNotExist) && os.Getenv("CI") == "":
		t.Logf("shared/reference/%s not available, and the checks that need it left out: %v", name, err)
		return nil, false
	case err != nil:
		t.Fatal(err)
	}
	return data, true
}

// Read returns the bytes of the corpus file name (slash-separated, relative
// to the corpus folder).
func Read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Tools reads one corpus file of MCP Tool objects, numbers as json.Number.
func Tools(t testing.TB, name string) []map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(Read(t, name)))
	d.UseNumber()
	var tools []map[string]any
	if err := d.Decode(&tools); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tools
}
