package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// catalog are the options a catalog is extracted with: the files Load
// reads, no more of each than it reads. The package build imports this
// one, so its rule of the files Load reads (build.Reads) is restated
// here, and TestCatalogOptions (extract_build_test.go) holds the two
// together.
var catalog = ExtractOptions{Keep: reads, MaxFile: source.MaxFileSize, Files: "declaration and .json files"}

// CatalogOptions are catalog, for the tests outside the package.
var CatalogOptions = catalog

// reads is build.Reads: a .json file, or a .yaml or .yml file outside
// folders whose names start with ".".
func reads(name string) bool {
	switch path.Ext(name) {
	case ".json":
		return true
	case ".yaml", ".yml":
		for dir := range strings.SplitSeq(path.Dir(name), "/") {
			if strings.HasPrefix(dir, ".") && dir != "." {
				return false
			}
		}
		return true
	}
	return false
}

// Demo is demo, for the tests outside the package.
var Demo = demo

// demo is a small catalog.
var demo = map[string]string{
	"signpost.yaml": catalogtest.Config,
	"tools.yaml": `tools:
  - {toolId: get_forecast, description: Forecast., source: host-extension, safetyTier: read, replayPolicy: deterministic, egress: internal}
`,
	"schemas/in.json": `{"type": "object"}`,
}

// skip is one call of ExtractOptions.Skipped.
type skip struct {
	name      string
	submodule bool
}

// recordSkips returns opts, telling of its skipped entries in *got.
func recordSkips(opts ExtractOptions, got *[]skip) ExtractOptions {
	opts.Skipped = func(name string, submodule bool) { *got = append(*got, skip{name, submodule}) }
	return opts
}

// lsEntry is one entry of the output of git ls-tree -r -l -z; typ, when
// set, replaces the object type git writes for mode.
type lsEntry struct {
	mode, name string
	size       int64
	typ        string
}

// lsTree writes the output of git ls-tree -r -l -z for entries, each with
// an object name made from its place.
func lsTree(entries ...lsEntry) *strings.Reader {
	var b strings.Builder
	for i, e := range entries {
		typ, size := "blob", fmt.Sprintf("%7d", e.size)
		if e.mode == "160000" {
			typ, size = "commit", "      -"
		}
		if e.typ != "" {
			typ = e.typ
		}
		fmt.Fprintf(&b, "%s %s %040x %s\t%s\x00", e.mode, typ, i+1, size, e.name)
	}
	return strings.NewReader(b.String())
}

