// Package build is signpost's compiler: it loads a catalog folder and checks
// every declaration (Load), compiles the catalog into one site of documents
// per tenant (Compile), and writes and reads the built-site format: the
// documents and the route table that says, for every route, its object,
// Content-Type, Cache-Control and ETag (Output.Write, Open).
//
// Its parts live in packages of their own below it: spec (the vocabulary of
// the HTTP contract), source (files with positions), toolid, refs (JSON
// Schema structure), secrets, compact (the compact view), recorded (MCP
// recordings), importer, diff, and the host layouts pages and cloudfront.
package build
