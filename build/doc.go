// Package build is signpost's compiler: it loads a catalog folder and checks
// every declaration (Load), compiles the catalog into one site of documents
// per tenant (Compile), and writes and reads the built-site format: the
// documents and the route table that says, for every route, its object,
// Content-Type, Cache-Control and ETag (Output.Write, Open).
//
// It is built from leaf packages below it: spec (the vocabulary of the
// specs), source (files with positions), diag (the diagnostics, and the
// sink every one of Load leaves through, redacted), toolid, refs (JSON
// Schema structure), secrets, compact (the compact view) and recorded
// (MCP recordings). Beside them, and built on this package, are importer, diff,
// and the host layouts pages and cloudfront.
package build
