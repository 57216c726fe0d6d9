//go:build corpus

package build

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tokens"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// corpusCatalog writes the corpus's 164 tools as one catalog, with the
// toolCatalog section of signpost.yaml given, and returns its folder.
func corpusCatalog(t testing.TB, toolCatalog string) string {
	t.Helper()
	dir := catalogtest.Write(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\n" + toolCatalog,
		"github.yaml": `mcp:
  from: recorded/github.json
  server: io.github.github/github-mcp-server
  toolIdPrefix: gh
`,
		"kubernetes.yaml": `mcp:
  from: recorded/kubernetes.json
  server: io.github.containers/kubernetes-mcp-server
  toolIdPrefix: k8s
  default: {egress: internal}
`,
	})
	if err := os.MkdirAll(filepath.Join(dir, "recorded"), 0o755); err != nil {
		t.Fatal(err)
	}
	for file, name := range map[string]string{"github-mcp-server.tools.json": "github.json", "kubernetes-mcp-server.tools.json": "kubernetes.json"} {
		if err := os.WriteFile(filepath.Join(dir, "recorded", name), corpus.Read(t, file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// listTokens counts the tokens of the site's /tools list in view.
func listTokens(t *testing.T, s *output.Site, view string) int {
	t.Helper()
	c, err := tokens.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Documents {
		if d.Route.Route == spec.RouteTools && d.View == view {
			n, err := c.Count(bodyOf(t, d))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no /tools list in view %s", view)
	return 0
}

// On the corpus, the compact list costs at most 55% of the standard list's
// tokens, and at most 40% without the input schemas' descriptions.
func TestCorpusCompactTokens(t *testing.T) {
	for _, tc := range []struct {
		name, toolCatalog string
		goal              float64
	}{
		{"descriptions kept", "", 0.55},
		{"descriptions left out", "toolCatalog: {compactDescriptions: false}\n", 0.40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := compiled(t, corpusCatalog(t, tc.toolCatalog)).Sites[0]
			if s.Tools != 164 {
				t.Fatalf("%d tools; want 164", s.Tools)
			}
			std, cpt := listTokens(t, s, spec.ViewStandard), listTokens(t, s, spec.ViewCompact)
			ratio := float64(cpt) / float64(std)
			t.Logf("%s: /tools %d tokens, /tools?view=compact %d tokens (%.1f%%); descriptors %d and %d (%.1f%%)",
				tc.name, std, cpt, 100*ratio, s.Tokens.Standard, s.Tokens.Compact, 100*float64(s.Tokens.Compact)/float64(s.Tokens.Standard))
			if ratio > tc.goal {
				t.Errorf("the compact list costs %.1f%% of the standard list's tokens; want at most %.0f%%", 100*ratio, 100*tc.goal)
			}
			if r := float64(s.Tokens.Compact) / float64(s.Tokens.Standard); r > tc.goal {
				t.Errorf("the compact descriptors cost %.1f%% of the standard ones' tokens; want at most %.0f%%", 100*r, 100*tc.goal)
			}
		})
	}
}
