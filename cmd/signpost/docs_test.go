package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// The repository's documentation, from this package's folder.
const (
	readmePath  = "../../README.md"
	docsDir     = "../../docs"
	commandsDir = "../../docs/commands"
)

// maxReadmeLines is how long the README may grow: it is a front page, and
// reference belongs in docs/.
const maxReadmeLines = 300

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

// TestReadmeFrontPage holds the README to a front page: at most
// maxReadmeLines lines, and a command list that links every command to its
// page in docs/commands.
func TestReadmeFrontPage(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, more than %d: move reference to docs/", n, maxReadmeLines)
	}
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		link := "(docs/commands/" + strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md)"
		if !bytes.Contains(data, []byte(link)) {
			t.Errorf("README.md's command list does not link %s to its page %s", c.CommandPath(), link)
		}
	}
}

// TestDocsLinks checks every relative link of README.md and of the
// Markdown files under docs/: the file it names exists, and so does the
// heading its #fragment names.
func TestDocsLinks(t *testing.T) {
	files := []string{readmePath}
	err := filepath.WalkDir(docsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string][]string{}
	anchorsOf := func(file string) ([]string, error) {
		if a, ok := anchors[file]; ok {
			return a, nil
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		a := headingAnchors(data)
		anchors[file] = a
		return a, nil
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range relativeLinks(data) {
			target, fragment, _ := strings.Cut(l.target, "#")
			dest := file
			if target != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link to %s: no such file", repoPath(file), l.line, l.target)
					continue
				}
			}
			if fragment == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			a, err := anchorsOf(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(a, fragment) {
				t.Errorf("%s:%d: link to %s: %s has no heading #%s", repoPath(file), l.line, l.target, repoPath(dest), fragment)
			}
		}
	}
}

// An mdLink is the target of a Markdown link and the line it is on.
type mdLink struct {
	target string
	line   int
}

var (
	linkPattern = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
	schemeLink  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// relativeLinks returns the relative link targets of a Markdown document,
// outside fenced code blocks and code spans.
func relativeLinks(data []byte) []mdLink {
	var links []mdLink
	fenced := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			if !schemeLink.MatchString(m[1]) {
				links = append(links, mdLink{target: m[1], line: n})
			}
		}
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown document: lower case, punctuation dropped, spaces made
// hyphens, and -1, -2, ... after a repeated one.
func headingAnchors(data []byte) []string {
	var anchors []string
	seen := map[string]int{}
	fenced := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			anchors = append(anchors, fmt.Sprintf("%s-%d", a, k))
		} else {
			anchors = append(anchors, a)
		}
		seen[a]++
	}
	return anchors
}

// repoPath is the path of file, a path from this package's folder, from
// the repository's top.
func repoPath(file string) string {
	rel, err := filepath.Rel("../..", file)
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
}
