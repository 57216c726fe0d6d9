package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/build"
)

// initWorkflowFile is where signpost init writes its workflow.
const initWorkflowFile = ".github/workflows/signpost.yml"

// initInto runs signpost init DIR with args in a new temporary folder and
// returns the folder.
func initInto(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "catalog")
	runInit(t, dir, args...)
	return dir
}

// initInRepo runs signpost init TOP/catalogs/acme with args, where TOP is
// a new Git repository, and returns TOP.
func initInRepo(t *testing.T, args ...string) string {
	t.Helper()
	top := gitRepo(t)
	runInit(t, filepath.Join(top, "catalogs", "acme"), args...)
	return top
}

func runInit(t *testing.T, dir string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"init", dir}, args...), &stdout, &stderr); code != exitOK {
		t.Fatalf("signpost init %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
}

// gitRepo makes a new Git repository and returns its top. Without git it
// skips the test, except in CI, which must have git.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git is required in CI: %v", err)
		}
		t.Skipf("git not found: %v", err)
	}
	top := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(top, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), initGitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "init", "-q")
	cmd.Dir = top
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return top
}

// The parts of a workflow the tests look at. Decoding with KnownFields
// makes any other key a failure, so that nothing unexpected slips in.
type (
	workflow struct {
		Name        string
		On          map[string]*trigger `yaml:"on"`
		Permissions map[string]string
		Jobs        map[string]workflowJob
	}
	trigger struct {
		Branches []string
	}
	workflowJob struct {
		Name        string
		Needs       string
		If          string
		RunsOn      string `yaml:"runs-on"`
		Permissions map[string]string
		Concurrency struct {
			Group            string
			CancelInProgress string `yaml:"cancel-in-progress"`
		}
		Environment *struct{ Name, URL string }
		Steps       []workflowStep
	}
	workflowStep struct {
		ID, Name, If, Uses, Run string
		With                    map[string]any
		Env                     map[string]string
	}
)

func readWorkflow(t *testing.T, dir string) workflow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(initWorkflowFile)))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&wf); err != nil {
		t.Fatalf("%s: %v", initWorkflowFile, err)
	}
	return wf
}

// pinnedActions are the actions the workflows may use, each at a major
// version that exists.
var pinnedActions = []string{
	"actions/checkout@v5",
	"actions/setup-go@v6",
	"actions/configure-pages@v5",
	"actions/upload-pages-artifact@v5",
	"actions/deploy-pages@v4",
	"aws-actions/configure-aws-credentials@v5",
}

// setupSteps are the first steps of every job: check out (the whole
// history where the diff needs it), Go, and signpost at version.
func setupSteps(version string, fullHistory bool) []workflowStep {
	checkout := workflowStep{Uses: "actions/checkout@v5", With: map[string]any{"persist-credentials": false}}
	if fullHistory {
		checkout.With["fetch-depth"] = 0
	}
	return []workflowStep{
		checkout,
		{Uses: "actions/setup-go@v6", With: map[string]any{"go-version": "stable", "cache": false}},
		{Name: "Install signpost", Run: "go install github.com/signpost-dev/signpost/cmd/signpost@" + version},
	}
}

// checkJob is the pull-request job that every publish choice has, for the
// catalog at catalog.
func checkJob(catalog, build string) workflowJob {
	j := workflowJob{
		Name:        "Validate, build and diff",
		RunsOn:      "ubuntu-latest",
		Permissions: map[string]string{"contents": "read"},
		Steps: append(setupSteps("latest", true),
			workflowStep{Name: "Validate", Run: "signpost validate " + catalog + " --format github"},
			workflowStep{Name: "Build", Run: build},
			workflowStep{
				Name: "Diff against the base branch",
				If:   "github.event_name == 'pull_request'",
				Env: map[string]string{
					"BASE_SHA": "${{ github.event.pull_request.base.sha }}",
					"FAIL_ON":  "${{ vars.SIGNPOST_FAIL_ON }}",
				},
				Run: `args=(--catalog ` + catalog + ` --format markdown)
if [ -n "$FAIL_ON" ]; then
  args+=(--fail-on "$FAIL_ON")
fi
signpost diff "$BASE_SHA" HEAD "${args[@]}" >> "$GITHUB_STEP_SUMMARY"
`,
			}),
	}
	j.Concurrency.Group = "signpost-check-${{ github.ref }}"
	j.Concurrency.CancelInProgress = "${{ github.event_name == 'pull_request' }}"
	return j
}

