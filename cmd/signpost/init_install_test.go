package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/scaffold"
)

// modulePath is the path go install fetches signpost by.
const modulePath = "github.com/signpost-dev/signpost"

// installTimeout bounds one go install of signpost: its dependencies
// compiled from a fresh module cache on a busy machine.
const installTimeout = 20 * time.Minute

// TestInitInstallLines proves the install line of every workflow init
// writes: it tags the repository as it is at the version the workflow
// names, serves that tag from a Go module proxy (GOPROXY=file://, the
// layout of Go's module proxy protocol), runs the Install signpost step
// of the one job that installs, as the workflow has it, and runs the
// signpost it installed; then, where a publish job follows, hands that
// binary over as the workflow's artifact does (without its file mode) and
// runs the publish job's step that puts it on PATH. The dependencies come
// from the local module cache, so that nothing is fetched from the
// network when the cache has them.
func TestInitInstallLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds signpost with go install from a module proxy, which takes minutes: not in -short mode")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is needed to run the install step: %v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash, the shell of the workflow's run steps, is needed: %v", err)
	}
	version := scaffold.FallbackVersion
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	writeModuleProxy(t, proxy, version)

	modcache := filepath.Join(tmp, "modcache")
	downloads := strings.TrimSpace(goOutput(t, goBin, "env", "GOMODCACHE"))
	upstream := strings.TrimSpace(goOutput(t, goBin, "env", "GOPROXY"))
	goproxy := "file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(downloads, "cache", "download"))
	if upstream != "" && upstream != "off" {
		goproxy += "," + upstream
	}

	for _, publish := range []string{publishS3, publishPages, publishCloudflare, publishNetlify, publishNone} {
		t.Run(publish, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "catalog")
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"init", dir, "--publish", publish}, &stdout, &stderr); code != cmdutil.ExitOK {
				t.Fatalf("signpost init: exit %d\n%s", code, stderr.String())
			}
			wf := readInstall(t, dir, publish != publishNone)
			if wf.env["SIGNPOST_VERSION"] != version {
				t.Fatalf("SIGNPOST_VERSION = %q, want %q", wf.env["SIGNPOST_VERSION"], version)
			}
			if !strings.Contains(stdout.String(), "installs signpost "+version+" (SIGNPOST_VERSION)") {
				t.Errorf("init does not say which signpost the workflow installs:\n%s", stdout.String())
			}

			// The runner's temporary folder (the check job's, then the
			// publish job's), and the files a step writes its outputs
			// and PATH to.
			runnerTemp := t.TempDir()
			expand := func(s string, outputs map[string]string) string {
				s = strings.ReplaceAll(s, "${{ runner.temp }}", runnerTemp)
				for k, v := range outputs {
					s = strings.ReplaceAll(s, "${{ steps.install.outputs."+k+" }}", v)
				}
				return s
			}
			step := func(what, script string, stepEnv map[string]string, timeout time.Duration) (outputs map[string]string, path []string) {
				t.Helper()
				files := t.TempDir()
				output, ghPath := filepath.Join(files, "output"), filepath.Join(files, "path")
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				cmd := exec.CommandContext(ctx, bash, "-e", "-c", script)
				cmd.Dir = t.TempDir()
				cmd.Env = append(os.Environ(),
					"GOMODCACHE="+modcache,
					"GOPROXY="+goproxy,
					// The tag is the test's own: no checksum database
					// knows it. The dependencies are checked against
					// signpost's go.sum as usual.
					"GONOSUMDB="+modulePath,
					"GOPRIVATE=", "GONOPROXY=", "GOWORK=off", "GOTOOLCHAIN=local",
					// The module cache is removed with the test's folder;
					// -trimpath keeps the build cache's entries good for
					// the next run, whose module cache is elsewhere.
					"GOFLAGS=-modcacherw -trimpath",
					"RUNNER_TEMP="+runnerTemp, "GITHUB_OUTPUT="+output, "GITHUB_PATH="+ghPath,
				)
				for k, v := range wf.env {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
				for k, v := range stepEnv {
					cmd.Env = append(cmd.Env, k+"="+expand(v, nil))
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s\n%s\nfails: %v\n%s", what, script, err, out)
				}
				outputs = map[string]string{}
				if data, err := os.ReadFile(output); err == nil {
					for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
						if k, v, ok := strings.Cut(line, "="); ok {
							outputs[k] = v
						}
					}
				}
				if data, err := os.ReadFile(ghPath); err == nil {
					path = strings.Fields(string(data))
				}
				return outputs, path
			}

			outputs, path := step("the install step of job check", wf.install.Run, wf.install.Env, installTimeout)
			bin := outputs["path"]
			if bin == "" || !slices.Equal(path, []string{bin}) {
				t.Fatalf("the install step gives the output path=%q and puts %q on PATH, want one folder, the same", bin, path)
			}
			check := func(signpost string) {
				t.Helper()
				out, err := exec.CommandContext(t.Context(), signpost, "version").CombinedOutput()
				if err != nil || !strings.HasPrefix(string(out), "signpost "+version+"\n") {
					t.Fatalf("%s version: %v\n%s\nwant it to start with signpost %s", signpost, err, out, version)
				}
				if out, err := exec.CommandContext(t.Context(), signpost, "validate", dir).CombinedOutput(); err != nil {
					t.Fatalf("%s validate %s: %v\n%s", signpost, dir, err, out)
				}
			}
			check(filepath.Join(bin, "signpost"))
			if wf.keep == nil {
				return
			}

			// The artifact: the file the upload step names, where the
			// download step puts it, without its executable bit.
			src := expand(wf.keep.With["path"].(string), outputs)
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatalf("the upload step's path %s: %v", src, err)
			}
			runnerTemp = t.TempDir() // the publish job's runner
			dst := filepath.Join(expand(wf.download.With["path"].(string), nil), filepath.Base(src))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, path = step("the publish job's step "+wf.onPath.Name, wf.onPath.Run, wf.onPath.Env, time.Minute)
			if !slices.Equal(path, []string{filepath.Dir(dst)}) {
				t.Fatalf("the publish job puts %q on PATH, want %s, where the artifact is", path, filepath.Dir(dst))
			}
			check(dst)
		})
	}
}

