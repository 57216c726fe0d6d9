package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// commandsDir is the command reference, from this package's folder.
const commandsDir = "../../docs/commands"

// updating reports whether the tests run with -update, which rewrites
// docs/commands as it rewrites the scripts' expected output.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// writeCommandDocs writes the command reference, one Markdown page per
// command, into dir: what each command's --help says, from the same
// command tree, so that a flag is described in one place only.
func writeCommandDocs(dir string) error {
	root := newRootCmd(io.Discard, io.Discard)
	// What Execute adds before it runs a command: help, completion and
	// --version are part of the help a user sees.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	// No date in the pages: they change when the help changes, only.
	var disable func(*cobra.Command)
	disable = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			disable(sub)
		}
	}
	disable(root)
	return doc.GenMarkdownTree(root, dir)
}

// TestDocsCommands holds docs/commands to the help of every command:
// change a command's help, run go test ./cmd/signpost -run TestDocsCommands
// -update, and commit the pages it rewrites.
func TestDocsCommands(t *testing.T) {
	got := t.TempDir()
	if err := writeCommandDocs(got); err != nil {
		t.Fatal(err)
	}
	if updating() {
		if err := os.RemoveAll(commandsDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(commandsDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeCommandDocs(commandsDir); err != nil {
			t.Fatal(err)
		}
	}
	gotNames, err := markdownNames(got)
	if err != nil {
		t.Fatal(err)
	}
	wantNames, err := markdownNames(commandsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range gotNames {
		if !slices.Contains(wantNames, name) {
			t.Errorf("docs/commands lacks %s: run go test ./cmd/signpost -run TestDocsCommands -update", name)
		}
	}
	for _, name := range wantNames {
		if !slices.Contains(gotNames, name) {
			t.Errorf("docs/commands/%s is no command's page: run go test ./cmd/signpost -run TestDocsCommands -update", name)
			continue
		}
		want, err := os.ReadFile(filepath.Join(commandsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(filepath.Join(got, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, want) {
			t.Errorf("docs/commands/%s differs from what the help says (first at line %d): run go test ./cmd/signpost -run TestDocsCommands -update",
				name, firstDifferentLine(have, want))
		}
	}
}

// markdownNames lists the .md files of dir, sorted.
func markdownNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// firstDifferentLine is the 1-based number of the first line where a and
// b differ.
func firstDifferentLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
