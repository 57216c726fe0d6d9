package diff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/git"
)

// TestDiffRevisionAttributes commits a catalog whose .gitattributes would
// hide a new exec tool from git archive (export-ignore) and rewrite another
// file so that a tool disappears (export-subst): Run reads the revisions as
// the commits hold them and sees both tools.
func TestDiffRevisionAttributes(t *testing.T) {
	repo, run := catalogtest.GitRepo(t)
	cat := filepath.Join(repo, "catalogs", "demo")
	catalogtest.WriteFiles(t, cat, diffBase)
	run("add", ".")
	run("commit", "-q", "-m", "demo")
	catalogtest.WriteFiles(t, cat, catalogtest.GitAttributesAttack())

	catalogtest.WriteFiles(t, repo, map[string]string{".gitattributes": "catalogs/demo/tools/evil.yaml export-ignore\n"})
	run("add", ".")
	run("commit", "-q", "-m", "more tools")

	c, err := Run(context.Background(), Options{Old: "HEAD~1", New: "HEAD", Repo: repo, Catalog: "catalogs/demo"})
	if err != nil {
		t.Fatal(err)
	}
	got := diffLines(c)
	for _, w := range []string{
		"risk tool-added tool run_code: new exec tool for tenants acme, globex",
		"risk tool-added tool drop_all: new write tool for tenants acme, globex",
		"tool + list_things (host-extension, read, deterministic, egress none; tenants acme, globex)",
	} {
		if !slices.Contains(got, w) {
			t.Errorf("diff lacks %q:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// TestRun reads each kind of side: catalog folders, a built site and
// revisions, with the notes and errors of each.
func TestRun(t *testing.T) {
	ctx := context.Background()
	oldDir := catalogtest.Write(t, diffBase)
	newDir := catalogtest.Write(t, cmpOrMap(map[string]string{tools: strings.Replace(diffBase[tools], "safetyTier: read", "safetyTier: write", 1)}, diffBase))
	var notes []string
	note := func(msg string) { notes = append(notes, msg) }

	c, err := Run(ctx, Options{Old: oldDir, New: newDir, Repo: t.TempDir(), Note: note})
	if err != nil || c.Old != oldDir || c.New != newDir || c.OldEmpty || !c.HasRisk(RiskTierRaised) {
		t.Fatalf("two folders: %+v, %v", c, err)
	}
	site := filepath.Join(t.TempDir(), "site")
	if err := buildtest.Compile(t, oldDir).Write(ctx, site); err != nil {
		t.Fatal(err)
	}
	if c, err := Run(ctx, Options{Old: site, New: oldDir}); err != nil || !c.Empty() {
		t.Errorf("a built site against its catalog: %+v, %v", c, err)
	}
	file := filepath.Join(oldDir, tools)
	if _, err := Run(ctx, Options{Old: oldDir, New: file}); err == nil || err.Error() != "new side "+file+" is a file: name a catalog folder, a built site (a folder with routes.json) or a Git revision" {
		t.Errorf("a file: %v", err)
	}
	bad := catalogtest.Write(t, map[string]string{config: catalogtest.Config, tools: "tools:\n  - {toolId: t}\n"})
	var invalid *InvalidError
	if _, err := Run(ctx, Options{Old: bad, New: newDir}); !errors.As(err, &invalid) || invalid.Side != "old" || invalid.Arg != bad ||
		!strings.HasPrefix(err.Error(), "old side "+bad+": the catalog is invalid (") || !strings.HasSuffix(err.Error(), " errors): fix it, or compare another version") {
		t.Errorf("an invalid catalog: %v", err)
	}
	if len(notes) > 0 {
		t.Errorf("notes without revisions: %q", notes)
	}

	repo, run := catalogtest.GitRepo(t)
	catalogtest.WriteFiles(t, filepath.Join(repo, "cat"), diffBase)
	run("add", ".")
	run("commit", "-q", "-m", "catalog")
	catalogtest.WriteFiles(t, filepath.Join(repo, "cat"), map[string]string{"bad.yaml": "tools:\n  - {toolId: t}\n"})
	if err := os.Symlink("../signpost.yaml", filepath.Join(repo, "cat", "alias.json")); err != nil {
		t.Fatal(err)
	}
	run("add", ".")
	run("commit", "-q", "-m", "a bad tool")

	// The change that adds the catalog, at the new side's place.
	notes = nil
	c, err = Run(ctx, Options{Old: "HEAD~1", New: "HEAD~1", Repo: repo, Catalog: "cat", Note: note})
	if err != nil || !c.Empty() {
		t.Errorf("a revision against itself: %+v, %v", c, err)
	}
	run("commit", "-q", "--allow-empty", "-m", "nothing")
	c, err = Run(ctx, Options{Old: "HEAD~3", New: "HEAD~2", Repo: repo, Catalog: "cat", Note: note})
	var norev *git.NoRevisionError
	if err == nil || errors.As(err, &norev) || err.Error() != `old side: "HEAD~3" is neither a path nor a revision of the Git repository: name an existing catalog folder, a built site, or a commit, branch or tag` {
		t.Errorf("no such revision: %+v, %v", c, err)
	}
	branch := strings.TrimSpace(run("rev-parse", "--abbrev-ref", "HEAD"))
	run("checkout", "-q", "--orphan", "empty")
	run("rm", "-rq", "--cached", ".")
	run("commit", "-q", "--allow-empty", "-m", "no catalog")
	run("checkout", "-q", "-f", branch)
	_, err = Run(ctx, Options{Old: "empty", New: "HEAD~2", Repo: repo, Catalog: "cat", Note: note})
	if err != nil {
		t.Fatalf("from a revision without the catalog: %v", err)
	}
	want := []string{`old side: revision empty has no folder "cat": comparing against an empty catalog`}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	// Without the catalog at the new side's place, an old side without
	// one is an error.
	var none *git.NoFolderError
	if _, err := Run(ctx, Options{Old: "empty", New: "HEAD~2", Repo: repo, Catalog: "other"}); !errors.As(err, &none) || err.Error() != `new side: revision HEAD~2 has no folder "other"` {
		t.Errorf("a new side without the folder: %v", err)
	}
	var notCatalog *NotCatalogError
	if _, err := Run(ctx, Options{Old: "HEAD~2", New: "HEAD~2", Repo: repo, Catalog: "."}); !errors.As(err, &notCatalog) || err.Error() != `new side: HEAD~2 has no signpost.yaml in ".", so it is not a catalog folder` {
		t.Errorf("a folder without signpost.yaml: %v", err)
	}

	// An invalid revision names its files REV:PATH, after its notes.
	notes = nil
	_, err = Run(ctx, Options{Old: "HEAD~2", New: "HEAD~1", Repo: repo, Catalog: "cat", Note: note})
	if !errors.As(err, &invalid) || invalid.Side != "new" || invalid.Arg != "HEAD~1" || !strings.HasPrefix(invalid.Diagnostics[0].String(), "HEAD~1:cat/bad.yaml:2:5: ") {
		t.Errorf("an invalid revision: %v", err)
	}
	want = []string{"new side HEAD~1: skipped alias.json: a link, and links are not followed in a revision; a declaration that names it will not find it"}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestSkipNotes words the links and submodules a revision leaves out: only
// those a declaration might name, and no more than maxNotes of them.
func TestSkipNotes(t *testing.T) {
	var s skipNotes
	s.add("latest", false)
	s.add("tools/link.yaml", false)
	s.add("schemas/link.json", false)
	s.add("vendor/tools", true)
	want := []string{
		"skipped schemas/link.json: a link, and links are not followed in a revision; a declaration that names it will not find it",
		"skipped vendor/tools: a submodule, and submodules are not read in a revision; its declarations and .json files are left out",
	}
	if diff := cmp.Diff(want, s.list()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	// Notes are bounded.
	s = skipNotes{}
	for i := range maxNotes + 3 {
		s.add(fmt.Sprintf("l%02d.json", i), false)
	}
	notes := s.list()
	if len(notes) != maxNotes+1 || notes[maxNotes] != "skipped 3 more links to .json files and submodules" {
		t.Errorf("notes of %d links: %q", maxNotes+3, notes)
	}
}

// TestRunTargets: a change of where the site is published is a risk, read
// from the declarations of both sides; a built site records no targets.
func TestRunTargets(t *testing.T) {
	ctx := context.Background()
	withTargets := func(targets string) map[string]string {
		return cmpOrMap(map[string]string{config: diffBase[config] + "targets:\n" + targets}, diffBase)
	}
	oldDir := catalogtest.Write(t, withTargets(`  production: {s3: {bucket: discovery-a, region: us-east-1}, cloudfront: {tenants: {acme: {distributionId: E1, functionName: fa}, globex: {distributionId: E2}}}}
  pages: {githubPages: {}}
`))
	newDir := catalogtest.Write(t, withTargets(`  production: {s3: {bucket: discovery-b, region: us-east-1, prefix: v2}, cloudfront: {tenants: {acme: {distributionId: E1, functionName: fb}, globex: {distributionId: E2, functionName: g, keyValueStoreArn: "arn:aws:cloudfront::123456789012:key-value-store/k1"}}}}
  staging: {s3: {bucket: staging, region: eu-west-1}}
`))
	c, err := Run(ctx, Options{Old: oldDir, New: newDir, Repo: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Risks {
		got = append(got, r.Kind+" "+r.subject()+": "+r.Message)
	}
	want := []string{
		"target-changed target pages: target removed: published to GitHub Pages",
		"target-changed target production: cloudfront.tenants.acme.functionName fa -> fb",
		"target-changed target production: cloudfront.tenants.globex.functionName (none) -> g",
		"target-changed target production: cloudfront.tenants.globex.keyValueStoreArn (none) -> arn:aws:cloudfront::123456789012:key-value-store/k1",
		"target-changed target production: s3.bucket discovery-a -> discovery-b",
		"target-changed target production: s3.prefix (none) -> v2",
		"target-changed target staging: new target: publishes to s3://staging/",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("risks (-want +got):\n%s", diff)
	}
	if c.Empty() || !c.HasRisk(RiskTargetChanged) {
		t.Error("a change of targets alone is not reported as a change")
	}

	site := filepath.Join(t.TempDir(), "site")
	if err := buildtest.Compile(t, oldDir).Write(ctx, site); err != nil {
		t.Fatal(err)
	}
	if c, err := Run(ctx, Options{Old: site, New: newDir}); err != nil || c.HasRisk(RiskTargetChanged) {
		t.Errorf("a built site against a catalog: %+v, %v", c, err)
	}
}

// TestRunLimits: a raised limit is a risk (every build may cost more); a
// lowered one is not.
func TestRunLimits(t *testing.T) {
	withLimits := func(limits string) string {
		return catalogtest.Write(t, cmpOrMap(map[string]string{config: diffBase[config] + "limits: " + limits + "\n"}, diffBase))
	}
	c, err := Run(context.Background(), Options{Old: withLimits("{value: 1MiB}"), New: withLimits("{value: 512KiB, build: 8GiB, files: 200000}"), Repo: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Risks {
		got = append(got, r.Kind+": "+r.Message)
	}
	if diff := cmp.Diff([]string{"limits-raised: limits.build 1 GiB -> 8 GiB", "limits-raised: limits.files 100000 -> 200000"}, got); diff != "" {
		t.Errorf("risks (-want +got):\n%s", diff)
	}
}
