package spec

import (
	"encoding/json"
	"strings"
)

// The MCP registry: the generic subregistry API v0.1 of the
// modelcontextprotocol/registry project (docs/reference/api/openapi.yaml),
// which VS Code, GitHub Copilot and Copilot CLI read to find servers. A
// site serves its read-only part as documents:
//
//	/v0.1/servers                                    the latest version of each server
//	/v0.1/servers/{name}/versions                    every version of one server, newest first
//	/v0.1/servers/{name}/versions/{version}          one version
//	/v0.1/servers/{name}/versions/latest             the latest version
//
// A server's name holds one '/', which clients send as %2F
// (encodeURIComponent) or as it is, and a version may hold '+' (build
// metadata), sent as %2B. The route of a registry document in the route
// table is the path with the name and the version escaped as
// encodeURIComponent escapes them (RegistryRoute): one canonical route per
// document, whatever a client sends (ParseRegistryPath).

// RegistryFolder is the folder of the registry's routes and keys, in
// lower case: no other document may lie in it.
const RegistryFolder = "/v0.1/"

// RouteRegistry is the registry's list of servers; every other registry
// route is below it.
const RouteRegistry = RegistryFolder + "servers"

// RegistryLatest is the version segment that names a server's latest
// version. No version can be it: a declared version is never a tag.
const RegistryLatest = "latest"

// Registry documents are of three kinds.
const (
	// RegistryList is /v0.1/servers.
	RegistryList = "list"
	// RegistryVersions is /v0.1/servers/{name}/versions.
	RegistryVersions = "versions"
	// RegistryVersion is /v0.1/servers/{name}/versions/{version}, latest
	// included.
	RegistryVersion = "version"
)

// RegistryRequest is what a path of the registry names.
type RegistryRequest struct {
	// Kind is RegistryList, RegistryVersions or RegistryVersion.
	Kind string
	// Name is the server's name, unescaped; empty for the list.
	Name string
	// Version is the version asked for, unescaped (RegistryLatest for the
	// latest); empty unless Kind is RegistryVersion.
	Version string
}

// Route returns the canonical route of the request: its path with the
// name and version escaped as encodeURIComponent escapes them.
func (r RegistryRequest) Route() string {
	switch r.Kind {
	case RegistryVersions:
		return RouteRegistry + "/" + URIComponent(r.Name) + "/versions"
	case RegistryVersion:
		return RouteRegistry + "/" + URIComponent(r.Name) + "/versions/" + URIComponent(r.Version)
	}
	return RouteRegistry
}

// RegistryVersionsRoute returns the route of the versions of the server
// name.
func RegistryVersionsRoute(name string) string {
	return RegistryRequest{Kind: RegistryVersions, Name: name}.Route()
}

// RegistryVersionRoute returns the route of one version of the server
// name; version RegistryLatest is its latest version.
func RegistryVersionRoute(name, version string) string {
	return RegistryRequest{Kind: RegistryVersion, Name: name, Version: version}.Route()
}

// IsRegistryRoute reports whether a route, or a request's path, is the
// registry's: /v0.1/servers or a path below it.
func IsRegistryRoute(route string) bool {
	return route == RouteRegistry || strings.HasPrefix(route, RouteRegistry+"/")
}

// ParseRegistryPath reads a request's path, as it was sent (escaped), as a
// registry request: a name with its '/' sent as %2F or as it is, a version
// with its '+' sent as %2B or as it is, one trailing slash or none. false
// for a path that is not one of the registry's, or an escape that does not
// decode.
func ParseRegistryPath(escaped string) (RegistryRequest, bool) {
	rest, ok := strings.CutPrefix(escaped, RouteRegistry)
	if !ok {
		return RegistryRequest{}, false
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" {
		return RegistryRequest{Kind: RegistryList}, true
	}
	if rest[0] != '/' {
		return RegistryRequest{}, false // /v0.1/serversX
	}
	segs := strings.Split(rest[1:], "/")
	for i, s := range segs {
		u, ok := unescapeSegment(s)
		if !ok || u == "" {
			return RegistryRequest{}, false
		}
		segs[i] = u
	}
	// The name: one segment that holds its '/' (sent as %2F), or two.
	var name string
	switch {
	case strings.Contains(segs[0], "/"):
		name, segs = segs[0], segs[1:]
	case len(segs) >= 2:
		name, segs = segs[0]+"/"+segs[1], segs[2:]
	default:
		return RegistryRequest{}, false
	}
	if strings.Count(name, "/") != 1 || len(segs) == 0 || segs[0] != "versions" {
		return RegistryRequest{}, false
	}
	switch len(segs) {
	case 1:
		return RegistryRequest{Kind: RegistryVersions, Name: name}, true
	case 2:
		return RegistryRequest{Kind: RegistryVersion, Name: name, Version: segs[1]}, true
	}
	return RegistryRequest{}, false
}

