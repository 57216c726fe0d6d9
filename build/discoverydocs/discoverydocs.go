// Package discoverydocs encodes the documents of MCP discovery that a site
// serves, from checked server declarations (package discovery makes their
// values): the draft and v1 cards of each local server, the same for every
// site (Cards); the v1 card again beside each endpoint on the origin
// signpost.yaml declares for the site (EndpointCards); and the catalogs
// that point at them, the MCP catalog, the AI catalog (its canonical form,
// signed when the site has a Signing, beside its DID document) and the ARD
// manifest (Catalogs). Compile makes them, and Load's estimate measures
// them.
package discoverydocs

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"fmt"
	"strings"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/jcs"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
)

// Site is what the discovery documents of one site say besides its
// servers and tools, as signpost.yaml sets it.
type Site struct {
	// Tenant is the site's tenant, empty for a catalog without tenants.
	Tenant string
	// Origin is the origin the site's documents name. EndpointOrigin is
	// the origin signpost.yaml declares for the site, whatever origin its
	// documents were made to name since: a server's endpoint on it has
	// its card answered beside it (EndpointCards).
	Origin, EndpointOrigin string
	// Publisher and DisplayName name who publishes the catalogs.
	Publisher, DisplayName string
	// PrivacyPolicyURL and TermsOfServiceURL are given to every server
	// that names none (discovery.WithPolicies).
	PrivacyPolicyURL, TermsOfServiceURL string
	// MCPCatalog, AICatalog and ARD turn each catalog on (ARD needs the
	// AI catalog); CompactView says whether the AI catalog advertises the
	// tool list's compact view.
	MCPCatalog, AICatalog, ARD, CompactView bool
	// Sign, when set, signs the AI catalog.
	Sign *Signing
}

// Signing is how a site's AI catalog is signed.
type Signing struct {
	Signer  signing.Signer
	Options signing.Options
	// PreviousKeys are the public keys of a rotation, which the DID
	// document keeps beside the signer's.
	PreviousKeys []*ecdsa.PublicKey
}

// Cards encodes the server cards every site serves alike: the draft card of
// each local server when the MCP catalog is on, its v1 card when the AI
// catalog is on. Cross-host servers have no card here. Of site, it reads
// only which catalogs are on.
func Cards(site Site, servers []*discovery.Server) ([]output.Document, error) {
	var docs output.Documents
	for _, s := range servers {
		if s.CrossHost() {
			continue
		}
		if site.MCPCatalog {
			docs.Add(s.DraftRoute(), spec.ViewStandard, spec.ContentTypeServerCardDraft, encoded(discovery.DraftCard(s)))
		}
		if site.AICatalog {
			docs.Add(s.V1Route(), spec.ViewStandard, spec.ContentTypeServerCardV1, encoded(discovery.V1Card(s)))
		}
	}
	return docs.List, docs.Err
}

// EndpointCards makes the documents of site that answer a server's v1 card
// beside its Streamable HTTP endpoint, at <endpoint path>/server-card, for
// each endpoint on the site's EndpointOrigin: the same body as the card at
// its v1 path, among cards (as Cards made them). None when the AI catalog,
// and so the v1 card, is off. Load has refused a route that collides with
// another document's (discovery.CheckEndpointCards).
func EndpointCards(site Site, servers []*discovery.Server, cards []output.Document) ([]output.Document, error) {
	if !site.AICatalog {
		return nil, nil
	}
	v1 := map[string]output.Document{}
	for _, d := range cards {
		if d.ContentType == spec.ContentTypeServerCardV1 {
			v1[d.Route.Route] = d
		}
	}
	var docs output.Documents
	seen := map[string]bool{}
	for _, e := range discovery.EndpointCards(site.EndpointOrigin, servers) {
		card, ok := v1[servers[e.Server].V1Route()]
		if e.Route == "" || e.Problem != "" || !ok || seen[e.Route] {
			continue
		}
		seen[e.Route] = true
		docs.Add(e.Route, spec.ViewStandard, spec.ContentTypeServerCardV1, card.Body)
	}
	return docs.List, docs.Err
}

