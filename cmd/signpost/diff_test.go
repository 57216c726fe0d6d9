package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/diff"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/git"
)

// TestDiffExitCodes runs signpost diff and checks the exit status of each
// outcome: 0 done, 1 a --fail-on risk or an invalid side, 2 bad usage.
func TestDiffExitCodes(t *testing.T) {
	example := filepath.Join("..", "..", "catalogs", "example")
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const config = "site: {origin: https://example.com, publisher: example.com}\n"
	write("old/signpost.yaml", config)
	write("old/tools.yaml", "tools:\n  - {toolId: t, description: T., source: openapi, safetyTier: read, replayPolicy: keyed, egress: none}\n")
	write("new/signpost.yaml", config)
	write("new/tools.yaml", "tools:\n  - {toolId: t, description: T., source: openapi, safetyTier: write, replayPolicy: keyed, egress: none}\n")
	write("added/signpost.yaml", config)
	write("added/tools.yaml", "tools:\n  - {toolId: t, description: T., source: openapi, safetyTier: read, replayPolicy: keyed, egress: none}\n"+
		"  - {toolId: run, description: Runs., source: host-extension, safetyTier: exec, replayPolicy: unsafe, egress: internet}\n")
	write("bad/signpost.yaml", config)
	write("bad/tools.yaml", "tools:\n  - {toolId: t}\n")
	old, new, bad, added := filepath.Join(dir, "old"), filepath.Join(dir, "new"), filepath.Join(dir, "bad"), filepath.Join(dir, "added")

	tests := []struct {
		name       string
		args       []string
		code       int
		wantStdout string
		wantStderr string
	}{
		{"no change", []string{example, example}, 0, "no changes", ""},
		{"risk without --fail-on", []string{old, new}, 0, "tier-raised", ""},
		{"--fail-on a risk present", []string{old, new, "--fail-on", "tool-removed,tier-raised"}, 1, "tier-raised", "--fail-on tool-removed,tier-raised"},
		{"--fail-on any", []string{old, new, "--fail-on", "any"}, 1, "tier-raised", "--fail-on any"},
		{"--fail-on a risk absent", []string{old, new, "--fail-on", "tool-removed"}, 0, "tier-raised", ""},
		{"--fail-on without risks", []string{example, example, "--fail-on", "any"}, 0, "no changes", ""},
		{"--fail-on any and a new exec tool", []string{old, added, "--fail-on", "any"}, 1, "tool-added", "--fail-on any"},
		{"--fail-on tool-added", []string{old, added, "--fail-on", "tool-added"}, 1, "new exec tool", "--fail-on tool-added"},
		{"--fail-on a new kind absent", []string{old, added, "--fail-on", "server-added,route-removed,origin-changed"}, 0, "tool-added", ""},
		{"invalid old side", []string{bad, new}, 1, "", "old side " + bad + ": the catalog is invalid"},
		{"invalid new side", []string{old, bad}, 1, "", "new side " + bad + ": the catalog is invalid"},
		{"one argument", []string{old}, 2, "", "accepts 2 arg(s)"},
		{"unknown format", []string{old, new, "--format", "html"}, 2, "", "must be text, json or markdown"},
		{"unknown risk", []string{old, new, "--fail-on", "tier-lowered"}, 2, "", `unknown risk kind "tier-lowered"`},
		{"empty --fail-on", []string{old, new, "--fail-on", ""}, 2, "", "no risk kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(context.Background(), append([]string{"diff"}, tt.args...), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr.String())
			}
			if tt.code == 0 && stderr.Len() > 0 {
				t.Errorf("stderr is not empty:\n%s", stderr.String())
			}
		})
	}
}

