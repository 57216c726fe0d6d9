// Package importer turns documents published elsewhere into catalog
// declarations: MCP registry server.json documents into servers: (Servers),
// and recorded MCP tools/list results into tools: (MCP). Whatever it writes,
// the loader accepts; whatever it changes or leaves out, it says why.
//
// # Servers
//
// A registry document describes a server twice over: its remote endpoints
// (what a server card publishes) and its local packages (npm, pypi, oci, ...:
// what a client installs and runs, which the MCP registry's server.json
// publishes). Both become a declaration, made to be one the loader accepts:
// no secret value, no registry bookkeeping, no field a declaration does not
// have, every {variable} of a template declared, and no package that does
// not pin what it runs (server_packages.go). Everything the importer changes or leaves out is said in
// the outcome's Reason, so a reviewer sees it before the card is published.
// A document is decoded once (decode.go) into typed values that keep what a
// reason needs (whether each member is there, its value as written, the
// members a card does not have), and the rules read their fields.
//
// # Tools
//
// A recording is read exactly as an mcp: import of the loader reads it
// (source.ParseJSON, then recorded.Tools), so whatever shape the loader
// accepts, the importer accepts. What comes out is a tools: list a catalog
// can commit and edit: every tool source mcp, safetyTier write unless the
// host classified it, replayPolicy unsafe and egress internet, the defaults
// the loader gives an unclassified recorded tool. The server's annotations are its own claims
// and never set a safety field; they are shown in a comment, as evidence
// for the reviewer who classifies the tool.
//
// # OpenAPI
//
// An OpenAPI document is read as the loader's openapi: import reads it
// (build/openapi), so that both derive the same tools and toolIds. The
// importer then classifies each operation as the loader does not: by its
// method, as HTTP defines them (MethodSafety), unless its x-signpost
// extension or the host's --classify says otherwise; and it writes what
// the operation's security asks of a caller as the declaration's
// security field, which the build accepts and does not publish. A
// parameter that carries a security scheme's credential is never an
// argument, with a note.
//
// Every declaration written passes the loader's checks: a schema the loader
// would reject is repaired when a mechanical change keeps its meaning (a
// missing type, draft-04 bounds, a credential-looking default), and the
// tool is left out otherwise (importer/repair). Each change and each tool
// left out is said in the outcome's Reason.
//
// # Verify
//
// The repairs above are the importer's; the rules are build's. Verify
// loads the declarations an import would write as build loads a catalog
// folder (build.CheckDeclarations): what build would refuse, whichever
// rule the repairs do not cover, is found there, with build's own
// message, before anything is written.
package importer
