// Package live reads what a running MCP server offers now: it connects to
// the server with the official Go SDK's client (Streamable HTTP, or a
// command that speaks MCP over stdio), initializes, and pages through
// tools/list, within a deadline and a number of pages. What it read is a
// Listing, which writes itself as a recording: the JSON file that
// signpost import mcp and an mcp: import of a catalog read, so that a
// server read live and its saved recording give the same declarations.
//
// It speaks no protocol of its own: every message is the SDK's. What it
// adds is the bounds and the network rules a catalog needs, since a
// catalog names the endpoints and a catalog may be hostile: an HTTP
// endpoint is reached through check/dial's guarded client (no redirect
// followed; no loopback, private, link-local or other non-public address
// unless Options.AllowPrivate), every response is bounded in size, and the
// headers a caller sends (a token) are never repeated in an error, even
// when a server echoes them back.
package live