// TestExtractTree checks which entries of a revision's tree are extracted,
// the links and submodules left out, and the entries and wholes refused.
func TestExtractTree(t *testing.T) {
	ctx := context.Background()
	lim := limits{entry: 64, total: 1 << 20, files: 100, scanned: 1000}
	ok := []lsEntry{
		{mode: "100644", name: ".gitattributes", size: 30},
		{mode: "100644", name: "signpost.yaml", size: 1},
		{mode: "100644", name: "tools/a.yaml", size: 3},
		{mode: "100755", name: "tools/b.yml", size: 2},
		// A declaration may name a .json file anywhere, dot-folders too.
		{mode: "100644", name: "schemas/in.json", size: 2},
		{mode: "100644", name: ".schemas/out.json", size: 2},
		// Load never reads these: skipped, whatever their size.
		{mode: "100644", name: ".github/workflows/ci.yml", size: 4},
		{mode: "100644", name: "README.md", size: 5},
		{mode: "100644", name: "assets/video.mp4", size: 1 << 40},
		// Links and submodules: skipped, and told of.
		{mode: "120000", name: "latest", size: 4},
		{mode: "120000", name: "tools/link.yaml", size: 11},
		{mode: "120000", name: "schemas/link.json", size: 7},
		{mode: "160000", name: "vendor/tools"},
		// Larger than Load reads: listed, to be written one byte over.
		{mode: "100644", name: "tools/huge.yaml", size: 1000},
		{mode: "100644", name: "data/huge.json", size: 1000},
		// Names as git writes them with -z: not quoted.
		{mode: "100644", name: "tools/caf\u00e9 \"x\"\n.yaml", size: 1},
	}
	var skipped []skip
	files, err := listTree(ctx, lsTree(ok...), recordSkips(catalog, &skipped), lim)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, fmt.Sprintf("%s %d %s", f.name, f.size, f.oid[len(f.oid)-2:]))
	}
	want := []string{
		"signpost.yaml 1 02", "tools/a.yaml 3 03", "tools/b.yml 2 04", "schemas/in.json 2 05", ".schemas/out.json 2 06",
		"tools/huge.yaml 1000 0e", "data/huge.json 1000 0f", "tools/caf\u00e9 \"x\"\n.yaml 1 10",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	wantSkipped := []skip{{"latest", false}, {"tools/link.yaml", false}, {"schemas/link.json", false}, {"vendor/tools", true}}
	if diff := cmp.Diff(wantSkipped, skipped, cmp.AllowUnexported(skip{})); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	// Without Keep, every file is extracted.
	files, err = listTree(ctx, lsTree(ok...), ExtractOptions{}, lim)
	if err != nil || len(files) != 12 {
		t.Errorf("without Keep: %d files, %v; want 12", len(files), err)
	}

	many := func(n int, ext string, size int64) []lsEntry {
		var es []lsEntry
		for i := range n {
			es = append(es, lsEntry{mode: "100644", name: fmt.Sprintf("f%04d%s", i, ext), size: size})
		}
		return es
	}
	tests := []struct {
		name  string
		r     io.Reader
		total int64
		want  string
		limit bool
	}{
		{"parent", lsTree(lsEntry{mode: "100644", name: "../evil.yaml"}), 0, `refusing "../evil.yaml": it is not a path inside the catalog folder`, false},
		{"absolute", lsTree(lsEntry{mode: "100644", name: "/etc/evil.yaml"}), 0, "not a path inside the catalog folder", false},
		{"unclean", lsTree(lsEntry{mode: "100644", name: "tools/../../evil.yaml"}), 0, "not a path inside the catalog folder", false},
		{"the folder itself", lsTree(lsEntry{mode: "100644", name: "."}), 0, "not a path inside the catalog folder", false},
		{"empty", lsTree(lsEntry{mode: "100644", name: ""}), 0, "not a path inside the catalog folder", false},
		{"skipped but outside", lsTree(lsEntry{mode: "120000", name: "../evil.md"}), 0, "not a path inside the catalog folder", false},
		{"a folder", lsTree(lsEntry{mode: "040000", name: "tools", typ: "tree"}), 0, "refusing tools: not a file, link or submodule (mode 040000)", false},
		{"a file that is no blob", lsTree(lsEntry{mode: "100644", name: "tools.yaml", typ: "tree"}), 0, "refusing tools.yaml: a tree object with mode 100644, where git writes a blob", false},
		{"a link that is no blob", lsTree(lsEntry{mode: "120000", name: "l.json", typ: "commit"}), 0, "refusing l.json: a commit object with mode 120000", false},
		{"a submodule that is no commit", lsTree(lsEntry{mode: "160000", name: "sub", typ: "blob"}), 0, "refusing sub: a blob object with mode 160000, where git writes a commit", false},
		{"not ls-tree", strings.NewReader("hello\x00"), 0, `read git ls-tree: unexpected entry "hello\x00"`, false},
		{"no object name", strings.NewReader("100644 blob xyz 1\ta.yaml\x00"), 0, "unexpected entry", false},
		{"no size", strings.NewReader("100644 blob " + strings.Repeat("a", 40) + " -\ta.yaml\x00"), 0, `unexpected size "-" of a.yaml`, false},
		{"too long", strings.NewReader(strings.Repeat("x", maxRecord+1)), 0, "an entry is longer than 65536 bytes", false},
		{"too many files", lsTree(many(101, ".yaml", 0)...), 0, "refusing f0100.yaml: more than 100 declaration and .json files", true},
		{"too many entries", lsTree(many(1001, ".md", 0)...), 0, "more than 1000 entries", true},
		{"too large", lsTree(many(20, ".json", 60)...), 1024, "refusing f0017.json: the declaration and .json files are larger than 1024 bytes", true},
		// Each file over the limit counts as the limit and one byte.
		{"too many too large", lsTree(many(20, ".json", 1<<30)...), 1024, "refusing f0015.json: the declaration and .json files are larger than 1024 bytes", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := lim
			if tt.total > 0 {
				lim.total = tt.total
			}
			_, err := listTree(ctx, tt.r, catalog, lim)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			var le *LimitError
			if errors.As(err, &le) != tt.limit {
				t.Errorf("err = %v: a *LimitError is %v, want %v", err, !tt.limit, tt.limit)
			}
		})
	}
	// The files Keep keeps are files unless named.
	if _, err := listTree(ctx, lsTree(many(101, ".md", 0)...), ExtractOptions{}, lim); err == nil || !strings.HasSuffix(err.Error(), "more than 100 files") {
		t.Errorf("too many files without a name for them: %v", err)
	}
}

