package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/scaffold"
	"github.com/signpost-dev/signpost/internal/version"
)

// gitTimeout bounds the git commands of the tests.
const gitTimeout = 30 * time.Second

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
	top, _ := catalogtest.GitRepo(t)
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
		Timeout     int    `yaml:"timeout-minutes"`
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
// history where the diff needs it), then signpost: a release with the
// signpost action, a development build (release "") with go install at
// scaffold.FallbackVersion, since the test binary knows no commit.
func setupSteps(release string, fullHistory bool) []workflowStep {
	checkout := workflowStep{Uses: "actions/checkout@v5", With: map[string]any{"persist-credentials": false}}
	if fullHistory {
		checkout.With["fetch-depth"] = 0
	}
	if release != "" {
		return []workflowStep{
			checkout,
			{Name: "Install signpost", Uses: "signpost-dev/signpost@" + release, With: map[string]any{"version": release}},
		}
	}
	return []workflowStep{
		checkout,
		{Uses: "actions/setup-go@v6", With: map[string]any{"go-version": "stable", "cache-dependency-path": initWorkflowFile}},
		{Name: "Install signpost", Run: "go install github.com/signpost-dev/signpost/cmd/signpost@" + scaffold.FallbackVersion},
	}
}

// checkJob is the pull-request job that every publish choice has, for the
// catalog at catalog.
func checkJob(release, catalog, build string) workflowJob {
	j := workflowJob{
		Name:        "Validate, build and diff",
		RunsOn:      "ubuntu-latest",
		Timeout:     15,
		Permissions: map[string]string{"contents": "read"},
		Steps: append(setupSteps(release, true),
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
func publishJob(release, name string, permissions map[string]string, steps ...workflowStep) workflowJob {
	j := workflowJob{
		Name:        name,
		Needs:       "check",
		If:          "github.event_name != 'pull_request' && github.ref == 'refs/heads/main'",
		RunsOn:      "ubuntu-latest",
		Timeout:     15,
		Permissions: permissions,
		Steps:       append(setupSteps(release, false), steps...),
	}
	if name == "Publish to S3" {
		j.Timeout = 30 // with the wait for CloudFront's invalidation
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
	pagesJob := func(release string, p place) workflowJob {
		j := publishJob(release, "Publish to GitHub Pages",
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
				"check": checkJob("", p.catalog, "signpost build "+p.catalog+" --verify --out "+p.site),
			}
		}},
		{"pages", []string{"--publish", "pages"}, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target pages --verify --out "+p.site),
				"publish": pagesJob("", p),
			}
		}},
		{"s3 placeholders", []string{"--publish", "s3"}, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target production --verify --out "+p.site),
				"publish": publishJob("", "Publish to S3", s3Perms, s3Step("arn:aws:iam::123456789012:role/replace-with-your-publish-role", "us-east-1"), publishStep(p)),
			}
		}},
		{"s3", []string{"--publish", "s3", "--bucket", "acme-discovery", "--region", "eu-west-1", "--role-arn", "arn:aws:iam::111122223333:role/signpost-publish"}, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target production --verify --out "+p.site),
				"publish": publishJob("", "Publish to S3", s3Perms, s3Step("arn:aws:iam::111122223333:role/signpost-publish", "eu-west-1"), publishStep(p)),
			}
		}},
		{"pages from a release", []string{"--publish", "pages"}, func(p place) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("v1.2.3", p.catalog, "signpost build "+p.catalog+" --target pages --verify --out "+p.site),
				"publish": pagesJob("v1.2.3", p),
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
				if strings.HasSuffix(tt.name, "from a release") {
					setVersionInfo(t, version.Info{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Go: "go1.26.0"})
				}
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
					// A pull request's catalog must not hold a runner for
					// GitHub's default six hours.
					if job.Timeout <= 0 || job.Timeout > 30 {
						t.Errorf("job %s: timeout-minutes %d, want 1 to 30", name, job.Timeout)
					}
					for _, s := range job.Steps {
						// The signpost action is at the release that wrote the workflow.
						if s.Uses != "" && !slices.Contains(pinnedActions, s.Uses) && s.Uses != "signpost-dev/signpost@v1.2.3" {
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

// TestInitFlagNames: every field of scaffold.Options that an error can be
// about is named by a flag of signpost init.
func TestInitFlagNames(t *testing.T) {
	cmd := newInitCmd()
	for _, f := range []scaffold.Field{
		scaffold.FieldOrigin, scaffold.FieldPublisher, scaffold.FieldDisplayName, scaffold.FieldPublish,
		scaffold.FieldBucket, scaffold.FieldRegion, scaffold.FieldRoleARN, scaffold.FieldBranch,
	} {
		if name, ok := initFlags[f]; !ok || cmd.Flags().Lookup(name) == nil {
			t.Errorf("no flag of signpost init for %s (initFlags: %q)", f, name)
		}
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
	lint := func(t *testing.T, dir, file string) {
		t.Helper()
		// shellcheck and pyflakes off, so that the result does not
		// depend on what else the machine has installed.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-no-color", "-shellcheck=", "-pyflakes=", filepath.FromSlash(file))
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("actionlint %s: %v\n%s", file, err, out)
		}
	}
	for _, c := range []struct {
		publish string
		sub     bool // in catalogs/acme of a Git repository
		release bool // written by a release, not a development build
	}{
		{publishS3, false, false},
		{publishPages, false, false},
		{publishNone, false, false},
		{publishS3, true, false},
		{publishPages, true, false},
		{publishS3, false, true},
		{publishPages, true, true},
		{publishNetlify, false, false},
		{publishNetlify, true, true},
	} {
		name := c.publish
		if c.sub {
			name += " in a subfolder"
		}
		if c.release {
			name += " from a release"
		}
		t.Run(name, func(t *testing.T) {
			if c.release {
				setVersionInfo(t, version.Info{Version: "v1.2.3", Go: "go1.26.0"})
			}
			var top string
			if c.sub {
				top = initInRepo(t, "--publish", c.publish)
			} else {
				top = initInto(t, "--publish", c.publish)
			}
			lint(t, top, initWorkflowFile)
		})
	}
	// signpost's own release workflow, in this repository.
	t.Run("release workflow", func(t *testing.T) {
		lint(t, filepath.Join("..", ".."), ".github/workflows/release.yml")
	})
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
			top, _ := catalogtest.GitRepo(t)
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
			ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
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
