package build

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// registryConfig is the signpost.yaml of the registry's tests.
const registryConfig = "site: {origin: https://example.com, publisher: example.com}\ntenants: [acme, globex]\n"

// registryDecls declares servers a (its version and description as
// given), b, whose one tool globex alone sees, c, which no tool names and
// whose version has build metadata, and d, whose card another host serves.
func registryDecls(version, description, comment string) string {
	return `# ` + comment + `
servers:
  - name: com.example/a
    version: ` + version + `
    description: ` + description + `
    remotes: [{type: streamable-http, url: https://mcp.example.com/a}]
  - {name: com.example/b, version: 0.1.0, description: B.}
  - {name: com.example/c, version: 2.0.0+build.5, description: C.}
  - {name: com.example/d, cardUrl: https://vendor.example.net/d.json}
tools:
  - {toolId: a_tool, description: A., server: com.example/a, source: host-extension, safetyTier: read, replayPolicy: deterministic, egress: internal, inputSchema: {type: object}}
  - {toolId: b_tool, description: B., server: com.example/b, tenants: [globex], source: host-extension, safetyTier: read, replayPolicy: deterministic, egress: internal, inputSchema: {type: object}}
`
}

// registryEntry is what a test reads of a ServerResponse.
type registryEntry struct {
	Name, Version, Description, PublishedAt, UpdatedAt string
	IsLatest                                           bool
}

func registryEntries(t *testing.T, doc []byte) []registryEntry {
	t.Helper()
	type response struct {
		Server struct{ Name, Version, Description string }
		Meta   map[string]struct {
			PublishedAt, UpdatedAt string
			IsLatest               bool
		} `json:"_meta"`
	}
	var list struct {
		Servers  []response
		Metadata struct{ Count int }
	}
	if err := json.Unmarshal(doc, &list); err != nil {
		t.Fatal(err)
	}
	if list.Metadata.Count != len(list.Servers) {
		t.Errorf("metadata.count %d for %d servers", list.Metadata.Count, len(list.Servers))
	}
	var out []registryEntry
	for _, r := range list.Servers {
		o := r.Meta[spec.RegistryOfficialMeta]
		out = append(out, registryEntry{r.Server.Name, r.Server.Version, r.Server.Description, o.PublishedAt, o.UpdatedAt, o.IsLatest})
	}
	return out
}

// siteDoc returns the body of the document at route of s, or fails.
func siteDoc(t *testing.T, s *output.Site, route string) []byte {
	t.Helper()
	for _, d := range s.Documents {
		if d.Route.Route == route {
			return bodyOf(t, d)
		}
	}
	t.Fatalf("%s has no document at %s", s.Dir, route)
	return nil
}

