package scaffold

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCommentWidth: every comment line of the files init writes as
// YAML, and of its .gitignore, fits in 80 columns, for every publish choice,
// at the top and in a subfolder.
// TestSchemaURL: the starter files name the JSON Schema of the signpost the
// workflow installs, for an editor's YAML language server, at a URL of a
// file the repository has.
func TestSchemaURL(t *testing.T) {
	for ref, want := range map[string]string{
		"v0.1.0":                             "v0.1.0",
		"v1.2.0-rc.1":                        "v1.2.0-rc.1",
		strings.Repeat("ab", 20):             strings.Repeat("ab", 20),
		"v0.0.0-20261204120000-abcdefabcdef": "main",
	} {
		got := templateData{Ref: ref}.SchemaURL("config")
		if wantURL := schemaBase + want + "/schemas/config.schema.json"; got != wantURL {
			t.Errorf("%s: %s, want %s", ref, got, wantURL)
		}
	}
	d := templateData{Origin: DefaultOrigin, Publisher: defaultPublisher, DisplayName: defaultDisplayName, Publish: PublishNone,
		Branch: DefaultBranch, Ref: FallbackVersion, ServerName: "com.example/notes", ServerURL: "https://mcp.example.com/notes", Catalog: ".", Site: "site"}
	files, err := render(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".yaml") {
			continue
		}
		first, _, _ := strings.Cut(string(f.Data), "\n")
		u, ok := strings.CutPrefix(first, "# yaml-language-server: $schema="+schemaBase+FallbackVersion+"/")
		if !ok {
			t.Errorf("%s: first line %q names no schema of %s", f.Path, first, FallbackVersion)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(u))); err != nil {
			t.Errorf("%s names %s, which the repository does not have: %v", f.Path, u, err)
		}
	}
}

func TestCommentWidth(t *testing.T) {
	for _, publish := range []string{PublishS3, PublishPages, PublishCloudflare, PublishNetlify, PublishNone} {
		for _, c := range []struct{ catalog, release string }{{".", ""}, {"catalogs/acme", ""}, {".", "v0.10.0-rc.1"}} {
			catalog := c.catalog
			d := templateData{Release: c.release, Origin: DefaultOrigin, Publisher: defaultPublisher, DisplayName: defaultDisplayName,
				Publish: publish, Branch: DefaultBranch, Ref: FallbackVersion, ServerName: "com.example/notes",
				ServerURL: "https://mcp.example.com/notes", Catalog: catalog, Site: path.Join(catalog, "site")}
			switch publish {
			case PublishS3:
				d.Target, d.Bucket, d.Region, d.RoleARN = targetS3, PlaceholderBucket, DefaultRegion, placeholderRoleARN
			case PublishPages:
				d.Target = targetPages
			case PublishCloudflare:
				d.Target = targetCloudflare
			case PublishNetlify:
				d.Target = targetNetlify
			}
			files, err := render(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Path == readmePath {
					// Every guide has the line by which a later init
					// tells it from a team's own README.
					if !strings.Contains(string(f.Data), guideMark) {
						t.Errorf("%s, %s: the guide lacks %q", publish, catalog, guideMark)
					}
					continue
				}
				lines := strings.Split(string(f.Data), "\n")
				for i, line := range lines {
					text, ok := strings.CutPrefix(strings.TrimSpace(line), "#")
					if !ok || strings.HasPrefix(text, " yaml-language-server:") {
						// A directive to editors is one line, whatever
						// its width.
						continue
					}
					width := utf8.RuneCountInString(line)
					if width > 80 {
						t.Errorf("%s in %s, --publish %s: line %d has %d columns:\n%s", f.Path, catalog, publish, i+1, width, line)
					}
					// A line of prose followed by more of the same sentence
					// is filled: the next line's first word would not fit
					// on it with room to spare.
					if i+1 == len(lines) || strings.TrimSpace(text) == "" || strings.HasSuffix(text, ":") || strings.HasSuffix(text, ".") {
						continue
					}
					next, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "# ")
					if !ok || next == "" || next[0] == ' ' {
						continue
					}
					word, _, _ := strings.Cut(next, " ")
					if width+1+utf8.RuneCountInString(word) <= 66 {
						t.Errorf("%s in %s, --publish %s: line %d ends early: %q fits on it:\n%s\n%s", f.Path, catalog, publish, i+1, word, line, lines[i+1])
					}
				}
			}
		}
	}
}
