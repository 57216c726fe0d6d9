package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWithoutDigest(t *testing.T) {
	desc := `{"toolId":"a","inputSchema":{"type":"object"},"_meta":{"dev.signpost/definition":{"digest":"sha256:` + strings.Repeat("0f", 32) + `","size":42}}}`
	if got, want := string(withoutDigest([]byte(desc))), `{"toolId":"a","inputSchema":{"type":"object"}}`; got != want {
		t.Errorf("withoutDigest = %s; want %s", got, want)
	}
	// A _meta that holds more than the digest is left whole.
	other := `{"toolId":"a","_meta":{"x":1,"dev.signpost/definition":{"digest":"sha256:` + strings.Repeat("0f", 32) + `","size":42}}}`
	if got := string(withoutDigest([]byte(other))); got != other {
		t.Errorf("withoutDigest = %s; want it unchanged", got)
	}
}

func TestLosses(t *testing.T) {
	std := `{"toolId":"t","description":"Does it.","inputSchema":{"type":"object","required":["mode","where"],
		"properties":{"mode":{"enum":["a","b"]},"where":{"$ref":"#/$defs/place"},
		"opt":{"anyOf":[{"type":"object","required":["x"],"properties":{"x":{"enum":[1,2]}}},{"type":"null"}]},
		"many":{"enum":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17"]}},
		"$defs":{"place":{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}}}}}`
	for _, tc := range []struct {
		name, compact string
		want          []string
	}{
		{"nothing lost", `{"toolId":"t","description":"Does it","inputSchema":{"type":"object","required":["mode","where"],
			"properties":{"mode":{"enum":["a","b"]},"where":{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}},
			"opt":{"type":["object","null"],"required":["x"],"properties":{"x":{"enum":[1,2]}}},"many":{"type":"string"}}}}`, nil},
		{"everything lost", `{"toolId":"u","description":"","inputSchema":{"type":"object","required":["mode"],
			"properties":{"mode":{"enum":["a"]},"where":{"type":"object"},"opt":{"type":["object","null"]}}}}`, []string{
			`tool t: the compact descriptor's toolId is "u"`,
			"tool t: the compact descriptor has no description",
			`tool t: the input: the required argument "where" is lost`,
			`tool t: argument mode: the enum value "b" is lost`,
			`tool t: argument opt: the required argument "x" is lost`,
			`tool t: argument opt.x: the enum value 1 is lost`,
			`tool t: argument opt.x: the enum value 2 is lost`,
			`tool t: argument where: the required argument "city" is lost`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := losses([]byte(std), []byte(tc.compact))
			if !slices.Equal(got, tc.want) {
				t.Errorf("losses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if n != (checked{required: 4, enums: 2}) {
				t.Errorf("checked %+v; want 4 required arguments and 2 enums", n)
			}
		})
	}
	if got, _ := losses([]byte(`{`), []byte(`{}`)); len(got) != 1 || !strings.Contains(got[0], "does not decode") {
		t.Errorf("losses of a bad descriptor = %q; want one saying it does not decode", got)
	}
}

func TestMarkdown(t *testing.T) {
	r := &report{
		rows:        []row{{server: "a", tools: 2, standard: 100, noDigest: 80, compact: 40, group: 110}, {server: "b", tools: 1, standard: 50, noDigest: 40, compact: 10, group: 60}},
		total:       row{server: "total", tools: 3, standard: 152, noDigest: 122, compact: 53, group: 110},
		aiCatalog:   7,
		catalogue:   200,
		groupsIndex: 20,
		checked:     checked{required: 3, enums: 1},
	}
	want := `| server | tools | /tools | without digests | compact | compact / /tools | compact / without digests | its group's document |
|---|--:|--:|--:|--:|--:|--:|--:|
| a | 2 | 100 | 80 | 40 | 40.0% | 50.0% | 110 |
| b | 1 | 50 | 40 | 10 | 20.0% | 25.0% | 60 |
| **total** | 3 | 152 | 122 | 53 | 34.9% | 43.4% | 60 to 110 |

Tokens from the AI catalog (7) to a callable tool:

- through the compact view, AI catalog + /tools?view=compact: 60
- through the standard list, AI catalog + /tools: 159
- through the catalogue's groups, AI catalog + /tool-catalogue.json (200, of which its groups 20) + the tool's group document: 267 to 317

Each compact descriptor held to its standard one: toolId, description, 3 required arguments, 1 enum of at most 16 values: 0 losses.
`
	if got := r.markdown(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestBinScript(t *testing.T) {
	dir := t.TempDir()
	write := func(pkg string) {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := server{pkg: "p", version: "1.0.0"}
	write(`{"version":"1.0.0","bin":"dist/index.js"}`)
	if got, err := binScript(dir, s); err != nil || got != filepath.Join(dir, "dist", "index.js") {
		t.Errorf("binScript = %q, %v", got, err)
	}
	write(`{"version":"1.0.0","bin":{"one":"a.js","two":"b.js"}}`)
	if _, err := binScript(dir, s); err == nil || !strings.Contains(err.Error(), "2 bin entries") {
		t.Errorf("binScript of two bins without a name: %v", err)
	}
	s.bin = "two"
	if got, err := binScript(dir, s); err != nil || got != filepath.Join(dir, "b.js") {
		t.Errorf("binScript = %q, %v", got, err)
	}
	write(`{"version":"0.9.0","bin":"a.js"}`)
	if _, err := binScript(dir, s); err == nil || !strings.Contains(err.Error(), "0.9.0 is installed, not 1.0.0") {
		t.Errorf("binScript of another version: %v", err)
	}
}

// The corpus is 16 servers, each pinned, with declaration files that the
// loader takes (a toolIdPrefix of at most 16 characters).
func TestCorpus(t *testing.T) {
	if len(corpus) != 16 {
		t.Errorf("%d servers; want 16", len(corpus))
	}
	seen := map[string]bool{}
	for _, s := range corpus {
		if seen[s.name] || s.version == "" || strings.ContainsAny(s.version, "^~*x") {
			t.Errorf("server %s: a name twice or a version not pinned (%q)", s.name, s.version)
		}
		seen[s.name] = true
		for _, l := range strings.Split(declaration(s), "\n") {
			if p, ok := strings.CutPrefix(l, "  toolIdPrefix: "); ok && len(p) > 16 {
				t.Errorf("server %s: toolIdPrefix %s is longer than 16 characters", s.name, p)
			}
		}
	}
	// The lockfile the Makefile installs from pins the same versions.
	data, err := os.ReadFile(filepath.Join("npm", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	var deps []string
	for name, version := range pkg.Dependencies {
		deps = append(deps, name+"@"+version)
	}
	if got, want := slices.Sorted(slices.Values(deps)), slices.Sorted(slices.Values(npmPackages())); !slices.Equal(got, want) {
		t.Errorf("npm/package.json pins %q; want the servers' %q", got, want)
	}
}
