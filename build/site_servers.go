package build

import (
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/tool"
)

// SiteServers returns the MCP servers the site of tenant publishes as its
// own ("" is the one site of a catalog without tenants), sorted by name:
// every local server (a cross-host server's card, and so what it is, is
// declared at another host), but one whose every tool, of any status, is
// scoped to other tenants. A server no tool names is every tenant's, as in
// the discovery catalogs.
//
// These are the servers the site's registry lists (RegistryServers) and
// the policy exports (package export) allow: one rule, so that an
// allowlist and the registry never disagree. The error is an
// *output.TenantError when tenant names no site of the catalog.
func (c *Catalog) SiteServers(tenant string) ([]*Server, error) {
	sites := c.Config.Tenants
	if len(sites) == 0 {
		sites = []string{""}
	}
	if !slices.Contains(sites, tenant) {
		return nil, &output.TenantError{Tenant: tenant, Tenants: slices.Clone(sites)}
	}
	return siteServers(c, c.Tools, tenant), nil
}

// siteServers is SiteServers, with the catalog's tools given.
func siteServers(cat *Catalog, tools []*tool.Tool, tenant string) []*Server {
	named := map[string]bool{}   // a tool names the server
	visible := map[string]bool{} // a tool the tenant sees names it
	for _, t := range tools {
		if t.Server == "" {
			continue
		}
		named[t.Server] = true
		if t.VisibleTo(tenant) {
			visible[t.Server] = true
		}
	}
	var out []*Server
	for _, s := range cat.Servers {
		if s != nil && !s.CrossHost() && (!named[s.Name] || visible[s.Name]) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *Server) int { return strings.Compare(a.Name, b.Name) })
	return out
}
