package check_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedDeps are the only signpost packages the checker may import: the
// spec's vocabulary, the schemas, the wording of counts and the switch of
// the fast paths (a constant), and the way out of its findings: the log
// every command's records leave through and the redaction of credentials
// (leaves of the standard library alone, which judge nothing of a site:
// the checker's own rule of credentials in documents is its own). The
// checker judges sites whoever built them, so it must not share code with
// the compiler or the publishers, whose mistakes it would then repeat.
var allowedDeps = []string{
	"github.com/signpost-dev/signpost/build/spec",
	"github.com/signpost-dev/signpost/build/diag/records",
	"github.com/signpost-dev/signpost/build/secrets",
	"github.com/signpost-dev/signpost/schemas",
	"github.com/signpost-dev/signpost/internal/english",
	"github.com/signpost-dev/signpost/internal/fastpath",
	// Not signpost's: the brotli decoder, for transport.encoding
	// (check/transport; the standard library has none).
	"github.com/andybalholm/brotli",
}

const self = "github.com/signpost-dev/signpost/check"

// nonStandardDeps lists the packages outside the standard library that
// pkgs import, themselves included.
func nonStandardDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// TestDependencies checks that the checker (its own packages below it
// included) depends on the standard library, allowedDeps and what they
// import, and on nothing else: not on build, not on publish, not on the AWS
// SDK.
func TestDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	allowed := nonStandardDeps(t, allowedDeps...)
	for _, dep := range nonStandardDeps(t, self) {
		signpost := strings.HasPrefix(dep, "github.com/signpost-dev/signpost/") || dep == "github.com/signpost-dev/signpost"
		switch {
		case dep == self, strings.HasPrefix(dep, self+"/"):
		case strings.HasPrefix(dep, "github.com/aws/"):
			t.Errorf("the checker depends on the AWS SDK: %s", dep)
		case signpost && !slices.Contains(allowedDeps, dep):
			t.Errorf("the checker depends on %s: of signpost's packages, it may import only allowedDeps", dep)
		case !slices.Contains(allowed, dep):
			t.Errorf("the checker depends on %s, which neither the standard library nor allowedDeps bring", dep)
		}
	}
}