// TestRegistryHistory builds the registry of a catalog from its Git
// history: each server's versions, newest first, the latest first, each
// as its declaration last was, dated by commit times (a comment changes
// no date; what no commit holds yet is dated by the newest commit of the
// catalog folder, whatever commits came after it elsewhere); the servers
// each tenant sees; the same bytes on every build of one commit.
func TestRegistryHistory(t *testing.T) {
	ctx := context.Background()
	repo, git := catalogtest.GitRepo(t)
	dir := filepath.Join(repo, "catalogs", "org")
	commit := func(when string, files map[string]string) {
		t.Helper()
		catalogtest.WriteFiles(t, dir, files)
		t.Setenv("GIT_COMMITTER_DATE", when)
		t.Setenv("GIT_AUTHOR_DATE", when)
		git("add", "-A")
		git("commit", "-q", "--allow-empty", "-m", "at "+when)
	}
	commit("@1000 +0000", map[string]string{ConfigFile: registryConfig, "servers.yaml": registryDecls("1.0.0", "First.", "")})
	commit("@2000 +0000", map[string]string{"servers.yaml": registryDecls("1.0.0", "First, fixed.", "")})
	commit("@3000 +0000", map[string]string{"servers.yaml": registryDecls("1.1.0", "Second.", "")})
	commit("@4000 +0000", map[string]string{"servers.yaml": registryDecls("1.1.0", "Second.", "a comment")})
	commit("@5000 +0000", map[string]string{"../../README.md": "outside the catalog\n"})
	// Not committed.
	catalogtest.WriteFiles(t, dir, map[string]string{"servers.yaml": registryDecls("1.2.0", "Third.", "")})

	compile := func() *output.Build {
		t.Helper()
		cat, diags := Load(ctx, dir)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		h, err := ReadHistory(ctx, dir)
		if err != nil || h == nil {
			t.Fatalf("ReadHistory: %v, %v", h, err)
		}
		cat.History = h
		b, err := Compile(ctx, cat)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := compile()
	const (
		t1000 = "1970-01-01T00:16:40Z"
		t2000 = "1970-01-01T00:33:20Z"
		t3000 = "1970-01-01T00:50:00Z"
		t4000 = "1970-01-01T01:06:40Z"
	)
	acme, globex := b.Sites[0], b.Sites[1]
	a := spec.RegistryVersionsRoute("com.example/a")
	want := []registryEntry{
		{"com.example/a", "1.2.0", "Third.", t4000, t4000, true},
		{"com.example/a", "1.1.0", "Second.", t3000, t3000, false},
		{"com.example/a", "1.0.0", "First, fixed.", t1000, t2000, false},
	}
	if diff := cmp.Diff(want, registryEntries(t, siteDoc(t, acme, a))); diff != "" {
		t.Errorf("the versions of com.example/a (-want +got):\n%s", diff)
	}
	for _, s := range b.Sites {
		latest := siteDoc(t, s, spec.RegistryVersionRoute("com.example/a", spec.RegistryLatest))
		if got := siteDoc(t, s, spec.RegistryVersionRoute("com.example/a", "1.2.0")); string(got) != string(latest) {
			t.Errorf("%s: latest is not 1.2.0:\n%s\n%s", s.Dir, latest, got)
		}
		old := registryEntries(t, append(append([]byte(`{"metadata":{"count":1},"servers":[`), siteDoc(t, s, spec.RegistryVersionRoute("com.example/a", "1.0.0"))...), "]}"...))
		if diff := cmp.Diff(want[2:], old); diff != "" {
			t.Errorf("%s: version 1.0.0 (-want +got):\n%s", s.Dir, diff)
		}
	}
	names := func(s *output.Site) []string {
		var out []string
		for _, e := range registryEntries(t, siteDoc(t, s, spec.RouteRegistry)) {
			out = append(out, e.Name+"@"+e.Version)
		}
		return out
	}
	if diff := cmp.Diff([]string{"com.example/a@1.2.0", "com.example/c@2.0.0+build.5"}, names(acme)); diff != "" {
		t.Errorf("acme's registry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"com.example/a@1.2.0", "com.example/b@0.1.0", "com.example/c@2.0.0+build.5"}, names(globex)); diff != "" {
		t.Errorf("globex's registry (-want +got):\n%s", diff)
	}
	var keys []string
	for _, d := range acme.Documents {
		if spec.IsRegistryRoute(d.Route.Route) {
			keys = append(keys, d.Route.Route+" "+d.Key)
		}
	}
	if diff := cmp.Diff([]string{
		"/v0.1/servers v0.1/servers.json",
		"/v0.1/servers/com.example%2Fa/versions v0.1/servers/com.example/a/versions.json",
		"/v0.1/servers/com.example%2Fa/versions/1.0.0 v0.1/servers/com.example/a/versions/1.0.0.json",
		"/v0.1/servers/com.example%2Fa/versions/1.1.0 v0.1/servers/com.example/a/versions/1.1.0.json",
		"/v0.1/servers/com.example%2Fa/versions/1.2.0 v0.1/servers/com.example/a/versions/1.2.0.json",
		"/v0.1/servers/com.example%2Fa/versions/latest v0.1/servers/com.example/a/versions/latest.json",
		"/v0.1/servers/com.example%2Fc/versions v0.1/servers/com.example/c/versions.json",
		"/v0.1/servers/com.example%2Fc/versions/2.0.0%2Bbuild.5 v0.1/servers/com.example/c/versions/2.0.0_2bbuild.5.json",
		"/v0.1/servers/com.example%2Fc/versions/latest v0.1/servers/com.example/c/versions/latest.json",
	}, keys); diff != "" {
		t.Errorf("acme's registry routes and keys (-want +got):\n%s", diff)
	}

	// Another build of the same commit: the same bytes, and a commit
	// elsewhere changes nothing.
	before, err := ReadHistory(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	catalogtest.WriteFiles(t, repo, map[string]string{"README.md": "still outside\n"})
	t.Setenv("GIT_COMMITTER_DATE", "@5500 +0000")
	git("add", "README.md")
	git("commit", "-q", "-m", "outside the catalog, the change to it left uncommitted")
	again := compile()
	if diff := cmp.Diff(b.RouteTable(), again.RouteTable()); diff != "" {
		t.Errorf("a second build differs (-first +second):\n%s", diff)
	}
	if after, err := ReadHistory(ctx, dir); err != nil || after.Digest() != before.Digest() || after.Digest() == "" {
		t.Errorf("a commit outside the catalog changed the history's digest: %q, %q, %v", before.Digest(), after.Digest(), err)
	}

	// Committed, the latest is dated by its commit.
	commit("@6000 +0000", nil)
	if got := registryEntries(t, siteDoc(t, compile().Sites[0], a))[0]; got.PublishedAt != "1970-01-01T01:40:00Z" || got.UpdatedAt != got.PublishedAt {
		t.Errorf("the latest version once committed: %+v", got)
	}
	if after, err := ReadHistory(ctx, dir); err != nil || after.Digest() == before.Digest() {
		t.Errorf("a commit of the catalog left the history's digest: %v", err)
	}
	// A folder of the repository no commit changed has no history.
	if h, err := ReadHistory(ctx, repo); err != nil || h == nil {
		t.Errorf("the repository's top: %v, %v", h, err)
	}
	empty := filepath.Join(repo, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if h, err := ReadHistory(ctx, empty); h != nil || err != nil {
		t.Errorf("a folder no commit changed: %v, %v", h, err)
	}
}

// TestRegistryOff builds no registry document when signpost.yaml turns it
// off, or when the catalog declares no local server.
func TestRegistryOff(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"off":       {ConfigFile: registryConfig + "discovery: {registry: false}\n", "servers.yaml": registryDecls("1.0.0", "A.", "")},
		"no server": {ConfigFile: registryConfig, "servers.yaml": "servers: [{name: com.example/d, cardUrl: https://vendor.example.net/d.json}]\n"},
	} {
		b := compiled(t, catalogtest.Write(t, files))
		for _, s := range b.Sites {
			for _, d := range s.Documents {
				if spec.IsRegistryRoute(d.Route.Route) || strings.HasPrefix(d.Key, "v0.1/") {
					t.Errorf("%s: %s publishes %s", name, s.Dir, d.Route.Route)
				}
			}
		}
	}
}

// TestRegistryWithoutHistory dates the one version of each server at the
// Unix epoch when the catalog has no history: a folder in no repository.
func TestRegistryWithoutHistory(t *testing.T) {
	ctx := context.Background()
	dir := catalogtest.Write(t, map[string]string{ConfigFile: registryConfig, "servers.yaml": registryDecls("1.0.0", "A.", "")})
	if h, err := ReadHistory(ctx, dir); h != nil || err != nil {
		t.Fatalf("ReadHistory of a folder in no repository: %v, %v", h, err)
	}
	b := compiled(t, dir)
	want := []registryEntry{{"com.example/a", "1.0.0", "A.", "1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z", true}}
	if diff := cmp.Diff(want, registryEntries(t, siteDoc(t, b.Sites[0], spec.RegistryVersionsRoute("com.example/a")))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		t.Fatal("the folder is a repository")
	}
}
