package build

import (
	"context"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/registry"
	"github.com/signpost-dev/signpost/build/tool"
)

// The MCP registry of each site is made by package registry, from the
// servers the site lists (RegistryServers) and the Git history of the
// catalog folder.

// History is what the Git history of a catalog folder says of its servers
// (see package registry). The zero History, or nil, is a catalog without
// one.
type History = registry.History

// ReadHistory reads the history of the catalog folder dir from HEAD of the
// repository that holds it (see registry.ReadHistory). A folder in no
// repository, a repository without a commit or no git at all has none: nil
// and no error.
func ReadHistory(ctx context.Context, dir string) (*History, error) {
	return registry.ReadHistory(ctx, dir)
}

// ReadRevisionHistory reads the history of the catalog folder folder
// (relative to the top of the repository that holds repo) from the
// revision rev (see registry.ReadRevisionHistory).
func ReadRevisionHistory(ctx context.Context, repo, rev, folder string) (*History, error) {
	return registry.ReadRevisionHistory(ctx, repo, rev, folder)
}

// RegistryServers returns the servers the registry of tenant's site lists,
// sorted by name: the site's own servers (see SiteServers), none when the
// registry is off (Config.Registry).
func (cat *Catalog) RegistryServers(tenant string) []*Server {
	return registryServers(cat, cat.Tools, tenant)
}

// registryServers is RegistryServers, with the catalog's tools given:
// Compile's catalog holds none.
func registryServers(cat *Catalog, tools []*tool.Tool, tenant string) []*Server {
	if !cat.Config.Registry {
		return nil
	}
	return siteServers(cat, tools, tenant)
}

// compileRegistry makes the registry documents of tenant's site (see
// registry.Documents). tools are every tool the catalog declares; cards
// gives the SHA-256 of each card document by route. nil when the site
// lists no server.
func compileRegistry(cat *Catalog, tools []*tool.Tool, tenant string, cards map[string]string) ([]output.Document, error) {
	site := registry.Site{
		Origin:    cat.Config.SiteOrigin(tenant),
		AICatalog: cat.Config.AICatalog, MCPCatalog: cat.Config.MCPCatalog,
		History: cat.History,
	}
	return registry.Documents(site, registryServers(cat, tools, tenant), cards)
}
