package build

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// corpusDir holds real-world data kept beside the repository: the recorded
// tools of real MCP servers and registry documents (see its README).
const corpusDir = "../../shared/corpus"

// corpusFiles are the recorded tool lists in corpusDir: 164 real MCP tools.
var corpusFiles = []string{"github-mcp-server.tools.json", "kubernetes-mcp-server.tools.json"}

// corpusTools reads one corpus file of MCP Tool objects, numbers as
// json.Number. A missing corpus skips the test on a developer's machine and
// fails it in CI.
func corpusTools(t testing.TB, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(filepath.FromSlash(corpusDir), name))
	if errors.Is(err, fs.ErrNotExist) && os.Getenv("CI") == "" {
		t.Skipf("corpus not available: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var tools []map[string]any
	if err := d.Decode(&tools); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tools
}
