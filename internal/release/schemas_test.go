package release

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// schemasWorkflow is the workflow that publishes the JSON Schemas.
const schemasWorkflow = ".github/workflows/schemas.yml"

// TestSchemasPublished: every JSON Schema's $id resolves, as a file the
// schemas workflow publishes. The $ids name the GitHub Pages site of the
// repository go.mod names (https://OWNER.github.io/REPO/); the test runs
// the workflow's step that lays the site out, as the workflow has it, and
// finds each schema, byte for byte, at the path of its $id below the
// folder the workflow uploads.
func TestSchemasPublished(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module, _, _ := strings.Cut(strings.TrimPrefix(string(gomod), "module "), "\n")
	owner, repo, ok := strings.Cut(strings.TrimPrefix(module, "github.com/"), "/")
	if !ok || !strings.HasPrefix(module, "github.com/") {
		t.Fatalf("module %q is not on GitHub", module)
	}
	site := "https://" + owner + ".github.io/" + repo + "/"

	data, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(schemasWorkflow)))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name, Uses, Run string
				Env             map[string]string
				With            map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", schemasWorkflow, err)
	}
	runnerTemp := t.TempDir()
	expand := func(s string) string { return strings.ReplaceAll(s, "${{ runner.temp }}", runnerTemp) }
	var laidOut bool
	var uploaded string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			switch {
			case s.Name == "Lay out the schemas":
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-e", "-c", s.Run)
				cmd.Dir = moduleRoot
				cmd.Env = append(os.Environ(), "RUNNER_TEMP="+runnerTemp)
				for k, v := range s.Env {
					cmd.Env = append(cmd.Env, k+"="+expand(v))
				}
				out, err := cmd.CombinedOutput()
				cancel()
				if err != nil {
					t.Fatalf("%s: the step %q\n%s\nfails: %v\n%s", schemasWorkflow, s.Name, s.Run, err, out)
				}
				laidOut = true
			case strings.HasPrefix(s.Uses, "actions/upload-pages-artifact@"):
				uploaded = expand(s.With["path"])
			}
		}
	}
	if !laidOut || uploaded == "" {
		t.Fatalf("%s: no step lays the schemas out (%v) or uploads the site (%q)", schemasWorkflow, laidOut, uploaded)
	}

	files, err := filepath.Glob(filepath.Join(moduleRoot, "schemas", "*.schema.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema in schemas/: %v", err)
	}
	ids := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		if other, ok := ids[schema.ID]; ok {
			t.Errorf("%s and %s have the same $id %s", other, name, schema.ID)
		}
		ids[schema.ID] = name
		rest, ok := strings.CutPrefix(schema.ID, site)
		if !ok || rest == "" || strings.Contains(rest, "..") || strings.ContainsAny(rest, "?#") {
			t.Errorf("%s: $id %q is not a file of the repository's Pages site %s", name, schema.ID, site)
			continue
		}
		published, err := os.ReadFile(filepath.Join(uploaded, filepath.FromSlash(rest)))
		if err != nil {
			t.Errorf("%s: its $id %s is not a file the workflow publishes: %v", name, schema.ID, err)
			continue
		}
		if !bytes.Equal(published, data) {
			t.Errorf("%s: the file published at %s differs from it", name, schema.ID)
		}
	}
}
