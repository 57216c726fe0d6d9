// Package version says which signpost this is: its version, the commit it
// was built from and that commit's date. A release stamps all three into
// the binary; otherwise they come from what the go command recorded in it
// (the module version of go install ...@vX.Y.Z, the vcs.revision and
// vcs.time of a build in a Git checkout), and the version is "dev" when
// nothing says more. The CLI prints them, the tool catalogue names the
// version as its generator's, and signpost init, when this is a release,
// writes it into the workflow as the signpost to install.
package version

import (
	"runtime"
	"runtime/debug"
)

// version, commit and date are set at release time with
//
//	-ldflags "-X github.com/signpost-dev/signpost/internal/version.version=v1.2.3
//	          -X github.com/signpost-dev/signpost/internal/version.commit=<full commit>
//	          -X github.com/signpost-dev/signpost/internal/version.date=<RFC 3339>"
//
// (.goreleaser.yaml does it) and never changed at run time. Empty means not
// stamped.
var version, commit, date string

// Name is the generator's name in the documents signpost writes.
const Name = "signpost"

// Dev is the version of a build that nothing stamped and the go command
// recorded no module version for.
const Dev = "dev"

// Info is what a binary knows about its build. Commit and Date are "" when
// unknown.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	// Go is the version of Go that built the binary (runtime.Version()).
	Go string `json:"go"`
}

// Get returns the Info of the running binary.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return info(version, commit, date, bi)
}

// String returns the version of the running binary.
func String() string { return Get().Version }

// info is Get with the stamped values and the build information given: a
// stamped value wins, then what bi records, then Dev for the version.
func info(version, commit, date string, bi *debug.BuildInfo) Info {
	in := Info{Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	if bi != nil {
		if in.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && in.Commit == "":
				in.Commit = s.Value
			case s.Key == "vcs.time" && in.Date == "":
				in.Date = s.Value
			}
		}
	}
	if in.Version == "" {
		in.Version = Dev
	}
	return in
}
