package build

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/declarations"
	"github.com/signpost-dev/signpost/build/diag"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
)

// TestCatalogPasses runs the passes across files on tools made in code, as
// a new rule is tested: no YAML is decoded, and the file is there for the
// positions only.
func TestCatalogPasses(t *testing.T) {
	src, ps := source.ParseYAML("t.yaml", "t.yaml", []byte("tools:\n  - {toolId: run, safetyTier: exec, tenants: [globex]}\n  - {toolId: run, safetyTier: exec}\n  - {toolId: Bad-Id}\n"))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	declared := func(i string, tl tool.Tool) *pendingTool {
		return &pendingTool{tool: &tl, at: ref{src, "/tools/" + i}, declared: true, explicit: true, sizeOK: true}
	}
	whole := &wholeCatalog{config: &Config{Tenants: []string{"acme"}}, tools: []*pendingTool{
		declared("0", tool.Tool{ToolID: "run", Source: spec.SourceMCP, SafetyTier: spec.TierExec, Status: tool.StatusActive, Tenants: []string{"globex"}}),
		declared("1", tool.Tool{ToolID: "run", Source: spec.SourceHostExtension, SafetyTier: spec.TierExec, Status: tool.StatusActive}),
		declared("2", tool.Tool{ToolID: "Bad-Id", Source: spec.SourceHostExtension, SafetyTier: spec.TierRead, Status: tool.StatusActive}),
	}}
	s := &diag.Sink{}
	var names []string
	for _, pass := range catalogPasses() {
		names = append(names, pass.name)
		pass.run(sink{s}, whole)
	}
	if got, want := strings.Join(names, " "), "ids toolids tools groups limits published servers"; got != want {
		t.Errorf("passes %s, want %s", got, want)
	}
	var got []string
	for _, d := range s.Close() {
		got = append(got, d.Rule+" "+d.String())
	}
	want := []string{
		"exec-source t.yaml:2:31: safetyTier exec is only for source: host-extension (this tool's source is mcp): use write, or declare the tool as a host extension",
		`tenant t.yaml:2:47: unknown tenant "globex": signpost.yaml declares acme`,
		`toolid-unique t.yaml:3:14: toolId "run" is already used by the tool at t.yaml:2:5: toolIds must be unique`,
		`toolid-format t.yaml:4:14: toolId "Bad-Id" is not ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter), for example "bad_id"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, p := range whole.tools {
		if p.tool.GroupKey == "" {
			t.Errorf("tool %s has no group key", p.tool.ToolID)
		}
	}
}

// TestFilePasses holds the passes of a declaration file to their order,
// and runs the pass "declare" on declarations made in code, as a new rule
// of one file is tested: no YAML is decoded, and the file is there for the
// positions only.
func TestFilePasses(t *testing.T) {
	var names []string
	for _, pass := range filePasses() {
		names = append(names, pass.name)
	}
	if got, want := strings.Join(names, " "), "parse schema decode declare imports prepare"; got != want {
		t.Errorf("passes %s, want %s", got, want)
	}

	src, ps := source.ParseYAML("t.yaml", "t.yaml", []byte("servers:\n  - {name: com.example/weather, version: '^1.2'}\n  - {name: com.example/maps, title: 1}\n  - {name: com.example/late}\n"))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	str := func(s string) discovery.Str { return discovery.Str{Value: s, Set: true} }
	server := func(name, version string) discovery.Decl {
		return discovery.Decl{Object: true, Name: str(name), Version: str(version), Description: str("Forecasts.")}
	}
	s := &diag.Sink{}
	l := &loader{sink: sink{s}, prep: &preparer{sink: sink{s}}}
	f := &fileState{src: src, bad: map[string]bool{"/servers/2": true}, decl: declarations.File{Servers: []discovery.Decl{
		server("com.example/weather", "^1.2"),
		{Object: true, Name: str("com.example/maps"), Title: discovery.Str{Set: true, Kind: "a number"}},
		server("com.example/late", "1.0.0"), // failed its schema: left out
	}}}
	for _, pass := range filePasses() {
		if pass.name == "declare" && !pass.run(l, f) {
			t.Fatal("declare stopped")
		}
	}
	var declared []string
	for _, p := range f.out.servers {
		declared = append(declared, p.server.Name+" at "+p.at.ptr)
	}
	if diff := cmp.Diff([]string{"com.example/weather at /servers/0", "com.example/maps at /servers/1"}, declared); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	var got []string
	for _, d := range s.Close() {
		got = append(got, d.Rule+" "+d.String())
	}
	want := []string{
		`server t.yaml:2:42: version "^1.2" is a range or a tag, not an exact version: give the version the server runs, such as 1.4.0`,
		`server t.yaml:3:5: missing required field "description"`,
		`server t.yaml:3:5: missing required field "version"`,
		`server t.yaml:3:37: must be a string, got a number`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
