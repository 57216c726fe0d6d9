package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/version"
)

// setVersionInfo makes signpost see in as its own build for the rest of
// the test.
func setVersionInfo(t *testing.T, in version.Info) {
	t.Helper()
	old := versionInfo
	versionInfo = func() version.Info { return in }
	t.Cleanup(func() { versionInfo = old })
}

func TestVersion(t *testing.T) {
	release := version.Info{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567",
		Date: "2026-12-01T10:00:00Z", Go: "go1.26.8"}
	for _, tt := range []struct {
		name string
		in   version.Info
		args []string
		want string
	}{
		{"release", release, nil,
			"signpost v1.2.3\ncommit: 0123456789abcdef0123456789abcdef01234567\ndate: 2026-12-01T10:00:00Z\ngo: go1.26.8\n"},
		{"release json", release, []string{"--format", "json"},
			`{
  "version": "v1.2.3",
  "commit": "0123456789abcdef0123456789abcdef01234567",
  "date": "2026-12-01T10:00:00Z",
  "go": "go1.26.8"
}
`},
		{"dev", version.Info{Version: version.Dev, Go: "go1.26.8"}, nil,
			"signpost dev\ncommit: unknown\ndate: unknown\ngo: go1.26.8\n"},
		{"dev json", version.Info{Version: version.Dev, Go: "go1.26.8"}, []string{"--format", "json"},
			`{
  "version": "dev",
  "commit": "",
  "date": "",
  "go": "go1.26.8"
}
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			setVersionInfo(t, tt.in)
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), append([]string{"version"}, tt.args...), &stdout, &stderr); code != cmdutil.ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			if stdout.String() != tt.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), tt.want)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"version", "--format", "yaml"}, &stdout, &stderr); code != cmdutil.ExitUsage {
		t.Errorf("--format yaml: exit %d, want %d", code, cmdutil.ExitUsage)
	}
	// Unreplaced, it is the running binary's build, as JSON with all four keys.
	stdout.Reset()
	if code := run(context.Background(), []string{"version", "--format", "json"}, &stdout, &stderr); code != cmdutil.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var got map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || len(got) != 4 || got["version"] == "" || got["go"] == "" {
		t.Errorf("version --format json = %s (%v)", stdout.String(), err)
	}
}