// TestExtractBlobs writes files from the answers of git cat-file --batch, and
// refuses answers that are not the blobs asked for.
func TestExtractBlobs(t *testing.T) {
	ctx := context.Background()
	oid := func(i int) string { return fmt.Sprintf("%040x", i) }
	files := []treeFile{{name: "signpost.yaml", oid: oid(1), size: 3}, {name: "schemas/in.json", oid: oid(2), size: 2}, {name: "empty.yaml", oid: oid(3)}}
	answer := oid(1) + " blob 3\nabc\n" + oid(2) + " blob 2\n{}\n" + oid(3) + " blob 0\n\n"
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := readBlobs(ctx, strings.NewReader(answer), root, files); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"signpost.yaml": "abc", "schemas/in.json": "{}", "empty.yaml": ""}, catalogtest.ReadTree(t, dir)); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}

	one := []treeFile{{name: "a.yaml", oid: oid(1), size: 3}}
	tests := []struct {
		name   string
		files  []treeFile
		answer string
		want   string
	}{
		{"missing", one, oid(1) + " missing\n", "the repository does not have its object"},
		{"another size", one, oid(1) + " blob 4\nabcd\n", "git cat-file answered"},
		{"another object", one, oid(2) + " blob 3\nabc\n", "git cat-file answered"},
		{"not a blob", one, oid(1) + " tree 3\nabc\n", "git cat-file answered"},
		{"short", one, oid(1) + " blob 3\nab", "write a.yaml: unexpected EOF"},
		{"no line end", one, oid(1) + " blob 3\nabcd", "no line end after the content"},
		{"no answer", one, "", "read a.yaml: git cat-file: unexpected EOF"},
		{"twice", []treeFile{one[0], one[0]}, strings.Repeat(oid(1)+" blob 3\nabc\n", 2), "file exists"},
		// listTree refuses such names; the folder is an os.Root all the same.
		{"outside", []treeFile{{name: "../evil.yaml", oid: oid(1), size: 3}}, oid(1) + " blob 3\nabc\n", "write ../evil.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			err = readBlobs(ctx, strings.NewReader(tt.answer), root, tt.files)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), "evil.yaml")); err == nil {
				t.Error("a file landed outside the folder")
			}
		})
	}
}

