package build

import (
	"slices"

	"github.com/signpost-dev/signpost/build/output"
)

// SiteServers returns the MCP servers the site of tenant publishes as its
// own ("" is the one site of a catalog without tenants), sorted by name:
// each declared server with a card of its own, whatever the tenant, for
// servers are not scoped to tenants. A server whose card another host
// serves (cardUrl) is not one of them: the discovery catalogs point at it,
// but what it is (its version, its endpoints) is declared at that host.
//
// These are the servers the policy exports (package export) allow, and
// the ones an index of the site's servers lists: one list, so that an
// allowlist and what the site publishes never disagree. The error is an
// *output.TenantError when tenant names no site of the catalog.
func (c *Catalog) SiteServers(tenant string) ([]*Server, error) {
	sites := c.Config.Tenants
	if len(sites) == 0 {
		sites = []string{""}
	}
	if !slices.Contains(sites, tenant) {
		return nil, &output.TenantError{Tenant: tenant, Tenants: slices.Clone(sites)}
	}
	var out []*Server
	for _, s := range c.Servers {
		if s != nil && !s.CrossHost() {
			out = append(out, s)
		}
	}
	return out, nil
}
