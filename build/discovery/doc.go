// Package discovery is what a catalog says about its MCP servers: a server
// declaration decoded (DecodeDecl, the package's one reader of decoded JSON
// by member name) and checked (Declare, Check), the two cards a local server
// is published with (DraftCard, V1Card), and the two discovery catalogs that
// point at them (MCPCatalog, AICatalog, which also advertises the tool
// catalog). The loader decodes and checks; Compile encodes what this package
// builds.
package discovery
