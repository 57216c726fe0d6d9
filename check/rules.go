package check

import (
	"slices"
	"strings"
)

// Level says how strongly a spec demands what a rule checks.
type Level string

// The levels of the specs' requirements.
const (
	LevelMust   Level = "must"
	LevelShould Level = "should"
)

// verb is how a finding of the level words a requirement: "must" or
// "should".
func (l Level) verb() string {
	if l == LevelMust {
		return "must"
	}
	return "should"
}

// Result is the outcome of one rule at one place.
type Result string

// The outcomes of a rule. A rule that is not met fails at LevelMust and
// warns at LevelShould; it is skipped where it does not apply or where what
// it needs could not be had (and another finding says why).
const (
	ResultPass Result = "pass"
	ResultFail Result = "fail"
	ResultWarn Result = "warn"
	ResultSkip Result = "skip"
)

// Rule is one requirement of the specs that Run applies.
type Rule struct {
	Name string
	// Level is the rule's level. tools.status, compact.list and compact.item
	// are MUST when the AI catalog advertises what they check, SHOULD
	// otherwise; their findings carry the level that applied.
	Level Level
	Text  string
}

// ruleTable is every rule Run applies, sorted by name so that ruleLevel
// can search it.
var ruleTable = []Rule{
	{"access.gate", LevelMust, "with a token (a gated site): /tools, the tool catalogue and a tool refuse a request without it, with 401 and a Bearer challenge or 403 (a tool may answer 404), the CORS headers and not the document; the discovery catalogs may answer, when kept public"},
	{"ai-catalog.content-type", LevelMust, "/.well-known/ai-catalog.json is served as application/ai-catalog+json"},
	{"ai-catalog.digest", LevelMust, "an entry's digest (AI Catalog 1.0's Digest Format: ALGORITHM:HEX, lower-case hex, SHA-256 or stronger) is that of the exact bytes its url serves, verified for every card entry that gives one"},
	{"ai-catalog.entries", LevelMust, "the AI catalog is a JSON object whose entries each have an identifier, a type and exactly one of url (absolute http or https) or data; a tool catalog entry's toolCatalog has a url and a boolean compactView"},
	{"ai-catalog.identifier", LevelMust, "identifiers are unique and of the form urn:air:DOMAIN:SEGMENT... (^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$, so no '/'); an MCP server's is urn:air:DOMAIN:mcp:NAME, with DOMAIN the host's domain when the catalog names one"},
	{"ai-catalog.jcs", LevelMust, "the AI catalog, signed or not, is valid input to JSON canonicalization (RFC 8785): I-JSON (UTF-8, no surrogate or noncharacter, escaped or not), each member name once in its object, integers within ±(2^53-1) and numbers an IEEE 754 double holds"},
	{"ai-catalog.media-type", LevelMust, "an MCP server's card is listed as application/mcp-server-card+json, never as application/mcp-server+json; entries of a type clients do not know are ignored: reported as skip and not fetched"},
	{"ai-catalog.signature", LevelMust, "a signed catalog's root signature verifies under the did:web Catalog Profile (did-web-v1): a detached ES256 JWS with typ ai-catalog+jws over the canonical form without its jws, by a key the signer's DID document (/.well-known/did.json) authorizes under assertionMethod, kid the signer#fragment, within issuedAt and expiresAt, and host.identifier exactly the signer"},
	{"ai-catalog.spec-version", LevelMust, `specVersion is "1.0"`},
	{"ai-catalog.status", LevelShould, "/.well-known/ai-catalog.json is published (200)"},
	{"ai-catalog.trust-manifest", LevelMust, "each signed Trust Manifest verifies under the did:web Publisher Profile: typ ai-catalog-trust-manifest+jws, its contributor the signer, the signer did:web: and the entry identifier's publisher, and its subject bound to the entry (identifier, type, version and digest each as the entry has them, a url exactly the entry's https url; inline data's digest recomputed)"},
	{"cache.control", LevelShould, "every document but the MCP catalog is served with Cache-Control: public, max-age=3600, or private, max-age=3600 behind a gate"},
	{"cache.etag", LevelShould, "every document has a strong ETag (a weak one only on a response compressed on the way, as CDNs do), and a GET with If-None-Match and that ETag gets 304"},
	{"card.content-type", LevelMust, "a card is served with the media type its catalog entry names: application/mcp-server+json from the MCP catalog, the entry's type (application/mcp-server-card+json) from the AI catalog, where a card served as application/mcp-server+json, the same card under the draft's media type, is taken as a draft card"},
	{"card.cors-etag", LevelShould, "a card on the checked origin also allows the If-None-Match request header (Access-Control-Allow-Headers) and exposes ETag (Access-Control-Expose-Headers)"},
	{"card.mcp-url", LevelShould, "a card whose Streamable HTTP endpoint (a remote of type streamable-http with a literal URL) is on the checked origin is also answered at <endpoint URL>/server-card, the location the Server Card extension reserves: 200, Content-Type application/mcp-server-card+json, the same bytes as the card its catalog points at (and the CORS headers of every response)"},
	{"card.name", LevelMust, "a card's name is the server name its MCP catalog identifier urn:mcp:server:NAME names; for an AI catalog entry (SHOULD, since a publisher may choose the identifier), the identifier's NAME is the card's name after its namespace, alone or as NAMESPACE.NAME, with characters other than letters, digits, '.', '_' and '-' made '-'"},
	{"card.status", LevelMust, "every card a catalog points at answers 200"},
	{"card.v1-schema", LevelMust, "a v1 card has the v1 $schema URL, a name, a version and a description of at most 100 characters"},
	{"catalogue.groups", LevelMust, "every group document the tool catalogue names answers 200, valid against tool-catalogue, with its group as the catalogue lists it and exactly its tools, each equal to its catalogue entry (SHOULD when the AI catalog does not name the catalogue)"},
	{"catalogue.schema", LevelMust, "/tool-catalogue.json is valid against tool-catalogue: catalogVersion 1, its tools and groups (SHOULD when the AI catalog does not name the catalogue)"},
	{"catalogue.status", LevelMust, "/tool-catalogue.json answers 200 (MUST when the AI catalog's tool-catalog entry names it, SHOULD otherwise)"},
	{"catalogue.tools", LevelMust, "the tool catalogue holds exactly the tools of /tools, each with the arguments of its inputSchema and the same source and safety fields (SHOULD when the AI catalog does not name the catalogue)"},
	{"compact.item", LevelMust, "/tools/{toolId}?view=compact answers 200 with the tool's entry of the compact list"},
	{"compact.keywords", LevelMust, "a compact inputSchema uses none of $ref, oneOf, allOf, anyOf, not, patternProperties and dependentSchemas at any depth"},
	{"compact.list", LevelMust, `/tools?view=compact answers {"tools": [...]} of compact descriptors valid against compact-tool-list, with exactly the toolIds of /tools and the same safety fields`},
	{"cors.every-response", LevelMust, "every response of the checked origin (404s included) but the MCP catalog's own (see mcp-catalog.cors), with and without an Origin request header, has Access-Control-Allow-Origin: *, Access-Control-Allow-Methods with GET and Access-Control-Allow-Headers with Content-Type"},
	{"determinism.repeatable", LevelShould, "fetching a document twice gives the same bytes and the same ETag"},
	{"discovery.credentials", LevelMust, "catalogs and cards carry no credential material"},
	{"limits.body-size", LevelMust, "every body fits the size limit of the check"},
	{"limits.deadline", LevelShould, "the whole site is checked within the time limit of the check"},
	{"limits.documents", LevelShould, "the whole site fits the document limit of the check"},
	{"mcp-catalog.cache", LevelShould, "the MCP catalog is served with Cache-Control: public, max-age=3600"},
	{"mcp-catalog.content-type", LevelMust, "/.well-known/mcp/catalog.json is served as application/json"},
	{"mcp-catalog.cors", LevelMust, "the MCP catalog, with and without an Origin request header, has Access-Control-Allow-Origin: *, Access-Control-Allow-Methods with GET and Access-Control-Allow-Headers with Content-Type"},
	{"mcp-catalog.entries", LevelMust, "the MCP catalog is a JSON object with an entries array; every entry has a string identifier, mediaType and url (absolute http or https)"},
	{"mcp-catalog.identifier", LevelMust, "every identifier is urn:mcp:server: followed by a server name"},
	{"mcp-catalog.legacy", LevelShould, "the MCP catalog (/.well-known/mcp/catalog.json) is the legacy draft the Server Card extension replaced with the AI catalog on 2026-07-20: a site that still publishes it for older clients also publishes /.well-known/ai-catalog.json"},
	{"mcp-catalog.media-type", LevelMust, "entries whose mediaType is not application/mcp-server+json are ignored: reported as skip and not fetched"},
	{"mcp-catalog.status", LevelShould, "/.well-known/mcp/catalog.json is published (200)"},
	{"registry.consistent", LevelShould, "each server's latest version (/v0.1/servers/{name}/versions/latest), its exact version and its entry in its versions are the list's entry, else VS Code shows one server and installs another"},
	{"registry.content-type", LevelShould, "every document of the MCP registry is served as application/json"},
	{"registry.cors", LevelMust, "every response of the MCP registry to a GET with Origin: vscode-file://vscode-app has Access-Control-Allow-Origin * or that origin, else VS Code cannot read it"},
	{"registry.list", LevelMust, "VS Code's probe /v0.1/servers?limit=1 and its list ?limit=50&version=latest (and each page its metadata.nextCursor names, &cursor=, at most 20) answer 200 with a JSON object whose servers is an array; a site whose probe answers 404 has no registry, and the registry's rules are skipped"},
	{"registry.lookup", LevelMust, "/v0.1/servers/{name}/versions/latest of each listed server, its name as encodeURIComponent writes it ('/' as %2F), asked as Copilot CLI asks (Accept: application/json, no Authorization), answers 200 with JSON: VS Code opens it, Copilot CLI allows it"},
	{"registry.preflight", LevelMust, "OPTIONS /v0.1/servers and OPTIONS of a server's latest version, with Origin: vscode-file://vscode-app, Access-Control-Request-Method: GET and Access-Control-Request-Headers: authorization,content-type, answer 204 or 200 with Access-Control-Allow-Origin * or that origin, Access-Control-Allow-Methods with GET and Access-Control-Allow-Headers naming Authorization and Content-Type"},
	{"registry.schema", LevelShould, "the registry's lists are valid against registry-server-list (metadata.nextCursor aside) and its versions against registry-server-response"},
	{"registry.search", LevelMust, "VS Code's search (?limit=50&version=latest&search=TEXT, TEXT a part of a listed server's name) answers 200 with a server list: the whole list, or only servers whose name or description holds TEXT (ignoring case), the one searched among them"},
	{"registry.search-filter", LevelShould, "the search is filtered by the host; a host that answers the whole list (a static host cannot search) makes VS Code show every server"},
	{"registry.server", LevelMust, "every server of the list and each latest version has server.name (the name asked), server.description and server.version strings and a _meta object with io.modelcontextprotocol.registry/official: status, publishedAt and updatedAt strings and isLatest a boolean, which VS Code reads"},
	{"registry.unknown-name", LevelMust, "Copilot CLI's lookup of a name the registry does not list answers 404: a 401 or 403 makes it refuse every server"},
	{"registry.versions", LevelShould, "/v0.1/servers/{name}/versions lists each server's latest version, and /v0.1/servers/{name}/versions/{version}, its version as encodeURIComponent writes it ('+' as %2B), answers 200"},
	{"tools.annotations", LevelMust, "every descriptor's annotations carry all four hints, derived from safetyTier, replayPolicy and egress"},
	{"tools.content-type", LevelMust, "every tool catalog document is served as application/json"},
	{"tools.credentials", LevelMust, "the tool lists carry no credential material"},
	{"tools.digest", LevelMust, "a tool whose descriptor carries _meta.dev.signpost/definition (the digest clients pin a tool's definition by, after MCP SEP-2636) carries the digest (sha256: and lowercase hex) and size of its definition as /tools serves it: the standard descriptor without that member, in RFC 8785 canonical JSON; the tool catalogue carries the same for each tool (skipped when no tool carries one)"},
	{"tools.exec", LevelMust, `a tool with safetyTier "exec" has source "host-extension"`},
	{"tools.item", LevelMust, "/tools/{toolId} answers 200 with the tool's entry of /tools"},
	{"tools.list", LevelMust, "/tools is a JSON array of tool descriptors valid against tool-list (annotations and exec sources are left to their own rules)"},
	{"tools.sorted", LevelShould, "the tool lists are sorted by toolId"},
	{"tools.status", LevelMust, "/tools answers 200 (MUST when the AI catalog advertises the tool catalog, SHOULD otherwise)"},
	{"tools.unique-id", LevelMust, "toolIds are unique in /tools"},
	{"tools.unknown-id", LevelMust, "/tools/{toolId} of a toolId that cannot exist answers 404, in both views"},
	{"transport.encoding", LevelShould, "a document asked for with Accept-Encoding: br or gzip is sent as it is or in that coding, decoding to the same bytes, with Vary: Accept-Encoding and an ETag of its own (checked on the lists, the tool catalogue and the discovery catalogs)"},
	{"transport.https", LevelMust, "every origin is served over https; plain http only on loopback hosts (local development)"},
	{"transport.tls-minimum", LevelMust, "every https origin refuses TLS 1.0 and 1.1 handshakes: the check offers it one of each, alone, and neither may complete"},
	{"view.unknown", LevelMust, "an unknown view (?view=zz) of /tools and of /tools/{toolId} answers the standard view"},
}

// Rules returns the rules Run applies, sorted by name.
func Rules() []Rule { return slices.Clone(ruleTable) }

// ruleLevel is the level of the named rule. Every name is a literal of
// this package, so one not in the table is a bug, and panics.
func ruleLevel(rule string) Level {
	i, ok := slices.BinarySearchFunc(ruleTable, rule, func(r Rule, name string) int { return strings.Compare(r.Name, name) })
	if !ok {
		panic("check: unknown rule " + rule)
	}
	return ruleTable[i].Level
}
