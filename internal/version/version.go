// Package version says which signpost this is: the version a release
// stamps into the binary, or the module version the go command recorded
// when it was installed with go install, or "dev". The CLI prints it, and
// the tool catalogue names it as its generator's version.
package version

import "runtime/debug"

// stamped is set at release time with
// -ldflags "-X github.com/signpost-dev/signpost/internal/version.stamped=…"
// and never changed at run time.
var stamped = "dev"

// Name is the generator's name in the documents signpost writes.
const Name = "signpost"

// String returns the version of the running binary.
func String() string {
	if stamped != "dev" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return stamped
}
