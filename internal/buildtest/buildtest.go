// Package buildtest compiles catalogs for the tests of the packages that
// work on a build: host layouts, the publisher, the server and the checker.
package buildtest

import (
	"context"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// Compile loads and compiles the catalog folder dir, failing the test on
// any error.
func Compile(t testing.TB, dir string) *output.Build {
	t.Helper()
	return CompileEdited(t, dir, nil)
}

// CompileEdited is Compile with edit, when set, applied to the loaded
// catalog before it is compiled.
func CompileEdited(t testing.TB, dir string, edit func(*build.Catalog)) *output.Build {
	t.Helper()
	ctx := context.Background()
	cat, diags := build.Load(ctx, dir)
	if diags.HasErrors() {
		var b strings.Builder
		_ = diags.Write(&b, build.FormatText)
		t.Fatalf("load %s:\n%s", dir, b.String())
	}
	if edit != nil {
		edit(cat)
	}
	b, err := build.Compile(ctx, cat)
	if err != nil {
		t.Fatalf("compile %s: %v", dir, err)
	}
	if len(b.Sites) == 0 {
		t.Fatalf("%s builds no site", dir)
	}
	return b
}

// Example compiles the bundled example catalog.
func Example(t testing.TB) *output.Build {
	t.Helper()
	return Compile(t, catalogtest.ExampleDir(t))
}

// OnSiteServer is a server declaration whose Streamable HTTP endpoint is
// on the example's origin, https://example.com/mcp/onsite: every site of
// ExampleOnSite answers its card beside it, at OnSiteCardRoute.
const OnSiteServer = `servers:
  - name: com.example/onsite
    version: 1.0.0
    description: A server whose endpoint is on the catalog's own origin.
    remotes:
      - type: streamable-http
        url: https://example.com/mcp/onsite
`

// OnSiteCardRoute is the route of the card of OnSiteServer beside its
// endpoint.
const OnSiteCardRoute = "/mcp/onsite/server-card"

// ExampleOnSite compiles the bundled example catalog with OnSiteServer
// declared too (in onsite.yaml of a copy) and discovery.ard on: the
// example's documents, one more server, whose card each site also answers
// at OnSiteCardRoute, and the ARD manifest, so that each site's document
// responses carry the Link header (output.Site.Link) where the host can
// send it.
func ExampleOnSite(t testing.TB) *output.Build {
	t.Helper()
	return Compile(t, ExampleOnSiteDir(t))
}

// ExampleOnSiteDir writes the catalog folder ExampleOnSite compiles, a
// copy of the example's, and returns it.
func ExampleOnSiteDir(t testing.TB) string {
	t.Helper()
	files := catalogtest.ReadTree(t, catalogtest.ExampleDir(t))
	files["onsite.yaml"] = OnSiteServer
	files[build.ConfigFile] += "discovery:\n  ard: true\n"
	return catalogtest.Write(t, files)
}

// Body returns the bytes of d, failing the test when they cannot be read.
func Body(t testing.TB, d output.Document) []byte {
	t.Helper()
	b, err := d.Body.Bytes()
	if err != nil {
		t.Fatalf("read %s: %v", d.Route.Route, err)
	}
	return b
}

// Document makes the document of route in view with body, failing the
// test on an error.
func Document(t testing.TB, route, view, contentType string, body []byte) output.Document {
	t.Helper()
	d, err := output.NewDocument(route, view, contentType, content.New(body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
