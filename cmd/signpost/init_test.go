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
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"init", dir}, args...), &stdout, &stderr); code != exitOK {
		t.Fatalf("signpost init %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	return dir
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

// checkJob is the pull-request job that every publish choice has.
func checkJob(build string) workflowJob {
	j := workflowJob{
		Name:        "Validate, build and diff",
		RunsOn:      "ubuntu-latest",
		Permissions: map[string]string{"contents": "read"},
		Steps: append(setupSteps("latest", true),
			workflowStep{Name: "Validate", Run: "signpost validate . --format github"},
			workflowStep{Name: "Build", Run: build},
			workflowStep{
				Name: "Diff against the base branch",
				If:   "github.event_name == 'pull_request'",
				Env: map[string]string{
					"BASE_SHA": "${{ github.event.pull_request.base.sha }}",
					"FAIL_ON":  "${{ vars.SIGNPOST_FAIL_ON }}",
				},
				Run: `args=(--catalog . --format markdown)
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
	pagesJob := publishJob("Publish to GitHub Pages",
		map[string]string{"contents": "read", "pages": "write", "id-token": "write"},
		workflowStep{Name: "Build the site for Pages", Run: "signpost build . --target pages --out site"},
		workflowStep{Uses: "actions/configure-pages@v5"},
		workflowStep{Uses: "actions/upload-pages-artifact@v5", With: map[string]any{"path": "site/public", "include-hidden-files": true}},
		workflowStep{ID: "deployment", Uses: "actions/deploy-pages@v4"},
	)
	pagesJob.Environment = &struct{ Name, URL string }{"github-pages", "${{ steps.deployment.outputs.page_url }}"}
	s3Step := func(role, region string) workflowStep {
		return workflowStep{Uses: "aws-actions/configure-aws-credentials@v5", With: map[string]any{"role-to-assume": role, "aws-region": region}}
	}
	publishStep := workflowStep{Name: "Publish", Run: "signpost publish . --target production"}
	s3Perms := map[string]string{"contents": "read", "id-token": "write"}
	tests := []struct {
		name string
		args []string
		jobs map[string]workflowJob
	}{
		{"none", nil, map[string]workflowJob{
			"check": checkJob("signpost build . --out site"),
		}},
		{"pages", []string{"--publish", "pages"}, map[string]workflowJob{
			"check":   checkJob("signpost build . --target pages --out site"),
			"publish": pagesJob,
		}},
		{"s3 placeholders", []string{"--publish", "s3"}, map[string]workflowJob{
			"check":   checkJob("signpost build . --target production --out site"),
			"publish": publishJob("Publish to S3", s3Perms, s3Step(placeholderRoleARN, "us-east-1"), publishStep),
		}},
		{"s3", []string{"--publish", "s3", "--bucket", "acme-discovery", "--region", "eu-west-1", "--role-arn", "arn:aws:iam::111122223333:role/signpost-publish"}, map[string]workflowJob{
			"check":   checkJob("signpost build . --target production --out site"),
			"publish": publishJob("Publish to S3", s3Perms, s3Step("arn:aws:iam::111122223333:role/signpost-publish", "eu-west-1"), publishStep),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wf := readWorkflow(t, initInto(t, tt.args...))
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
			if diff := cmp.Diff(tt.jobs, wf.Jobs); diff != "" {
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
		Branch: "main", Version: "v1.2.3", ServerName: "com.example/notes", ServerURL: "https://mcp.example.com/notes"}
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
// trace: not even the folder it created.
func TestInitInvalidStarter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	files := []initFile{
		{Path: "signpost.yaml", Data: []byte("site: {origin: https://example.com}\n")},
		{Path: "README.md", Data: []byte("# x\n")},
	}
	err := writeInit(context.Background(), dir, files)
	if err == nil {
		t.Fatal("writeInit wrote an invalid catalog")
	}
	for _, want := range []string{"the starter catalog would not be valid", filepath.ToSlash(dir) + "/signpost.yaml:1:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), ".signpost-init-") {
		t.Errorf("error %q names the staging folder", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is left behind: %v", dir, err)
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
	for _, publish := range []string{publishS3, publishPages, publishNone} {
		t.Run(publish, func(t *testing.T) {
			dir := initInto(t, "--publish", publish)
			// shellcheck and pyflakes off, so that the result does not
			// depend on what else the machine has installed.
			cmd := exec.Command(bin, "-no-color", "-shellcheck=", "-pyflakes=", filepath.FromSlash(initWorkflowFile))
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("actionlint %s (--publish %s): %v\n%s", initWorkflowFile, publish, err, out)
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
