package spec

// A tool's definition digest: the digest SEP-2636 (MCP, "Tool Manifests for
// Incremental Catalog Synchronization", draft) gives each tool, so that a
// client can pin a tool's definition and tell when it changed. The standard
// view (/tools, /tools/{toolId}) and the tool catalogue (and its groups)
// carry the digest of the tool's full definition, under the _meta key
// DefinitionMeta; the compact view, for models, does not:
//
//	"_meta": {"dev.signpost/definition": {"digest": "sha256:<64 lowercase hex>", "size": N}}
//
// The definition is the standard descriptor as /tools/{toolId} serves it,
// without that key (and without _meta when nothing else is left in it).
// digest is DigestPrefix and the lowercase hexadecimal SHA-256 of the
// definition's canonical JSON (RFC 8785, the JSON Canonicalization Scheme),
// size the length of that canonical JSON in bytes: the two members of a
// SEP-2636 ToolManifestEntry that a client reconciles its cache with.
const (
	// MetaKey is the member of a descriptor that holds its metadata, as
	// MCP's Tool names it.
	MetaKey = "_meta"
	// DefinitionMeta is the _meta key of the definition's digest and size.
	DefinitionMeta = "dev.signpost/definition"
	// DigestPrefix starts every digest: the algorithm, as SEP-2636 writes it.
	DigestPrefix = "sha256:"
	// DigestLen is the length of a digest: its prefix and 64 hex digits.
	DigestLen = len(DigestPrefix) + 64
)
