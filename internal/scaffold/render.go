package scaffold

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"text/template"

	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/hosts/cloudflare"
	"github.com/signpost-dev/signpost/templates"
)

// templateData is what the templates under templates/init are filled with.
type templateData struct {
	Origin, Publisher, DisplayName string
	// Publish is s3, pages, cloudflare, netlify or none; Target the name of
	// the target of signpost.yaml that the workflow publishes to, "" for
	// none.
	Publish, Target string
	// Bucket, Region and RoleARN are set for s3; BucketSet and RoleARNSet
	// say whether they came from Options or are placeholders.
	Bucket, Region, RoleARN string
	BucketSet, RoleARNSet   bool
	// Branch is the branch whose pushes publish.
	Branch string
	// Ref is the signpost the workflow installs, the value of its
	// SIGNPOST_VERSION; never latest. Release is the signpost release that
	// writes the workflow, whose action installs Ref from its release
	// archive, or "" when each job builds Ref with go install.
	Release, Ref string
	// ServerName and ServerURL are the starter MCP server's.
	ServerName, ServerURL string
	// Catalog is the catalog's folder relative to the top of its Git
	// repository, slash-separated: "." at the top. It matches
	// catalogPathPattern, so that it can stand unquoted in YAML and in
	// shell commands. Site is the folder, relative to the top, that the
	// workflow builds the site into: site/ in the catalog's folder.
	Catalog, Site string
}

// schemaBase is where the project publishes the JSON Schemas of its
// releases: the schemas folder of the repository, at a ref.
const schemaBase = "https://raw.githubusercontent.com/signpost-dev/signpost/"

// SchemaURL is the URL of the JSON Schema name (config, declarations) of the
// signpost the workflow installs, for an editor's YAML language server: at
// its tag for a release, a pre-release included, at its commit for a
// commit hash, else (a pseudo-version) at main.
func (d templateData) SchemaURL(name string) string {
	ref := "main"
	if isRelease(d.Ref) || commitPattern.MatchString(d.Ref) {
		ref = d.Ref
	}
	return schemaBase + ref + "/schemas/" + name + ".schema.json"
}

// file is one file of the starter repository.
type file struct {
	// Path is slash-separated, relative to the catalog's folder, or to the
	// top of the repository when AtTop is set.
	Path  string
	Data  []byte
	AtTop bool
}

// render fills every template under templates/init with d, in the order
// of their paths in the new repository.
func render(d templateData) ([]file, error) {
	funcs := template.FuncMap{"yaml": yamlScalar, "wranglerVersion": func() string { return cloudflare.WranglerVersion }}
	var files []file
	err := fs.WalkDir(templates.Init, "init", func(name string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		src, err := fs.ReadFile(templates.Init, name)
		if err != nil {
			return err
		}
		t, err := template.New(name).Delims("<%", "%>").Funcs(funcs).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, d); err != nil {
			return fmt.Errorf("template %s: %w", name, err)
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(name, "init/"), ".tmpl")
		// GitHub reads workflows only at the top of the repository.
		atTop := strings.HasPrefix(rel, "github/")
		// embed leaves out names that start with a dot: the templates
		// drop it, and it is put back here.
		if atTop || rel == "gitignore" {
			rel = "." + rel
		}
		files = append(files, file{Path: rel, Data: buf.Bytes(), AtTop: atTop})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// yamlScalar writes s as a YAML scalar: plain when that reads back as the
// same string, quoted otherwise (true, 1.0, "a: b" and the like).
func yamlScalar(s string) (string, error) {
	b, err := yaml.Marshal(s)
	if err != nil {
		return "", err
	}
	out := strings.TrimSuffix(string(b), "\n")
	if strings.Contains(out, "\n") {
		return "", fmt.Errorf("%q does not fit on one line", s)
	}
	return out, nil
}
