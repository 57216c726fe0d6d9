package build

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

func toolsByID(cat *Catalog) map[string]*tool.Tool {
	m := map[string]*tool.Tool{}
	for _, t := range cat.Tools {
		m[t.ToolID] = t
	}
	return m
}

func TestMCPImport(t *testing.T) {
	cat := checkDiags(t, map[string]string{
		"signpost.yaml":    testConfig,
		"rec/tickets.json": catalogtest.RecordedTickets,
		"tickets.yaml": `mcp:
  from: rec/tickets.json
  server: com.example/tickets
  toolIdPrefix: tk
  default: {egress: internal}
  classify:
    getTicket: {safetyTier: read, replayPolicy: idempotent}
`,
	})
	got := map[string]string{}
	for id, tl := range toolsByID(cat) {
		a := tl.Annotations()
		got[id] = strings.Join([]string{tl.Name, tl.Source, tl.Server, tl.SafetyTier, tl.ReplayPolicy, tl.Egress, tl.Status,
			map[bool]string{true: "ro", false: "rw"}[a.ReadOnlyHint], map[bool]string{true: "open", false: "closed"}[a.OpenWorldHint]}, " ")
	}
	want := map[string]string{
		// Classified: read, and the hints follow the declaration.
		"tk_get_ticket_" + toolid.Digest("com.example/tickets\x00getTicket"):  "getTicket mcp com.example/tickets read idempotent internal active ro open",
		"tk_get_ticket_" + toolid.Digest("com.example/tickets\x00get-ticket"): "get-ticket mcp com.example/tickets write unsafe internal active rw open",
		// Unclassified: write, whatever its annotations claim.
		"tk_delete_ticket": "delete_ticket mcp com.example/tickets write unsafe internal active rw open",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestMCPRecordingImportedManyTimes checks that a recording imported by
// many declaration files, declared several at once, gives each its tools
// whole: Load lets a recording's value go once no import uses it, and an
// import after that reads it again.
func TestMCPRecordingImportedManyTimes(t *testing.T) {
	files := map[string]string{"signpost.yaml": testConfig, "rec/tickets.json": catalogtest.RecordedTickets}
	const imports = 24
	for i := range imports {
		files[fmt.Sprintf("m%02d.yaml", i)] = fmt.Sprintf("mcp:\n  from: rec/tickets.json\n  server: com.example/t%02d\n  toolIdPrefix: p%02d\n", i, i)
	}
	cat := checkDiags(t, files)
	byName := map[string][]*tool.Tool{}
	for _, tl := range cat.Tools {
		byName[tl.Name] = append(byName[tl.Name], withSchemas(t, tl))
	}
	if len(byName) != 3 {
		t.Fatalf("tools named %v, want the recording's 3", slices.Sorted(maps.Keys(byName)))
	}
	for name, tools := range byName {
		if len(tools) != imports {
			t.Errorf("%s: %d tools, want one per import, %d", name, len(tools), imports)
			continue
		}
		for _, tl := range tools[1:] {
			if len(tl.InputSchema) == 0 || string(tl.InputSchema) != string(tools[0].InputSchema) {
				t.Errorf("%s (%s): input schema %s, want %s as every import of it", name, tl.ToolID, tl.InputSchema, tools[0].InputSchema)
			}
		}
	}
}

func TestMCPRecordingFormats(t *testing.T) {
	tool := `{"name": "ping", "description": "Ping.", "inputSchema": {"type": "object"}}`
	for name, rec := range map[string]string{
		"bare array":     `[` + tool + `]`,
		"result":         `{"tools": [` + tool + `]}`,
		"json-rpc":       `{"jsonrpc": "2.0", "id": 1, "result": {"tools": [` + tool + `]}}`,
		"pages":          `[{"jsonrpc": "2.0", "id": 1, "result": {"tools": [` + tool + `], "nextCursor": "x"}}, {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}]`,
		"result objects": `[{"tools": [` + tool + `]}]`,
	} {
		t.Run(name, func(t *testing.T) {
			cat := checkDiags(t, map[string]string{"signpost.yaml": testConfig, "r.json": rec, "m.yaml": "mcp: {from: r.json}\n"})
			if len(cat.Tools) != 1 || cat.Tools[0].ToolID != "ping" {
				t.Errorf("tools = %v", cat.Tools)
			}
		})
	}
}

func TestMCPRecordingProblems(t *testing.T) {
	for _, tc := range []struct{ name, rec, want string }{
		{"json-rpc error", `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}`,
			`r.json:1:1: the recording is a JSON-RPC error, not a tools/list result: map[code:-32601 message:no]`},
		{"not tools", `{"items": []}`,
			`r.json:1:1: the document has no "tools" array: expected an array of MCP tools, a tools/list result {"tools": [...]}, a JSON-RPC response carrying one, or an array of such pages`},
		{"nameless tool", `[{"name": "", "inputSchema": {"type": "object"}}]`,
			`r.json:1:2: recorded tool has no name: every MCP tool needs a non-empty string name`},
		{"duplicate", `[{"name": "a", "description": "A.", "inputSchema": {"type": "object"}}, {"name": "a", "description": "A.", "inputSchema": {"type": "object"}}]`,
			`r.json:1:82: tool "a" is recorded twice (first at r.json:1:11)`},
		{"no description", `[{"name": "a", "inputSchema": {"type": "object"}}]`,
			`r.json:1:2: MCP tool "a" has no description: add one under classify.a.description, or hide it with status: hidden`},
		{"schema not an object", `[{"name": "a", "description": "A.", "inputSchema": "any"}]`,
			`r.json:1:52: inputSchema of MCP tool "a" must be a JSON Schema object, got a string`},
		{"draft-04 exclusiveMinimum", `[{"name": "a", "description": "A.", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}}}]`,
			`r.json:1:144: inputSchema: must be a number, got boolean`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := loadDiags(t, map[string]string{"signpost.yaml": testConfig, "r.json": tc.rec, "m.yaml": "mcp: {from: r.json}\n"})
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
				t.Errorf("diagnostics = %q\nwant one starting %q", got, tc.want)
			}
		})
	}
}

