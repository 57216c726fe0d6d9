package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestConflictsWorkflow: the workflow in the way is named, and when
// init wrote it for another catalog, the message says how to check both.
func TestConflictsWorkflow(t *testing.T) {
	workflowFor := func(catalog string) string {
		return "jobs:\n  check:\n    steps:\n      - name: Validate\n        run: signpost validate " + catalog + " --format github\n"
	}
	tests := []struct {
		name, catalog, existing string
		conflicts               []string
		want                    []string // lines of the message, in order
		flat                    []string // in the message, its lines joined
		not                     []string
	}{
		{name: "another catalog", catalog: "catalogs/beta", existing: workflowFor("catalogs/acme"),
			conflicts: []string{workflowPath},
			want: []string{
				"One workflow checks one catalog, and .github/workflows/signpost.yml checks",
				"catalogs/acme.",
				"  - To check catalogs/beta instead, run again with --force.",
				"  - To check both, commit the workflow, run again with --force and put the",
				"    workflow back (git restore .github/workflows/signpost.yml). Then copy its",
				"    Validate, Build and Diff steps, and in the copies change the catalog folder",
				"    catalogs/acme to catalogs/beta, and the --out folder catalogs/acme/site to",
				"    catalogs/beta/site.",
				"Nothing was written.",
			}},
		{name: "the catalog at the top", catalog: "catalogs/beta", existing: workflowFor("."),
			conflicts: []string{workflowPath},
			want: []string{
				"One workflow checks one catalog, and .github/workflows/signpost.yml checks the",
				"catalog at the repository's top.",
			},
			flat: []string{"change the catalog folder . to catalogs/beta, and the --out folder site to catalogs/beta/site."}},
		{name: "a catalog at the top, another in the workflow", catalog: ".", existing: workflowFor("catalogs/acme"),
			conflicts: []string{workflowPath, "README.md"},
			want: []string{
				"  - To check the catalog at the repository's top instead, run again with",
				"    --force.",
				"Nothing was written. Run again with --force to overwrite them, or init another folder.",
			},
			flat: []string{"change the catalog folder catalogs/acme to ., and the --out folder catalogs/acme/site to site."}},
		{name: "the same catalog", catalog: "catalogs/acme", existing: workflowFor("catalogs/acme"),
			conflicts: []string{workflowPath},
			want: []string{
				"The repository has one signpost workflow: with --force, .github/workflows/signpost.yml checks catalogs/acme and no other catalog.",
				"Nothing was written. Run again with --force to overwrite them, or init another folder.",
			},
			not: []string{"git restore"}},
		{name: "a workflow of the user's own", catalog: "catalogs/acme", existing: "name: ci\n",
			conflicts: []string{workflowPath},
			want:      []string{"The repository has one signpost workflow: with --force"},
			not:       []string{"git restore"}},
		{name: "two catalogs in one workflow", catalog: "catalogs/gamma", existing: workflowFor("catalogs/acme") + workflowFor("catalogs/beta"),
			conflicts: []string{workflowPath},
			want:      []string{"The repository has one signpost workflow: with --force"},
			not:       []string{"git restore"}},
		{name: "no workflow in the way", catalog: "catalogs/beta", existing: workflowFor("catalogs/acme"),
			conflicts: []string{"README.md"},
			want:      []string{"Nothing was written. Run again with --force to overwrite them, or init another folder."},
			not:       []string{"workflow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			t.Chdir(top)
			p := filepath.FromSlash(workflowPath)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tt.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			where := place{Dir: tt.catalog, Top: ".", Catalog: tt.catalog, Git: true}
			var conflicts []string
			for _, c := range tt.conflicts {
				if c == workflowPath {
					conflicts = append(conflicts, c)
				} else {
					conflicts = append(conflicts, displayPath(where.Dir, c))
				}
			}
			var out bytes.Buffer
			printConflicts(&out, where, conflicts, readWorkflow(where), templateData{Publish: PublishNone})
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			flat := strings.Join(strings.Fields(out.String()), " ")
			for _, f := range tt.flat {
				if !strings.Contains(flat, f) {
					t.Errorf("the message does not say %q:\n%s", f, out.String())
				}
			}
			at := 0
			for _, w := range tt.want {
				i := slices.IndexFunc(lines[at:], func(l string) bool { return strings.HasPrefix(l, w) })
				if i < 0 {
					t.Errorf("no line %q after line %d of:\n%s", w, at, out.String())
					continue
				}
				at += i + 1
			}
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "Nothing was written.") {
				t.Errorf("the message ends with %q, not with what was written", last)
			}
			for _, n := range tt.not {
				if strings.Contains(strings.Join(lines[1+len(conflicts):], "\n"), n) {
					t.Errorf("the message says %q:\n%s", n, out.String())
				}
			}
		})
	}
}

