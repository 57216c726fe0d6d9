// Package build is signpost's compiler: it loads a catalog folder and checks
// every declaration (Load), and compiles the catalog into one site of
// documents per tenant (Compile), in the built-site format of package
// output: the documents and the route table that says, for every route,
// its object, Content-Type, Cache-Control and ETag.
//
// It is built from leaf packages below it, among them spec (the vocabulary
// of the specs), catalogfile (which files of a catalog folder Load reads,
// and how), configfile (signpost.yaml decoded into typed values), target
// (where a site is published), source (files with positions),
// declarations (a declaration file decoded into typed values), diag (the
// diagnostics, and the sink every one of Load leaves through, redacted),
// toolid, refs (JSON Schema structure), secrets, hygiene (invisible text
// and machine paths), reserved (the tool catalogue's reserved arguments),
// tool (a tool and the descriptors and catalogue entry it publishes),
// catalogue (the tool catalogue document and its groups), compact (the
// compact view), recorded (MCP recordings), definition (the digest of a
// tool's definition) and registry (the MCP registry, dated by the catalog
// folder's Git history). Beside them, and built on this package, are
// importer, diff, and the host layouts.
package build
