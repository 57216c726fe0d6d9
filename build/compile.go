package build

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/signpost-dev/signpost/build/budgets"
	"github.com/signpost-dev/signpost/build/catalogue"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/jcs"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tokens"
	"github.com/signpost-dev/signpost/build/tool"
	"golang.org/x/sync/errgroup"
)

// Compile turns a valid catalog into sites of documents: one per tenant, or
// one when the catalog declares no tenants. The result depends only on the
// catalog: no clock, no paths, no map order. Compile does not change cat.
func Compile(ctx context.Context, cat *Catalog) (*output.Build, error) {
	lim := budget{Limits: cat.Config.Limits}
	counter, err := tokens.NewCounter()
	if err != nil {
		return nil, fmt.Errorf("load the tokenizer: %w", err)
	}
	// Compile works on copies of the tools it publishes, and drops each
	// copy's schemas once they are encoded: a caller that lets go of the
	// catalog (as build does) lets the schemas' decoded values, the larger
	// part of a big catalog's memory, go while the build proceeds, instead
	// of holding them and their encodings at once.
	// The registry's servers are the tenants' of their tools: of every
	// declared tool the registry needs its server and who sees it, so the
	// copies of those not published drop their schemas at once.
	var tools []*tool.Tool
	declared := make([]*tool.Tool, len(cat.Tools))
	for i, t := range cat.Tools {
		c := *t
		declared[i] = &c
		if t.Published() {
			tools = append(tools, &c)
		} else {
			c.DropSchemas()
		}
	}
	rest := *cat
	rest.Tools = nil
	cat = &rest // from here on, without the originals
	slices.SortFunc(tools, func(a, b *tool.Tool) int { return strings.Compare(a.ToolID, b.ToolID) })

	c := &compiledTools{bodies: make([][]byte, len(tools)), docs: make([]output.Document, len(tools))}
	entries := make([][][]byte, len(tools)) // of the tool catalogue, as parts
	costs := make([]output.Tokens, len(tools))
	compactOpts := cat.Config.compactOptions()
	if cat.Config.CompactView {
		c.compact, c.compactDocs = make([][]byte, len(tools)), make([]output.Document, len(tools))
	}
	// Descriptors are encoded into reused scratch buffers, then copied once
	// into slices of their exact size.
	scratchBuffers := sync.Pool{New: func() any { return new([]byte) }}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, t := range tools {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			scratch := scratchBuffers.Get().(*[]byte)
			defer scratchBuffers.Put(scratch)
			var input, response tool.Span
			route := spec.ToolRoute(t.ToolID)
			*scratch, input, response = tool.AppendDescriptor((*scratch)[:0], t)
			// The standard descriptor and the catalogue's entry carry the
			// digest of the tool's definition: the standard descriptor as
			// encoded so far. (The compact view does not: a model has no
			// use for it, and it would cost the compact list about 60
			// tokens a tool.)
			canon := scratchBuffers.Get().(*[]byte)
			def, err := tool.DefinitionOf(t, *scratch, input, response, canon)
			scratchBuffers.Put(canon)
			if err != nil {
				return fmt.Errorf("digest the definition of tool %s: %w", t.ToolID, err)
			}
			*scratch = tool.AppendMeta(*scratch, def)
			if err := lim.document(route, len(*scratch)); err != nil {
				return err
			}
			body := encoded(*scratch)
			c.bodies[i] = body
			// Every site that shows the tool serves these documents: made
			// once, their keys and hashes shared.
			c.docs[i] = output.NewDocument(route, spec.ViewStandard, spec.ContentTypeJSON, content.New(document(body)))
			var compactDoc []byte
			if c.compact != nil {
				*scratch = tool.AppendCompactDescriptor((*scratch)[:0], t, compactOpts)
				if err := lim.document(spec.Request(route, spec.ViewCompact), len(*scratch)); err != nil {
					return err
				}
				c.compact[i] = encoded(*scratch)
				compactDoc = document(c.compact[i])
				c.compactDocs[i] = output.NewDocument(route, spec.ViewCompact, spec.ContentTypeJSON, content.New(compactDoc))
			}
			cost, err := measureTokens(counter, document(body), compactDoc)
			if err != nil {
				return fmt.Errorf("count the tokens of tool %s: %w", t.ToolID, err)
			}
			costs[i] = cost
			entries[i] = tool.CatalogueEntry(t, cost, def, input.Of(body), response.Of(body))
			t.DropSchemas() // encoded: see above
			n := 0
			for _, p := range entries[i] {
				n += len(p)
			}
			return lim.document(spec.RouteToolCatalogue, n)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	measured := make([]budgets.Tool, len(tools))
	for i, t := range tools {
		measured[i] = budgets.Tool{ID: t.ToolID, Standard: costs[i].Standard, Compact: costs[i].Compact, Pos: t.Pos, VisibleTo: t.VisibleTo}
	}
	if err := cat.Config.Budgets.Check(measured, cat.Config.Tenants, cat.Config.CompactView); err != nil {
		return nil, err // a *budgets.Error
	}

	// Write holds every file of the build, or of a host's layout of it, to
	// the build and file limits.
	b := &output.Build{Limits: output.Limits{Build: lim.BuildLimit(), Files: lim.FileLimit()}}
	tenants := cat.Config.Tenants
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	// The server cards, each site's discovery catalogs and tool catalogue,
	// and each site's lists of tools are made at the same time: they
	// depend on nothing the sites count, and hashing a large list or
	// catalogue takes tens of milliseconds.
	var cards []output.Document
	others := make([][]output.Document, len(tenants))
	lists := make([][]output.Document, len(tenants))
	var made sync.WaitGroup
	for i, tenant := range tenants {
		made.Go(func() {
			others[i] = catalogue.Documents(cat.Config.APIVersionOrDefault(), tools, entries, costs, tenant)
		})
		made.Go(func() { lists[i] = compileLists(tenant, tools, c) })
	}
	// The AI catalogs name the cards' digests: the cards come first.
	cards = compileCards(cat)
	cardSums := map[string]string{}
	for _, d := range cards {
		cardSums[d.Route.Route] = d.SHA256
	}
	catalogs := make([][]output.Document, len(tenants))
	errs := make([]error, len(tenants))
	sign, err := signingOptions(cat)
	if err != nil {
		made.Wait()
		return nil, err
	}
	for i, tenant := range tenants {
		made.Go(func() { catalogs[i], errs[i] = compileCatalogs(ctx, cat, tools, tenant, cardSums, sign) })
	}
	made.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i := range tenants {
		others[i] = slices.Concat(catalogs[i], others[i])
	}
	for i, tenant := range tenants {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		others := slices.Concat(cards, compileEndpointCards(cat, tenant, cards), others[i], compileRegistry(cat, declared, tenant, cardSums))
		s, err := compileSite(tenant, output.SiteDir(tenant), tools, c, lists[i], len(others), &lim)
		if err != nil {
			return nil, err
		}
		s.Origin = cat.Config.SiteOrigin(tenant)
		s.Access = cat.Config.TenantSites[tenant].Access
		s.Documents = append(s.Documents, others...)
		for i, t := range tools {
			if t.VisibleTo(s.Tenant) {
				s.Tokens.Standard += costs[i].Standard
				s.Tokens.Compact += costs[i].Compact
			}
		}
		output.SortDocuments(s.Documents)
		var routes int64
		for _, d := range s.Documents {
			// The route table, which the build writes too, is inside its
			// limit: each document's line of it.
			routes += output.RouteEntrySize(d.Route)
			if _, isTool := spec.ToolIDOf(d.Route.Route); isTool || d.Route.Route == spec.RouteTools {
				continue // counted by compileSite
			}
			if err := lim.add(d.Route.Route, d.Size); err != nil {
				return nil, err
			}
		}
		if err := lim.grow(routes); err != nil {
			return nil, err
		}
		if err := lim.files(len(s.Documents)); err != nil {
			return nil, err
		}
		b.Sites = append(b.Sites, s)
	}
	// Compile makes no precompressed variants: only a host that serves
	// them needs them (output.Build.Precompress). Its limits count the
	// documents alone, and Write holds what is written, variants and route
	// table included, to the limits.
	return b, nil
}

// measureTokens counts the tokens of a tool's encoded descriptors.
func measureTokens(c *tokens.Counter, standard, compact []byte) (output.Tokens, error) {
	var t output.Tokens
	var err error
	if t.Standard, err = c.Count(standard); err != nil {
		return t, err
	}
	if compact != nil {
		t.Compact, err = c.Count(compact)
	}
	return t, err
}

// budget is the catalog's Limits as Compile enforces them, and the bytes
// and files of the documents made so far.
type budget struct {
	Limits
	total int64
	// written counts the files: the route table, then the documents.
	written int64
}

// files counts n documents into the build, refusing them when they take
// it past its file limit. The route table counts once.
func (b *budget) files(n int) error {
	if b.written == 0 {
		b.written = 1
	}
	if b.written += int64(n); b.written > b.FileLimit() {
		return &LimitError{Limit: "files", Max: b.FileLimit(), Size: b.written, What: "the build"}
	}
	return nil
}

// document refuses a document of route larger than the document limit.
func (b *budget) document(route string, n int) error {
	if int64(n) > b.DocumentLimit() {
		return &LimitError{Limit: "document", Max: b.DocumentLimit(), Size: int64(n), What: route}
	}
	return nil
}

// add counts a document of n bytes into the build, refusing it when it is
// larger than the document limit or takes the build past its limit.
func (b *budget) add(route string, n int64) error {
	if err := b.document(route, int(n)); err != nil {
		return err
	}
	return b.grow(n)
}

// grow counts n bytes into the build, refusing them when they take it past
// its limit.
func (b *budget) grow(n int64) error {
	if b.total += n; b.total > b.BuildLimit() {
		return &LimitError{Limit: "build", Max: b.BuildLimit(), Size: b.total, What: "the build"}
	}
	return nil
}

// compileCards encodes the server cards every site serves: the draft card
// of each local server when the MCP catalog is on, its v1 card when the AI
// catalog is on. Cross-host servers have no card here.
func compileCards(cat *Catalog) []output.Document {
	var docs []output.Document
	for _, s := range cat.Servers {
		if s.CrossHost() {
			continue
		}
		if cat.Config.MCPCatalog {
			docs = append(docs, output.NewDocument(s.DraftRoute(), spec.ViewStandard, spec.ContentTypeServerCardDraft, content.New(appendLine(jsonenc.Append(nil, discovery.DraftCard(s))))))
		}
		if cat.Config.AICatalog {
			docs = append(docs, output.NewDocument(s.V1Route(), spec.ViewStandard, spec.ContentTypeServerCardV1, content.New(appendLine(jsonenc.Append(nil, discovery.V1Card(s))))))
		}
	}
	return docs
}

// compileEndpointCards makes the documents of tenant's site that answer a
// server's v1 card beside its Streamable HTTP endpoint, at
// <endpoint path>/server-card, for each endpoint on the origin
// signpost.yaml gives the site (Config.EndpointOrigin): the same bytes as
// the card at its v1 path, among cards. None when the AI catalog, and so
// the v1 card, is off. Load has refused a route that collides with
// another document's (discovery.CheckEndpointCards).
func compileEndpointCards(cat *Catalog, tenant string, cards []output.Document) []output.Document {
	if !cat.Config.AICatalog {
		return nil
	}
	v1 := map[string]output.Document{}
	for _, d := range cards {
		if d.ContentType == spec.ContentTypeServerCardV1 {
			v1[d.Route.Route] = d
		}
	}
	var docs []output.Document
	seen := map[string]bool{}
	for _, e := range discovery.EndpointCards(cat.Config.EndpointOrigin(tenant), cat.Servers) {
		card, ok := v1[cat.Servers[e.Server].V1Route()]
		if e.Route == "" || e.Problem != "" || !ok || seen[e.Route] {
			continue
		}
		seen[e.Route] = true
		docs = append(docs, output.NewDocument(e.Route, spec.ViewStandard, spec.ContentTypeServerCardV1, card.Body))
	}
	return docs
}

// compileCatalogs encodes the discovery catalogs of one site. The AI
// catalog advertises the site's tool catalog: its URL, the sources of the
// tools the tenant sees, and whether the compact view is served; its card
// entries carry the digests of the cards (cardSums: each card's route to
// the hex SHA-256 of its bytes). The AI catalog's bytes are its canonical
// form (RFC 8785, build/jcs), without the newline other documents end
// with: AI Catalog 1.0 requires a catalog to be valid input to JCS, and a
// catalog that already is its canonical form is what a digest or a
// signature over it is computed on. A value JCS cannot take is an error
// (Load reports the declarations that would give one).
//
// With a signer (sign not nil), the AI catalog is signed (build/signing):
// each server's entry names the server's version, which its Trust Manifest
// binds, and the site gets /.well-known/did.json, the DID document of the
// signer with its keys.
func compileCatalogs(ctx context.Context, cat *Catalog, tools []*tool.Tool, tenant string, cardSums map[string]string, sign *signing.Options) ([]output.Document, error) {
	var docs []output.Document
	origin := cat.Config.SiteOrigin(tenant)
	if cat.Config.MCPCatalog {
		docs = append(docs, output.NewDocument(spec.RouteMCPCatalog, spec.ViewStandard, spec.ContentTypeJSON, content.New(appendLine(jsonenc.Append(nil, discovery.MCPCatalog(origin, cat.Servers))))))
	}
	if cat.Config.AICatalog {
		var sources []string
		for _, t := range tools {
			if t.VisibleTo(tenant) {
				sources = append(sources, t.Source)
			}
		}
		base := strings.TrimSuffix(origin, "/")
		ad := &discovery.ToolCatalogAd{URL: base + spec.RouteTools, Catalogue: base + spec.RouteToolCatalogue, Sources: sources, CompactView: cat.Config.CompactView, Tenant: tenant}
		servers := discovery.WithPolicies(cat.Servers, cat.Config.PrivacyPolicyURL, cat.Config.TermsOfServiceURL)
		doc := discovery.AICatalog(origin, cat.Config.Publisher, cat.Config.DisplayName, servers, ad, cardSums)
		if sign != nil {
			did, err := signCatalog(ctx, cat, *sign, doc)
			if err != nil {
				return nil, fmt.Errorf("the AI catalog of %s: %w", spec.SiteName(tenant), err)
			}
			docs = append(docs, output.NewDocument(spec.RouteDIDDocument, spec.ViewStandard, spec.ContentTypeJSON, content.New(appendLine(jsonenc.Append(nil, did)))))
		}
		body, err := jcs.Append(nil, doc)
		if err != nil {
			return nil, fmt.Errorf("the AI catalog of %s: %w", spec.SiteName(tenant), err)
		}
		docs = append(docs, output.NewDocument(spec.RouteAICatalog, spec.ViewStandard, spec.ContentTypeAICatalog, content.New(body)))
	}
	if cat.Config.ARD && cat.Config.AICatalog && len(cat.Servers) > 0 {
		docs = append(docs, compileARD(cat, tools, tenant))
	}
	return docs, nil
}

// compileARD encodes the ARD manifest of tenant's site (discovery.ARD):
// each server's capabilities are the names of its tools the site
// publishes (a tool's MCP name, else its toolId).
func compileARD(cat *Catalog, tools []*tool.Tool, tenant string) output.Document {
	index := make(map[string]int, len(cat.Servers))
	for i, s := range cat.Servers {
		index[s.Name] = i
	}
	names := make([][]string, len(cat.Servers))
	for _, t := range tools {
		i, ok := index[t.Server]
		if t.Server == "" || !ok || !t.VisibleTo(tenant) {
			continue
		}
		names[i] = append(names[i], cmp.Or(t.Name, t.ToolID))
	}
	doc := discovery.ARD(cat.Config.SiteOrigin(tenant), cat.Config.Publisher, cat.Config.DisplayName, cat.Servers, names)
	return output.NewDocument(spec.RouteARD, spec.ViewStandard, spec.ContentTypeJSON, content.New(appendLine(jsonenc.Append(nil, doc))))
}

func appendLine(b []byte) []byte { return append(b, '\n') }

// signingOptions are how the AI catalogs of cat are signed, nil when they
// are not: cat has no Signer, or signpost.yaml no signing:. Every
// signature is dated by the newest commit of the catalog folder
// (History.Head), never by the clock, so that a build of one commit always
// has the same bytes; a catalog without a commit cannot be signed.
func signingOptions(cat *Catalog) (*signing.Options, error) {
	if cat.Signer == nil || cat.Config.Signing == nil || !cat.Config.AICatalog {
		return nil, nil
	}
	if cat.History == nil || cat.History.Head.IsZero() {
		return nil, errors.New("signing: a signature's issuedAt is the time of the catalog folder's newest commit, and it has none: commit the catalog, then build (signatures are never dated by the clock)")
	}
	o := &signing.Options{Domain: cat.Config.Publisher, IssuedAt: cat.History.Head.UTC().Truncate(time.Second)}
	if v := cat.Config.Signing.Validity; v > 0 {
		o.ExpiresAt = o.IssuedAt.Add(v)
	}
	return o, nil
}

// signCatalog signs the AI catalog doc, as discovery.AICatalog made it, and
// returns the DID document that verifies it. Each local server's entry
// names its version (Options.Versions) (AI Catalog 1.0 lets an entry restate its
// artifact's version when it is signed), which the manifest then binds.
func signCatalog(ctx context.Context, cat *Catalog, o signing.Options, doc any) (map[string]any, error) {
	ids, _ := discovery.AIIdentifiers(cat.Config.Publisher, cat.Servers)
	o.Versions = map[string]string{}
	for i, s := range cat.Servers {
		if s != nil && s.Version != "" && !s.CrossHost() {
			o.Versions[ids[i]] = s.Version
		}
	}
	if err := signing.Sign(ctx, cat.Signer, o, doc); err != nil {
		return nil, err
	}
	did, err := signing.DIDWeb(o.Domain)
	if err != nil {
		return nil, err
	}
	return signing.DIDDocument(did, cat.Signer.PublicJWK(), cat.Config.Signing.PreviousKeys)
}

// compiledTools is what Compile makes of each tool for every site that shows
// it: its encoded descriptors, without the newline that ends them as
// documents, and its documents. The compact ones are nil when the compact
// view is off.
type compiledTools struct {
	bodies, compact   [][]byte
	docs, compactDocs []output.Document
}

// compileSite assembles the documents of one site from the tools'
// documents, one per tool and view, and the site's lists (see
// compileLists), after counting them into the build. Room is made for
// others more documents, which the caller adds.
func compileSite(tenant, dir string, tools []*tool.Tool, c *compiledTools, lists []output.Document, others int, lim *budget) (*output.Site, error) {
	s := &output.Site{Tenant: tenant, Dir: dir}
	// Each descriptor is a document of its own, with a newline, and is in
	// each list.
	var visible, bodyBytes, compactBytes int
	for i, t := range tools {
		if t.VisibleTo(tenant) {
			visible++
			bodyBytes += len(c.bodies[i])
			if c.compact != nil {
				compactBytes += len(c.compact[i])
			}
		}
	}
	n := int64(bodyBytes + compactBytes)
	for _, l := range lists {
		if err := lim.document(spec.Request(l.Route.Route, l.View), int(l.Size)); err != nil {
			return nil, err
		}
		n += l.Size + int64(visible)
	}
	if err := lim.grow(n); err != nil {
		return nil, err
	}
	s.Documents = make([]output.Document, 0, 2*visible+len(lists)+others)
	for i, t := range tools {
		if !t.VisibleTo(tenant) {
			continue
		}
		s.Tools++
		s.Documents = append(s.Documents, c.docs[i])
		if c.compact != nil {
			s.Documents = append(s.Documents, c.compactDocs[i])
		}
	}
	s.Documents = append(s.Documents, lists...)
	return s, nil
}

// compileLists makes the lists of the tools a site shows, /tools and, with
// the compact view, its compact view: "[…]\n" and {"tools":[…]}\n hold the
// descriptors joined by commas.
func compileLists(tenant string, tools []*tool.Tool, c *compiledTools) []output.Document {
	comma := []byte(",") // the part between two descriptors
	// Room for every tool and a comma after each, and both ends.
	list := append(make([][]byte, 0, 2*len(tools)+2), []byte("["))
	var clist [][]byte
	if c.compact != nil {
		clist = append(make([][]byte, 0, 2*len(tools)+2), []byte(`{"tools":[`))
	}
	for i, t := range tools {
		if !t.VisibleTo(tenant) {
			continue
		}
		if len(list) > 1 {
			list = append(list, comma)
			if c.compact != nil {
				clist = append(clist, comma)
			}
		}
		list = append(list, c.bodies[i])
		if c.compact != nil {
			clist = append(clist, c.compact[i])
		}
	}
	docs := []output.Document{output.NewDocument(spec.RouteTools, spec.ViewStandard, spec.ContentTypeJSON, content.New(append(list, []byte("]\n"))...))}
	if c.compact != nil {
		docs = append(docs, output.NewDocument(spec.RouteTools, spec.ViewCompact, spec.ContentTypeJSON, content.New(append(clist, []byte("]}\n"))...)))
	}
	return docs
}

// document is an encoded descriptor as a document of its own: followed by
// the newline that marshal left in the slice's capacity.
func document(b []byte) []byte { return b[:len(b)+1] }

// encoded copies an encoded descriptor into a slice of its own, with the
// newline every document ends with kept in the slice's capacity: the list
// joins the descriptors without it, and document(b) is the descriptor as a
// document of its own.
func encoded(enc []byte) []byte {
	b := make([]byte, len(enc), len(enc)+1)
	copy(b, enc)
	return append(b, '\n')[:len(enc)]
}

// ElsewhereCards says, one line each, which Streamable HTTP endpoints of
// the local servers are on another origin than every site's: the site
// cannot answer the card at <mcp-url>/server-card, the location the
// Server Card extension reserves, which that endpoint's own server must
// answer. Not a problem of the catalog: build prints the lines beside its
// summary. None when the AI catalog, and so the v1 card, is off.
func (c *Catalog) ElsewhereCards() []string {
	if !c.Config.AICatalog {
		return nil
	}
	origins := []string{c.Config.EndpointOrigin("")}
	for _, t := range c.Config.Tenants {
		origins = append(origins, c.Config.EndpointOrigin(t))
	}
	// An endpoint is elsewhere when no site's origin is its own.
	type endpoint struct{ name, url string }
	onSite := map[endpoint]bool{}
	seen := map[endpoint]bool{}
	var order []discovery.EndpointCard
	for _, o := range origins {
		for _, e := range discovery.EndpointCards(o, c.Servers) {
			key := endpoint{e.Name, e.URL}
			if !e.Elsewhere {
				onSite[key] = true
			}
			if !seen[key] {
				seen[key] = true
				order = append(order, e)
			}
		}
	}
	var lines []string
	for _, e := range order {
		if onSite[endpoint{e.Name, e.URL}] {
			continue
		}
		lines = append(lines, fmt.Sprintf("server %s: its endpoint is on another origin, so this site cannot answer its card at %s: the MCP server there must serve it itself", e.Name, spec.Redact(e.CardURL())))
	}
	return lines
}
