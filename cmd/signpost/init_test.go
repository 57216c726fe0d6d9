package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/hosts/cloudflare"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/scaffold"
	"github.com/signpost-dev/signpost/internal/version"
	"go.yaml.in/yaml/v3"
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
	initIn(t, dir, args...)
	return dir
}

// initInRepo runs signpost init TOP/catalogs/acme with args, where TOP is
// a new Git repository, and returns TOP.
func initInRepo(t *testing.T, args ...string) string {
	t.Helper()
	top, _ := catalogtest.GitRepo(t)
	initIn(t, filepath.Join(top, "catalogs", "acme"), args...)
	return top
}

// initIn runs signpost init DIR with args, and fails the test unless it
// succeeds.
func initIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"init", dir}, args...), &stdout, &stderr); code != cmdutil.ExitOK {
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
		Env         map[string]string
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
		Outputs     map[string]string
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

// pinnedActions are the actions the workflows may use, each pinned to the
// commit of a release (the template names the release in a comment).
var pinnedActions = []string{
	"actions/checkout@fbc6f3992d24b796d5a048ff273f7fcc4a7b6c09",
	"actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16",
	"actions/configure-pages@983d7736d9b0ae728b81ab479565c72886d7745b",
	"actions/upload-pages-artifact@fc324d3547104276b827a68afc52ff2a11cc49c9",
	"actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e",
	"actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f",
	"actions/download-artifact@37930b1c2abaa49bbe596cd826c3c89aef350131",
	"aws-actions/configure-aws-credentials@61815dcd50bd041e203e49132bacad1fd04d2708",
	"actions/setup-node@a0853c24544627f65ddf259abe73b1d18a591444",
	"cloudflare/wrangler-action@9acf94ace14e7dc412b076f2c5c20b8ce93c79cd",
}

// pinnedUse is how a workflow names an action: at a commit, its release in
// a comment.
var pinnedUse = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$`)

// publishing is the condition of the publish job: a push to main (or a
// run by hand), not a pull request, nor the schedule of the drift job.
const publishing = "(github.event_name == 'push' || github.event_name == 'workflow_dispatch') && github.ref == 'refs/heads/main'"

// driftJob is the drift job every workflow has, which runs on a schedule
// only, for the catalog at catalog: it writes its report to the job
// summary and nothing else.
func driftJob(release, catalog string) workflowJob {
	steps := []workflowStep{{Uses: "actions/checkout@fbc6f3992d24b796d5a048ff273f7fcc4a7b6c09", With: map[string]any{"persist-credentials": false}}}
	if release == "" {
		steps = append(steps,
			workflowStep{Uses: "actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16", With: map[string]any{"go-version": "stable", "cache-dependency-path": initWorkflowFile}})
	}
	steps = append(steps, installStep(release), workflowStep{
		Name: "Compare the servers with their endpoints",
		Env:  map[string]string{"REPORT": "${{ runner.temp }}/drift.txt"},
		Run: `status=0
signpost check --live ` + catalog + ` --deadline 1m > "$REPORT" || status=$?
{
  echo '## signpost check --live'
  echo
  echo '` + "```" + `'
  cat "$REPORT"
  echo '` + "```" + `'
} >> "$GITHUB_STEP_SUMMARY"
cat "$REPORT"
exit "$status"
`})
	return workflowJob{
		Name:        "Compare the MCP servers with their endpoints",
		If:          "github.event_name == 'schedule'",
		RunsOn:      "ubuntu-latest",
		Timeout:     10,
		Permissions: map[string]string{"contents": "read"},
		Steps:       steps,
	}
}

// checkSetupSteps are the first steps of the check job: check out the whole
// history, then install signpost: a release with the signpost action, a
// development build (release "") with go install, at the SIGNPOST_VERSION
// of the workflow's env; with a publish job, keep the binary for it.
func checkSetupSteps(release string, publishes bool) []workflowStep {
	steps := []workflowStep{{Uses: "actions/checkout@fbc6f3992d24b796d5a048ff273f7fcc4a7b6c09", With: map[string]any{"persist-credentials": false, "fetch-depth": 0}}}
	if release == "" {
		steps = append(steps,
			workflowStep{Uses: "actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16", With: map[string]any{"go-version": "stable", "cache-dependency-path": initWorkflowFile}})
	}
	steps = append(steps, installStep(release))
	if publishes {
		steps = append(steps, workflowStep{Name: "Keep signpost for the publish job", If: publishing,
			Uses: "actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f",
			With: map[string]any{"name": "signpost", "path": "${{ steps.install.outputs.path }}/signpost", "if-no-files-found": "error", "retention-days": 1}})
	}
	return steps
}

// installStep is the step that installs signpost: the signpost action of
// a release, else go install.
func installStep(release string) workflowStep {
	if release != "" {
		return workflowStep{Name: "Install signpost", ID: "install", Uses: "signpost-dev/signpost@" + release, With: map[string]any{"version": "${{ env.SIGNPOST_VERSION }}"}}
	}
	return workflowStep{Name: "Install signpost", ID: "install", Env: map[string]string{"GOBIN": "${{ runner.temp }}/signpost"}, Run: `go install "github.com/signpost-dev/signpost/cmd/signpost@${SIGNPOST_VERSION}"
echo "$GOBIN" >> "$GITHUB_PATH"
echo "path=$GOBIN" >> "$GITHUB_OUTPUT"
`}
}

// handoffSteps are the first steps of the publish job, the same for a
// release and a development build: check out the whole history (the
// registry is dated from it), then take the signpost the
// check job installed, and put it on PATH.
func handoffSteps() []workflowStep {
	return []workflowStep{
		{Uses: "actions/checkout@fbc6f3992d24b796d5a048ff273f7fcc4a7b6c09", With: map[string]any{"persist-credentials": false, "fetch-depth": 0}},
		{Uses: "actions/download-artifact@37930b1c2abaa49bbe596cd826c3c89aef350131", With: map[string]any{"name": "signpost", "path": "${{ runner.temp }}/signpost"}},
		{Name: "Put signpost on PATH", Env: map[string]string{"DIR": "${{ runner.temp }}/signpost"}, Run: `chmod +x "$DIR/signpost"
echo "$DIR" >> "$GITHUB_PATH"
"$DIR/signpost" version
`},
	}
}

// checkJob is the pull-request job that every publish choice has, for the
// catalog at catalog; publishes when a publish job follows it.
func checkJob(release, catalog, build string, publishes bool) workflowJob {
	j := workflowJob{
		Name:        "Validate, build and diff",
		If:          "github.event_name != 'schedule'",
		RunsOn:      "ubuntu-latest",
		Timeout:     15,
		Permissions: map[string]string{"contents": "read"},
		Steps: append(checkSetupSteps(release, publishes),
			workflowStep{Name: "Validate", Run: "signpost validate " + catalog + " --format github"},
			workflowStep{Name: "Build", Run: build},
			workflowStep{
				Name: "Diff against the base branch",
				ID:   "diff",
				If:   "github.event_name == 'pull_request'",
				Env: map[string]string{
					"BASE_SHA": "${{ github.event.pull_request.base.sha }}",
					"FAIL_ON":  "${{ vars.SIGNPOST_FAIL_ON }}",
					"DIFF_DIR": "${{ runner.temp }}/signpost-diff",
				},
				Run: `args=(--catalog ` + catalog + ` --format markdown)
if [ -n "$FAIL_ON" ]; then
  args+=(--fail-on "$FAIL_ON")
fi
mkdir -p "$DIFF_DIR"
status=0
signpost diff "$BASE_SHA" HEAD "${args[@]}" > "$DIFF_DIR/diff.md" || status=$?
cat "$DIFF_DIR/diff.md" >> "$GITHUB_STEP_SUMMARY"
if [ -s "$DIFF_DIR/diff.md" ]; then
  echo "written=true" >> "$GITHUB_OUTPUT"
fi
exit "$status"
`,
			},
			workflowStep{
				Name: "Keep the diff for the comment",
				If:   "${{ !cancelled() && steps.diff.outputs.written == 'true' && " + sameRepository + " }}",
				Uses: "actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f",
				With: map[string]any{"name": "signpost-diff", "path": "${{ runner.temp }}/signpost-diff/diff.md", "retention-days": 1},
			}),
		Outputs: map[string]string{"diff": "${{ steps.diff.outputs.written }}"},
	}
	j.Concurrency.Group = "signpost-check-${{ github.ref }}"
	j.Concurrency.CancelInProgress = "${{ github.event_name == 'pull_request' }}"
	return j
}

// sameRepository is the condition of a pull request from a branch of the
// repository itself, whose token may write: not from a fork.
const sameRepository = "github.event.pull_request.head.repo.full_name == github.repository"

// commentJob is the job that comments the diff on a pull request, the same
// for every publish choice: no checkout, nothing but the diff, a token
// that may write pull-request comments and nothing else.
// The script, run is tested by running it (TestInitComment).
func commentJob(run string) workflowJob {
	j := workflowJob{
		Name:        "Comment the diff on the pull request",
		Needs:       "check",
		If:          "${{ !cancelled() && needs.check.outputs.diff == 'true' && " + sameRepository + " }}",
		RunsOn:      "ubuntu-latest",
		Timeout:     5,
		Permissions: map[string]string{"pull-requests": "write"},
		Steps: []workflowStep{
			{Uses: "actions/download-artifact@37930b1c2abaa49bbe596cd826c3c89aef350131", With: map[string]any{"name": "signpost-diff", "path": "${{ runner.temp }}/signpost-diff"}},
			{Name: "Comment the diff", Env: map[string]string{
				"GH_TOKEN": "${{ github.token }}",
				"GH_REPO":  "${{ github.repository }}",
				"PR":       "${{ github.event.pull_request.number }}",
				"RUN_URL":  "${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }}",
				"DIFF":     "${{ runner.temp }}/signpost-diff/diff.md",
			}, Run: run},
		},
	}
	j.Concurrency.Group = "signpost-comment-${{ github.ref }}"
	j.Concurrency.CancelInProgress = "false"
	return j
}

// publishJob is the job that publishes pushes to main, the same for a
// release and a development build.
func publishJob(name string, permissions map[string]string, steps ...workflowStep) workflowJob {
	j := workflowJob{
		Name:        name,
		Needs:       "check",
		If:          publishing,
		RunsOn:      "ubuntu-latest",
		Timeout:     15,
		Permissions: permissions,
		Steps:       append(handoffSteps(), steps...),
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
	pagesJob := func(p place) workflowJob {
		j := publishJob("Publish to GitHub Pages",
			map[string]string{"contents": "read", "pages": "write", "id-token": "write"},
			workflowStep{Name: "Build the site for Pages", Run: "signpost build " + p.catalog + " --target pages --out " + p.site},
			workflowStep{Uses: "actions/configure-pages@983d7736d9b0ae728b81ab479565c72886d7745b"},
			workflowStep{Uses: "actions/upload-pages-artifact@fc324d3547104276b827a68afc52ff2a11cc49c9", With: map[string]any{"path": p.site + "/public", "include-hidden-files": true}},
			workflowStep{ID: "deployment", Uses: "actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e"},
		)
		j.Environment = &struct{ Name, URL string }{"github-pages", "${{ steps.deployment.outputs.page_url }}"}
		return j
	}
	s3Step := func(role, region string) workflowStep {
		return workflowStep{Uses: "aws-actions/configure-aws-credentials@61815dcd50bd041e203e49132bacad1fd04d2708", With: map[string]any{"role-to-assume": role, "aws-region": region}}
	}
	publishStep := func(p place) workflowStep {
		return workflowStep{Name: "Publish", Run: "signpost publish " + p.catalog + " --target production"}
	}
	s3Perms := map[string]string{"contents": "read", "id-token": "write"}
	cloudflareJob := func(p place) workflowJob {
		return publishJob("Publish to Cloudflare", map[string]string{"contents": "read"},
			workflowStep{Name: "Build the site for Cloudflare", Run: "signpost build " + p.catalog + " --target cloudflare --out " + p.site},
			workflowStep{Name: "List the sites' Workers", ID: "sites", Run: `{
  echo 'commands<<SIGNPOST_EOF'
  find ` + p.site + ` -name wrangler.jsonc | sort | sed 's/^/deploy --config /'
  echo 'SIGNPOST_EOF'
} >> "$GITHUB_OUTPUT"
`},
			workflowStep{Uses: "actions/setup-node@a0853c24544627f65ddf259abe73b1d18a591444", With: map[string]any{"node-version": 24}},
			workflowStep{Name: "Deploy to Cloudflare", Uses: "cloudflare/wrangler-action@9acf94ace14e7dc412b076f2c5c20b8ce93c79cd", With: map[string]any{
				"apiToken":        "${{ secrets.CLOUDFLARE_API_TOKEN }}",
				"accountId":       "${{ secrets.CLOUDFLARE_ACCOUNT_ID }}",
				"wranglerVersion": cloudflare.WranglerVersion,
				"command":         "${{ steps.sites.outputs.commands }}",
			}},
		)
	}
	netlifyJob := func(p place) workflowJob {
		return publishJob("Publish to Netlify", map[string]string{"contents": "read"},
			workflowStep{Name: "Build the site for Netlify", Run: "signpost build " + p.catalog + " --target netlify --out " + p.site},
			workflowStep{Uses: "actions/setup-node@a0853c24544627f65ddf259abe73b1d18a591444", With: map[string]any{"node-version": 22}},
			workflowStep{Name: "Deploy to Netlify",
				Env: map[string]string{"NETLIFY_AUTH_TOKEN": "${{ secrets.NETLIFY_AUTH_TOKEN }}", "NETLIFY_SITE_ID": "${{ secrets.NETLIFY_SITE_ID }}"},
				Run: "npx --yes netlify-cli@27.10.2 deploy --prod --no-build --dir " + p.site + "/public --functions " + p.site + `/public/netlify/functions --site "$NETLIFY_SITE_ID"`},
		)
	}
	tests := []struct {
		name string
		args []string
		jobs func(p place, run string) map[string]workflowJob
	}{
		{"none", nil, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --verify --out "+p.site, false),
				"comment": commentJob(run),
			}
		}},
		{"pages", []string{"--publish", "pages"}, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target pages --verify --out "+p.site, true),
				"comment": commentJob(run),
				"publish": pagesJob(p),
			}
		}},
		{"s3 placeholders", []string{"--publish", "s3"}, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target production --verify --out "+p.site, true),
				"comment": commentJob(run),
				"publish": publishJob("Publish to S3", s3Perms, s3Step("arn:aws:iam::123456789012:role/replace-with-your-publish-role", "us-east-1"), publishStep(p)),
			}
		}},
		{"s3", []string{"--publish", "s3", "--bucket", "acme-discovery", "--region", "eu-west-1", "--role-arn", "arn:aws:iam::111122223333:role/signpost-publish"}, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target production --verify --out "+p.site, true),
				"comment": commentJob(run),
				"publish": publishJob("Publish to S3", s3Perms, s3Step("arn:aws:iam::111122223333:role/signpost-publish", "eu-west-1"), publishStep(p)),
			}
		}},
		{"pages from a release", []string{"--publish", "pages"}, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("v1.2.3", p.catalog, "signpost build "+p.catalog+" --target pages --verify --out "+p.site, true),
				"comment": commentJob(run),
				"publish": pagesJob(p),
			}
		}},
		{"cloudflare", []string{"--publish", "cloudflare"}, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target cloudflare --verify --out "+p.site, true),
				"comment": commentJob(run),
				"publish": cloudflareJob(p),
			}
		}},
		{"netlify", []string{"--publish", "netlify"}, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("", p.catalog, "signpost build "+p.catalog+" --target netlify --verify --out "+p.site, true),
				"comment": commentJob(run),
				"publish": netlifyJob(p),
			}
		}},
		{"netlify from a release", []string{"--publish", "netlify"}, func(p place, run string) map[string]workflowJob {
			return map[string]workflowJob{
				"check":   checkJob("v1.2.3", p.catalog, "signpost build "+p.catalog+" --target netlify --verify --out "+p.site, true),
				"comment": commentJob(run),
				"publish": netlifyJob(p),
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
				// The version stands in one place: a release writes itself,
				// the test binary, no release, the fallback.
				wantVersion := scaffold.FallbackVersion
				if strings.HasSuffix(tt.name, "from a release") {
					wantVersion = "v1.2.3"
				}
				if diff := cmp.Diff(map[string]string{"SIGNPOST_VERSION": wantVersion}, wf.Env); diff != "" {
					t.Errorf("env (-want +got):\n%s", diff)
				}
				run := ""
				if steps := wf.Jobs["comment"].Steps; len(steps) > 0 {
					run = steps[len(steps)-1].Run
				}
				want := tt.jobs(p, run)
				release := ""
				if strings.HasSuffix(tt.name, "from a release") {
					release = "v1.2.3"
				}
				want["drift"] = driftJob(release, p.catalog)
				if diff := cmp.Diff(want, wf.Jobs); diff != "" {
					t.Errorf("jobs (-want +got):\n%s", diff)
				}
				// Every action but signpost's own is pinned to a commit, with
				// its release in a comment, as OpenSSF Scorecard asks.
				raw, err := os.ReadFile(filepath.Join(top, filepath.FromSlash(initWorkflowFile)))
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(string(raw), "\n") {
					_, uses, ok := strings.Cut(line, "uses: ")
					if ok && !strings.HasPrefix(uses, "signpost-dev/signpost@") && !pinnedUse.MatchString(uses) {
						t.Errorf("%q is not pinned to a commit with its release in a comment", strings.TrimSpace(line))
					}
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
		targets map[string]target.Target
	}{
		{"placeholders", nil,
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "Example Corp"}, nil},
		{"origin only", []string{"--origin", "https://Tools.Acme.example:8443", "--publish", "pages"},
			build.Config{Origin: "https://Tools.Acme.example:8443", Publisher: "tools.acme.example", DisplayName: "tools.acme.example"},
			map[string]target.Target{"pages": {GitHubPages: true}}},
		{"text that YAML would read otherwise", []string{"--publisher", "acme.example", "--display-name", `Acme "Tools": #1, [beta] & co`},
			build.Config{Origin: "https://example.com", Publisher: "acme.example", DisplayName: `Acme "Tools": #1, [beta] & co`}, nil},
		{"yes", []string{"--display-name", "yes", "--publish", "s3", "--bucket", "true", "--region", "null"},
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "yes"},
			map[string]target.Target{"production": {S3: &target.S3{Bucket: "true", Region: "null"}}}},
		{"s3", []string{"--publish", "s3", "--bucket", "acme-discovery", "--region", "eu-west-1"},
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "Example Corp"},
			map[string]target.Target{"production": {S3: &target.S3{Bucket: "acme-discovery", Region: "eu-west-1"}}}},
		{"cloudflare", []string{"--publish", "cloudflare"},
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "Example Corp"},
			map[string]target.Target{"cloudflare": {Cloudflare: &target.Cloudflare{}}}},
		{"netlify", []string{"--publish", "netlify"},
			build.Config{Origin: "https://example.com", Publisher: "example.com", DisplayName: "Example Corp"},
			map[string]target.Target{"netlify": {Netlify: true}}},
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
	cmd := newInitCmd(nil)
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
	if err != nil && testing.Short() {
		t.Skipf("%v; not in -short mode", err)
	}
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
		{publishCloudflare, false, false},
		{publishCloudflare, true, true},
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
	// signpost's own workflows, in this repository.
	t.Run("release workflow", func(t *testing.T) {
		lint(t, filepath.Join("..", ".."), ".github/workflows/release.yml")
	})
	t.Run("ci workflow", func(t *testing.T) {
		lint(t, filepath.Join("..", ".."), ".github/workflows/ci.yml")
	})
	t.Run("schemas workflow", func(t *testing.T) {
		lint(t, filepath.Join("..", ".."), ".github/workflows/schemas.yml")
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
			if code := run(context.Background(), args, &stdout, &stderr); code != cmdutil.ExitOK {
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
				if code := run(context.Background(), strings.Fields(cmdArgs), &out, &errOut); code != cmdutil.ExitOK {
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

// TestInitComment runs the comment job's script of the workflow init
// writes, for every publish choice, with a gh that records what it is
// asked: the first push creates the comment, the next edits the one the
// marker finds, and a diff longer than a comment holds is cut at a line
// with a note pointing to the job summary.
func TestInitComment(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: CI must run the workflow's scripts", err)
		}
		t.Skip("no bash on PATH: install bash to run the workflow's scripts")
	}
	// The fake gh answers the search for the comment with $FOUND, and
	// keeps the body of what it is asked to create or edit.
	const fakeGH = `#!/bin/sh
echo "$*" >> "$LOG"
case "$*" in
*--paginate*) [ -n "$FOUND" ] && echo "$FOUND"; exit 0 ;;
esac
for a in "$@"; do
  case "$a" in body=@*) cp "${a#body=@}" "$SENT" ;; esac
done
`
	const marker = "<!-- signpost-diff -->"
	long := strings.Repeat("| a tool | changed | é |\n", 4000) // 100,000 bytes
	for _, publish := range []string{publishNone, publishS3, publishPages} {
		wf := readWorkflow(t, initInto(t, "--publish", publish))
		steps := wf.Jobs["comment"].Steps
		if len(steps) == 0 {
			t.Fatalf("--publish %s: no comment job", publish)
		}
		script := steps[len(steps)-1].Run
		for _, c := range []struct {
			name, found, diff string
			wantCall          string
		}{
			{"first push", "", "## signpost diff\n\nNo changes.\n", "api --method POST repos/acme/notes/issues/7/comments -F body=@"},
			{"next push", "4242", "## signpost diff\n\nNo changes.\n", "api --method PATCH repos/acme/notes/issues/comments/4242 -F body=@"},
			{"long diff", "", long, "api --method POST repos/acme/notes/issues/7/comments -F body=@"},
		} {
			t.Run(publish+" "+c.name, func(t *testing.T) {
				dir := t.TempDir()
				bin := filepath.Join(dir, "bin")
				if err := os.Mkdir(bin, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755); err != nil {
					t.Fatal(err)
				}
				diff := filepath.Join(dir, "diff.md")
				if err := os.WriteFile(diff, []byte(c.diff), 0o644); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, bash, "-e", "-c", script)
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
					"RUNNER_TEMP="+dir, "LOG="+filepath.Join(dir, "log"), "SENT="+filepath.Join(dir, "sent"), "FOUND="+c.found,
					"GH_REPO=acme/notes", "PR=7", "RUN_URL=https://github.com/acme/notes/actions/runs/99", "DIFF="+diff)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("the script: %v\n%s", err, out)
				}
				log, _ := os.ReadFile(filepath.Join(dir, "log"))
				calls := strings.Split(strings.TrimSpace(string(log)), "\n")
				if len(calls) != 2 || !strings.Contains(calls[0], "--paginate repos/acme/notes/issues/7/comments") ||
					!strings.Contains(calls[0], marker) || !strings.Contains(calls[0], `github-actions[bot]`) || !strings.HasPrefix(calls[1], c.wantCall) {
					t.Fatalf("gh calls:\n%s\nwant a search for the marker, then %s", log, c.wantCall)
				}
				sent, err := os.ReadFile(filepath.Join(dir, "sent"))
				if err != nil {
					t.Fatal(err)
				}
				body := string(sent)
				if !strings.HasPrefix(body, marker+"\n") {
					t.Errorf("the comment does not start with the marker:\n%.200s", body)
				}
				if n := len([]rune(body)); n > 65536 {
					t.Errorf("the comment has %d characters, more than GitHub's 65,536", n)
				}
				if c.diff != long {
					if body != marker+"\n"+c.diff {
						t.Errorf("comment = %q, want the marker and the diff", body)
					}
					return
				}
				const note = "\n---\n\nThe diff is longer than a comment can hold: all of it is in the job summary of https://github.com/acme/notes/actions/runs/99\n"
				kept, ok := strings.CutSuffix(strings.TrimPrefix(body, marker+"\n"), note)
				if !ok || !strings.HasPrefix(long, kept) || !strings.HasSuffix(kept, "|\n") || len(kept) < 50000 {
					t.Errorf("a long diff is not cut at a line with the note: %d bytes kept, ending %q", len(kept), body[max(0, len(body)-200):])
				}
			})
		}
	}
}

