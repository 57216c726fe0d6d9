package export

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/spec"
)

// Document is one policy export.
type Document struct {
	// JSON is the document: two-space indented, object keys sorted, ending
	// in a newline.
	JSON []byte
	// Servers are the servers it allows, sorted by name, each with what
	// allows it.
	Servers []Allowed
	// Notes are what an administrator should know of the document that it
	// cannot say itself (a server matched by a wildcard or by name only, a
	// header a client must be given another way), each naming its server,
	// in the order of Servers.
	Notes []string
}

// Allowed is one server a policy allows.
type Allowed struct {
	// Name is the server's name as declared, such as com.example/weather.
	Name string
	// By are the entries of the document that allow it, as they read:
	// `serverUrl https://mcp.example.com/weather`, `id com.example/weather`.
	By []string
}

// NoServersError is the error of an export for a site that publishes no
// MCP server of its own: an allowlist without entries would block every
// server (GitHub) or restrict none (Cline).
type NoServersError struct {
	Tenant string // the site's tenant, "" for a catalog without tenants
}

func (e *NoServersError) Error() string {
	return fmt.Sprintf("%s publishes no MCP server of its own, and a policy that allows none is no policy: declare the servers in servers: of a declarations file (a server with cardUrl is declared by the host that serves its card)", spec.SiteName(e.Tenant))
}

// ServerError is the error of an export for a server it cannot allow as
// the declarations say.
type ServerError struct {
	Server string // the server's name
	URL    string // the remote's URL, as declared
	Reason string // why, and what to do
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server %s: remote %s %s", e.Server, e.URL, e.Reason)
}

// siteServers returns the servers tenant's site publishes (see
// build.Catalog.SiteServers), or an error: an *output.TenantError, or a
// *NoServersError when there are none.
func siteServers(cat *build.Catalog, tenant string) ([]*build.Server, error) {
	servers, err := cat.SiteServers(tenant)
	if err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		return nil, &NoServersError{Tenant: tenant}
	}
	return servers, nil
}

// encode writes v as a document: two-space indented, map keys sorted (as
// encoding/json sorts them), no HTML escaping (a URL's & stays &), and a
// final newline.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
