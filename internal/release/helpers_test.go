package release

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// serve serves the files of dir on 127.0.0.1 for the rest of the test and
// returns its URL.
func serve(t *testing.T, dir string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(dir)))
	srv.Listener.Close()
	srv.Listener = l
	srv.Config.ReadHeaderTimeout = 10 * time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// install runs scripts/install.sh VERSION DIR against the release files
// at url, with nothing of the machine's HOME, and returns what it printed.
func install(t *testing.T, url, version, dir string) ([]byte, error) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(moduleRoot, "scripts", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", script, version, dir)
	cmd.Env = append(os.Environ(), "SIGNPOST_DOWNLOAD_URL="+url, "HOME="+t.TempDir(),
		// Nothing but the local server, whatever the machine's proxy.
		"http_proxy=", "https_proxy=", "HTTP_PROXY=", "HTTPS_PROXY=", "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1")
	return cmd.CombinedOutput()
}

// archiveEntries lists the names in a .tar.gz or .zip archive, sorted.
func archiveEntries(t *testing.T, name string) []string {
	t.Helper()
	var names []string
	if strings.HasSuffix(name, ".zip") {
		r, err := zip.OpenReader(name)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for _, f := range r.File {
			names = append(names, f.Name)
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			names = append(names, h.Name)
		}
	}
	slices.Sort(names)
	return names
}

// TestInstallScriptShellcheck: the script is shellcheck-clean as POSIX sh.
// make test installs shellcheck; without it the test fails when CI is set,
// and is skipped otherwise.
func TestInstallScriptShellcheck(t *testing.T) {
	bin, err := exec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no shellcheck: make test installs it from Debian's packages")
		}
		t.Skip("no shellcheck: make test installs it from Debian's packages")
	}
	command(t, time.Minute, moduleRoot, nil, bin, "--shell=sh", "scripts/install.sh")
}
