package version

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestInfo(t *testing.T) {
	vcs := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/signpost-dev/signpost", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-30T12:00:00Z"},
			{Key: "vcs.modified", Value: "false"},
		},
	}
	installed := &debug.BuildInfo{
		GoVersion: "go1.26.1",
		Main:      debug.Module{Path: "github.com/signpost-dev/signpost", Version: "v1.2.3"},
	}
	for _, tt := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
	}{
		{name: "stamped", version: "v0.1.0", commit: "abc", date: "2026-12-01T00:00:00Z", bi: vcs,
			want: Info{Version: "v0.1.0", Commit: "abc", Date: "2026-12-01T00:00:00Z", Go: runtime.Version()}},
		{name: "a checkout", bi: vcs,
			want: Info{Version: Dev, Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-11-30T12:00:00Z", Go: runtime.Version()}},
		{name: "go install at a version", bi: installed,
			want: Info{Version: "v1.2.3", Go: runtime.Version()}},
		{name: "only the version stamped", version: "v0.2.0", bi: installed,
			want: Info{Version: "v0.2.0", Go: runtime.Version()}},
		{name: "no build information",
			want: Info{Version: Dev, Go: runtime.Version()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := info(tt.version, tt.commit, tt.date, tt.bi); got != tt.want {
				t.Errorf("info() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestGet: the test binary is stamped with nothing, so its version is
// Dev or the module version the go command recorded, and its Go is the
// runtime's.
func TestGet(t *testing.T) {
	in := Get()
	if in.Version == "" || in.Go != runtime.Version() {
		t.Errorf("Get() = %+v", in)
	}
	if String() != in.Version {
		t.Errorf("String() = %q, Get().Version = %q", String(), in.Version)
	}
}