// TestInitSignpostVersion: --signpost-version is what SIGNPOST_VERSION
// names, and then init says nothing of the fallback; a release writes
// itself without a word; what go install cannot fetch is a usage error.
func TestInitSignpostVersion(t *testing.T) {
	const note = "is not a release: the workflow installs signpost"
	for _, tt := range []struct {
		name, release string
		args          []string
		want          string
		install       workflowStep
	}{
		{"chosen", "", []string{"--signpost-version", "v0.2.0"}, "v0.2.0", installStep("")},
		{"a commit", "", []string{"--signpost-version", "0123456789abcdef0123456789abcdef01234567"}, "0123456789abcdef0123456789abcdef01234567", installStep("")},
		{"a release", "v1.2.3", nil, "v1.2.3", installStep("v1.2.3")},
		{"another release from a release", "v1.2.3", []string{"--signpost-version", "v1.3.0"}, "v1.3.0", installStep("v1.2.3")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.release != "" {
				setVersionInfo(t, version.Info{Version: tt.release, Go: "go1.26.0"})
			}
			dir := filepath.Join(t.TempDir(), "catalog")
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), append([]string{"init", dir}, tt.args...), &stdout, &stderr); code != cmdutil.ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			if strings.Contains(stdout.String(), note) {
				t.Errorf("init speaks of the fallback:\n%s", stdout.String())
			}
			wf := readWorkflow(t, dir)
			if got := wf.Env["SIGNPOST_VERSION"]; got != tt.want {
				t.Errorf("SIGNPOST_VERSION = %q, want %q", got, tt.want)
			}
			for name, job := range wf.Jobs {
				for _, s := range job.Steps {
					if s.Name == "Install signpost" {
						if diff := cmp.Diff(tt.install, s); diff != "" {
							t.Errorf("job %s: install step (-want +got):\n%s", name, diff)
						}
					}
				}
			}
		})
	}
	t.Run("latest", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"init", filepath.Join(t.TempDir(), "c"), "--signpost-version", "latest"}, &stdout, &stderr)
		want := `signpost: --signpost-version "latest" is not a signpost version that go install can fetch: give a release such as v0.1.0, a pseudo-version or a full commit hash (never latest)`
		if code != cmdutil.ExitUsage || !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr.String(), cmdutil.ExitUsage, want)
		}
	})
}
