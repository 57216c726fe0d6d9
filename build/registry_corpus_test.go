//go:build corpus

package build

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusRegistryServers holds the server of every registry document
// of the example's build, and of a build with a history of versions, to
// the official server.json schema, kept in ../shared/reference: what the
// registry's OpenAPI gives as ServerDetail.
func TestCorpusRegistryServers(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(corpus.Reference(t, "server.schema.json")))
	if err != nil {
		t.Fatalf("the official server.json schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(spec.ServerJSONSchema, doc); err != nil {
		t.Fatal(err)
	}
	official, err := c.Compile(spec.ServerJSONSchema)
	if err != nil {
		t.Fatal(err)
	}
	// A catalog with a history: versions of another time, as they were.
	ctx := context.Background()
	repo, git := catalogtest.GitRepo(t)
	dir := filepath.Join(repo, "catalog")
	for i, v := range []string{"1.0.0", "1.1.0+build.2", "2.0.0-rc.1"} {
		catalogtest.WriteFiles(t, dir, map[string]string{ConfigFile: registryConfig, "servers.yaml": registryDecls(v, "Version "+v+".", "")})
		t.Setenv("GIT_COMMITTER_DATE", "@"+string(rune('1'+i))+"000 +0000")
		git("add", "-A")
		git("commit", "-q", "-m", v)
	}
	cat, diags := Load(ctx, dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if cat.History, err = ReadHistory(ctx, dir); err != nil {
		t.Fatal(err)
	}
	withHistory, err := Compile(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, build := range []*output.Build{compiled(t, exampleDir), withHistory} {
		for _, s := range build.Sites {
			for _, d := range s.Documents {
				if !spec.IsRegistryRoute(d.Route.Route) {
					continue
				}
				var servers []json.RawMessage
				if req, _ := spec.ParseRegistryPath(d.Route.Route); req.Kind == spec.RegistryVersion {
					var r struct{ Server json.RawMessage }
					if err := json.Unmarshal(bodyOf(t, d), &r); err != nil {
						t.Fatal(err)
					}
					servers = append(servers, r.Server)
				} else {
					var l struct {
						Servers []struct{ Server json.RawMessage }
					}
					if err := json.Unmarshal(bodyOf(t, d), &l); err != nil {
						t.Fatal(err)
					}
					for _, r := range l.Servers {
						servers = append(servers, r.Server)
					}
				}
				for _, raw := range servers {
					v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
					if err != nil {
						t.Fatal(err)
					}
					if err := official.Validate(v); err != nil {
						t.Errorf("%s %s: the server does not match the official server.json schema: %v", s.Dir, d.Route.Route, err)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Error("no registry server checked against the official schema")
	}
}
