package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestBuildVerifyCleansUp runs build --verify (its verification builds are
// child processes of the test binary, which TestMain runs as signpost) and
// checks that it leaves no temporary folder behind, on success and on
// failure.
func TestBuildVerifyCleansUp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "site")
	for _, skew := range []bool{false, true} {
		if skew {
			t.Setenv("SIGNPOST_TEST_SKEW", "1")
			out += "-skewed"
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"build", catalogtest.ExampleDir(t), "--verify", "--out", out}, &stdout, &stderr)
		if want := map[bool]int{false: cmdutil.ExitOK, true: cmdutil.ExitInvalid}[skew]; code != want {
			t.Fatalf("skew %t: exit %d, want %d\n%s%s", skew, code, want, stdout.String(), stderr.String())
		}
		if _, err := os.Stat(out); (err == nil) == skew {
			t.Errorf("skew %t: --out exists: %t", skew, err == nil)
		}
		if skew && !strings.Contains(stdout.String(), "bytes-differ: ") {
			t.Errorf("no finding in\n%s", stdout.String())
		}
		entries, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 0 {
			t.Errorf("skew %t: left behind in the temporary folder: %v", skew, entries)
		}
	}
}

func TestVerifyEnviron(t *testing.T) {
	got := verifyEnviron([]string{"PATH=/bin", "TZ=Europe/Berlin", "LANG=fr_FR.UTF-8", "LC_TIME=de_DE", "LANGUAGE=fr", "TMPDIR=/x", "HOME=/h"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/h" {
		t.Errorf("verifyEnviron kept %v", got)
	}
}
