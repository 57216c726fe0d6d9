package release

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestWorkflowsPinned: every action that signpost's own workflows use is
// pinned by the full SHA of a commit, with the tag it stands for in a
// comment, so that a moved tag cannot change what runs with the
// repository's token.
func TestWorkflowsPinned(t *testing.T) {
	uses := regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(.*)$`)
	pinned := regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40} # v[0-9]+(\.[0-9]+){0,2}$`)
	files, err := filepath.Glob(filepath.Join(moduleRoot, ".github", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("workflows %v: want ci.yml and release.yml at least", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all := uses.FindAllStringSubmatch(string(data), -1)
		if len(all) == 0 {
			t.Errorf("%s uses no action", filepath.Base(f))
		}
		for _, m := range all {
			if !pinned.MatchString(m[1]) {
				t.Errorf("%s: uses: %s is not pinned as owner/repo@<commit SHA> # vX.Y.Z", filepath.Base(f), m[1])
			}
		}
	}
}
