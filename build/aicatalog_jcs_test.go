package build_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/build/jcs"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// canonicalizeCmd is how to run npm's canonicalize, an implementation of
// RFC 8785 that shares nothing with build/jcs: the Node.js installed beside
// it, and the module.
type canonicalizeCmd struct{ node, module string }

// findCanonicalize finds the canonicalize that make tools installs in
// bin/npm-jcs, with the Node.js beside it. Without it the test fails when
// CI is set, and is skipped otherwise (and in -short mode, which installs
// no tool).
func findCanonicalize(t *testing.T) canonicalizeCmd {
	t.Helper()
	modules := filepath.Join(catalogtest.ModuleRoot(t), "bin", "npm-jcs", "node_modules")
	module := filepath.Join(modules, "canonicalize", "lib", "canonicalize.js")
	nodes, _ := filepath.Glob(filepath.Join(modules, "node-*", "bin", "node"))
	var err error
	if _, serr := os.Stat(module); serr != nil {
		err = fmt.Errorf("no canonicalize at %s", module)
	} else if len(nodes) != 1 {
		err = fmt.Errorf("no Node.js beside canonicalize in %s (found %d)", modules, len(nodes))
	}
	if err != nil {
		if os.Getenv("CI") != "" && !testing.Short() {
			t.Fatalf("%v: make tools installs it", err)
		}
		t.Skipf("%v: make tools installs it", err)
	}
	return canonicalizeCmd{nodes[0], module}
}

// canonicalize runs npm's canonicalize over each JSON text of docs (one
// process for all) and returns what it writes for each.
func (c canonicalizeCmd) canonicalize(t *testing.T, docs []string) []string {
	t.Helper()
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`import canonicalize from %q;
import { readFileSync } from "node:fs";
const docs = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(docs.map((d) => canonicalize(JSON.parse(d)))));`, "file://"+filepath.ToSlash(c.module))
	cmd := exec.CommandContext(t.Context(), c.node, "--input-type=module", "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("canonicalize under node: %v\n%s", err, stderr.Bytes())
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("canonicalize under node wrote %q: %v", out, err)
	}
	if len(got) != len(docs) {
		t.Fatalf("canonicalize gave %d documents for %d", len(got), len(docs))
	}
	return got
}

// TestAICatalogIsJCS: every AI catalog a build of the example writes (one
// per tenant's site) is already in the canonical form of RFC 8785, byte
// for byte as npm's canonicalize, an independent implementation, writes
// it; and build/jcs writes what canonicalize writes for text that tests
// its corners (member order by UTF-16 code units, numbers, escapes).
func TestAICatalogIsJCS(t *testing.T) {
	c := findCanonicalize(t)
	b := buildtest.Example(t)
	var docs, names []string
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			if d.Route.Route == spec.RouteAICatalog {
				docs = append(docs, string(buildtest.Body(t, d)))
				names = append(names, "the AI catalog of "+spec.SiteName(s.Tenant))
			}
		}
	}
	if len(docs) != len(b.Sites) || len(docs) < 2 {
		t.Fatalf("%d AI catalogs for %d sites", len(docs), len(b.Sites))
	}
	corners := []string{
		`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`,
		`[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001,-0,1e21,1e-7,123456789012345680000,5e-324,1.7976931348623157e308,9007199254740991]`,
		`"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/<>&\u2028\u2029\u007f\u001f\b\f\t"`,
		`{"a":{"c":[],"b":{}},"A":null,"":[true,false]}`,
	}
	for _, s := range corners {
		if _, err := jcs.Transform([]byte(s)); err != nil {
			var e *jcs.Error
			if !errors.As(err, &e) {
				t.Fatal(err)
			}
			continue // canonicalize takes what JCS refuses (U+FFFF): not compared
		}
		docs = append(docs, s)
		names = append(names, s)
	}
	want := c.canonicalize(t, docs)
	for i, d := range docs {
		got := d
		if i >= len(b.Sites) {
			out, err := jcs.Transform([]byte(d))
			if err != nil {
				t.Fatal(err)
			}
			got = string(out)
		}
		if got != want[i] {
			t.Errorf("%s:\n got %s\nwant %s (npm canonicalize)", names[i], got, want[i])
		}
	}
}
