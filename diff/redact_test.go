package diff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

// leakyBuild is b with every document's bytes rewritten by r: a built
// site as a hand, or another tool, may have left it, which no check of
// the declarations held to build/secrets.
func leakyBuild(t testing.TB, b *output.Build, r *strings.Replacer) *output.Build {
	out := &output.Build{}
	for _, s := range b.Sites {
		site := *s
		site.Documents = make([]output.Document, len(s.Documents))
		for i, d := range s.Documents {
			site.Documents[i] = output.Document{Route: d.Route, Body: content.New([]byte(r.Replace(string(buildtest.Body(t, d)))))}
		}
		out.Sites = append(out.Sites, &site)
	}
	return out
}

// TestDiffRedactsCredentials compares a catalog with a built site that
// holds credentials wherever a change quotes what a side publishes: a
// tool's description, a server's remote URL and a server's name. No
// format of the change repeats them.
func TestDiffRedactsCredentials(t *testing.T) {
	tok := func(seed string) string { return "gh" + "p_" + fakecred.Chars(seed, 36, fakecred.Alnum) }
	toks := map[string]string{"description": tok("diff-description"), "url": tok("diff-url"), "server": tok("diff-server")}
	old := diffCatalog(t, diffBase)
	new := leakyBuild(t, old, strings.NewReplacer(
		"Forecast. For a place.", "Forecast. For a place. "+toks["description"],
		"https://mcp.example.com/weather", "https://mcp.example.com/weather?api_key="+toks["url"],
		"com.example/helpdesk", "com.example/"+toks["server"],
	))
	c, err := Compare(old, new)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{build.FormatText, build.FormatJSON, FormatMarkdown} {
		var b bytes.Buffer
		if err := c.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for place, tok := range toks {
			for i := 4; i+6 <= len(tok); i++ {
				if strings.Contains(out, tok[i:i+6]) {
					t.Errorf("the %s change repeats the credential placed in a %s:\n%s", format, place, out)
					break
				}
			}
		}
		if !strings.Contains(out, "…") {
			t.Errorf("the %s change quotes no credential, redacted:\n%s", format, out)
		}
	}
}
