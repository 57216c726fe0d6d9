package importer

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestPackagesRoundTrip: a server.json's packages imported, loaded and
// published in the registry's server.json, then imported again, are the
// same declaration.
func TestPackagesRoundTrip(t *testing.T) {
	doc := `{
  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
  "name": "com.example/notes", "version": "1.2.0", "description": "Team notes.",
  "packages": [
    {"registryType": "npm", "registryBaseUrl": "https://registry.npmjs.org", "identifier": "@example/notes-mcp", "version": "1.2.0",
     "transport": {"type": "stdio"},
     "runtimeArguments": [{"type": "named", "name": "-y"}],
     "packageArguments": [{"type": "named", "name": "--units", "value": "{units}", "variables": {"units": {"choices": ["metric", "imperial"]}}},
                          {"type": "positional", "valueHint": "notes_dir", "description": "Where notes live", "format": "filepath"}],
     "environmentVariables": [{"name": "NOTES_TOKEN", "description": "Token", "isSecret": true, "isRequired": true},
                              {"name": "NOTES_LANG", "default": "en", "choices": ["en", "fr"]}]},
    {"registryType": "oci", "identifier": "ghcr.io/example/notes:1.2.0", "transport": {"type": "streamable-http", "url": "http://localhost:{port}/mcp"},
     "runtimeArguments": [{"type": "named", "name": "-p", "value": "{port}:8080", "variables": {"port": {"default": "8080"}}}]},
    {"registryType": "mcpb", "identifier": "https://example.com/notes.mcpb", "fileSha256": "` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `", "transport": {"type": "stdio"}}
  ]
}`
	first, err := Servers("server.json", []byte(doc))
	if err != nil || len(first) != 1 || first[0].Status != Imported || first[0].Reason != "" {
		t.Fatalf("import: %v %+v", err, first)
	}
	yaml, err := ServersYAML(first)
	if err != nil {
		t.Fatal(err)
	}
	dir := catalogtest.Write(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\n",
		"servers.yaml":  string(yaml),
	})
	ctx := context.Background()
	cat, diags := build.Load(ctx, dir)
	if diags.HasErrors() {
		t.Fatalf("the imported declaration does not load:\n%s", diags)
	}
	b, err := build.Compile(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	var published []byte
	for _, d := range b.Sites[0].Documents {
		if d.Route.Route == spec.RegistryVersionRoute("com.example/notes", spec.RegistryLatest) {
			published = buildtest.Body(t, d)
		}
	}
	if published == nil {
		t.Fatal("the registry has no latest version of com.example/notes")
	}
	second, err := Servers("latest.json", published)
	if err != nil || len(second) != 1 || second[0].Status != Imported {
		t.Fatalf("import of the registry's document: %v %+v", err, second)
	}
	if diff := cmp.Diff(first[0].Server, second[0].Server); diff != "" {
		t.Errorf("the round trip changed the declaration (-first +second):\n%s", diff)
	}
	var want map[string]any
	if err := json.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(roundTrip(t, want["packages"]), roundTrip(t, second[0].Server["packages"])); diff != "" {
		t.Errorf("packages (-server.json +imported):\n%s", diff)
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
