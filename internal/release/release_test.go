package release

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// moduleRoot is the folder of go.mod, two above this package.
var moduleRoot = filepath.Join("..", "..")

// tool finds a tool that make test installs into bin/ (env names another
// binary). Without it the test is skipped, unless CI is set.
func tool(t *testing.T, name, env string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s, which make test installs: not in -short mode", name)
	}
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join(moduleRoot, "bin", name)
	}
	abs, err := filepath.Abs(p)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no %s (%v): CI must run it; make test installs it", name, err)
		}
		t.Skipf("no %s (%v); run make bin/%s, or set %s", name, err, name, env)
	}
	return abs
}

func goreleaser(t *testing.T) string { return tool(t, "goreleaser", "SIGNPOST_GORELEASER") }

// command runs name with args in dir within timeout and returns its
// output; a failure fails the test.
func command(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestGoreleaserCheck: the configuration is valid and uses nothing
// deprecated.
func TestGoreleaserCheck(t *testing.T) {
	bin := goreleaser(t)
	command(t, time.Minute, moduleRoot, nil, bin, "check")
}

// TestGoreleaserVersion: the release workflow runs the GoReleaser that the
// Makefile installs for the tests.
func TestGoreleaserVersion(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	pinned := regexp.MustCompile(`(?m)^GORELEASER_VERSION := (v\S+)$`).FindStringSubmatch(read("Makefile"))
	used := regexp.MustCompile(`(?m)^\s+version: (v\S+)$`).FindAllStringSubmatch(read(".github/workflows/release.yml"), -1)
	if pinned == nil || len(used) != 1 || used[0][1] != pinned[1] {
		t.Errorf("the Makefile pins GoReleaser %v, the release workflow runs %v", pinned, used)
	}
}

// snapshot is one snapshot release of the repository, made once for all
// the tests that need it.
type snapshot struct {
	dist    string // its dist folder
	version string // its version, such as 0.0.0-snapshot+0123456
	binary  string // the binary of this machine's platform
	commit  string // the commit it was made from
	date    time.Time
	took    time.Duration
}

var (
	snapshotOnce sync.Once
	snapshotDir  string
	snapshotErr  error
	theSnapshot  snapshot
)

func TestMain(m *testing.M) {
	code := m.Run()
	if snapshotDir != "" {
		os.RemoveAll(snapshotDir)
	}
	os.Exit(code)
}

// snapshotTimeout bounds a snapshot release: six cross-compiled builds of
// signpost, slow on a loaded machine with a cold build cache.
const snapshotTimeout = 25 * time.Minute

// makeSnapshot runs goreleaser release --snapshot --clean --skip=publish
// into a temporary folder, once.
func makeSnapshot(t *testing.T) snapshot {
	t.Helper()
	if testing.Short() {
		t.Skip("makes a snapshot release with GoReleaser, six builds of signpost: not in -short mode")
	}
	bin := goreleaser(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git: %v", err)
	}
	snapshotOnce.Do(func() {
		snapshotDir, snapshotErr = os.MkdirTemp("", "signpost-release-")
		if snapshotErr != nil {
			return
		}
		theSnapshot, snapshotErr = runSnapshot(bin, snapshotDir)
	})
	if snapshotErr != nil {
		t.Fatal(snapshotErr)
	}
	return theSnapshot
}

func runSnapshot(bin, tmp string) (snapshot, error) {
	// The repository's configuration, with dist in the temporary folder.
	config, err := os.ReadFile(filepath.Join(moduleRoot, ".goreleaser.yaml"))
	if err != nil {
		return snapshot{}, err
	}
	dist := filepath.Join(tmp, "dist")
	config = fmt.Appendf(config, "\ndist: %s\n", strconv(dist))
	cfg := filepath.Join(tmp, "goreleaser.yaml")
	if err := os.WriteFile(cfg, config, 0o644); err != nil {
		return snapshot{}, err
	}
	// The commit and its date, read before GoReleaser reads them.
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = moduleRoot
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	head, err := git("rev-parse", "HEAD")
	if err != nil {
		return snapshot{}, fmt.Errorf("git rev-parse HEAD: %v", err)
	}
	when, err := git("log", "-1", "--format=%cI", head)
	if err != nil {
		return snapshot{}, fmt.Errorf("git log: %v", err)
	}
	date, err := time.Parse(time.RFC3339, when)
	if err != nil {
		return snapshot{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "release", "--snapshot", "--clean", "--skip=publish", "--config", cfg)
	cmd.Dir = moduleRoot
	// GoReleaser reads the commit only from a clone with a remote; a clone
	// without one gets this repository's URL through git's environment
	// (git ls-remote --get-url prints it, nothing is fetched).
	if remotes, err := git("remote"); err == nil && remotes == "" {
		cmd.Env = append(os.Environ(), "GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=remote.origin.url", "GIT_CONFIG_VALUE_0=https://github.com/signpost-dev/signpost.git")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return snapshot{}, fmt.Errorf("goreleaser release --snapshot: %v\n%s", err, out)
	}
	s := snapshot{dist: dist, commit: head, date: date, took: time.Since(start)}

	var meta struct{ Version string }
	if err := readJSON(filepath.Join(dist, "metadata.json"), &meta); err != nil {
		return snapshot{}, err
	}
	s.version = meta.Version
	var artifacts []struct {
		Type, Path, Goos, Goarch string
	}
	if err := readJSON(filepath.Join(dist, "artifacts.json"), &artifacts); err != nil {
		return snapshot{}, err
	}
	for _, a := range artifacts {
		if a.Type == "Binary" && a.Goos == runtime.GOOS && a.Goarch == runtime.GOARCH {
			s.binary = a.Path
			if !filepath.IsAbs(s.binary) {
				s.binary = filepath.Join(moduleRoot, s.binary)
			}
		}
	}
	if s.binary == "" {
		return snapshot{}, fmt.Errorf("the snapshot has no binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return s, nil
}

// strconv quotes s as a YAML double-quoted scalar (JSON's quoting is one).
func strconv(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// platforms are the platforms of a release, as archives name them.
var platforms = []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"}

// archiveName is the archive of a platform in the release of version.
func archiveName(version, platform string) string {
	ext := ".tar.gz"
	if strings.HasPrefix(platform, "windows_") {
		ext = ".zip"
	}
	return "signpost_" + version + "_" + platform + ext
}

func checksumsName(version string) string { return "signpost_" + version + "_checksums.txt" }

// TestSnapshot: a snapshot release has an archive per platform, each with
// LICENSE and README.md, a SHA-256 checksums file naming exactly those,
// and a binary that says its version, commit and date.
func TestSnapshot(t *testing.T) {
	s := makeSnapshot(t)
	t.Logf("goreleaser release --snapshot took %v", s.took.Round(time.Second))
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+-snapshot\+[0-9a-f]{7,}$`).MatchString(s.version) {
		t.Errorf("snapshot version %q", s.version)
	}

	var want []string
	for _, p := range platforms {
		want = append(want, archiveName(s.version, p))
	}
	sums, err := os.ReadFile(filepath.Join(s.dist, checksumsName(s.version)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for line := range strings.Lines(string(sums)) {
		sum, name, ok := strings.Cut(strings.TrimSpace(line), "  ")
		if !ok || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(sum) {
			t.Errorf("checksums: line %q", line)
		}
		got = append(got, name)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("checksums name %q, want %q", got, want)
	}
	for _, name := range want {
		entries := archiveEntries(t, filepath.Join(s.dist, name))
		exe := "signpost"
		if strings.HasSuffix(name, ".zip") {
			exe = "signpost.exe"
		}
		if wantEntries := []string{"LICENSE", "README.md", exe}; !slices.Equal(entries, wantEntries) {
			t.Errorf("%s holds %q, want %q", name, entries, wantEntries)
		}
	}

	checkVersion(t, s.binary, "v"+s.version, s.commit, s.date)
}

// checkVersion runs bin version, in both formats, and checks what it says.
func checkVersion(t *testing.T, bin, version, commit string, date time.Time) {
	t.Helper()
	var got struct{ Version, Commit, Date, Go string }
	out := command(t, time.Minute, "", nil, bin, "version", "--format", "json")
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("signpost version --format json: %v\n%s", err, out)
	}
	d, err := time.Parse(time.RFC3339, got.Date)
	if got.Version != version || got.Commit != commit || err != nil || !d.Equal(date) || !strings.HasPrefix(got.Go, "go1.") {
		t.Errorf("signpost version --format json = %s, want version %s, commit %s, date %s", out, version, commit, date.UTC().Format(time.RFC3339))
	}
	text := string(command(t, time.Minute, "", nil, bin, "version"))
	want := fmt.Sprintf("signpost %s\ncommit: %s\ndate: %s\ngo: %s\n", got.Version, got.Commit, got.Date, got.Go)
	if text != want {
		t.Errorf("signpost version =\n%s\nwant\n%s", text, want)
	}
}

// TestInstallScript: scripts/install.sh installs the snapshot from a local
// server, and refuses a tampered archive, installing nothing.
func TestInstallScript(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the script's test runs on Linux and macOS")
	}
	s := makeSnapshot(t)
	version := "v" + s.version

	t.Run("installs", func(t *testing.T) {
		url := serve(t, s.dist)
		dir := filepath.Join(t.TempDir(), "bin")
		out, err := install(t, url, version, dir)
		if err != nil {
			t.Fatalf("install.sh: %v\n%s", err, out)
		}
		bin := filepath.Join(dir, "signpost")
		var got struct{ Version string }
		if out := command(t, time.Minute, "", nil, bin, "version", "--format", "json"); json.Unmarshal(out, &got) != nil || got.Version != version {
			t.Errorf("the installed signpost says %s, want version %s", out, version)
		}
		// Installing again replaces it.
		if out, err := install(t, url, version, dir); err != nil {
			t.Fatalf("install.sh again: %v\n%s", err, out)
		}
	})

	host := runtime.GOOS + "_" + runtime.GOARCH
	archive := archiveName(s.version, host)
	for _, c := range []struct {
		name    string
		tamper  func(t *testing.T, dir string)
		version string
		want    string
	}{
		{name: "tampered archive", want: "SHA-256", tamper: func(t *testing.T, dir string) {
			name := filepath.Join(dir, archive)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 0x01
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "archive missing from the checksums", want: "no checksum", tamper: func(t *testing.T, dir string) {
			name := filepath.Join(dir, checksumsName(s.version))
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for line := range strings.Lines(string(data)) {
				if !strings.Contains(line, archive) {
					kept = append(kept, line)
				}
			}
			if err := os.WriteFile(name, []byte(strings.Join(kept, "")), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "no checksums file", want: "cannot download", tamper: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, checksumsName(s.version))); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "latest", version: "latest", want: "not a release version"},
		{name: "a version with a shell command", version: "v1.2.3;id", want: "not a release version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The host's archive and the checksums, copied to be changed.
			dir := t.TempDir()
			for _, name := range []string{archive, checksumsName(s.version)} {
				data, err := os.ReadFile(filepath.Join(s.dist, name))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.tamper != nil {
				c.tamper(t, dir)
			}
			v := version
			if c.version != "" {
				v = c.version
			}
			dest := filepath.Join(t.TempDir(), "bin")
			out, err := install(t, serve(t, dir), v, dest)
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("install.sh: %v, want it to fail\n%s", err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("install.sh says:\n%s\nwant %q in it", out, c.want)
			}
			if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
				entries, _ := os.ReadDir(dest)
				t.Errorf("install.sh installed something: %v %v", err, entries)
			}
		})
	}
}