func TestMCPEmptySchemaGetsObjectType(t *testing.T) {
	cat, got := loadDiags(t, map[string]string{"signpost.yaml": testConfig,
		"r.json": `[{"name": "a", "description": "A.", "inputSchema": {}}, {"name": "b", "description": "B."}]`,
		"m.yaml": "mcp: {from: r.json}\n"})
	want := []string{
		`r.json:1:1: warning: MCP tool "b" has no inputSchema; published as {"type": "object"}`,
		`r.json:1:51: warning: inputSchema of MCP tool "a" has no type; published with "type": "object"`,
	}
	_ = want
	if len(got) != 2 || !strings.Contains(got[0]+got[1], `MCP tool "b" has no inputSchema`) || !strings.Contains(got[0]+got[1], `"a" has no type`) {
		t.Errorf("diagnostics = %q", got)
	}
	for _, tl := range cat.Tools {
		if diff := cmp.Diff(map[string]any{"type": "object"}, decodeSchema(t, withSchemas(t, tl).InputSchema)); diff != "" {
			t.Errorf("%s: %s", tl.ToolID, diff)
		}
	}
}

func TestMCPClassifyUnknownName(t *testing.T) {
	checkDiags(t, map[string]string{"signpost.yaml": testConfig, "r.json": catalogtest.RecordedTickets,
		"m.yaml": "mcp:\n  from: r.json\n  classify:\n    getTicekt: {safetyTier: read}\n"},
		`m.yaml:4:16: classify names "getTicekt", which r.json does not record: did you mean "getTicket", "get-ticket" or "delete_ticket"?`)
}

// TestMCPClassifyUnknownNameNearest: an unknown name under classify offers
// at most three recorded names, the nearest first, and when none is near,
// the first few of them.
func TestMCPClassifyUnknownNameNearest(t *testing.T) {
	var tools []string
	for _, n := range []string{"update_ticket", "list_tickets", "get_ticket", "delete_ticket", "create_ticket", "archive_ticket", "get_user"} {
		tools = append(tools, `{"name": "`+n+`", "description": "D.", "inputSchema": {"type": "object"}}`)
	}
	checkDiags(t, map[string]string{"signpost.yaml": testConfig, "r.json": "[" + strings.Join(tools, ", ") + "]",
		"m.yaml": "mcp:\n  from: r.json\n  classify:\n    get_tikcet: {safetyTier: read}\n    zzz: {safetyTier: read}\n"},
		`m.yaml:4:17: classify names "get_tikcet", which r.json does not record: did you mean "get_ticket", "create_ticket" or "delete_ticket"?`,
		`m.yaml:5:10: classify names "zzz", which r.json does not record: check the spelling: no name is like it (known tools: archive_ticket, create_ticket, delete_ticket and 4 more)`)
}

func TestMCPHiddenToolIsNotChecked(t *testing.T) {
	// A broken upstream tool is left out by hiding it.
	rec := `[{"name": "ok", "description": "Fine.", "inputSchema": {"type": "object"}},
	         {"name": "broken", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "https://example.com/x"}}}}]`
	_, got := loadDiags(t, map[string]string{"signpost.yaml": testConfig, "r.json": rec, "m.yaml": "mcp: {from: r.json}\n"})
	if len(got) != 2 {
		t.Fatalf("unhidden broken tool: diagnostics = %q, want 2", got)
	}
	cat := checkDiags(t, map[string]string{"signpost.yaml": testConfig, "r.json": rec,
		"m.yaml": "mcp:\n  from: r.json\n  classify:\n    broken: {status: hidden}\n"})
	published := 0
	for _, tl := range cat.Tools {
		if tl.Published() {
			published++
		}
	}
	if published != 1 {
		t.Errorf("published %d tools, want 1", published)
	}
}

func TestMCPExecNotAllowed(t *testing.T) {
	_, got := loadDiags(t, map[string]string{"signpost.yaml": testConfig, "r.json": catalogtest.RecordedTickets,
		"m.yaml": "mcp:\n  from: r.json\n  classify:\n    getTicket: {safetyTier: exec}\n"})
	if len(got) != 1 || !strings.HasPrefix(got[0], "m.yaml:4:") {
		t.Errorf("diagnostics = %q, want one at m.yaml:4", got)
	}
}
