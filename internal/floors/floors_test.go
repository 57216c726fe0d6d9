package floors

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/signpost-dev/signpost"

// rule says what the packages matching pkg may import of the module: the
// patterns of allow ("x" is the package x, "x/*" every package below x).
// A package takes the first rule that matches it.
type rule struct {
	pkg   string
	allow []string
}

// internalHelpers are the small packages of internal/ anything may use.
var internalHelpers = []string{"internal/english", "internal/terminal", "internal/suggest", "internal/atomicfile", "internal/version", "internal/git", "internal/fastpath"}

func with(list []string, more ...string) []string {
	return append(append([]string(nil), list...), more...)
}

// rules are the floors of ARCHITECTURE.md, from the ground up.
var rules = []rule{
	// The leaves that use the standard library alone.
	{"build/spec", nil},
	{"internal/inputs", nil},
	// The origin checker knows nothing of the build: it reads what any
	// origin serves (check/deps_test.go holds its whole closure to this,
	// modules outside signpost included). Its findings leave as every
	// command's records do, through build/diag/records, redacted by
	// build/secrets: two leaves of the standard library alone, which judge
	// nothing of a site.
	// Its own packages below it (check/*) sit on the same floor.
	{"check", []string{"build/spec", "build/diag/records", "build/secrets", "schemas", "internal/english", "internal/fastpath", "check/*"}},
	// How a response is served, whatever it says: the spec's vocabulary and
	// the check's handshakes, never a document's content.
	{"check/transport", []string{"build/spec", "check/dial"}},
	{"check/*", []string{"build/spec", "build/secrets", "schemas", "internal/english", "check/*"}},
	{"schemas", []string{"build/spec", "internal/english", "internal/fastpath"}},
	// The compiler's leaves use one another, never the compiler.
	{"build/*", with(internalHelpers, "build/*", "schemas")},
	// The compiler uses its leaves.
	{"build", with(internalHelpers, "build/*", "schemas")},
	// What every host layout shares, then the layouts.
	{"hosts", with(internalHelpers, "build/output", "build/spec")},
	{"hosts/*", with(internalHelpers, "build", "build/*", "hosts", "templates")},
	// What sits on top of the compiler.
	{"serve", with(internalHelpers, "build", "build/*")},
	{"conformance", with(internalHelpers, "build", "build/*", "schemas")},
	{"importer", with(internalHelpers, "build", "build/*", "schemas", "importer/repair")},
	// The repairs of an imported JSON Schema, held to the loader's rules.
	{"importer/repair", with(internalHelpers, "build", "build/*", "schemas")},
	{"diff", with(internalHelpers, "build", "build/*", "internal/catalogdir")},
	// A running MCP server's tools, read through check/dial's guarded client.
	{"live", with(internalHelpers, "build/*", "check/dial")},
	// A catalog's servers against what their endpoints answer now.
	{"drift", with(internalHelpers, "build", "build/*", "live", "diff")},
	{"publish", with(internalHelpers, "build", "build/*", "hosts/cloudfront", "internal/inputs")},
	// The policy exports read a loaded catalog's servers.
	{"export", with(internalHelpers, "build", "build/*")},
	// The starter repository names the hosts it can publish to.
	{"internal/scaffold", with(internalHelpers, "build", "build/*", "hosts/*", "templates")},
	// The command uses everything.
	{"cmd/signpost", []string{"*"}},
	// The command's own packages: what its commands share, and commands.
	{"cmd/signpost/*", []string{"*"}},
	{"templates", nil},
	// The benchmark of tokens reads its corpus's servers live.
	{"internal/benchtokens", with(internalHelpers, "build", "build/*", "live")},
	// Test helpers and tools under internal/ may use any floor but the
	// command.
	{"internal/*", []string{"build", "build/*", "hosts", "hosts/*", "schemas", "templates", "check", "serve", "publish", "internal/*"}},
}

// aws is the one package that may import the AWS SDK, besides the test
// helpers that stand in for AWS, the benchmark whose floor signs its
// PUTs with the SDK's signer, and the AWS KMS signer of a catalog.
var aws = map[string]bool{"publish": true, "internal/edgetest": true, "internal/benchpeers": true, "build/signing/awskms": true}

func match(pattern, pkg string) bool {
	switch {
	case pattern == "*":
		return true
	case strings.HasSuffix(pattern, "/*"):
		return strings.HasPrefix(pkg, strings.TrimSuffix(pattern, "*"))
	}
	return pattern == pkg
}

type listed struct {
	ImportPath string
	Imports    []string
}

// packages lists the module's packages with their imports (tests' imports
// left out), paths relative to the module.
func packages(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: run the test from the module", len(pkgs))
	}
	return pkgs
}

// ownPackage reports whether rel is one of the command pkg's own packages
// (cmd/signpost/internal/...), which only that command may import.
func ownPackage(pkg, rel string) bool {
	return (pkg == "cmd/signpost" || strings.HasPrefix(pkg, "cmd/signpost/")) && strings.HasPrefix(rel, "cmd/signpost/internal/")
}

func ruleOf(pkg string) (rule, bool) {
	for _, r := range rules {
		if match(r.pkg, pkg) {
			return r, true
		}
	}
	return rule{}, false
}

func TestFloors(t *testing.T) {
	for _, p := range packages(t) {
		r, ok := ruleOf(p.ImportPath)
		if !ok {
			t.Errorf("%s has no floor: give it a rule in this test and a place in ARCHITECTURE.md", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/aws/") && !aws[p.ImportPath] {
				t.Errorf("%s imports %s: only publish talks to AWS", p.ImportPath, imp)
			}
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if strings.HasPrefix(rel, "cmd/") && !ownPackage(p.ImportPath, rel) {
				t.Errorf("%s imports %s: nothing imports a command", p.ImportPath, rel)
				continue
			}
			allowed := false
			for _, a := range r.allow {
				allowed = allowed || match(a, rel)
			}
			if !allowed {
				t.Errorf("%s imports %s, below which it does not sit (rule %q allows %v)", p.ImportPath, rel, r.pkg, r.allow)
			}
		}
	}
}

// TestRulesMatch keeps the rules honest: each rule is the first match of
// some package, so that none is left over from a package gone.
func TestRulesMatch(t *testing.T) {
	used := map[string]bool{}
	for _, p := range packages(t) {
		if r, ok := ruleOf(p.ImportPath); ok {
			used[r.pkg] = true
		}
	}
	for _, r := range rules {
		if !used[r.pkg] {
			t.Errorf("rule %q matches no package", r.pkg)
		}
	}
}
