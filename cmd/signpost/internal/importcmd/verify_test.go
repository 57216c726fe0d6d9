package importcmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdtest"
)

// Every import takes --write-invalid, off by default.
func TestImportWriteInvalidFlag(t *testing.T) {
	if o := cmdtest.Parsed(t, newImportServerCmd, "a.json"); o.writeInvalid {
		t.Error("import server: --write-invalid on by default")
	}
	if o := cmdtest.Parsed(t, newImportServerCmd, "a.json", "--write-invalid"); !o.writeInvalid {
		t.Error("import server: --write-invalid not set")
	}
	if o := cmdtest.Parsed(t, newImportMCPCmd, "a.json"); o.writeInvalid {
		t.Error("import mcp: --write-invalid on by default")
	}
	if o := cmdtest.Parsed(t, newImportMCPCmd, "a.json", "--write-invalid"); !o.writeInvalid {
		t.Error("import mcp: --write-invalid not set")
	}
	if o := cmdtest.Parsed(t, newImportOpenAPICmd, "a.yaml"); o.writeInvalid {
		t.Error("import openapi: --write-invalid on by default")
	}
	if o := cmdtest.Parsed(t, newImportOpenAPICmd, "a.yaml", "--write-invalid"); !o.writeInvalid {
		t.Error("import openapi: --write-invalid not set")
	}
}

// The declarations are checked at their place in the catalog that holds
// them, with its signpost.yaml; a file build would not read as a
// declaration at the catalog's top.
func TestImportWritten(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cat", "signpost.yaml"), []byte("site: {origin: https://example.org, publisher: example.org}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for out, rel := range map[string]string{
		filepath.Join(dir, "cat", "sub", "tools.yaml"): "sub/tools.yaml",
		filepath.Join(dir, "cat", "tools.txt"):         "",
		filepath.Join(dir, "cat", ".hidden", "x.yaml"): "",
	} {
		w, err := importWritten(out)
		if err != nil {
			t.Fatal(err)
		}
		if w.Rel != rel || string(w.Config) == "" || w.Display != filepath.ToSlash(out) {
			t.Errorf("importWritten(%q) = %+v, want rel %q and the catalog's signpost.yaml", out, w, rel)
		}
	}
	if w, err := importWritten(filepath.Join(dir, "elsewhere.yaml")); err != nil || w.Config != nil || w.Rel != "" {
		t.Errorf("outside a catalog: %+v, %v", w, err)
	}
	if w, _ := importWritten(""); w.Display != "stdout" || w.Config != nil {
		t.Errorf("stdout: %+v", w)
	}
}
