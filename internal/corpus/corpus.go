// Package corpus gives the corpus suite the real-world data kept beside
// the repository, in ../shared/corpus (the recorded tools of real MCP
// servers, registry server.json documents and OpenAPI documents) and
// ../shared/reference (the official schemas). Nobody on the project wrote
// them, so the repository does not hold them: the tests that read them
// are in files built with the build tag corpus (make test-corpus), which
// .ci/run runs when the folder is there. In that suite a missing file
// fails the test. $SIGNPOST_SHARED names another folder that holds
// corpus/ and reference/.
package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// ToolFiles are the corpus's recorded tool lists: 164 real MCP tools.
var ToolFiles = []string{"github-mcp-server.tools.json", "kubernetes-mcp-server.tools.json"}

// Dir returns the corpus folder: shared/corpus beside the folder that holds
// the module's go.mod, found from the test's working directory up. It
// fails the test when the folder is missing.
func Dir(t testing.TB) string {
	t.Helper()
	c := sharedDir(t, "corpus")
	if _, err := os.Stat(c); err != nil {
		t.Fatalf("the corpus suite needs the real-world data beside the repository, or in $SIGNPOST_SHARED: %v", err)
	}
	return c
}

// sharedDir is the folder name of shared: $SIGNPOST_SHARED, else shared
// beside the module's folder.
func sharedDir(t testing.TB, name string) string {
	t.Helper()
	if dir := os.Getenv("SIGNPOST_SHARED"); dir != "" {
		return filepath.Join(dir, name)
	}
	return filepath.Join(filepath.Dir(catalogtest.ModuleRoot(t)), "shared", name)
}

// Path returns the path of a file of the shared folder, name
// slash-separated and starting with corpus/ or reference/, such as
// reference/server-card/schema.json.
func Path(t testing.TB, name string) string {
	t.Helper()
	dir, rest, _ := strings.Cut(name, "/")
	return filepath.Join(sharedDir(t, dir), filepath.FromSlash(rest))
}

// Reference returns the bytes of a file of shared/reference (the official
// schemas, name slash-separated).
func Reference(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(sharedDir(t, "reference"), filepath.FromSlash(name)))
	if err != nil {
		t.Fatalf("the corpus suite needs the official schemas beside the repository, or in $SIGNPOST_SHARED: %v", err)
	}
	return data
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