// TestDiffTerminalSafe checks that what diff prints to stderr about the
// repository's files (notes, diagnostics, errors) shows control characters
// in their names rather than sending them to the terminal.
func TestDiffTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x\x1b[2J.yaml")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"diff", dir, file}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), `x\x1b[2J.yaml is a file`) {
		t.Errorf("a file named with an escape: exit %d\n%s", code, stderr.String())
	}
	if strings.ContainsRune(stderr.String(), '\x1b') {
		t.Errorf("stderr holds an escape character:\n%q", stderr.String())
	}

	repo, git := catalogtest.GitRepo(t)
	cat := filepath.Join(repo, "cat")
	if err := os.MkdirAll(cat, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cat, "signpost.yaml"), []byte("site: {origin: https://example.com, publisher: example.com}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("signpost.yaml", filepath.Join(cat, "a\x1b]0;owned\x07.json")); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "catalog")
	if err := os.WriteFile(filepath.Join(cat, "bad\x1b[31m.yaml"), []byte("tools:\n  - {toolId: t}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "a bad tool")

	stdout.Reset()
	stderr.Reset()
	code := run(context.Background(), []string{"diff", "HEAD~1", "HEAD", "--repo", repo, "--catalog", "cat"}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr.String())
	}
	for _, want := range []string{
		`signpost: new side HEAD: skipped a\x1b]0;owned\a.json: a link`,
		`HEAD:cat/bad\x1b[31m.yaml:2:5: `,
		"signpost: new side HEAD: the catalog is invalid",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.ContainsFunc(stderr.String(), func(r rune) bool { return r == '\x1b' || r == '\a' }) {
		t.Errorf("stderr holds a control character:\n%q", stderr.String())
	}
}

// TestDiffErrorHints checks what diff adds to the errors of internal/git:
// what to do, with the flags that say it, at the end of the message.
func TestDiffErrorHints(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("old side HEAD is not a path, and reading it as a Git revision failed: %w", &git.NotRepoError{Dir: "."}),
			"old side HEAD is not a path, and reading it as a Git revision failed: . is not inside a Git repository: run signpost diff in the repository, name it with --repo, or compare catalog folders and built sites instead"},
		{fmt.Errorf("new side: extract HEAD: %w", git.ErrNotInstalled),
			"new side: extract HEAD: git is not installed or not on PATH: install it to compare revisions, or compare catalog folders and built sites instead"},
		{fmt.Errorf("old side: %w", &git.NoFolderError{Rev: "HEAD~1", Path: "catalogs/other"}),
			`old side: revision HEAD~1 has no folder "catalogs/other": name the catalog's folder, relative to the repository's top, with --catalog`},
		{fmt.Errorf("new side: %w", &git.NoFolderError{Rev: "HEAD", Path: "vendor/tools", Found: "a submodule"}),
			`new side: revision HEAD has no folder "vendor/tools" but a submodule: name the catalog's folder, relative to the repository's top, with --catalog`},
		{fmt.Errorf("new side: %w", &git.NoFolderError{Rev: "HEAD"}),
			`new side: revision HEAD has no folder ".": name the catalog's folder, relative to the repository's top, with --catalog`},
		{fmt.Errorf("new side: %w", &diff.NotCatalogError{Rev: "HEAD"}),
			`new side: HEAD has no signpost.yaml in ".", so it is not a catalog folder: name the catalog's folder, relative to the repository's top, with --catalog`},
		{fmt.Errorf("old side: %w", &git.OutsideError{Path: "../elsewhere"}),
			`old side: --catalog "../elsewhere" must be a folder inside the repository, relative to its top`},
		{fmt.Errorf("old side: x\x1b[2J: %w", errors.New("plain")), `old side: x\x1b[2J: plain`},
	} {
		if got := diffError(io.Discard, tt.err).Error(); got != tt.want {
			t.Errorf("diffError(%q) =\n%s\nwant\n%s", tt.err, got, tt.want)
		}
	}
	err := diffError(io.Discard, fmt.Errorf("new side: extract HEAD:catalog: %w", &git.LimitError{}))
	if !strings.HasSuffix(err.Error(), ": name the catalog's own folder with --catalog") {
		t.Errorf("a limit: %v", err)
	}
	var le *git.LimitError
	if !errors.As(err, &le) {
		t.Errorf("the hinted error does not wrap the limit: %v", err)
	}
}