// TestExtractRevisionAttributes commits a catalog whose .gitattributes
// would hide a new exec tool from git archive (export-ignore) and rewrite
// another file so that a tool disappears (export-subst): the files are
// extracted as the commit holds them.
func TestExtractRevisionAttributes(t *testing.T) {
	repo, run := catalogtest.GitRepo(t)
	cat := filepath.Join(repo, "catalogs", "demo")
	catalogtest.WriteFiles(t, cat, demo)
	run("add", ".")
	run("commit", "-q", "-m", "demo")
	attack := catalogtest.GitAttributesAttack()
	catalogtest.WriteFiles(t, cat, attack)
	// The top's attributes count too.
	catalogtest.WriteFiles(t, repo, map[string]string{".gitattributes": "catalogs/demo/tools/evil.yaml export-ignore\n"})
	run("add", ".")
	run("commit", "-q", "-m", "more tools")
	// The attack works on git archive, of the folder's tree and of the
	// commit (export-subst needs a commit): it is worth a test.
	if out := run("archive", "--format=tar", "HEAD:catalogs/demo"); strings.Contains(out, "run_code") {
		t.Fatal("git archive kept tools/evil.yaml: the test proves nothing")
	}
	if out := run("archive", "--format=tar", "HEAD", "catalogs/demo"); strings.Contains(out, "#$Format") || strings.Contains(out, "run_code") {
		t.Fatal("git archive applied no attribute: the test proves nothing")
	}

	rc, err := Extract(context.Background(), repo, "HEAD", "catalogs/demo", catalog)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	want := maps.Clone(demo)
	want["tools/evil.yaml"], want["sneaky.yaml"] = attack["tools/evil.yaml"], attack["sneaky.yaml"]
	if diff := cmp.Diff(want, catalogtest.ReadTree(t, rc.Dir)); diff != "" {
		t.Errorf("extracted (-want +got):\n%s", diff)
	}
}

func TestLabel(t *testing.T) {
	if got := label("HEAD", ""); got != "HEAD" {
		t.Errorf("top: %q", got)
	}
	if got := label("HEAD", "catalogs/demo"); got != "HEAD:catalogs/demo" {
		t.Errorf("folder: %q", got)
	}
}

