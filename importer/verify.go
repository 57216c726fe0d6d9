package importer

import (
	"context"

	"github.com/signpost-dev/signpost/build"
)

// Written is where the declarations an import writes go, as Verify loads
// them.
type Written struct {
	// Config is the signpost.yaml of the catalog folder the file goes in;
	// nil for a file outside a catalog folder, which is loaded with
	// build.DefaultConfig.
	Config []byte
	// Rel is the file's path inside its catalog folder, slash-separated
	// (a .yaml or .yml file); Display names it in the diagnostics.
	Rel, Display string
}

// Verify holds the declarations an import would write (what ServersYAML,
// ToolsYAML or OpenAPIToolsYAML made) to exactly the rules build holds
// a catalog to: it loads them as build does (build.CheckDeclarations), so
// that every import, of servers, recorded tools or an OpenAPI document,
// passes the one code path build runs. It returns the diagnostics build
// would report of the file; one of severity error means build would refuse
// it. The importer's own repairs make most declarations pass; what they do
// not cover, Verify still finds.
func Verify(ctx context.Context, w Written, decl []byte) (build.Diagnostics, error) {
	rel := w.Rel
	if rel == "" {
		rel = "imported.yaml"
	}
	display := w.Display
	if display == "" {
		display = rel
	}
	return build.CheckDeclarations(ctx, w.Config, rel, display, decl)
}