// installWorkflow is what the tests run of a workflow init wrote: its env,
// the one step that installs signpost, and, with a publish job, the steps
// that hand the binary over to it.
type installWorkflow struct {
	env     map[string]string
	install workflowStep
	// keep is the check job's upload of the binary, download and onPath
	// the publish job's steps that take it and put it on PATH; nil
	// without a publish job.
	keep, download, onPath *workflowStep
}

// readInstall reads the workflow init wrote in dir and holds it to
// installing signpost once: one job, check, has the Install signpost
// step, a command; no other job installs Go or signpost; with publishes,
// the check job keeps the binary as the artifact the publish job
// downloads, by the same name, and puts on PATH.
func readInstall(t *testing.T, dir string, publishes bool) installWorkflow {
	t.Helper()
	wf := readWorkflow(t, dir)
	got := installWorkflow{env: wf.Env}
	var installers []string
	for name, job := range wf.Jobs {
		for i, s := range job.Steps {
			installs := s.Name == "Install signpost" || strings.Contains(s.Run, "go install") ||
				strings.HasPrefix(s.Uses, "signpost-dev/signpost@") || strings.HasPrefix(s.Uses, "actions/setup-go@")
			if s.Name == "Install signpost" {
				if s.Run == "" {
					t.Fatalf("job %s installs signpost with %q, not a command", name, s.Uses)
				}
				got.install = s
			}
			if installs && !slices.Contains(installers, name) {
				installers = append(installers, name)
			}
			switch {
			case strings.HasPrefix(s.Uses, "actions/upload-artifact@") && s.With["name"] == "signpost":
				got.keep = &job.Steps[i]
			case strings.HasPrefix(s.Uses, "actions/download-artifact@") && s.With["name"] == "signpost":
				got.download = &job.Steps[i]
			case s.Name == "Put signpost on PATH":
				got.onPath = &job.Steps[i]
			}
		}
	}
	// The drift job runs alone, on a schedule, and installs its own.
	slices.Sort(installers)
	if !slices.Equal(installers, []string{"check", "drift"}) {
		t.Fatalf("jobs %v install signpost or Go, want check and drift (which runs alone, on a schedule) alone", installers)
	}
	if got.install.Run == "" {
		t.Fatal("job check has no Install signpost step")
	}
	if !publishes {
		if got.keep != nil || got.download != nil || got.onPath != nil {
			t.Fatal("no publish job, but the binary is handed over")
		}
		return got
	}
	if got.keep == nil || got.download == nil || got.onPath == nil {
		t.Fatalf("a publish job, but the binary is not handed over: upload %v, download %v, put on PATH %v", got.keep != nil, got.download != nil, got.onPath != nil)
	}
	// The artifact is kept exactly when the publish job runs.
	if got.keep.If != wf.Jobs["publish"].If {
		t.Errorf("the binary is kept if %q, the publish job runs if %q", got.keep.If, wf.Jobs["publish"].If)
	}
	if got.download.With["path"] != got.onPath.Env["DIR"] {
		t.Errorf("the artifact is downloaded to %v, and %v is put on PATH", got.download.With["path"], got.onPath.Env["DIR"])
	}
	return got
}

// writeModuleProxy writes into dir a Go module proxy that serves the
// repository, as its files are now, at version: it commits them to a new
// Git repository, tags the commit and writes the tag's list, info, go.mod
// and zip where go install looks for them.
func writeModuleProxy(t *testing.T, dir, version string) {
	t.Helper()
	root := catalogtest.ModuleRoot(t)
	repo, git := catalogtest.GitRepo(t)
	// The repository's files, tracked or not, but what .gitignore leaves
	// out (bin/, the built site): what a commit of them all would hold.
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	list, err := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", root, err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		info, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // tracked, but deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "signpost "+version)
	git("tag", version)
	when := strings.TrimSpace(git("log", "-1", "--format=%cI", version))
	stamp, err := time.Parse(time.RFC3339, when)
	if err != nil {
		t.Fatalf("the tag's time %q: %v", when, err)
	}
	archive := git("archive", "--format=tar", version)

	at := filepath.Join(dir, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, stamp.UTC()})
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  moduleZip(t, []byte(archive), modulePath+"@"+version+"/"),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// moduleZip turns a tar archive of a module's files into a module zip as
// the go command makes one: each regular file under prefix
// (module@version/), but those of a folder that holds a module of its own
// (a go.mod below the top, as testdata may) and of vendor folders.
func moduleZip(t *testing.T, archive []byte, prefix string) []byte {
	t.Helper()
	type entry struct {
		name string
		data []byte
	}
	var files []entry
	nested := map[string]bool{}
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if dir := path.Dir(h.Name); path.Base(h.Name) == "go.mod" && dir != "." {
			nested[dir] = true
		}
		files = append(files, entry{h.Name, data})
	}
	outside := func(name string) bool {
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if nested[dir] || path.Base(dir) == "vendor" {
				return false
			}
		}
		return true
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		if !outside(f.name) {
			continue
		}
		w, err := zw.Create(prefix + f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// goOutput runs the go command with args and returns its standard output.
func goOutput(t *testing.T, goBin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goBin, args...).Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
