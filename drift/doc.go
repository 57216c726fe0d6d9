// Package drift compares what a catalog declares of its MCP servers with
// what their endpoints answer now. For each server whose declaration
// names a Streamable HTTP remote, Run reads the server's tools/list (with
// package live) and compares its tools, by MCP name, with the catalog's
// tools of that server (source mcp): tools added, removed and renamed (the
// same description and schemas under another name), input and output
// schemas changed, each said breaking or not by diff.SchemaBreak, the
// rule a pull request's diff uses, descriptions changed, and the server's
// annotations changed, where the catalog keeps them (a tool of an mcp:
// import; a tool written out by hand has none to compare).
//
// The Report lists every server in name order, each with its status (no
// drift, drift, unreachable, skipped) and its changes in tool order; it
// writes itself as text, JSON or GitHub workflow commands, every string
// redacted (build/secrets) and safe for a terminal. Compare is the
// comparison alone, for tools from anywhere.
package drift