// TestExtractRevision extracts a catalog from a commit of a real
// repository and compares it with the working copy.
func TestExtractRevision(t *testing.T) {
	repo, run := catalogtest.GitRepo(t)
	catalogtest.WriteFiles(t, filepath.Join(repo, "catalogs", "demo"), demo)
	run("add", ".")
	run("commit", "-q", "-m", "demo")

	ctx := context.Background()
	sub := filepath.Join(repo, "catalogs", "demo")
	prefix, err := Prefix(ctx, sub)
	if err != nil || prefix != "catalogs/demo" {
		t.Fatalf("Prefix = %q, %v", prefix, err)
	}
	rc, err := Extract(ctx, sub, "HEAD", prefix, catalog)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(catalogtest.ReadTree(t, sub), catalogtest.ReadTree(t, rc.Dir)); diff != "" {
		t.Errorf("extracted catalog differs (-want +got):\n%s", diff)
	}
	if len(rc.Commit) < 40 || rc.Path != "catalogs/demo" {
		t.Errorf("commit %q, path %q", rc.Commit, rc.Path)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rc.Dir); err == nil {
		t.Error("Close left the folder")
	}

	for _, tt := range []struct{ rev, path, want string }{
		{"nope", prefix, `"nope" is no commit, branch or tag of the Git repository`},
		{"HEAD", "catalogs/other", `revision HEAD has no folder "catalogs/other"`},
		{"HEAD", "catalogs/demo/signpost.yaml", `revision HEAD has no folder "catalogs/demo/signpost.yaml" but a file`},
		{"HEAD", "../outside", `"../outside" must be a folder inside the repository, relative to its top`},
		{"--output=/tmp/x", prefix, "is no commit, branch or tag"},
	} {
		if _, err := Extract(ctx, repo, tt.rev, tt.path, catalog); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Extract(%q, %q) = %v, want %q", tt.rev, tt.path, err, tt.want)
		}
	}
	var none *NoFolderError
	if _, err := Extract(ctx, repo, "HEAD", "catalogs/other", catalog); !errors.As(err, &none) || none.Rev != "HEAD" || none.Path != "catalogs/other" || none.Found != "" {
		t.Errorf("a missing folder: %v, want a NoFolderError that found nothing", err)
	}
	if _, err := Extract(ctx, repo, "HEAD", "catalogs/demo/signpost.yaml", catalog); !errors.As(err, &none) || none.Found != "a file" {
		t.Errorf("a file: %v, want a NoFolderError that found a file: it is no missing folder", err)
	}
	var norev *NoRevisionError
	if _, err := Extract(ctx, repo, "nope", "", catalog); !errors.As(err, &norev) || norev.Rev != "nope" {
		t.Errorf("an unknown revision: %v, want a NoRevisionError", err)
	}
	var outside *OutsideError
	if _, err := Extract(ctx, repo, "HEAD", "a/../../b", catalog); !errors.As(err, &outside) || outside.Path != "../b" {
		t.Errorf("a folder outside: %v, want an OutsideError of the clean path", err)
	}
	var notRepo *NotRepoError
	if _, err := Prefix(ctx, t.TempDir()); !errors.As(err, &notRepo) || !strings.HasSuffix(err.Error(), " is not inside a Git repository") {
		t.Errorf("Prefix outside a repository: %v", err)
	}

	// Folder: a folder's place in the same repository, and no place in
	// another one.
	nested := filepath.Join(repo, "nested")
	if err := os.Mkdir(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "nested")
	for _, tt := range []struct {
		dir    string
		prefix string
		same   bool
	}{
		{sub, "catalogs/demo", true},
		{filepath.Join(repo, "catalogs"), "catalogs", true},
		{repo, "", true},
		{t.TempDir(), "", false},
		{nested, "", false},
	} {
		prefix, same, err := Folder(ctx, sub, tt.dir)
		if err != nil || prefix != tt.prefix || same != tt.same {
			t.Errorf("Folder(%s) = %q, %v, %v; want %q, %v", tt.dir, prefix, same, err, tt.prefix, tt.same)
		}
	}
	if err := os.RemoveAll(nested); err != nil {
		t.Fatal(err)
	}

	// The repository's top as the catalog folder: links, large files and
	// the files Load never reads elsewhere in the repository are skipped.
	write := func(name string, size int) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("assets/video.bin", source.MaxFileSize+1)
	write(".github/workflows/ci.yml", 10)
	write("README.md", 10)
	if err := os.Symlink("/etc", filepath.Join(repo, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("catalogs/demo/tools.yaml", filepath.Join(repo, "tools.yaml")); err != nil {
		t.Fatal(err)
	}
	run("add", ".")
	// A submodule, as git records it: a commit in the tree.
	run("update-index", "--add", "--cacheinfo", "160000,"+rc.Commit+",vendor/tools")
	run("commit", "-q", "-m", "a repository around the catalog")
	var skipped []skip
	rc, err = Extract(ctx, sub, "HEAD", "", recordSkips(catalog, &skipped))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got := catalogtest.ReadTree(t, rc.Dir)
	if diff := cmp.Diff([]string{"catalogs/demo/schemas/in.json", "catalogs/demo/signpost.yaml", "catalogs/demo/tools.yaml"}, slices.Sorted(maps.Keys(got))); diff != "" {
		t.Errorf("extracted from the top (-want +got):\n%s", diff)
	}
	wantSkipped := []skip{{"etc", false}, {"tools.yaml", false}, {"vendor/tools", true}}
	if diff := cmp.Diff(wantSkipped, skipped, cmp.AllowUnexported(skip{})); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if _, err := Extract(ctx, repo, "HEAD", "vendor/tools", catalog); err == nil || !strings.Contains(err.Error(), `has no folder "vendor/tools" but a submodule`) {
		t.Errorf("a submodule as the catalog: %v", err)
	}
}

// TestGitWriteBlobsErrors checks that git cat-file's answers about a
// missing object or a wrong size reach the user as such, against a real
// repository: not as a cancelled context.
func TestGitWriteBlobsErrors(t *testing.T) {
	repo, git := catalogtest.GitRepo(t)
	catalogtest.WriteFiles(t, repo, map[string]string{"a.yaml": "tools: []\n"})
	git("add", ".")
	git("commit", "-q", "-m", "a")
	oid := strings.TrimSpace(git("rev-parse", "HEAD:a.yaml"))
	for _, tt := range []struct {
		name string
		file treeFile
		want string
	}{
		{"missing object", treeFile{name: "b.yaml", oid: strings.Repeat("1", 40), size: 3}, "the repository does not have its object"},
		{"wrong size", treeFile{name: "a.yaml", oid: oid, size: 99}, "git cat-file answered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, err := os.OpenRoot(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			err = gitWriteBlobs(context.Background(), repo, root, []treeFile{tt.file})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "context canceled") {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
