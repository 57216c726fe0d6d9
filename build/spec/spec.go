// Package spec is the vocabulary of the texts signpost implements: the routes
// and media types of the HTTP contract, its headers (Cache-Control, CORS) and
// its error document, the views of the tool catalog, the values of a tool's
// safety fields and the MCP hints they determine, the rule for which origins
// may be served over plain http, the names publish keeps for its own objects,
// and how messages name a tenant's site. It
// imports only the standard library, so the compiler, the hosts and the
// conformance checker all speak it without depending on one another.
package spec

import "strings"

// Media types of the published documents.
const (
	// ContentTypeJSON is the media type of the tool catalog's documents and
	// of the draft MCP catalog.
	ContentTypeJSON = "application/json"
	// ContentTypeServerCardDraft is the media type of the draft server card,
	// the one /.well-known/mcp/catalog.json points at.
	ContentTypeServerCardDraft = "application/mcp-server+json"
	// ContentTypeServerCardV1 is the media type of the v1 server card, the
	// one /.well-known/ai-catalog.json points at.
	ContentTypeServerCardV1 = "application/mcp-server-card+json"
	// ContentTypeAICatalog is the media type of /.well-known/ai-catalog.json.
	ContentTypeAICatalog = "application/ai-catalog+json"
)

// ConfigFile is the name of the site settings file at a catalog's root,
// which the messages of its limits name.
const ConfigFile = "signpost.yaml"

// CacheControl is the Cache-Control every document is served with.
const CacheControl = "public, max-age=3600"

// Routes of the HTTP contract.
const (
	// RouteTools is the tool list; each tool is below it, at RouteTools/{toolId}.
	RouteTools = "/tools"
	// RouteMCPCatalog is the draft MCP catalog, served as application/json.
	RouteMCPCatalog = "/.well-known/mcp/catalog.json"
	// RouteAICatalog is the AI Catalog 1.0.
	RouteAICatalog = "/.well-known/ai-catalog.json"
	// RouteARD is the manifest of Agentic Resource Discovery (ARD v0.91),
	// served as application/json when discovery.ard is on.
	RouteARD = "/.well-known/ard.json"
	// RouteDIDDocument is the DID document of did:web:HOST, the keys that
	// verify a signed AI catalog, served as application/json: did:web
	// defines no media type of its own, and every host serves a .json
	// file so.
	RouteDIDDocument = "/.well-known/did.json"
	// RouteToolCatalogue is the tool catalogue: the tools with their
	// arguments, reserved fields and groups, as one document. Each group
	// is also below RouteGroups, at GroupRoute(key).
	RouteToolCatalogue = "/tool-catalogue.json"
	// RouteGroups is the folder of the tool catalogue's group documents.
	RouteGroups = "/tool-catalogue/groups/"
	// ServerCardSegment is the last segment of the path at which an MCP
	// server's card is answered beside its Streamable HTTP endpoint:
	// <streamable-http-url>/server-card, the one location the Server Card
	// extension reserves (experimental-ext-server-card, docs/discovery.md).
	ServerCardSegment = "server-card"
)

// IsServerCardRoute reports whether route is a card's route beside an MCP
// endpoint: its last segment is ServerCardSegment. It is the one document
// path that does not end in .json.
func IsServerCardRoute(route string) bool {
	return route == "/"+ServerCardSegment || strings.HasSuffix(route, "/"+ServerCardSegment)
}

// DiscoveryLink is the Link header every document response of a site
// with an ARD manifest carries, where the host can add it: the manifest,
// rel="ard", the relation ARD v0.91 defines, and the AI catalog,
// rel="ai-catalog", the relation of its predecessor, which ARD consumers
// may still follow. Relative references, so that a tenant's own origin
// and a local copy of the site name themselves.
const DiscoveryLink = "<" + RouteARD + `>; rel="ard", <` + RouteAICatalog + `>; rel="ai-catalog"`

// ToolCatalogueVersion is the catalogVersion of the tool catalogue
// signpost writes, and the only one it reads.
const ToolCatalogueVersion = 1

// GroupModuleKey returns a group's moduleKey in the tool catalogue: the
// path of its document below /tool-catalogue/, without ".json".
func GroupModuleKey(key string) string { return "groups/" + key }

// GroupRoute returns the route of the document of the group key.
func GroupRoute(key string) string { return RouteGroups + key + ".json" }

// GroupKeyOf returns the group key of a route below RouteGroups, and false
// for any other route.
func GroupKeyOf(route string) (string, bool) {
	rest, ok := strings.CutPrefix(route, RouteGroups)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, ".json")
}

// Object keys of the tool catalog's documents, which are not their routes
// with the leading slash: a route serves a view per query parameter. A
// toolId is snake case, so it contains no "." and no key of one tool can
// be the key of another document.

// ToolKey returns the object key of the tool toolID in view.
func ToolKey(toolID, view string) string {
	if view == ViewCompact {
		return "tools/" + toolID + ".compact.json"
	}
	return "tools/" + toolID + ".json"
}