// publishJob is the job that publishes pushes to main.
func publishJob(name string, permissions map[string]string, steps ...workflowStep) workflowJob {
	j := workflowJob{
		Name:        name,
		Needs:       "check",
		If:          "github.event_name != 'pull_request' && github.ref == 'refs/heads/main'",
		RunsOn:      "ubuntu-latest",
		Permissions: permissions,
		Steps:       append(setupSteps("latest", false), steps...),
	}
	// Two publishes never overlap, and one in progress is never cut short.
	j.Concurrency.Group = "signpost-publish"
	j.Concurrency.CancelInProgress = "false"
	return j
}

func TestInitWorkflow(t *testing.T) {
	// Each case is written at the top of a folder, and in catalogs/acme of
	// a Git repository, where the workflow goes to the repository's top
	// and names the catalog's folder in every command.
	type place struct{ catalog, site string }
	pagesJob := func(p place) workflowJob {
		j := publishJob("Publish to GitHub Pages",
			map[string]string{"contents": "read", "pages": "write", "id-token": "write"},
			workflowStep{Name: "Build the site for Pages", Run: "signpost build " + p.catalog + " --target pages --out " + p.site},
			workflowStep{Uses: "actions/configure-pages@v5"},
			workflowStep{Uses: "actions/upload-pages-artifact@v5", With: map[string]any{"path": p.site + "/public", "include-hidden-files": true}},
			workflowStep{ID: "deployment", Uses: "actions/deploy-pages@v4"},
		)
		j.Environment = &struct{ Name, URL string }{"github-pages", "${{ steps.deployment.outputs.page_url }}"}
		return j
	}
	s3Step := func(role, region string) workflowStep {
		return workflowStep{Uses: "aws-actions/configure-aws-credentials@v5", With: map[string]any{"role-to-assume": role, "aws-region": region}}
	}
	publishStep := func(p place) workflowStep {
		return workflowStep{Name: "Publish", Run: "signpost publish " + p.catalog + " --target production"}
	}
	s3Perms := map[string]string{"contents": "read", "id-token": "write"}
	tests := []struct {
		name string
		args []string
		jobs func(p place) map[string]workflowJob
	}{
		{"none", nil, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check": checkJob(p.catalog, "signpost build "+p.catalog+" --out "+p.site),
			}
		}},
		{"pages", []string{"--publish", "pages"}, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob(p.catalog, "signpost build "+p.catalog+" --target pages --out "+p.site),
				"publish": pagesJob(p),
			}
		}},
		{"s3 placeholders", []string{"--publish", "s3"}, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob(p.catalog, "signpost build "+p.catalog+" --target production --out "+p.site),
				"publish": publishJob("Publish to S3", s3Perms, s3Step(placeholderRoleARN, "us-east-1"), publishStep(p)),
			}
		}},
		{"s3", []string{"--publish", "s3", "--bucket", "acme-discovery", "--region", "eu-west-1", "--role-arn", "arn:aws:iam::111122223333:role/signpost-publish"}, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob(p.catalog, "signpost build "+p.catalog+" --target production --out "+p.site),
				"publish": publishJob("Publish to S3", s3Perms, s3Step("arn:aws:iam::111122223333:role/signpost-publish", "eu-west-1"), publishStep(p)),
			}
		}},
	}
	for _, tt := range tests {
		for _, sub := range []bool{false, true} {
			name, p := tt.name, place{".", "site"}
			if sub {
				name, p = tt.name+" in a subfolder", place{"catalogs/acme", "catalogs/acme/site"}
			}
			t.Run(name, func(t *testing.T) {
				var top string
				if sub {
					top = initInRepo(t, tt.args...)
					if _, err := os.Stat(filepath.Join(top, "catalogs", "acme", ".github")); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("the catalog's folder has a .github, where GitHub never runs a workflow: %v", err)
					}
				} else {
					top = initInto(t, tt.args...)
				}
				wf := readWorkflow(t, top)
				if wf.Name != "signpost" {
					t.Errorf("name = %q", wf.Name)
				}
				wantOn := map[string]*trigger{"pull_request": nil, "push": {Branches: []string{"main"}}, "workflow_dispatch": nil}
				if diff := cmp.Diff(wantOn, wf.On); diff != "" {
					t.Errorf("on (-want +got):\n%s", diff)
				}
				// Nothing by default: each job states what it needs.
				if wf.Permissions == nil || len(wf.Permissions) != 0 {
					t.Errorf("workflow permissions = %v, want {}", wf.Permissions)
				}
				if diff := cmp.Diff(tt.jobs(p), wf.Jobs); diff != "" {
					t.Errorf("jobs (-want +got):\n%s", diff)
				}
				for name, job := range wf.Jobs {
					if job.Permissions == nil {
						t.Errorf("job %s states no permissions", name)
					}
					for _, s := range job.Steps {
						if s.Uses != "" && !slices.Contains(pinnedActions, s.Uses) {
							t.Errorf("job %s uses %s, not one of the pinned actions %v", name, s.Uses, pinnedActions)
						}
						// Values from the event reach scripts through env only.
						if strings.Contains(s.Run, "${{") {
							t.Errorf("job %s: an expression inside a run script:\n%s", name, s.Run)
						}
					}
				}
			})
		}
	}
}

