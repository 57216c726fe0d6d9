package git_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/git"
)

// The tests that need the package build, which imports this one: from
// outside the package.

// TestCatalogOptions holds the files the tests extract to those Load
// reads (build.Reads).
func TestCatalogOptions(t *testing.T) {
	for _, name := range []string{
		"signpost.yaml", "tools/a.yaml", "a.yml", "schemas/in.json", "a/b/c.json", ".hidden/a.yaml", "a/.git/b.yaml",
		"./a.yaml", "a.yaml.bak", "README.md", "a.YAML", ".signpost.yaml", "a/.b.json", ".x/y.json",
	} {
		if got, want := git.CatalogOptions.Keep(name), build.Reads(name); got != want {
			t.Errorf("the tests keep %s: %v; Load reads it: %v", name, got, want)
		}
	}
	if git.CatalogOptions.MaxFile != source.MaxFileSize {
		t.Errorf("the tests read %d bytes of a file; Load reads %d", git.CatalogOptions.MaxFile, source.MaxFileSize)
	}
}

// TestExtractRevisionLimits checks the real bounds: a file over the size
// Load reads is no error, and Load reports it as in a checkout.
func TestExtractRevisionLimits(t *testing.T) {
	repo, run := catalogtest.GitRepo(t)
	catalogtest.WriteFiles(t, repo, map[string]string{
		"signpost.yaml": git.Demo["signpost.yaml"],
		"big.yaml":      strings.Repeat("x", source.MaxFileSize+10),
	})
	run("add", ".")
	run("commit", "-q", "-m", "big")
	rc, err := git.Extract(context.Background(), repo, "HEAD", "", git.CatalogOptions)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	fi, err := os.Stat(filepath.Join(rc.Dir, "big.yaml"))
	if err != nil || fi.Size() != source.MaxFileSize+1 {
		t.Fatalf("big.yaml: %v, %v", fi, err)
	}
	_, diags := build.Load(context.Background(), rc.Dir)
	if !strings.Contains(fmt.Sprint(diags), "file is larger than 16777216 bytes") {
		t.Errorf("Load of an oversize declaration: %v", diags)
	}
	// Without MaxFile, the file is extracted whole.
	whole, err := git.Extract(context.Background(), repo, "HEAD", "", git.ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	if fi, err := os.Stat(filepath.Join(whole.Dir, "big.yaml")); err != nil || fi.Size() != source.MaxFileSize+10 {
		t.Fatalf("big.yaml without MaxFile: %v, %v", fi, err)
	}
}
