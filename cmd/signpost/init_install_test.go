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
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

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
// layout of Go's module proxy protocol), runs each workflow's Install
// signpost step as the workflow has it, and runs the signpost it
// installed. The dependencies come from the local module cache, so that
// nothing is fetched from the network when the cache has them.
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
			if code := run(context.Background(), []string{"init", dir, "--publish", publish}, &stdout, &stderr); code != exitOK {
				t.Fatalf("signpost init: exit %d\n%s", code, stderr.String())
			}
			env, installs := installSteps(t, dir)
			if env["SIGNPOST_VERSION"] != version {
				t.Fatalf("SIGNPOST_VERSION = %q, want %q", env["SIGNPOST_VERSION"], version)
			}
			if !strings.Contains(stdout.String(), "installs signpost "+version+" (SIGNPOST_VERSION)") {
				t.Errorf("init does not say which signpost the workflow installs:\n%s", stdout.String())
			}
			bin := filepath.Join(t.TempDir(), "bin")
			for job, script := range installs {
				ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
				cmd := exec.CommandContext(ctx, bash, "-e", "-c", script)
				cmd.Dir = t.TempDir()
				cmd.Env = append(os.Environ(),
					"GOBIN="+bin,
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
				)
				for k, v := range env {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
				out, err := cmd.CombinedOutput()
				cancel()
				if err != nil {
					t.Fatalf("job %s: the install step\n%s\nfails: %v\n%s", job, script, err, out)
				}
			}
			signpost := filepath.Join(bin, "signpost")
			out, err := exec.CommandContext(t.Context(), signpost, "version").CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "signpost "+version+"\n") {
				t.Fatalf("the installed signpost version: %v\n%s\nwant it to start with signpost %s", err, out, version)
			}
			if out, err := exec.CommandContext(t.Context(), signpost, "validate", dir).CombinedOutput(); err != nil {
				t.Fatalf("the installed signpost validate %s: %v\n%s", dir, err, out)
			}
		})
	}
}

// installSteps reads the workflow init wrote in dir: its env, and the run
// script of the Install signpost step of each job, which all jobs must
// have, all the same.
func installSteps(t *testing.T, dir string) (map[string]string, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(initWorkflowFile)))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Env  map[string]string
		Jobs map[string]struct {
			Steps []struct{ Name, Uses, Run string }
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("%s: %v", initWorkflowFile, err)
	}
	installs := map[string]string{}
	for name, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.Name != "Install signpost" {
				continue
			}
			if s.Run == "" {
				t.Fatalf("job %s installs signpost with %q, not a command", name, s.Uses)
			}
			installs[name] = s.Run
		}
	}
	// The comment job downloads the diff and runs nothing of signpost's.
	if len(installs) == 0 || len(installs) != len(wf.Jobs)-1 {
		t.Fatalf("install steps in %d of the %d jobs", len(installs), len(wf.Jobs))
	}
	return wf.Env, installs
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
