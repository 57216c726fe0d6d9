//go:build corpus

package main

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusScripts runs the end-to-end command tests over the real-world
// corpus, in testdata/corpus-script; $CORPUS is its folder.
func TestCorpusScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, filepath.Join("testdata", "corpus-script"), map[string]string{"CORPUS": corpus.Dir(t)}))
}
