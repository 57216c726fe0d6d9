package importer

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// importMCPText imports recordings given as label and text pairs.
func importMCPText(t *testing.T, opts MCPOptions, files ...string) *ToolImport {
	t.Helper()
	var recs []Recording
	for i := 0; i+1 < len(files); i += 2 {
		recs = append(recs, Recording{Label: files[i], Data: []byte(files[i+1])})
	}
	imp, err := MCP(context.Background(), recs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

// importLines are the outcomes as the command reports them.
func importLines(imp *ToolImport) []string {
	var out []string
	for _, tl := range imp.Tools {
		line := tl.Source + ": " + tl.Name + ": " + tl.Status
		if tl.Reason != "" {
			line += ": " + tl.Reason
		}
		out = append(out, line)
	}
	return out
}

// loadImported renders the import, puts it in a catalog beside extra files
// and loads it, failing on any error diagnostic.
func loadImported(t *testing.T, imp *ToolImport, extra map[string]string) (*build.Catalog, []byte) {
	t.Helper()
	decl, err := ToolsYAML(imp)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"signpost.yaml": catalogtest.Config, "imported.yaml": string(decl)}
	for k, v := range extra {
		files[k] = v
	}
	dir := catalogtest.Write(t, files)
	cat, diags := build.Load(context.Background(), dir)
	if diags.HasErrors() {
		t.Fatalf("the imported declarations do not load:\n%s\n--- imported.yaml\n%s", diags, decl)
	}
	return cat, decl
}

func TestMCPShapesAndPages(t *testing.T) {
	tool := func(name string) string {
		return `{"name": "` + name + `", "description": "Tool ` + name + `.", "inputSchema": {"type": "object"}}`
	}
	imp := importMCPText(t, MCPOptions{Server: "com.example/t"},
		"bare.json", `[`+tool("b1")+`]`,
		"result.json", `{"tools": [`+tool("r1")+`], "nextCursor": "c2"}`,
		"rpc.json", `{"jsonrpc": "2.0", "id": 1, "result": {"tools": [`+tool("j1")+`]}}`,
		"pages.json", `[{"jsonrpc": "2.0", "id": 1, "result": {"tools": [`+tool("p1")+`, `+tool("r1")+`], "nextCursor": "x"}},
		               {"jsonrpc": "2.0", "id": 2, "result": {"tools": [`+tool("p2")+`, `+tool("p1")+`]}}]`,
	)
	want := []string{
		"bare.json#/0: b1: imported",
		"result.json#/tools/0: r1: imported",
		"rpc.json#/result/tools/0: j1: imported",
		"pages.json#/0/result/tools/0: p1: imported",
		"pages.json#/0/result/tools/1: r1: left-out: recorded twice: the first recording, result.json#/tools/0, is the one imported",
		"pages.json#/1/result/tools/0: p2: imported",
		"pages.json#/1/result/tools/1: p1: left-out: recorded twice: the first recording, pages.json#/0/result/tools/0, is the one imported",
	}
	if diff := cmp.Diff(want, importLines(imp)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if len(imp.Errors) != 0 {
		t.Errorf("errors = %q", imp.Errors)
	}
	cat, _ := loadImported(t, imp, nil)
	var got []string
	for _, tl := range cat.Tools {
		got = append(got, strings.Join([]string{tl.ToolID, tl.Source, tl.Server, tl.SafetyTier, tl.ReplayPolicy, tl.Egress}, " "))
	}
	wantTools := []string{
		"b1 mcp com.example/t write unsafe internet",
		"j1 mcp com.example/t write unsafe internet",
		"p1 mcp com.example/t write unsafe internet",
		"p2 mcp com.example/t write unsafe internet",
		"r1 mcp com.example/t write unsafe internet",
	}
	if diff := cmp.Diff(wantTools, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestMCPRecordingErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "  \n", "r.json: no JSON value: the file is empty"},
		{"not json", `{"tools": [}`, "r.json: line 1, column 12: "},
		{"json-rpc error", `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}`,
			"r.json: the recording is a JSON-RPC error, not a tools/list result"},
		{"not tools", `{"items": []}`, `r.json: the document has no "tools" array: expected an array of MCP tools`},
		{"duplicate key", `{"tools": [], "tools": []}`, `r.json: line 1, column 15: duplicate key "tools"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imp := importMCPText(t, MCPOptions{}, "r.json", tc.data)
			if len(imp.Errors) != 1 || !strings.HasPrefix(imp.Errors[0], tc.want) {
				t.Errorf("errors = %q, want one starting %q", imp.Errors, tc.want)
			}
		})
	}
}

func TestMCPClassify(t *testing.T) {
	imp := importMCPText(t, MCPOptions{ToolIDPrefix: "tk", Classify: map[string]string{"getTicket": spec.TierRead, "get-ticket": spec.TierPure}},
		"tickets.json", catalogtest.RecordedTickets)
	if len(imp.Errors) != 0 {
		t.Fatalf("errors = %q", imp.Errors)
	}
	cat, _ := loadImported(t, imp, nil)
	got := map[string]string{}
	for _, tl := range cat.Tools {
		got[tl.ToolID] = tl.SafetyTier + " " + tl.ReplayPolicy
	}
	// The annotations claim delete_ticket is read-only: ignored. A read is
	// idempotent, a pure tool deterministic, the rest unsafe.
	want := map[string]string{
		"tk_get_ticket_" + toolid.Digest("\x00getTicket"):  "read idempotent",
		"tk_get_ticket_" + toolid.Digest("\x00get-ticket"): "pure deterministic",
		"tk_delete_ticket": "write unsafe",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tiers (-want +got):\n%s", diff)
	}
}

func TestMCPClassifyUnknown(t *testing.T) {
	imp := importMCPText(t, MCPOptions{Classify: map[string]string{"getTicekt": spec.TierRead}}, "tickets.json", catalogtest.RecordedTickets)
	want := []UnknownName{{Field: FieldTier, Name: "getTicekt", Like: []string{"getTicket", "get-ticket", "delete_ticket"}}}
	if diff := cmp.Diff(want, imp.Unknown); diff != "" || imp.Names != 3 || !imp.Failed() {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestImportMCPClassifyNothingLike: a name like no recorded one is offered
// none of them, and told how to see them all.
func TestMCPClassifyNothingLike(t *testing.T) {
	imp := importMCPText(t, MCPOptions{Classify: map[string]string{"zzz": spec.TierRead}}, "tickets.json", catalogtest.RecordedTickets)
	want := []UnknownName{{Field: FieldTier, Name: "zzz"}}
	if diff := cmp.Diff(want, imp.Unknown); diff != "" || imp.Names != 3 {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestMCPClassifyNoTools(t *testing.T) {
	imp := importMCPText(t, MCPOptions{Classify: map[string]string{"get_issue": spec.TierRead}}, "empty.json", `{"tools": []}`)
	want := []UnknownName{{Field: FieldTier, Name: "get_issue"}}
	if diff := cmp.Diff(want, imp.Unknown); diff != "" || imp.Names != 0 {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestMCPOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		opts MCPOptions
		want string
	}{
		{MCPOptions{Server: "github"}, `server "github" is not a server name`},
		{MCPOptions{ToolIDPrefix: "GH"}, `tool-id prefix "GH" must be ASCII snake case`},
		{MCPOptions{ToolIDPrefix: "a_very_long_prefix"}, `tool-id prefix "a_very_long_prefix" must be ASCII snake case of at most 16`},
		{MCPOptions{Classify: map[string]string{"x": spec.TierExec}}, `tool "x": exec is only for host extensions`},
		{MCPOptions{Classify: map[string]string{"x": "safe"}}, `tool "x": unknown safety tier "safe"`},
	} {
		_, err := MCP(context.Background(), nil, tc.opts)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// TestImportMCPSchemaProblems imports tools whose schemas the loader would
// reject or warn about: each is repaired (and says so) or left out (and
// says why), and what is written loads without an error.
func TestMCPSchemaProblems(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		want       string // status: reason
		in         string // the inputSchema written, as JSON; "" when left out
	}{
		{"fine", `"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}`,
			"imported", `{"type": "object", "properties": {"q": {"type": "string"}}}`},
		{"missing inputSchema", ``,
			`imported: no inputSchema: wrote {"type": "object"}`, `{"type": "object"}`},
		{"empty inputSchema", `"inputSchema": {}`,
			`imported: inputSchema {} replaced by {"type": "object"}`, `{"type": "object"}`},
		{"untyped inputSchema", `"inputSchema": {"properties": {"q": {"type": "string"}}}`,
			`imported: inputSchema has no type: added "type": "object"`, `{"type": "object", "properties": {"q": {"type": "string"}}}`},
		{"null inputSchema", `"inputSchema": null`,
			"left-out: inputSchema must be a JSON Schema object, got null", ""},
		{"string root", `"inputSchema": {"type": "string"}`,
			`left-out: inputSchema must be a JSON Schema with "type": "object" at its root (tool arguments and results are objects)`, ""},
		{"draft-04 bounds without $schema", `"inputSchema": {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false}}}`,
			"imported: inputSchema: 2 boolean exclusiveMinimum/exclusiveMaximum made numbers (draft-04)",
			`{"type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": 0, "maximum": 9}}}`},
		{"draft-04 $schema and id", `"inputSchema": {"$schema": "http://json-schema.org/draft-04/schema#", "id": "#root", "type": "object",
			"properties": {"id": {"type": "integer", "maximum": 5, "exclusiveMaximum": true}}}`,
			`imported: inputSchema: 1 boolean exclusiveMinimum/exclusiveMaximum made numbers (draft-04), 1 "id" renamed "$id", $schema draft-04 changed to draft-07`,
			`{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "#root", "type": "object", "properties": {"id": {"type": "integer", "exclusiveMaximum": 5}}}`},
		{"draft-06 $schema", `"inputSchema": {"$schema": "http://json-schema.org/draft-06/schema#", "type": "object"}`,
			`imported: inputSchema: $schema draft-06 changed to draft-07`,
			`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}`},
		{"invalid $ref", `"inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/definitions/missing"}}}`,
			`left-out: inputSchema at /properties/a/$ref: `, ""},
		{"external $ref", `"inputSchema": {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}`,
			`left-out: inputSchema at /properties/a/$ref: `, ""},
		{"invalid schema", `"inputSchema": {"type": "object", "required": "q"}`,
			`left-out: inputSchema at /required: `, ""},
		{"credential default", `"inputSchema": {"type": "object", "properties": {"api_key": {"type": "string", "default": "sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}}`,
			`imported: inputSchema at /properties/api_key/default: removed a credential-looking default (`,
			`{"type": "object", "properties": {"api_key": {"type": "string"}}}`},
		{"credential enum", `"inputSchema": {"type": "object", "properties": {"token": {"type": "string", "enum": ["ghp_R4nd0mT0k3nV4lu3Th4tL00ksR3alAbCdEf12"]}}}`,
			`left-out: inputSchema at /properties/token/enum/0: `, ""},
		// As import mcp --help says: a credential in an annotation (default,
		// examples, example) is removed; anywhere else it leaves the tool
		// out, or the outputSchema that holds it.
		{"credential examples", `"inputSchema": {"type": "object", "properties": {"password": {"type": "string", "examples": ["sk_live_4eC39HqLyjWDarjtT1zdp7dc"]}}}`,
			`imported: inputSchema at /properties/password/examples/0: removed a credential-looking examples (`,
			`{"type": "object", "properties": {"password": {"type": "string"}}}`},
		{"credential const", `"inputSchema": {"type": "object", "properties": {"key": {"const": "sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}}`,
			`left-out: inputSchema at /properties/key/const: `, ""},
		{"credential in a schema description", `"inputSchema": {"type": "object", "description": "Use ghp_R4nd0mT0k3nV4lu3Th4tL00ksR3alAbCdEf12."}`,
			`left-out: inputSchema at /description: `, ""},
		{"credential as a property name", `"inputSchema": {"type": "object", "properties": {"ghp_R4nd0mT0k3nV4lu3Th4tL00ksR3alAbCdEf12": {"type": "string"}}}`,
			`left-out: inputSchema at /properties/ghp_R4nd0mT0k3nV4lu3Th4tL00ksR3alAbCdEf12: `, ""},
		{"credential in outputSchema", `"inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"k": {"enum": ["sk_live_4eC39HqLyjWDarjtT1zdp7dc"]}}}`,
			`imported: outputSchema left out: outputSchema at /properties/k/enum/0: `, `{"type": "object"}`},
		{"bad outputSchema", `"inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}`,
			`imported: outputSchema left out: outputSchema must be a JSON Schema with "type": "object" at its root (tool arguments and results are objects)`, `{"type": "object"}`},
		{"untyped outputSchema", `"inputSchema": {"type": "object"}, "outputSchema": {}`,
			`imported: outputSchema has no type: added "type": "object"`, `{"type": "object"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := `[{"name": "t", "description": "T."` + map[bool]string{true: ", ", false: ""}[tc.tool != ""] + tc.tool + `}]`
			imp := importMCPText(t, MCPOptions{}, "r.json", rec)
			if len(imp.Tools) != 1 {
				t.Fatalf("tools = %+v", imp.Tools)
			}
			got := imp.Tools[0].Status
			if imp.Tools[0].Reason != "" {
				got += ": " + imp.Tools[0].Reason
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("outcome %q, want it to start %q", got, tc.want)
			}
			cat, _ := loadImported(t, imp, nil)
			if tc.in == "" {
				if len(cat.Tools) != 0 {
					t.Errorf("left out, yet declared: %v", cat.Tools)
				}
				return
			}
			if len(cat.Tools) != 1 {
				t.Fatalf("tools = %v", cat.Tools)
			}
			want, _ := source.ParseJSON("want", "want", []byte(tc.in))
			tl, err := cat.Tools[0].WithSchemas()
			if err != nil {
				t.Fatal(err)
			}
			published, _ := source.ParseJSON("got", "got", tl.InputSchema)
			if diff := cmp.Diff(want.Value, published.Value); diff != "" {
				t.Errorf("inputSchema (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMCPToolProblems(t *testing.T) {
	rec := `[{"name": "", "description": "Nameless.", "inputSchema": {"type": "object"}},
	         {"name": "quiet", "inputSchema": {"type": "object"}},
	         {"name": "日本", "description": "No ASCII.", "inputSchema": {"type": "object"}},
	         {"name": "leaky", "description": "Use sk_live_4eC39HqLyjWDarjtT1zdp7dc to call.", "inputSchema": {"type": "object"}},
	         {"name": "ok", "title": "  OK  ", "description": "  Fine.  ", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}]`
	imp := importMCPText(t, MCPOptions{}, "r.json", rec)
	got := importLines(imp)
	want := []string{
		"r.json#/0: : left-out: no name: every MCP tool needs a non-empty string name",
		"r.json#/1: quiet: left-out: no description: a catalog tool needs one; declare the tool by hand with a description",
		"r.json#/2: 日本: left-out: no toolId can be derived from a name without ASCII letters or digits: declare the tool by hand",
		"r.json#/3: leaky: left-out: description: ",
		"r.json#/4: ok: imported",
	}
	if len(got) != len(want) {
		t.Fatalf("outcomes = %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("outcome %d = %q, want it to start %q", i, got[i], want[i])
		}
	}
	cat, decl := loadImported(t, imp, nil)
	if len(cat.Tools) != 1 || cat.Tools[0].Title != "OK" || cat.Tools[0].Description != "Fine." {
		t.Errorf("tools = %+v", cat.Tools)
	}
	if !bytes.Contains(decl, []byte("  # MCP tool ok, from r.json#/4\n  # server annotations, ignored: {\"readOnlyHint\":true}\n  - toolId: ok\n")) {
		t.Errorf("no comments naming the tool and its annotations:\n%s", decl)
	}
}

func TestToolsYAML(t *testing.T) {
	rec := `{"tools": [
	  {"name": "zeta", "description": "Last.", "inputSchema": {"type": "object", "required": ["b", "a"],
	    "properties": {"type": {"type": "string", "enum": ["x", "y"]}, "<<": {"type": "integer", "default": 3}}}},
	  {"name": "alpha", "title": "First", "description": "First.\nSecond line.", "outputSchema": {"type": "object", "properties": {}}}]}`
	imp := importMCPText(t, MCPOptions{Server: "com.example/abc", Classify: map[string]string{"zeta": spec.TierRead}}, "rec/abc.json", rec)
	_, got := loadImported(t, imp, nil)
	want := `# MCP tools imported by ` + "`signpost import mcp`" + ` from recorded tools/list results.
# Every tool is source: mcp. The server's annotations (readOnlyHint and the
# others) are ignored: they are the server's claims, not this catalog's
# decision. A tool not classified with --classify is safetyTier: write and
# replayPolicy: unsafe; one classified read is idempotent, one classified pure
# deterministic, unless --replay classifies it. A tool --egress does not
# classify is egress: internet. Review each tool's safety fields and import
# notes, then edit freely.
# rec/abc.json: 2 tools, 2 imported (1 with changes, 1 with an input schema substituted), 0 left out

tools:
  # MCP tool alpha, from rec/abc.json#/tools/1
  # import notes: no inputSchema: wrote {"type": "object"}
  - toolId: alpha
    name: alpha
    title: First
    description: |-
      First.
      Second line.
    server: com.example/abc
    source: mcp
    safetyTier: write
    replayPolicy: unsafe
    egress: internet
    inputSchema:
      type: object
    outputSchema:
      type: object
      properties: {}
  # MCP tool zeta, from rec/abc.json#/tools/0
  - toolId: zeta
    name: zeta
    description: Last.
    server: com.example/abc
    source: mcp
    safetyTier: read
    replayPolicy: idempotent
    egress: internet
    inputSchema:
      type: object
      properties:
        "<<":
          type: integer
          default: 3
        type:
          type: string
          enum: [x, "y"]
      required: [b, a]
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("YAML (-want +got):\n%s", diff)
	}
	again, err := ToolsYAML(importMCPText(t, MCPOptions{Server: "com.example/abc", Classify: map[string]string{"zeta": spec.TierRead}}, "rec/abc.json", rec))
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("a second import gives other bytes (err %v)", err)
	}
	empty, err := ToolsYAML(&ToolImport{})
	if err != nil || !bytes.HasSuffix(empty, []byte("# No recordings were imported.\n\ntools: []\n")) {
		t.Errorf("empty import:\n%s (err %v)", empty, err)
	}
}