// ListKey returns the object key of the tool list in view.
func ListKey(view string) string {
	if view == ViewCompact {
		return "tools.compact.json"
	}
	return "tools.json"
}

// Request returns the path and query a client asks for route's view at:
// the route, with ?view= unless view is the standard view (or none).
func Request(route, view string) string {
	if view == "" || view == ViewStandard {
		return route
	}
	return route + "?view=" + view
}

// ToolRoute returns the route of the tool toolID.
func ToolRoute(toolID string) string { return RouteTools + "/" + toolID }

// ToolIDOf returns the toolId of a route below RouteTools, and false for
// any other route.
func ToolIDOf(route string) (string, bool) {
	return strings.CutPrefix(route, RouteTools+"/")
}

// ToolSegment returns the toolId a request path names, one segment below
// RouteTools, and false for any other path ("/tools/", "/tools/a/b").
// Whether it is a valid toolId is another question: the answer to a path
// that names one is "no tool ... in this catalog", never "nothing at".
func ToolSegment(path string) (string, bool) {
	id, ok := ToolIDOf(path)
	return id, ok && id != "" && !strings.Contains(id, "/")
}

// WellKnownPrefix is the folder of the discovery routes (the catalogs and
// the server cards' default paths): what a gated site may keep public.
const WellKnownPrefix = "/.well-known/"

// IsToolRoute reports whether route is the tool list or a route below it.
func IsToolRoute(route string) bool {
	return route == RouteTools || strings.HasPrefix(route, RouteTools+"/")
}

// IsIndex reports whether the document at route names other documents: the
// tool list, the tool catalogue (its groups), the two discovery catalogs and
// the registry's documents (see IndexLevel).
// A host must publish an index after the documents it names, and never keep
// an old one that names a document gone.
func IsIndex(route string) bool { return IndexLevel(route) > 0 }

// MaxIndexLevel is the highest IndexLevel.
const MaxIndexLevel = 3

// IndexLevel orders the documents a host publishes: 0 for a document that
// names none, 1 for the tool list and the tool catalogue, which name tool
// and group documents, 2 for the discovery catalogs, which name the tool
// list and the catalogue (the AI catalog) besides server cards, and for a
// registry version, which names the tool list and the server's cards; 3 for
// the registry's lists, whose servers clients then look up by name and
// version. Publishing level by level, each after the one below it, never
// leaves a document naming one not yet there.
func IndexLevel(route string) int {
	// Keep MaxIndexLevel the highest level returned.
	switch route {
	case RouteTools, RouteToolCatalogue:
		return 1
	case RouteMCPCatalog, RouteAICatalog:
		return 2
	}
	if IsRegistryRoute(route) {
		if r, ok := ParseRegistryPath(route); ok && r.Kind == RegistryVersion {
			return 2
		}
		return 3
	}
	return 0
}

// Views of the tool catalog, chosen with the view query parameter.
const (
	ViewStandard = "standard"
	ViewCompact  = "compact"
)

// CompactForbidden returns the keywords a compact view's input schema must
// not use at any depth, in the order of the spec's "Views and sessions".
func CompactForbidden() []string {
	return []string{"$ref", "oneOf", "allOf", "anyOf", "not", "patternProperties", "dependentSchemas"}
}

// The values of a tool's safety and provenance fields.
const (
	TierPure  = "pure"
	TierRead  = "read"
	TierWrite = "write"
	TierExec  = "exec"

	ReplayDeterministic = "deterministic"
	ReplayIdempotent    = "idempotent"
	ReplayKeyed         = "keyed"
	ReplayUnsafe        = "unsafe"

	EgressNone     = "none"
	EgressInternal = "internal"
	EgressInternet = "internet"

	SourceHostExtension = "host-extension"
	SourceMCP           = "mcp"
	SourceOpenAPI       = "openapi"
)

// Tiers lists the safety tiers, from the least to the most consequential.
func Tiers() []string { return []string{TierPure, TierRead, TierWrite, TierExec} }

// ReplayPolicies lists the replay policies, from the safest to replay to
// the least.
func ReplayPolicies() []string {
	return []string{ReplayDeterministic, ReplayIdempotent, ReplayKeyed, ReplayUnsafe}
}

// Egresses lists the egress values, from the narrowest to the widest.
func Egresses() []string { return []string{EgressNone, EgressInternal, EgressInternet} }

// Annotations are the four MCP tool hints. The tool catalog derives them from
// the safety fields (see Derive); they are never copied from an MCP server.
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// Derive returns the hints a tool of the given safety tier, replay policy and
// egress carries.
func Derive(tier, replay, egress string) Annotations {
	return Annotations{
		ReadOnlyHint:    tier == TierPure || tier == TierRead,
		DestructiveHint: tier == TierWrite || tier == TierExec,
		IdempotentHint:  replay == ReplayDeterministic || replay == ReplayIdempotent,
		OpenWorldHint:   egress != EgressNone,
	}
}

// SiteName names the site of tenant in messages ("" is the one site of a
// catalog without tenants).
func SiteName(tenant string) string {
	if tenant == "" {
		return "the site without tenants"
	}
	return "tenant " + tenant
}