// Catalogs encodes the discovery catalogs of site. The AI catalog
// advertises the site's tool catalog: its URL, the sources of the tools
// (of every tool the catalog publishes) the tenant sees, and whether the
// compact view is served; its card entries carry the digests of the cards
// (cardSums: each card's route to the hex SHA-256 of its bytes). The AI
// catalog's bytes are its canonical form (RFC 8785, build/jcs), without the
// newline other documents end with: AI Catalog 1.0 requires a catalog to
// be valid input to JCS, and a catalog that already is its canonical form
// is what a digest or a signature over it is computed on. A value JCS
// cannot take is an error (Load reports the declarations that would give
// one).
//
// When site.Sign is set, the AI catalog is signed (build/signing): each
// server's entry names the server's version, which its Trust Manifest
// binds, and the site gets /.well-known/did.json, the DID document of the
// signer with its keys.
func Catalogs(ctx context.Context, site Site, servers []*discovery.Server, tools []*tool.Tool, cardSums map[string]string) ([]output.Document, error) {
	var docs output.Documents
	if site.MCPCatalog {
		docs.Add(spec.RouteMCPCatalog, spec.ViewStandard, spec.ContentTypeJSON, encoded(discovery.MCPCatalog(site.Origin, servers)))
	}
	if site.AICatalog {
		var sources []string
		for _, t := range tools {
			if t.VisibleTo(site.Tenant) {
				sources = append(sources, t.Source)
			}
		}
		base := strings.TrimSuffix(site.Origin, "/")
		ad := &discovery.ToolCatalogAd{URL: base + spec.RouteTools, Catalogue: base + spec.RouteToolCatalogue, Sources: sources, CompactView: site.CompactView, Tenant: site.Tenant}
		listed := discovery.WithPolicies(servers, site.PrivacyPolicyURL, site.TermsOfServiceURL)
		doc := discovery.AICatalog(site.Origin, site.Publisher, site.DisplayName, listed, ad, cardSums)
		if site.Sign != nil {
			did, err := sign(ctx, *site.Sign, site.Publisher, servers, doc)
			if err != nil {
				return nil, fmt.Errorf("the AI catalog of %s: %w", spec.SiteName(site.Tenant), err)
			}
			docs.Add(spec.RouteDIDDocument, spec.ViewStandard, spec.ContentTypeJSON, encoded(did))
		}
		body, err := jcs.Append(nil, doc)
		if err != nil {
			return nil, fmt.Errorf("the AI catalog of %s: %w", spec.SiteName(site.Tenant), err)
		}
		docs.Add(spec.RouteAICatalog, spec.ViewStandard, spec.ContentTypeAICatalog, content.New(body))
	}
	if site.ARD && site.AICatalog && len(servers) > 0 {
		docs.Add(spec.RouteARD, spec.ViewStandard, spec.ContentTypeJSON, encoded(ard(site, servers, tools)))
	}
	return docs.List, docs.Err
}

// ard is the ARD manifest of site (discovery.ARD): each server's
// capabilities are the names of its tools the site publishes (a tool's MCP
// name, else its toolId).
func ard(site Site, servers []*discovery.Server, tools []*tool.Tool) any {
	index := make(map[string]int, len(servers))
	for i, s := range servers {
		index[s.Name] = i
	}
	names := make([][]string, len(servers))
	for _, t := range tools {
		i, ok := index[t.Server]
		if t.Server == "" || !ok || !t.VisibleTo(site.Tenant) {
			continue
		}
		names[i] = append(names[i], cmp.Or(t.Name, t.ToolID))
	}
	return discovery.ARD(site.Origin, site.Publisher, site.DisplayName, servers, names)
}

// sign signs the AI catalog doc, as discovery.AICatalog made it for
// publisher, and returns the DID document that verifies it. Each local
// server's entry names its version (signing.Options.Versions: AI Catalog
// 1.0 lets an entry restate its artifact's version when it is signed),
// which the manifest then binds.
func sign(ctx context.Context, s Signing, publisher string, servers []*discovery.Server, doc any) (map[string]any, error) {
	o := s.Options
	ids, _ := discovery.AIIdentifiers(publisher, servers)
	o.Versions = map[string]string{}
	for i, srv := range servers {
		if srv != nil && srv.Version != "" && !srv.CrossHost() {
			o.Versions[ids[i]] = srv.Version
		}
	}
	if err := signing.Sign(ctx, s.Signer, o, doc); err != nil {
		return nil, err
	}
	did, err := signing.DIDWeb(o.Domain)
	if err != nil {
		return nil, err
	}
	return signing.DIDDocument(did, s.Signer.PublicJWK(), s.PreviousKeys)
}

// encoded is the body of a document whose value is v: its JSON and a
// newline.
func encoded(v any) content.Body {
	return content.New(append(jsonenc.Append(nil, v), '\n'))
}
