package check_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/checktest"
)

// TestMalformedMembers: a document that holds, where a rule reads a
// member, a value of another type than the spec's is a finding of that
// rule, never a panic of the checker.
func TestMalformedMembers(t *testing.T) {
	site := correctHandler(t)
	body := func(route, b string) http.Handler {
		return editResponses(site, matches(route, spec.ViewStandard), func(*int, http.Header, []byte) []byte { return []byte(b) })
	}
	jsonEdit := func(match func(*http.Request) bool, edit func(v any) any) http.Handler {
		return editResponses(site, match, func(status *int, _ http.Header, b []byte) []byte {
			if *status != http.StatusOK {
				return b
			}
			return editJSON(t, b, edit)
		})
	}
	// group edits the weather group: its entry in the catalogue and its
	// document.
	group := func(entry, doc func(m map[string]any)) http.Handler {
		return jsonEdit(anyOf(matches(spec.RouteToolCatalogue, spec.ViewStandard), matches(spec.GroupRoute("weather"), spec.ViewStandard)), func(v any) any {
			m := v.(map[string]any)
			if g, ok := m["group"].(map[string]any); ok {
				doc(m)
				entry(g)
				return m
			}
			for _, g := range m["groups"].([]any) {
				if g := g.(map[string]any); g["key"] == "weather" {
					entry(g)
				}
			}
			return m
		})
	}
	tests := []struct {
		name     string
		site     http.Handler
		rule     string
		evidence string // a part of the failure's evidence
	}{{
		name:     "MCP catalog null",
		site:     body(spec.RouteMCPCatalog, "null"),
		rule:     "mcp-catalog.entries",
		evidence: "top level is null",
	}, {
		name:     "AI catalog null",
		site:     body(spec.RouteAICatalog, "null"),
		rule:     "ai-catalog.entries",
		evidence: "top level is null",
	}, {
		name: "a catalogue tool that is not an object",
		site: jsonEdit(matches(spec.RouteToolCatalogue, spec.ViewStandard), func(v any) any {
			m := v.(map[string]any)
			m["tools"].([]any)[0] = 1
			return m
		}),
		rule:     "catalogue.schema",
		evidence: "/tools/0: must be an object, got number",
	}, {
		name: "a source that is an object, in both views",
		site: jsonEdit(anyOf(matches("/tools", spec.ViewStandard), matches("/tools", spec.ViewCompact), matches("/tools/get_forecast", spec.ViewStandard), matches("/tools/get_forecast", spec.ViewCompact)),
			editTool("get_forecast", func(m map[string]any) { m["source"] = map[string]any{} })),
		rule:     "compact.list",
		evidence: "/source: must be one of host-extension, mcp, openapi; got an object",
	}, {
		name: "a catalogue tool with an object source, as /tools has it",
		site: jsonEdit(anyOf(matches("/tools", spec.ViewStandard), matches(spec.RouteToolCatalogue, spec.ViewStandard)), func(v any) any {
			list, _ := v.([]any)
			if m, ok := v.(map[string]any); ok {
				list = m["tools"].([]any)
			}
			for _, e := range list {
				if m := e.(map[string]any); m["toolId"] == "get_forecast" || m["name"] == "get_forecast" {
					m["source"] = []any{"x"}
				}
			}
			return v
		}),
		rule:     "tools.list",
		evidence: "/source: must be one of host-extension, mcp, openapi; got an array",
	}, {
		name: "group tool names that are objects, in both",
		site: group(func(g map[string]any) { g["tools"] = []any{map[string]any{}} }, func(m map[string]any) {
			m["tools"] = []any{map[string]any{"name": map[string]any{}}}
		}),
		rule:     "catalogue.groups",
		evidence: "/tools",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runOn(t, tt.site, "https://example.com", check.Options{})
			for _, f := range r.Findings {
				if f.Rule == tt.rule && f.Result != check.ResultPass && f.Result != check.ResultSkip && strings.Contains(f.Evidence, tt.evidence) {
					return
				}
			}
			t.Errorf("no %s failure with evidence %q\n%s", tt.rule, tt.evidence, checktest.Problems(r))
		})
	}
}
