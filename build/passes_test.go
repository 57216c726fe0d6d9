package build

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/diag"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
)

// TestCatalogPasses runs the passes across files on tools made in code, as
// a new rule is tested: no YAML is decoded, and the file is there for the
// positions only.
func TestCatalogPasses(t *testing.T) {
	src, ps := source.ParseYAML("t.yaml", "t.yaml", []byte("tools:\n  - {toolId: run, safetyTier: exec, tenants: [globex]}\n  - {toolId: run, safetyTier: exec}\n  - {toolId: Bad-Id}\n"))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	declared := func(i string, tl Tool) *pendingTool {
		return &pendingTool{tool: &tl, at: ref{src, "/tools/" + i}, declared: true, explicit: true, sizeOK: true}
	}
	whole := &wholeCatalog{config: &Config{Tenants: []string{"acme"}}, tools: []*pendingTool{
		declared("0", Tool{ToolID: "run", Source: spec.SourceMCP, SafetyTier: spec.TierExec, Status: StatusActive, Tenants: []string{"globex"}}),
		declared("1", Tool{ToolID: "run", Source: spec.SourceHostExtension, SafetyTier: spec.TierExec, Status: StatusActive}),
		declared("2", Tool{ToolID: "Bad-Id", Source: spec.SourceHostExtension, SafetyTier: spec.TierRead, Status: StatusActive}),
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

// TestFilePasses holds the passes of a declaration file to their order.
func TestFilePasses(t *testing.T) {
	var names []string
	for _, pass := range filePasses() {
		names = append(names, pass.name)
	}
	if got, want := strings.Join(names, " "), "parse schema decode declare imports prepare"; got != want {
		t.Errorf("passes %s, want %s", got, want)
	}
}
