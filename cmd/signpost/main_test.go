package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var updateScripts = flag.Bool("update", false, "rewrite the expected output in testdata/script from the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"signpost": func() { os.Exit(runWithSignals(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end command tests in testdata/script. Each
// script works in its own temporary folder; $EXAMPLE is the bundled example
// catalog and $CORPUS the real-world data beside the repository.
func TestScripts(t *testing.T) {
	example, err := filepath.Abs(filepath.Join("..", "..", "catalogs", "example"))
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *updateScripts,
		Setup: func(env *testscript.Env) error {
			// The diff and flow scripts skip without git; CI must have it.
			if _, err := exec.LookPath("git"); err != nil && os.Getenv("CI") != "" {
				return fmt.Errorf("git is required in CI: %w", err)
			}
			env.Setenv("EXAMPLE", example)
			env.Setenv("CORPUS", corpus)
			return nil
		},
	})
}