// unescapeSegment decodes the %XX escapes of one path segment ('+' stays
// '+', as in a path); false for an escape that is not two hex digits.
func unescapeSegment(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		h, l := unhex(s[i+1]), unhex(s[i+2])
		if h < 0 || l < 0 {
			return "", false
		}
		b.WriteByte(byte(h<<4 | l))
		i += 2
	}
	return b.String(), true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// URIComponent escapes s as JavaScript's encodeURIComponent does: every
// byte but letters, digits and - _ . ! ~ * ' ( ) as %XX, upper-case.
func URIComponent(s string) string {
	const upper = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upper[c>>4])
		b.WriteByte(upper[c&15])
	}
	return b.String()
}

// Object keys of the registry's documents. A name and a version may hold
// characters no filesystem or host takes alike (upper case on a
// case-insensitive disk, '+' in an S3 URL, a leading '.'), so each is
// written as a key segment of lower-case letters, digits, '-' and '.' (not
// leading), every other byte as _XX (XX its lower-case hex): one key per
// name and version, never the key of another document on any filesystem.
//
//	/v0.1/servers                           v0.1/servers.json
//	/v0.1/servers/{ns}%2F{n}/versions       v0.1/servers/KEY(ns)/KEY(n)/versions.json
//	/v0.1/servers/{ns}%2F{n}/versions/{v}   v0.1/servers/KEY(ns)/KEY(n)/versions/KEY(v).json

// RegistryKey returns the object key of the registry document at route,
// and false for a route that is not a registry document's canonical route.
func RegistryKey(route string) (string, bool) {
	r, ok := ParseRegistryPath(route)
	if !ok || r.Route() != route {
		return "", false
	}
	if r.Kind == RegistryList {
		return "v0.1/servers.json", true
	}
	ns, n, _ := strings.Cut(r.Name, "/")
	dir := "v0.1/servers/" + KeySegment(ns) + "/" + KeySegment(n) + "/versions"
	if r.Kind == RegistryVersions {
		return dir + ".json", true
	}
	return dir + "/" + KeySegment(r.Version) + ".json", true
}

// KeySegment writes s as one segment of an object key that holds only
// lower-case letters, digits, '-', '_' and '.' (not leading): every other
// byte, '_' and upper-case letters included, as _XX. Two strings never
// give the same segment, even ignoring case.
func KeySegment(s string) string {
	const lower = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' && i > 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('_')
		b.WriteByte(lower[c>>4])
		b.WriteByte(lower[c&15])
	}
	return b.String()
}

// RegistryAllowMethods and RegistryAllowHeaders are the CORS headers of
// the registry's routes: what GitHub Copilot requires of a registry.
const (
	RegistryAllowMethods = "GET, OPTIONS"
	RegistryAllowHeaders = "Authorization, Content-Type"
)

// RegistryCORSHeaders returns the headers every response of a registry
// route carries, whatever its status, preflights included (CORSHeaders'
// counterpart).
func RegistryCORSHeaders() [4][2]string {
	return [...][2]string{
		{"Access-Control-Allow-Origin", "*"},
		{"Access-Control-Allow-Methods", RegistryAllowMethods},
		{"Access-Control-Allow-Headers", RegistryAllowHeaders},
		{"Access-Control-Expose-Headers", "ETag"},
	}
}

// The messages of the registry's 404s.
const (
	RegistryServerNotFound  = "Server not found"
	RegistryVersionNotFound = "Server version not found"
)

// RegistryErrorBody is the error document of the registry's routes, as
// its OpenAPI gives it: {"error":"..."} and a newline.
func RegistryErrorBody(message string) []byte {
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{message})
	return append(body, '\n')
}

// RegistryOfficialMeta is the _meta key of a ServerResponse that holds
// the registry's own metadata of a version (status, publishedAt,
// updatedAt, isLatest), as the OpenAPI names it.
const RegistryOfficialMeta = "io.modelcontextprotocol.registry/official"

// RegistrySignpostMeta is the _meta key of a ServerResponse that holds
// what signpost adds: the site's tool list and the server's cards with
// their digests.
const RegistrySignpostMeta = "dev.signpost/registry"

// ServerJSONSchema is the $schema of the server of every registry
// document: the server.json schema it validates against.
const ServerJSONSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
