package build

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/jcs"
)

// node is the path of node, for the tests that hold the digests to an
// implementation other than signpost's: skipped without it, but under CI.
func node(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is needed to check the definitions' digests independently: %v", err)
		}
		t.Skipf("node not found: %v", err)
	}
	return bin
}

// runNode runs script under node with args and decodes what it prints.
func runNode(t *testing.T, script string, out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node(t), append([]string{"-e", script, "--"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("node printed %q: %v", stdout, err)
	}
}

// nodeCanonical is JSON.stringify of a value, its objects written with
// their keys sorted as JavaScript sorts strings (by UTF-16 code units):
// RFC 8785 for any value JSON.parse gives, since JCS writes numbers and
// strings as JSON.stringify does. (The objects are written member by
// member: a JavaScript object puts keys such as "1" first, whatever order
// they were added in.) It is not a JCS library (none of signpost's npm
// tools brings one), but it shares nothing with build/canonical.go: node's
// own number formatting, string escaping and sort.
const nodeCanonical = `
const canon = v => Array.isArray(v) ? "[" + v.map(canon).join(",") + "]"
	: v !== null && typeof v === "object" ? "{" + Object.keys(v).sort().map(k => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}"
	: JSON.stringify(v);
`

// TestCanonicalMatchesNode holds definition.AppendCanonical to node on the values of
// RFC 8785's examples and the cases where it differs from the documents'
// encoding: numbers as declared, keys beyond the Basic Multilingual Plane,
// U+2028 and the controls.
func TestCanonicalMatchesNode(t *testing.T) {
	inputs := []string{
		`[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]`,
		`[-0, 0.0, 1e21, 1e20, 1e-6, 1e-7, 1.5e-7, 123456789012345678901, 9007199254740993, -1.25e+300, 5e-324, 1.7976931348623157e308, 100, 1.0, 2.50e1]`,
		`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
		`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`,
		`{"a\u2028b":"\u2029<>&\u007f\u001f\ufffd","":{"z":1,"y":[{"b":2,"a":1}]},"\uffff":1,"\ud800\udc00":2}`,
	}
	var want []string
	runNode(t, nodeCanonical+`console.log(JSON.stringify(process.argv.slice(1).map(s => canon(JSON.parse(s)))));`, &want, inputs...)
	for i, in := range inputs {
		d := json.NewDecoder(strings.NewReader(in))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		got, err := definition.AppendCanonical(nil, v)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if string(got) != want[i] {
			t.Errorf("canonical JSON of %s\n got %s\nwant %s (node)", in, got, want[i])
		}
	}
	for _, bad := range []any{json.Number("1e400"), json.Number("-1e999"), 1.5} {
		if _, err := definition.AppendCanonical(nil, bad); err == nil {
			t.Errorf("definition.AppendCanonical(%v) succeeded", bad)
		}
	}
}

// TestDefinitionDigestsMatchNode builds the example and has node compute
// every tool's digest from its document as served: the standard
// descriptor without _meta's dev.signpost/definition, canonical JSON,
// SHA-256. Each tool's entries of /tools and of the tool catalogue and its
// group must carry the same digest and size; its compact descriptor none.
func TestDefinitionDigestsMatchNode(t *testing.T) {
	out, _ := buildTo(t, exampleDir)
	sites, err := filepath.Glob(filepath.Join(out, "tenants", "*"))
	if err != nil || len(sites) == 0 {
		t.Fatalf("no sites in %s: %v", out, err)
	}
	// The example's definitions hold no number that canonical JSON writes
	// otherwise than the documents do: node's number formatting is not
	// what this test relies on (TestCanonicalMatchesNode is).
	for _, site := range sites {
		files, _ := filepath.Glob(filepath.Join(site, "tools", "*.json"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			walkNumbers(v, func(n json.Number) {
				f, _ := n.Float64()
				if c, _ := jcs.AppendFloat(nil, f); string(c) != string(n) {
					t.Errorf("%s: number %s, canonically %s", file, n, c)
				}
			})
		}
	}

	const script = nodeCanonical + `
const fs = require("fs"), path = require("path"), crypto = require("crypto");
const key = "dev.signpost/definition";
const read = f => JSON.parse(fs.readFileSync(f, "utf8"));
const problems = [];
let tools = 0, views = 0;
for (const site of process.argv.slice(1)) {
	const dir = path.join(site, "tools"), want = {};
	for (const f of fs.readdirSync(dir).filter(f => f.endsWith(".json") && !f.endsWith(".compact.json")).sort()) {
		const d = read(path.join(dir, f));
		const meta = d._meta && d._meta[key];
		if (!meta) { problems.push(f + ": no " + key); continue; }
		const def = structuredClone(d);
		delete def._meta[key];
		if (Object.keys(def._meta).length === 0) delete def._meta;
		const c = Buffer.from(canon(def), "utf8");
		const digest = "sha256:" + crypto.createHash("sha256").update(c).digest("hex");
		if (meta.digest !== digest || meta.size !== c.length) problems.push(f + ": carries " + meta.digest + " " + meta.size + ", node computes " + digest + " " + c.length);
		want[d.toolId] = meta;
		tools++;
	}
	const same = (where, id, m) => {
		views++;
		const w = want[id], got = m && m[key];
		if (!w || !got || got.digest !== w.digest || got.size !== w.size) problems.push(where + " " + id + ": " + JSON.stringify(got) + ", want " + JSON.stringify(w));
	};
	for (const f of fs.readdirSync(dir).filter(f => f.endsWith(".compact.json"))) if (read(path.join(dir, f))._meta) problems.push(f + ": a compact descriptor with _meta");
	for (const d of read(path.join(site, "tools.json"))) same("tools.json", d.toolId, d._meta);
	const catalogues = [path.join(site, "tool-catalogue.json")].concat(fs.readdirSync(path.join(site, "tool-catalogue", "groups")).map(f => path.join(site, "tool-catalogue", "groups", f)));
	for (const f of catalogues) for (const e of read(f).tools) same(path.relative(site, f), e.name, e._meta);
}
console.log(JSON.stringify({tools, views, problems}));
`
	var got struct {
		Tools, Views int
		Problems     []string
	}
	runNode(t, script, &got, sites...)
	for _, p := range got.Problems {
		t.Error(p)
	}
	if got.Tools == 0 || got.Views < 3*got.Tools {
		t.Errorf("node checked %d tools in %d other places; want every tool in /tools, the tool catalogue and its group", got.Tools, got.Views)
	}
	t.Logf("node computed %d digests and found them in %d other places", got.Tools, got.Views)
}

// walkNumbers calls fn on every number of a decoded JSON value.
func walkNumbers(v any, fn func(json.Number)) {
	switch x := v.(type) {
	case json.Number:
		fn(x)
	case []any:
		for _, e := range x {
			walkNumbers(e, fn)
		}
	case map[string]any:
		for _, e := range x {
			walkNumbers(e, fn)
		}
	}
}
