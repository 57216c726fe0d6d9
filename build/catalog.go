package build

import (
	"crypto/ecdsa"
	"time"

	"github.com/signpost-dev/signpost/build/budgets"
	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/build/tool"
)

type Catalog struct {
	Config Config
	// Tools holds every declared tool, planned and hidden ones included,
	// sorted by ToolID.
	Tools []*tool.Tool
	// Servers holds every declared MCP server, sorted by Name.
	Servers []*Server
	// size is what Load expects a build of the catalog to write, a lower
	// bound within a few percent (see estimateBuild); zero when a tool is
	// over its value limit.
	size BuildSize
	// History is the Git history of the catalog folder, which dates the
	// versions of the registry (ReadHistory); nil is none: each server's
	// one version is dated at the Unix epoch. Load leaves it nil.
	History *History
	// Signer, when set, signs each site's AI catalog (Config.Signing says
	// how); the commands open it (cmd/signpost's openSigner) from the key
	// that signing.key names. Load leaves it nil, and Compile signs nothing
	// without it.
	Signer signing.Signer
	// spill holds bytes of the catalog's tools on disk (see
	// content.Spill): their schemas from Load, and what Compile encodes.
	// nil for a catalog made in code until Compile makes one.
	spill *content.Spill
}

// EstimatedSize is what Load expects a build of the catalog to write, a
// lower bound within a few percent; zero when a tool is over its value
// limit, or for a catalog Load did not make.
func (c *Catalog) EstimatedSize() BuildSize { return c.size }

// spillFile returns the catalog's spill file, made when it has none.
func (c *Catalog) spillFile() (*content.Spill, error) {
	if c.spill == nil {
		s, err := content.NewSpill("")
		if err != nil {
			return nil, err
		}
		c.spill = s
	}
	return c.spill, nil
}

// Config is the site settings of signpost.yaml.
type Config struct {
	Origin      string
	Publisher   string
	DisplayName string
	// Tenants, when set, makes the build write one complete site per tenant.
	Tenants []string
	// TenantSites are the settings of the tenants that have any: an origin
	// of their own, a gate.
	TenantSites map[string]TenantSite
	// CompactView makes the build write the compact view of the catalog.
	CompactView bool
	// CompactDescriptions keeps the descriptions of input schemas and their
	// properties in the compact view (shortened); without them the view is
	// smaller still.
	CompactDescriptions bool
	// MCPCatalog makes the build write /.well-known/mcp/catalog.json and
	// the draft server cards it points at.
	MCPCatalog bool
	// AICatalog makes the build write /.well-known/ai-catalog.json and the
	// v1 server cards it points at.
	AICatalog bool
	// ARD makes the build write /.well-known/ard.json, the manifest of
	// Agentic Resource Discovery, beside the AI catalog (which it needs),
	// and the hosts that can send the Link header spec.DiscoveryLink.
	ARD bool
	// PrivacyPolicyURL and TermsOfServiceURL are site.privacyPolicyUrl
	// and site.termsOfServiceUrl: the policies of every server that
	// declares none, in its AI catalog entry.
	PrivacyPolicyURL, TermsOfServiceURL string
	// Registry makes the build write the MCP registry (/v0.1/servers and
	// below) of the servers each site's tenant sees, when there are any.
	Registry bool
	// Targets are the places the site is published, by name.
	Targets map[string]target.Target
	// Limits bound the size of what the catalog builds.
	Limits Limits
	// Budgets bound the tokens of the tool catalog; Compile holds the
	// catalog to them.
	Budgets budgets.Budgets
	// APIVersion is the version of the API the catalog describes, as the
	// tool catalogue publishes it; empty means DefaultAPIVersion.
	APIVersion string
	// declaredOrigins are the origins signpost.yaml gives the catalog ("")
	// and the tenants with one of their own, which SetOrigin leaves as they
	// are: see EndpointOrigin.
	declaredOrigins map[string]string
	// Signing, when set, is how the AI catalog is signed (signing:).
	Signing *Signing
}

// Signing is signing: of signpost.yaml.
type Signing struct {
	// Key is where the private key is, as signing.key writes it (see
	// signing.ParseSource): env:NAME, file:PATH or kms:ARN.
	Key string
	// PreviousKeys are the public keys of a rotation, which the DID
	// document keeps beside the current one.
	PreviousKeys []*ecdsa.PublicKey
	// Validity, when not zero, is how long a signature is valid after its
	// issuedAt: its expiresAt.
	Validity time.Duration
}

// EndpointOrigin returns the origin signpost.yaml gives tenant's site,
// whatever origin SetOrigin made it name since: the origin an MCP
// endpoint must be on for the site to answer the card beside it
// (discovery.EndpointCards), so that a site built for another origin, to
// serve or check it elsewhere, has the routes of the site it stands for.
// A Config made without Load has only its site origins.
func (c *Config) EndpointOrigin(tenant string) string {
	if c.declaredOrigins == nil {
		return c.SiteOrigin(tenant)
	}
	if o, ok := c.declaredOrigins[tenant]; ok {
		return o
	}
	return c.declaredOrigins[""]
}

// declareOrigins records the origins the settings give, for
// EndpointOrigin.
func (c *Config) declareOrigins() {
	c.declaredOrigins = map[string]string{"": c.Origin}
	for id, ts := range c.TenantSites {
		if ts.Origin != "" {
			c.declaredOrigins[id] = ts.Origin
		}
	}
}

// TenantSite is how one tenant's site is reached.
type TenantSite struct {
	// Origin, when set, is the tenant's own origin: its documents name it
	// instead of the catalog's.
	Origin string
	// Access is who may read the site.
	Access gate.Access
}

// SiteOrigin returns the origin the documents of tenant's site name: the
// tenant's own, or the catalog's.
func (c *Config) SiteOrigin(tenant string) string {
	if o := c.TenantSites[tenant].Origin; o != "" {
		return o
	}
	return c.Origin
}

// SetOrigin makes every site name origin, whatever origins signpost.yaml
// gives the catalog and its tenants: a build to serve or check somewhere
// else than where it is published (a local server, a staging host).
func (c *Config) SetOrigin(origin string) {
	c.Origin = origin
	for id, ts := range c.TenantSites {
		ts.Origin = ""
		c.TenantSites[id] = ts
	}
}

// compactOptions are the choices of the compact view's input schemas.
func (c *Config) compactOptions() compact.Options {
	return compact.Options{NoDescriptions: !c.CompactDescriptions}
}

// DefaultAPIVersion is the tool catalogue's apiVersion of a catalog that
// declares none.
const DefaultAPIVersion = "0"

// APIVersionOrDefault returns the API version the tool catalogue publishes.
func (c *Config) APIVersionOrDefault() string {
	if c.APIVersion == "" {
		return DefaultAPIVersion
	}
	return c.APIVersion
}

// Server is one declared MCP server (see package discovery).
type Server = discovery.Server