// TestConflictsPublish: the advice for a second catalog follows what
// the workflow in the way publishes, as init wrote it: for S3 the publish
// job's step is copied too, with the production target and a bucket of the
// second catalog's own; GitHub Pages publishes one catalog only.
func TestConflictsPublish(t *testing.T) {
	tests := []struct {
		name     string
		existing templateData // the workflow in the way, for catalogs/acme
		publish  string       // Publish of the new catalog, catalogs/beta
		bucket   bool         // whether Bucket was given
		want     []string     // in the message, its lines joined
		not      []string
	}{
		{name: "none", existing: templateData{Publish: PublishNone}, publish: PublishNone,
			want: []string{
				".github/workflows/signpost.yml checks catalogs/acme. - To check",
				"- To check both, commit the workflow, run again with --force and put the workflow back (git restore .github/workflows/signpost.yml). " +
					"Then copy its Validate, Build and Diff steps, and in the copies change the catalog folder catalogs/acme to catalogs/beta, " +
					"and the --out folder catalogs/acme/site to catalogs/beta/site. Nothing was written.",
			},
			not: []string{"publish", "Pages", "bucket"}},
		{name: "s3, the new one not", existing: templateData{Publish: PublishS3, Target: targetS3}, publish: PublishNone,
			want: []string{
				".github/workflows/signpost.yml checks catalogs/acme and publishes it to S3.",
				"- To check catalogs/beta instead, run again with --force.",
				"- To check and publish both, commit the workflow, run again with --publish s3 --force and put the workflow back",
				"Then copy its Validate, Build and Diff steps, and the Publish step of its publish job, and in the copies change the catalog folder catalogs/acme to catalogs/beta",
				"Give catalogs/beta an S3 bucket of its own (--bucket), one that the workflow's role may write to.",
			},
			not: []string{"Pages"}},
		{name: "s3, the new one too, with its bucket", existing: templateData{Publish: PublishS3, Target: targetS3}, publish: PublishS3, bucket: true,
			want: []string{
				"- To check and publish both, commit the workflow, run again with --force and put the workflow back",
				"and the Publish step of its publish job,",
				"Give catalogs/beta an S3 bucket of its own, one that",
			},
			not: []string{"--publish s3", "(--bucket)", "Pages"}},
		{name: "pages, the new one not", existing: templateData{Publish: PublishPages, Target: targetPages}, publish: PublishS3,
			want: []string{
				".github/workflows/signpost.yml checks catalogs/acme and publishes it to GitHub Pages.",
				"- To check both, commit the workflow, run again with --force and put the workflow back",
				"In the copy of Build, drop --target pages too: catalogs/beta/signpost.yaml declares no pages target.",
				"A repository's GitHub Pages site can host only one catalog: the workflow still publishes only catalogs/acme. " +
					"To publish catalogs/beta too, give it a repository of its own.",
			},
			not: []string{"Publish step", "check and publish both", "bucket"}},
		{name: "pages, the new one too", existing: templateData{Publish: PublishPages, Target: targetPages}, publish: PublishPages,
			want: []string{"A repository's GitHub Pages site can host only one catalog"},
			not:  []string{"drop --target pages", "Publish step"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The workflow in the way is the one init writes.
			d := tt.existing
			d.Catalog, d.Site, d.Branch, d.Ref = "catalogs/acme", "catalogs/acme/site", DefaultBranch, FallbackVersion
			d.Bucket, d.Region, d.RoleARN = PlaceholderBucket, DefaultRegion, placeholderRoleARN
			files, err := render(d)
			if err != nil {
				t.Fatal(err)
			}
			top := t.TempDir()
			t.Chdir(top)
			for _, f := range files {
				if f.AtTop {
					p := filepath.FromSlash(f.Path)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			where := place{Dir: "catalogs/beta", Top: ".", Catalog: "catalogs/beta", Git: true}
			wf := readWorkflow(where)
			if diff := cmp.Diff(workflow{Catalog: "catalogs/acme", Publish: tt.existing.Publish}, wf); diff != "" {
				t.Errorf("readWorkflow (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			printConflicts(&out, where, []string{workflowPath}, wf, templateData{Publish: tt.publish, BucketSet: tt.bucket})
			flat := strings.Join(strings.Fields(out.String()), " ")
			for _, w := range tt.want {
				if !strings.Contains(flat, w) {
					t.Errorf("the message does not say %q:\n%s", w, out.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(flat, n) {
					t.Errorf("the message says %q:\n%s", n, out.String())
				}
			}
			// The advice, after the line naming the file in the way, is
			// wrapped.
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			for _, l := range lines[min(2, len(lines)):] {
				if n := utf8.RuneCountInString(l); n > messageWidth {
					t.Errorf("line of %d characters: %q", n, l)
				}
			}
		})
	}
}

// TestKeepGitignore: a .gitignore already in the catalog's folder is left
// out of what init writes, and named for a hint unless it ignores site/.
func TestKeepGitignore(t *testing.T) {
	tests := []struct {
		name string
		old  *string // the .gitignore there, nil for none; "/" for a folder
		hint bool
	}{
		{name: "none"},
		{name: "one without site", old: ptr("*.log\nsite-old/\n# /site/\n"), hint: true},
		{name: "/site/", old: ptr("*.log\n/site/\n")},
		{name: "site/ with spaces", old: ptr("  site/ \r\n")},
		{name: "site, last line without newline", old: ptr("*.log\nsite")},
		{name: "a folder", old: ptr("/"), hint: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			where := place{Dir: dir, Top: dir, Catalog: "."}
			files := []file{
				{Path: ".github/workflows/signpost.yml", AtTop: true},
				{Path: ".gitignore", Data: []byte("/site/\n")},
				{Path: "README.md"},
			}
			switch {
			case tt.old == nil:
			case *tt.old == "/":
				if err := os.Mkdir(filepath.Join(dir, ".gitignore"), 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(*tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, hint, err := keepGitignore(where, files, false)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, f := range got {
				paths = append(paths, f.Path)
			}
			want := []string{".github/workflows/signpost.yml", ".gitignore", "README.md"}
			if tt.old != nil {
				want = []string{".github/workflows/signpost.yml", "README.md"}
			}
			if diff := cmp.Diff(want, paths); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if wantHint := filepath.ToSlash(dir) + "/.gitignore"; (hint != "") != tt.hint || (tt.hint && hint != wantHint) {
				t.Errorf("hint = %q, want %v (%s)", hint, tt.hint, wantHint)
			}
			if len(files) != 3 {
				t.Errorf("keepGitignore changed its argument: %d files", len(files))
			}
		})
	}
}

func ptr(s string) *string { return &s }