func TestInitWorkflowVersion(t *testing.T) {
	for _, tt := range []struct{ version, want string }{
		{"v1.2.3", "v1.2.3"},
		{"v0.4.0-rc.1", "v0.4.0-rc.1"},
		{"v0.0.0-20260101120000-0123456789ab", "v0.0.0-20260101120000-0123456789ab"},
		{"dev", "latest"},
		{"(devel)", "latest"},
		{"", "latest"},
		{"v1.2.3+dirty", "latest"},
		{"v1.2.3-0.20260101120000-0123456789ab+dirty", "latest"},
		{"1.2.3", "latest"},
		{"v1.2.3; rm -rf /", "latest"},
	} {
		if got := workflowVersion(tt.version); got != tt.want {
			t.Errorf("workflowVersion(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
	d := initData{Origin: defaultOrigin, Publisher: defaultPublisher, DisplayName: "X", Publish: publishNone,
		Branch: "main", Version: "v1.2.3", ServerName: "com.example/notes", ServerURL: "https://mcp.example.com/notes",
		Catalog: ".", Site: "site"}
	files, err := renderInit(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == initWorkflowFile || f.Path == "README.md" {
			if !bytes.Contains(f.Data, []byte("go install github.com/signpost-dev/signpost/cmd/signpost@v1.2.3\n")) {
				t.Errorf("%s does not install signpost@v1.2.3", f.Path)
			}
		}
	}
}

// TestInitCatalog loads what init writes as validate and build do: no
// diagnostic at all, the flags' values in the config, and the target the
// workflow publishes to.
func TestInitCatalog(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    build.Config
		targets map[string]build.Target
	}{
		{"placeholders", nil,
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "Example Corp"}, nil},
		{"origin only", []string{"--origin", "https://Tools.Acme.example:8443", "--publish", "pages"},
			build.Config{Origin: "https://Tools.Acme.example:8443", Publisher: "tools.acme.example", DisplayName: "tools.acme.example"},
			map[string]build.Target{"pages": {GitHubPages: true}}},
		{"text that YAML would read otherwise", []string{"--publisher", "acme.example", "--display-name", `Acme "Tools": #1, [beta] & co`},
			build.Config{Origin: "https://example.com", Publisher: "acme.example", DisplayName: `Acme "Tools": #1, [beta] & co`}, nil},
		{"yes", []string{"--display-name", "yes", "--publish", "s3", "--bucket", "true", "--region", "null"},
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "yes"},
			map[string]build.Target{"production": {S3: &build.S3Target{Bucket: "true", Region: "null"}}}},
		{"s3", []string{"--publish", "s3", "--bucket", "acme-discovery", "--region", "eu-west-1"},
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "Example Corp"},
			map[string]build.Target{"production": {S3: &build.S3Target{Bucket: "acme-discovery", Region: "eu-west-1"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			cat, diags := build.Load(ctx, initInto(t, tt.args...))
			if len(diags) > 0 {
				t.Fatalf("the starter catalog has diagnostics:\n%v", diags)
			}
			got := cat.Config
			if diff := cmp.Diff(tt.targets, got.Targets, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
			if got.Origin != tt.want.Origin || got.Publisher != tt.want.Publisher || got.DisplayName != tt.want.DisplayName {
				t.Errorf("site = %q %q %q, want %q %q %q", got.Origin, got.Publisher, got.DisplayName, tt.want.Origin, tt.want.Publisher, tt.want.DisplayName)
			}
			var tools []string
			for _, tool := range cat.Tools {
				tools = append(tools, tool.ToolID+" "+tool.Server)
			}
			labels := strings.Split(got.Publisher, ".")
			slices.Reverse(labels)
			server := strings.Join(labels, ".") + "/notes"
			if diff := cmp.Diff([]string{"create_note " + server, "search_notes " + server}, tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if len(cat.Servers) != 1 || cat.Servers[0].Name != server {
				t.Errorf("servers = %v, want one, %s", cat.Servers, server)
			}
			b, err := build.Compile(ctx, cat)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Sites) != 1 || b.Sites[0].Tools != 2 {
				t.Errorf("built %d sites, want one with 2 tools", len(b.Sites))
			}
		})
	}
}

// TestInitInvalidStarter: when the files would not make a valid catalog,
// init says why, naming the files where they were to go, and leaves no
// trace: not even the folders it created, in the catalog's place or at the
// repository's top.
func TestInitInvalidStarter(t *testing.T) {
	files := []initFile{
		{Path: "signpost.yaml", Data: []byte("site: {origin: https://example.com}\n")},
		{Path: "README.md", Data: []byte("# x\n")},
		{Path: initWorkflowPath, Data: []byte("name: x\n"), AtTop: true},
	}
	for _, sub := range []bool{false, true} {
		t.Run(fmt.Sprintf("subfolder %v", sub), func(t *testing.T) {
			root := t.TempDir()
			place := initPlace{Dir: filepath.Join(root, "new"), Top: filepath.Join(root, "new"), Catalog: "."}
			if sub {
				place = initPlace{Dir: filepath.Join(root, "catalogs", "acme"), Top: root, Catalog: "catalogs/acme"}
			}
			err := writeInit(context.Background(), place, files)
			if err == nil {
				t.Fatal("writeInit wrote an invalid catalog")
			}
			for _, want := range []string{"the starter catalog would not be valid", filepath.ToSlash(place.Dir) + "/signpost.yaml:1:"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), ".signpost-init-") {
				t.Errorf("error %q names the staging folder", err)
			}
			if got := listTree(t, root); len(got) > 0 {
				t.Errorf("left behind: %v", got)
			}
		})
	}
}

// TestInitUndo: when a move into place fails, the files already moved are
// taken back, the ones they replaced put back, and the folders init made
// removed, in the catalog's folder and at the repository's top alike.
func TestInitUndo(t *testing.T) {
	top := t.TempDir()
	place := initPlace{Dir: filepath.Join(top, "catalogs", "acme"), Top: top, Catalog: "catalogs/acme"}
	write := func(rel, data string) {
		p := filepath.Join(top, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An old signpost.yaml that --force would replace, and a folder where
	// the workflow goes: its move fails after the catalog's.
	write("catalogs/acme/signpost.yaml", "# old\n")
	write(".github/workflows/signpost.yml/keep", "x")
	before := listTree(t, top)

	files, err := renderInit(initData{Origin: defaultOrigin, Publisher: defaultPublisher, DisplayName: "X", Publish: publishNone,
		Branch: "main", Version: "latest", ServerName: "com.example/notes", ServerURL: "https://mcp.example.com/notes",
		Catalog: place.Catalog, Site: place.site()})
	if err != nil {
		t.Fatal(err)
	}
	err = writeInit(context.Background(), place, files)
	if err == nil {
		t.Fatal("writeInit put a file where a folder is")
	}
	for _, want := range []string{"is a folder", "taken back"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if diff := cmp.Diff(before, listTree(t, top)); diff != "" {
		t.Errorf("files after a failed init (-before +after):\n%s", diff)
	}
	if data, err := os.ReadFile(filepath.Join(place.Dir, "signpost.yaml")); err != nil || string(data) != "# old\n" {
		t.Errorf("signpost.yaml = %q, %v; want the old one back", data, err)
	}
}

// listTree lists the files and folders under root, slash-separated.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInitPlace: inside a Git repository, the workflow's place is the
// repository's top, named as the user named the folder, and the catalog's
// path is the folder's relative to it.
func TestInitPlace(t *testing.T) {
	outside := t.TempDir()
	top := gitRepo(t)
	if err := os.WriteFile(filepath.Join(top, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(top, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cwd, dir string
		want           initPlace
		err            string
	}{
		{name: "outside a repository", dir: filepath.Join(outside, "a", "b"),
			want: initPlace{Dir: filepath.Join(outside, "a", "b"), Top: filepath.Join(outside, "a", "b"), Catalog: "."}},
		{name: "the top", dir: top, want: initPlace{Dir: top, Top: top, Catalog: ".", Git: true}},
		{name: "a new subfolder", dir: filepath.Join(top, "catalogs", "acme", "x"),
			want: initPlace{Dir: filepath.Join(top, "catalogs", "acme", "x"), Top: top, Catalog: "catalogs/acme/x", Git: true}},
		{name: "relative", cwd: filepath.Dir(top), dir: "repo/catalogs/acme",
			want: initPlace{Dir: "repo/catalogs/acme", Top: "repo", Catalog: "catalogs/acme", Git: true}},
		{name: "relative, below", cwd: filepath.Join(top, "catalogs"), dir: "acme",
			want: initPlace{Dir: "acme", Top: "..", Catalog: "catalogs/acme", Git: true}},
		{name: "the current folder", cwd: filepath.Join(top, "catalogs"), dir: ".",
			want: initPlace{Dir: ".", Top: "..", Catalog: "catalogs", Git: true}},
		{name: "a name the workflow cannot hold", dir: filepath.Join(top, "my catalog"),
			err: `its path in the Git repository, "my catalog", cannot stand in the workflow's commands`},
		{name: "a name like a flag", dir: filepath.Join(top, "-x"),
			err: `"-x", cannot stand in the workflow's commands`},
		{name: "a file on the way", dir: filepath.Join(top, "file", "x"),
			err: "file, on its path, is a file, not a folder"},
		{name: "a file", dir: filepath.Join(top, "file"),
			err: "it is a file, not a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cwd != "" {
				t.Chdir(tt.cwd)
			}
			got, err := findInitPlace(context.Background(), tt.dir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one that says %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("place (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInitActionlint runs a real workflow linter, actionlint, on the
// workflow of each publish choice. make test installs it into bin/;
// $SIGNPOST_ACTIONLINT names another binary.
func TestInitActionlint(t *testing.T) {
	bin, err := actionlintBinary()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: CI must run the workflow linter", err)
		}
		t.Skipf("%v; run make bin/actionlint", err)
	}
	for _, c := range []struct {
		publish string
		sub     bool // in catalogs/acme of a Git repository
	}{
		{publishS3, false},
		{publishPages, false},
		{publishNone, false},
		{publishS3, true},
		{publishPages, true},
	} {
		name := c.publish
		if c.sub {
			name += " in a subfolder"
		}
		t.Run(name, func(t *testing.T) {
			var top string
			if c.sub {
				top = initInRepo(t, "--publish", c.publish)
			} else {
				top = initInto(t, "--publish", c.publish)
			}
			// shellcheck and pyflakes off, so that the result does not
			// depend on what else the machine has installed.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "-no-color", "-shellcheck=", "-pyflakes=", filepath.FromSlash(initWorkflowFile))
			cmd.Dir = top
			out, err := cmd.CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("actionlint %s (%s): %v\n%s", initWorkflowFile, name, err, out)
			}
		})
	}
}

// actionlintBinary finds actionlint: $SIGNPOST_ACTIONLINT, else
// bin/actionlint at the module root.
func actionlintBinary() (string, error) {
	if p := os.Getenv("SIGNPOST_ACTIONLINT"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", errors.New("SIGNPOST_ACTIONLINT: " + err.Error())
		}
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 64 {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "bin", "actionlint")
			if _, err := os.Stat(p); err != nil {
				return "", errors.New("no actionlint at " + p + " (make test installs it; or set SIGNPOST_ACTIONLINT)")
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", errors.New("no go.mod above the test folder")
}

// TestInitCommentWidth: every comment line of the files init writes as
// YAML, and of its .gitignore, fits in 80 columns, for every publish choice,
// at the top and in a subfolder.
func TestInitCommentWidth(t *testing.T) {
	for _, publish := range []string{publishS3, publishPages, publishNone} {
		for _, catalog := range []string{".", "catalogs/acme"} {
			d := initData{Origin: defaultOrigin, Publisher: defaultPublisher, DisplayName: defaultDisplayName,
				Publish: publish, Branch: defaultBranch, Version: "latest", ServerName: "com.example/notes",
				ServerURL: "https://mcp.example.com/notes", Catalog: catalog, Site: path.Join(catalog, "site")}
			switch publish {
			case publishS3:
				d.Target, d.Bucket, d.Region, d.RoleARN = targetS3, placeholderBucket, defaultRegion, placeholderRoleARN
			case publishPages:
				d.Target = targetPages
			}
			files, err := renderInit(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Path == "README.md" {
					continue
				}
				lines := strings.Split(string(f.Data), "\n")
				for i, line := range lines {
					text, ok := strings.CutPrefix(strings.TrimSpace(line), "#")
					if !ok {
						continue
					}
					width := utf8.RuneCountInString(line)
					if width > 80 {
						t.Errorf("%s in %s, --publish %s: line %d has %d columns:\n%s", f.Path, catalog, publish, i+1, width, line)
					}
					// A line of prose followed by more of the same sentence
					// is filled: the next line's first word would not fit
					// on it with room to spare.
					if i+1 == len(lines) || strings.TrimSpace(text) == "" || strings.HasSuffix(text, ":") || strings.HasSuffix(text, ".") {
						continue
					}
					next, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "# ")
					if !ok || next == "" || next[0] == ' ' {
						continue
					}
					word, _, _ := strings.Cut(next, " ")
					if width+1+utf8.RuneCountInString(word) <= 66 {
						t.Errorf("%s in %s, --publish %s: line %d ends early: %q fits on it:\n%s\n%s", f.Path, catalog, publish, i+1, word, line, lines[i+1])
					}
				}
			}
		}
	}
}

// TestInitGitignore: a .gitignore already in the catalog's folder is left
// out of what init writes, and named for a hint unless it ignores site/.
func TestInitGitignore(t *testing.T) {
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
			place := initPlace{Dir: dir, Top: dir, Catalog: "."}
			files := []initFile{
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
			got, hint, err := keepGitignore(place, files)
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

// TestInitConflictsWorkflow: the workflow in the way is named, and when
// init wrote it for another catalog, the message says how to check both.
func TestInitConflictsWorkflow(t *testing.T) {
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
			conflicts: []string{initWorkflowPath},
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
			conflicts: []string{initWorkflowPath},
			want: []string{
				"One workflow checks one catalog, and .github/workflows/signpost.yml checks the",
				"catalog at the repository's top.",
			},
			flat: []string{"change the catalog folder . to catalogs/beta, and the --out folder site to catalogs/beta/site."}},
		{name: "a catalog at the top, another in the workflow", catalog: ".", existing: workflowFor("catalogs/acme"),
			conflicts: []string{initWorkflowPath, "README.md"},
			want: []string{
				"  - To check the catalog at the repository's top instead, run again with",
				"    --force.",
				"Nothing was written. Run again with --force to overwrite them, or init another folder.",
			},
			flat: []string{"change the catalog folder catalogs/acme to ., and the --out folder catalogs/acme/site to site."}},
		{name: "the same catalog", catalog: "catalogs/acme", existing: workflowFor("catalogs/acme"),
			conflicts: []string{initWorkflowPath},
			want: []string{
				"The repository has one signpost workflow: with --force, .github/workflows/signpost.yml checks catalogs/acme and no other catalog.",
				"Nothing was written. Run again with --force to overwrite them, or init another folder.",
			},
			not: []string{"git restore"}},
		{name: "a workflow of the user's own", catalog: "catalogs/acme", existing: "name: ci\n",
			conflicts: []string{initWorkflowPath},
			want:      []string{"The repository has one signpost workflow: with --force"},
			not:       []string{"git restore"}},
		{name: "two catalogs in one workflow", catalog: "catalogs/gamma", existing: workflowFor("catalogs/acme") + workflowFor("catalogs/beta"),
			conflicts: []string{initWorkflowPath},
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
			p := filepath.FromSlash(initWorkflowPath)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tt.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			place := initPlace{Dir: tt.catalog, Top: ".", Catalog: tt.catalog, Git: true}
			var conflicts []string
			for _, c := range tt.conflicts {
				if c == initWorkflowPath {
					conflicts = append(conflicts, c)
				} else {
					conflicts = append(conflicts, displayPath(place.Dir, c))
				}
			}
			var out bytes.Buffer
			printConflicts(&out, place, conflicts, readInitWorkflow(place), initData{Publish: publishNone})
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

// TestInitConflictsPublish: the advice for a second catalog follows what
// the workflow in the way publishes, as init wrote it: for S3 the publish
// job's step is copied too, with the production target and a bucket of the
// second catalog's own; GitHub Pages publishes one catalog only.
func TestInitConflictsPublish(t *testing.T) {
	tests := []struct {
		name     string
		existing initData // the workflow in the way, for catalogs/acme
		publish  string   // --publish of the new catalog, catalogs/beta
		bucket   bool     // whether --bucket was given
		want     []string // in the message, its lines joined
		not      []string
	}{
		{name: "none", existing: initData{Publish: publishNone}, publish: publishNone,
			want: []string{
				".github/workflows/signpost.yml checks catalogs/acme. - To check",
				"- To check both, commit the workflow, run again with --force and put the workflow back (git restore .github/workflows/signpost.yml). " +
					"Then copy its Validate, Build and Diff steps, and in the copies change the catalog folder catalogs/acme to catalogs/beta, " +
					"and the --out folder catalogs/acme/site to catalogs/beta/site. Nothing was written.",
			},
			not: []string{"publish", "Pages", "bucket"}},
		{name: "s3, the new one not", existing: initData{Publish: publishS3, Target: targetS3}, publish: publishNone,
			want: []string{
				".github/workflows/signpost.yml checks catalogs/acme and publishes it to S3.",
				"- To check catalogs/beta instead, run again with --force.",
				"- To check and publish both, commit the workflow, run again with --publish s3 --force and put the workflow back",
				"Then copy its Validate, Build and Diff steps, and the Publish step of its publish job, and in the copies change the catalog folder catalogs/acme to catalogs/beta",
				"Give catalogs/beta an S3 bucket of its own (--bucket), one that the workflow's role may write to.",
			},
			not: []string{"Pages"}},
		{name: "s3, the new one too, with its bucket", existing: initData{Publish: publishS3, Target: targetS3}, publish: publishS3, bucket: true,
			want: []string{
				"- To check and publish both, commit the workflow, run again with --force and put the workflow back",
				"and the Publish step of its publish job,",
				"Give catalogs/beta an S3 bucket of its own, one that",
			},
			not: []string{"--publish s3", "(--bucket)", "Pages"}},
		{name: "pages, the new one not", existing: initData{Publish: publishPages, Target: targetPages}, publish: publishS3,
			want: []string{
				".github/workflows/signpost.yml checks catalogs/acme and publishes it to GitHub Pages.",
				"- To check both, commit the workflow, run again with --force and put the workflow back",
				"In the copy of Build, drop --target pages too: catalogs/beta/signpost.yaml declares no pages target.",
				"A repository's GitHub Pages site can host only one catalog: the workflow still publishes only catalogs/acme. " +
					"To publish catalogs/beta too, give it a repository of its own.",
			},
			not: []string{"Publish step", "check and publish both", "bucket"}},
		{name: "pages, the new one too", existing: initData{Publish: publishPages, Target: targetPages}, publish: publishPages,
			want: []string{"A repository's GitHub Pages site can host only one catalog"},
			not:  []string{"drop --target pages", "Publish step"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The workflow in the way is the one init writes.
			d := tt.existing
			d.Catalog, d.Site, d.Branch, d.Version = "catalogs/acme", "catalogs/acme/site", defaultBranch, "latest"
			d.Bucket, d.Region, d.RoleARN = placeholderBucket, defaultRegion, placeholderRoleARN
			files, err := renderInit(d)
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
			place := initPlace{Dir: "catalogs/beta", Top: ".", Catalog: "catalogs/beta", Git: true}
			wf := readInitWorkflow(place)
			if diff := cmp.Diff(initWorkflow{Catalog: "catalogs/acme", Publish: tt.existing.Publish}, wf); diff != "" {
				t.Errorf("readInitWorkflow (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			printConflicts(&out, place, []string{initWorkflowPath}, wf, initData{Publish: tt.publish, BucketSet: tt.bucket})
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
				if n := utf8.RuneCountInString(l); n > initMessageWidth {
					t.Errorf("line of %d characters: %q", n, l)
				}
			}
		})
	}
}

// TestInitNextSteps follows the steps init prints, from the repository's
// parent, its top and the catalog's folder: the site signpost build writes
// lands in the catalog's site folder, which the catalog's .gitignore keeps
// out of Git.
func TestInitNextSteps(t *testing.T) {
	tests := []struct {
		name string
		cwd  string // relative to the repository's top
		dir  string // the DIR of signpost init, "" for none
	}{
		{name: "the repository's parent", cwd: "..", dir: "repo/catalogs/acme"},
		{name: "the top", cwd: ".", dir: "catalogs/acme"},
		{name: "the catalog's folder", cwd: "catalogs/acme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := gitRepo(t)
			cwd := filepath.Join(top, filepath.FromSlash(tt.cwd))
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(cwd)
			args := []string{"init"}
			if tt.dir != "" {
				args = append(args, tt.dir)
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
				t.Fatalf("signpost %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
			}
			_, next, ok := strings.Cut(stdout.String(), "\nNext: ")
			if !ok {
				t.Fatalf("no Next: line in\n%s", stdout.String())
			}
			next, _, _ = strings.Cut(next, "\n")
			ran := 0
			for _, step := range strings.Split(next, ", ") {
				cmdArgs, ok := strings.CutPrefix(step, "signpost ")
				if !ok {
					continue
				}
				var out, errOut bytes.Buffer
				if code := run(context.Background(), strings.Fields(cmdArgs), &out, &errOut); code != exitOK {
					t.Fatalf("%s: exit %d\n%s", step, code, errOut.String())
				}
				ran++
			}
			if ran != 2 {
				t.Fatalf("ran %d signpost steps of %q, want validate and build", ran, next)
			}
			if _, err := os.Stat(filepath.Join(top, "catalogs", "acme", "site", "public", "tools.json")); err != nil {
				t.Errorf("the printed build step did not build into the catalog's site folder: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), initGitTimeout)
			defer cancel()
			git := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=all")
			git.Dir = top
			status, err := git.Output()
			if err != nil {
				t.Fatalf("git status: %v", err)
			}
			if strings.Contains(string(status), "site/") {
				t.Errorf("after %q, git would commit the built site:\n%s", next, status)
			}
		})
	}
}
