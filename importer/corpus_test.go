//go:build corpus

package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// The shared real-world data and the official schemas (see the corpus
// README), as corpus.Path names them. They are read by tests only: the
// importer embeds nothing of them.
const (
	registryCorpusPath            = "corpus/registry-servers.sample.json"
	importCardSchemaPath          = "reference/server-card/schema.json"
	importRegistrySchemaPath      = "reference/server.schema.json"
	importRegistryDraftSchemaPath = "reference/draft/server.schema.json"
)

// readShared reads a file of the real-world data beside the repository,
// name as corpus.Path takes it.
func readShared(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(corpus.Path(t, name))
	if err != nil {
		t.Fatalf("the corpus suite needs the real-world data beside the repository, or in $SIGNPOST_SHARED: %v", err)
	}
	return data
}

// compileSchema compiles a JSON Schema file from disk, formats asserted.
// The schema is registered under a file URL, so nothing is fetched.
func compileSchema(t *testing.T, path, pointer string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(readShared(t, path)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	abs, err := filepath.Abs(corpus.Path(t, path))
	if err != nil {
		t.Fatal(err)
	}
	loc := "file://" + filepath.ToSlash(abs)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(loc, doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	sch, err := c.Compile(loc + pointer)
	if err != nil {
		t.Fatalf("compile %s%s: %v", path, pointer, err)
	}
	return sch
}

// TestCorpusDocumentCards runs the table of TestDocument holding every
// server card imported to the official server card schema.
func TestCorpusDocumentCards(t *testing.T) {
	testDocument(t, compileSchema(t, importCardSchemaPath, "#/$defs/ServerCard"))
}

func TestCorpusServersRegistry(t *testing.T) {
	data := readShared(t, registryCorpusPath)
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 222 {
		t.Fatalf("the corpus has %d documents, want 222", len(raw))
	}

	const file = "registry-servers.sample.json"
	list, err := importServers(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(raw) {
		t.Fatalf("%d outcomes for %d documents", len(list), len(raw))
	}

	counts := map[string]int{}
	notes := map[string]int{}
	for i, s := range list {
		counts[s.Status]++
		var doc struct{ Name string }
		if err := json.Unmarshal(raw[i], &doc); err != nil {
			t.Fatal(err)
		}
		if want := file + "#/" + strconv.Itoa(i); s.Source != want {
			t.Errorf("outcome %d: Source = %q, want %q", i, s.Source, want)
		}
		if s.Name != doc.Name {
			t.Errorf("%s: Name = %q, want %q", s.Source, s.Name, doc.Name)
		}
		if (s.Server != nil) != (s.Status == Imported) {
			t.Errorf("%s: status %s with Server %v", s.Source, s.Status, s.Server != nil)
		}
		if s.Status != Imported && s.Reason == "" {
			t.Errorf("%s: status %s without a reason", s.Source, s.Status)
		}
		if strings.ContainsAny(s.Reason, "\n\r") {
			t.Errorf("%s: reason on several lines: %q", s.Source, s.Reason)
		}
		if s.Status == Imported && s.Reason != "" {
			for n := range strings.SplitSeq(s.Reason, "; ") {
				notes[n]++
			}
		}
	}
	wantCounts := map[string]int{Imported: 209, NoRemotes: 13}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("outcomes per status (-want +got):\n%s", diff)
	}
	wantNotes := map[string]int{
		"declared remotes[0].headers[0].variables.smithery_api_key as a secret: the value uses {smithery_api_key}": 43,
		"dropped _meta io.modelcontextprotocol.registry/publisher-provided: its prefix is reserved for MCP":        2,
		"dropped empty repository {}": 25,
		"dropped packages[0].environmentVariables[44]: environment variable HTTPS_PROXY is already declared by packages[0].environmentVariables[23]":                                                                               1,
		"dropped packages[0].environmentVariables[48]: environment variable OPENAI_API_KEY is already declared by packages[0].environmentVariables[24]":                                                                            1,
		"dropped packages[0].environmentVariables[49]: environment variable OPENAI_LOG is already declared by packages[0].environmentVariables[25]":                                                                                1,
		"dropped packages[0].environmentVariables[56]: environment variable SSL_CERT_FILE is already declared by packages[0].environmentVariables[26]":                                                                             1,
		`dropped packages[0].packageArguments[0]: type "" is not positional or named`:                                                                                                                                              1,
		`dropped packages[1] ("docker.io/scoutapp/scout-mcp-local:latest"): identifier "docker.io/scoutapp/scout-mcp-local:latest" is tagged latest, which is not one image: give the tag of the image clients run, such as 1.4.0`: 1,
		"dropped packages[1].environmentVariables[44]: environment variable HTTPS_PROXY is already declared by packages[1].environmentVariables[23]":                                                                               1,
		"dropped packages[1].environmentVariables[48]: environment variable OPENAI_API_KEY is already declared by packages[1].environmentVariables[24]":                                                                            1,
		"dropped packages[1].environmentVariables[49]: environment variable OPENAI_LOG is already declared by packages[1].environmentVariables[25]":                                                                                1,
		"dropped packages[1].environmentVariables[56]: environment variable SSL_CERT_FILE is already declared by packages[1].environmentVariables[26]":                                                                             1,
		"dropped the choices of secret environment variable CODEWEAVER_EMBEDDING_API_KEY (packages[0].environmentVariables[2]): a secret must not be published":                                                                    1,
		"dropped the choices of secret environment variable CODEWEAVER_EMBEDDING_API_KEY (packages[1].environmentVariables[2]): a secret must not be published":                                                                    1,
		"dropped the choices of secret environment variable CODEWEAVER_RERANKING_API_KEY (packages[0].environmentVariables[12]): a secret must not be published":                                                                   1,
		"dropped the choices of secret environment variable CODEWEAVER_RERANKING_API_KEY (packages[1].environmentVariables[12]): a secret must not be published":                                                                   1,
		"dropped the choices of secret environment variable CODEWEAVER_VECTOR_STORE_API_KEY (packages[0].environmentVariables[17]): a secret must not be published":                                                                1,
		"dropped the choices of secret environment variable CODEWEAVER_VECTOR_STORE_API_KEY (packages[1].environmentVariables[17]): a secret must not be published":                                                                1,
		"to publish it, move it under a prefix of your own domain":                                                                                                                                                                 2,
	}
	if diff := cmp.Diff(wantNotes, notes); diff != "" {
		t.Errorf("import notes over the corpus (-want +got):\n%s", diff)
	}

	// Every imported item, with its $schema, is a valid server card but
	// for its packages, which a card leaves out, and has no field the card
	// schema does not declare; with the server.json schema as $schema, it
	// is a valid server.json, packages included.
	registry := compileSchema(t, importRegistrySchemaPath, "")
	card := compileSchema(t, importCardSchemaPath, "#/$defs/ServerCard")
	var cardSchema map[string]any
	if err := json.Unmarshal(readShared(t, importCardSchemaPath), &cardSchema); err != nil {
		t.Fatal(err)
	}
	serverCardDef := cardSchema["$defs"].(map[string]any)["ServerCard"].(map[string]any)
	var items []any
	for _, s := range list {
		if s.Status != Imported {
			continue
		}
		items = append(items, s.Server)
		detail := map[string]any{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"}
		for k, v := range s.Server {
			detail[k] = v
		}
		if err := registry.Validate(asSchemaValue(t, detail)); err != nil {
			t.Errorf("%s (%s): not a valid server.json: %v", s.Source, s.Name, err)
		}
		c := withCardSchema(s.Server)
		if err := card.Validate(asSchemaValue(t, c)); err != nil {
			t.Errorf("%s (%s): not a valid server card: %v", s.Source, s.Name, err)
		}
		if extra := undeclaredFields(cardSchema, serverCardDef, plainJSON(t, c), ""); len(extra) > 0 {
			t.Errorf("%s (%s): fields a card does not declare: %v", s.Source, s.Name, extra)
		}
	}

	// The YAML parses back to the same items, and the same input gives the
	// same bytes.
	out, err := serversYAML(list)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plainJSON(t, items), plainJSON(t, yamlServers(t, out))); diff != "" {
		t.Errorf("the YAML does not parse back to the items (-imported +parsed):\n%s", diff)
	}
	for range 3 {
		again, err := importServers(file, data)
		if err != nil {
			t.Fatal(err)
		}
		out2, err := serversYAML(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatal("two imports of the same file give different YAML")
		}
	}
	if !bytes.HasPrefix(out, []byte("# MCP servers imported by `signpost import server`")) ||
		!bytes.Contains(out, []byte("\n# registry-servers.sample.json: 222 documents, 209 imported, 13 not publishable, 0 invalid\n")) {
		t.Errorf("header does not name the source and its counts:\n%s", out[:min(len(out), 600)])
	}
	if n := bytes.Count(out, []byte("\n  # source: "+file+"#/")); n != 209 {
		t.Errorf("%d source comments, want one above each of the 209 servers", n)
	}
}

// TestCorpusRegistrySchemaDefects checks what the importer makes of the
// corpus documents that fail the registry's own schemas: each is left out,
// or imported with a note on what was dropped.
func TestCorpusRegistrySchemaDefects(t *testing.T) {
	data := readShared(t, registryCorpusPath)
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	list, err := importServers("corpus.json", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, schema := range []string{importRegistrySchemaPath, importRegistryDraftSchemaPath} {
		sch := compileSchema(t, schema, "")
		failing := map[string]int{}
		for i, doc := range raw {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			if sch.Validate(v) == nil {
				continue
			}
			s := list[i]
			var m map[string]any
			if err := json.Unmarshal(doc, &m); err != nil {
				t.Fatal(err)
			}
			switch repo, _ := m["repository"].(map[string]any); {
			case repo != nil && len(repo) == 0:
				failing["repository {}"]++
				if s.Status == Imported && !strings.Contains(s.Reason, "dropped empty repository {}") {
					t.Errorf("%s: imported with repository {} and reason %q", s.Source, s.Reason)
				}
			default:
				// The other defects are in packages: a package that breaks
				// the declarations' rules is dropped.
				failing["packages, "+s.Status]++
			}
		}
		want := map[string]int{"repository {}": 31, "packages, no-remotes": 1, "packages, imported": 1}
		if diff := cmp.Diff(want, failing); diff != "" {
			t.Errorf("%s: corpus documents failing it (-want +got):\n%s", schema, diff)
		}
	}
}

// TestImportServersRegistryListResponse imports the corpus as the registry
// API serves it: the same items, with the registry's _meta noted.
func TestCorpusServersRegistryListResponse(t *testing.T) {
	data := readShared(t, registryCorpusPath)
	var docs []any
	if err := json.Unmarshal(data, &docs); err != nil {
		t.Fatal(err)
	}
	var entries []any
	for _, d := range docs {
		entries = append(entries, map[string]any{
			"server": d,
			"_meta": map[string]any{registryMetaOfficial: map[string]any{
				"status": "active", "publishedAt": "2025-12-01T00:00:00Z", "isLatest": true,
			}},
		})
	}
	resp, err := json.Marshal(map[string]any{"servers": entries, "metadata": map[string]any{"count": len(entries), "nextCursor": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := importServers("corpus.json", data)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := importServers("page.json", resp)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != len(direct) {
		t.Fatalf("%d outcomes, want %d", len(listed), len(direct))
	}
	const metaNote = "dropped the registry entry's _meta (io.modelcontextprotocol.registry/official): the registry's own bookkeeping"
	for i := range direct {
		want := direct[i]
		want.Source = "page.json#/servers/" + strconv.Itoa(i)
		if want.Status == Imported {
			want.Reason = strings.Join(slices.DeleteFunc([]string{metaNote, want.Reason}, func(s string) bool { return s == "" }), "; ")
		}
		if diff := cmp.Diff(want, listed[i]); diff != "" {
			t.Errorf("entry %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestCorpusMCP imports the tools of real MCP servers, one file per
// server as a catalog would, checks that the declarations load without an
// error and build, and that they publish what an mcp: import of the same
// recordings publishes: the same toolIds, descriptions and schemas.
func TestCorpusMCP(t *testing.T) {
	servers := []struct{ file, server, prefix string }{
		{"github-mcp-server.tools.json", "io.github.github/github-mcp-server", "gh"},
		{"kubernetes-mcp-server.tools.json", "io.github.containers/kubernetes-mcp-server", "k8s"},
	}
	declared := map[string]string{"signpost.yaml": catalogtest.Config}
	recorded := map[string]string{"signpost.yaml": catalogtest.Config}
	total, imported := 0, 0
	for _, s := range servers {
		data := corpus.Read(t, s.file)
		imp, err := MCP(context.Background(), []Recording{{Label: s.file, Data: data}}, MCPOptions{Server: s.server, ToolIDPrefix: s.prefix})
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.Errors) > 0 {
			t.Fatalf("%s: %q", s.file, imp.Errors)
		}
		for _, tl := range imp.Tools {
			total++
			if tl.Status == Imported {
				imported++
			} else {
				t.Errorf("%s: left out: %s", tl.Source, tl.Reason)
			}
		}
		decl, err := ToolsYAML(imp)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(decl, []byte("annotations:")) || bytes.Contains(decl, []byte("readOnlyHint: ")) {
			t.Errorf("%s: annotations copied into the declarations", s.file)
		}
		declared[s.prefix+".yaml"] = string(decl)
		recorded["rec/"+s.file] = string(data)
		recorded[s.prefix+".yaml"] = "mcp:\n  from: rec/" + s.file + "\n  server: " + s.server + "\n  toolIdPrefix: " + s.prefix + "\n"
	}
	if total != 164 || imported != 164 {
		t.Errorf("%d of %d corpus tools imported, want 164 of 164", imported, total)
	}

	dir := catalogtest.Write(t, declared)
	cat, diags := build.Load(context.Background(), dir)
	if diags.HasErrors() {
		t.Fatalf("imported corpus declarations do not load:\n%s", diags)
	}
	if _, err := build.Compile(context.Background(), cat); err != nil {
		t.Fatalf("imported corpus declarations do not build: %v", err)
	}
	ref, diags := build.Load(context.Background(), catalogtest.Write(t, recorded))
	if diags.HasErrors() {
		t.Fatalf("the corpus as an mcp: import does not load:\n%s", diags)
	}
	type published struct {
		Title, Description, Server, Source, Tier, Replay, Egress string
		Input, Output                                            any
	}
	view := func(c *build.Catalog) map[string]published {
		m := map[string]published{}
		for _, tl := range c.Tools {
			m[tl.ToolID] = published{tl.Title, tl.Description, tl.Server, tl.Source, tl.SafetyTier, tl.ReplayPolicy, tl.Egress, tl.InputSchema, tl.OutputSchema}
		}
		return m
	}
	if diff := cmp.Diff(view(ref), view(cat)); diff != "" {
		t.Errorf("declarations differ from the mcp: import (-mcp +declarations):\n%s", diff)
	}
}

// undeclaredFields lists the JSON pointers of object members in v that the
// schema (a decoded JSON Schema, following local $refs) does not declare,
// where it declares properties and no additionalProperties: the card schema
// does not forbid extra fields, the importer must not emit any.
func undeclaredFields(root map[string]any, schema map[string]any, v any, at string) []string {
	for {
		ref, ok := schema["$ref"].(string)
		if !ok {
			break
		}
		target := any(root)
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			target = target.(map[string]any)[tok]
		}
		schema = target.(map[string]any)
	}
	var out []string
	switch t := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		extra, hasExtra := schema["additionalProperties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p := at + "/" + k
			switch ps, ok := props[k].(map[string]any); {
			case ok:
				out = append(out, undeclaredFields(root, ps, t[k], p)...)
			case hasExtra:
				out = append(out, undeclaredFields(root, extra, t[k], p)...)
			case props != nil:
				out = append(out, p)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range t {
				out = append(out, undeclaredFields(root, items, e, at+"/"+strconv.Itoa(i))...)
			}
		}
	}
	return out
}

// TestCorpusOpenAPI imports the real OpenAPI documents of the corpus, one
// file each as a catalog would: every operation is a tool or left out with
// its reason, no credential of a security scheme is an argument, a GET is
// read, and the declarations load and build, their compact view keeping
// each operation's summary.
func TestCorpusOpenAPI(t *testing.T) {
	docs := []struct{ file, prefix string }{
		{"api-with-examples.yaml", "ex"},
		{"callback-example.yaml", "cb"},
		{"link-example.yaml", "link"},
		{"petstore-expanded.yaml", "px"},
		{"petstore.yaml", "pets"},
		{"uspto.yaml", "uspto"},
	}
	files := map[string]string{"signpost.yaml": catalogtest.Config}
	counts := map[string][3]int{} // operations, imported, read
	for _, d := range docs {
		data := corpus.Read(t, "openapi/"+d.file)
		opts := OpenAPIOptions{ToolIDPrefix: d.prefix}
		imp, err := OpenAPI(context.Background(), OpenAPIDocument{Label: d.file, Data: data}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.Errors) > 0 {
			t.Fatalf("%s: %q", d.file, imp.Errors)
		}
		checkOpenAPIImport(t, d.file, data, imp)
		var n [3]int
		for _, tl := range imp.Tools {
			n[0]++
			if tl.Status == Imported {
				n[1]++
				if tl.Declaration["safetyTier"] == "read" {
					n[2]++
				}
			}
		}
		counts[d.file] = n
		out, err := OpenAPIToolsYAML(imp, opts)
		if err != nil {
			t.Fatal(err)
		}
		files[d.prefix+".yaml"] = string(out)
	}
	want := map[string][3]int{
		"api-with-examples.yaml": {2, 2, 2},
		"callback-example.yaml":  {1, 1, 0},
		"link-example.yaml":      {6, 0, 0},
		"petstore-expanded.yaml": {4, 4, 2},
		"petstore.yaml":          {3, 3, 2},
		"uspto.yaml":             {3, 3, 2},
	}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("operations, imported and read per document (-want +got):\n%s", diff)
	}
	checkCompactSummaries(t, files, buildDeclarations(t, files))
}
