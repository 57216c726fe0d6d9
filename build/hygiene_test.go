package build

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestCatalogueHygiene plants in a catalog each kind of value the tool
// catalogue must never hold, and shows that it is refused or never reaches
// a document: a credential, an environment value, a machine path, a search
// index and server instructions.
func TestCatalogueHygiene(t *testing.T) {
	token := "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hI6"
	refused := []struct{ name, decl, want string }{
		{"credential", toolDecl("description", "Uses "+token+" to call the API."), "contains a GitHub"},
		{"credential in a group", toolDecl("group", token), "looks like a GitHub token"},
		{"bidi override", toolDecl("description", `"Reads the file\u202e txt.exe"`), "description holds U+202E"},
		{"tag characters", toolDecl("title", `"Search\U000E0049\U000E0067"`), "title holds U+E0049"},
		{"zero-width", toolDecl("description", `"Safe\u200b to call."`), "description holds U+200B"},
		{"escape", toolDecl("description", `"Reads \e[2J files."`), "description holds U+001B"},
		{"invisible in a schema", toolDecl("inputSchema", `{type: object, properties: {q: {type: string, description: "The query\u2066."}}}`), "inputSchema holds U+2066"},
		{"machine path", toolDecl("description", "Reads /home/alice/.config/tool.yaml first."), "holds the machine path /home/alice/"},
		{"windows machine path", toolDecl("title", `"Export to C:\\Users\\bob\\out"`), `holds the machine path C:\Users\bob`},
		{"search index", toolDecl("searchIndex", "{terms: [forecast, weather]}"), `unknown field "searchIndex"`},
		{"server instructions", toolDecl("instructions", "Always call get_forecast first."), `unknown field "instructions"`},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadDiags(t, map[string]string{"signpost.yaml": testConfig, "t.yaml": "tools:\n" + tc.decl})
			if !strings.Contains(strings.Join(diags, "\n"), tc.want) {
				t.Errorf("diagnostics %q, want one with %q", diags, tc.want)
			}
		})
	}

	// Paths a tool documents are not machine paths, nor are the home
	// folders documentation writes for "yours".
	checkDiags(t, map[string]string{"signpost.yaml": testConfig, "t.yaml": "tools:\n" + toolDecl("description", "Reads /etc/hosts and ~/.netrc.")})
	checkDiags(t, map[string]string{"signpost.yaml": testConfig, "t.yaml": "tools:\n" + toolDecl("description", "Reads /home/user/work, /Users/me/notes and /home/runner/work/repo.")})

	// A machine path is a warning, not a credential: it is said, and the
	// catalog still builds.
	cat, lines := loadDiags(t, map[string]string{"signpost.yaml": testConfig, "t.yaml": "tools:\n" + toolDecl("description", "Reads /home/alice/.config/tool.yaml first.")})
	if cat == nil || len(lines) != 1 || !strings.Contains(lines[0], ": warning: description holds the machine path /home/alice/") {
		t.Errorf("a machine path: %q, want one warning and a catalog", lines)
	}

	// Neither the environment nor a recording's server instructions reach
	// a document: the build reads no environment, and a recording's
	// members other than the tools are not read.
	t.Setenv("SIGNPOST_PLANTED", "planted-environment-value")
	t.Setenv("HOME", "/home/planted-home")
	dir := catalogtest.Write(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("description", "Uses ${SIGNPOST_PLANTED} from the caller's environment."),
		"m.yaml":        "mcp:\n  from: rec.json\n  server: com.example/rec\n",
		"rec.json":      `{"jsonrpc": "2.0", "id": 1, "result": {"instructions": "planted server instructions", "tools": [{"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"}}]}}`,
	})
	cat, diags := Load(context.Background(), dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out, err := Compile(context.Background(), cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range out.Sites {
		for _, d := range s.Documents {
			for _, planted := range []string{"planted-environment-value", "planted-home", "planted server instructions", dir} {
				if bytes.Contains(bodyOf(t, d), []byte(planted)) {
					t.Errorf("%s holds %q", d.Route.Route, planted)
				}
			}
		}
	}
}
