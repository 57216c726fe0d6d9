package build

import (
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
	"github.com/signpost-dev/signpost/build/discoverydocs"
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
	// Load left each tool's schemas in the catalog's spill file (see
	// tool.Tool.HoldSchemas): each published tool's are read back into a
	// copy of it, encoded, and let go with the copy, so that the schemas
	// of a large catalog, hundreds of megabytes, are never in memory at
	// once.
	var tools []*tool.Tool
	for _, t := range cat.Tools {
		if t.Published() {
			tools = append(tools, t)
		}
	}
	slices.SortFunc(tools, func(a, b *tool.Tool) int { return strings.Compare(a.ToolID, b.ToolID) })
	rest := *cat
	cat = &rest // a spill file Compile makes is not cat's

	// Every descriptor and catalogue entry is held in the catalog's spill
	// file from the moment it is encoded: the documents of 100,000 tools
	// are hundreds of megabytes, and only their writer needs them again.
	spill, err := cat.spillFile()
	if err != nil {
		return nil, err
	}
	c := &compiledTools{bodies: make([]content.Body, len(tools))}
	entries := make([]content.Body, len(tools)) // of the tool catalogue
	costs := make([]output.Tokens, len(tools))
	compactOpts := cat.Config.compactOptions()
	if cat.Config.CompactView {
		c.compact = make([]content.Body, len(tools))
	}
	// The last site compiled takes the tools' documents (see compileSite):
	// they are made with room for the others Load expects a site to have,
	// so that its documents are not a copy of them.
	tenants := cat.Config.Tenants
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	shown := 0 // tool documents, over every site
	for _, tenant := range tenants {
		for _, t := range tools {
			if t.VisibleTo(tenant) {
				shown += c.per()
			}
		}
	}
	perSite := max(cat.size.Files-int64(shown), 0) / int64(len(tenants))
	c.docs = make([]output.Document, c.per()*len(tools), c.per()*len(tools)+int(perSite+perSite/8+64))
	// Descriptors are encoded into reused scratch buffers, then written
	// to the spill file.
	scratchBuffers := sync.Pool{New: func() any { return new([]byte) }}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, t := range tools {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			std := scratchBuffers.Get().(*[]byte)
			defer scratchBuffers.Put(std)
			t, err := t.WithSchemas()
			if err != nil {
				return fmt.Errorf("tool %s: %w", tools[i].ToolID, err)
			}
			var input, response tool.Span
			route := spec.ToolRoute(t.ToolID)
			*std, input, response = tool.AppendDescriptor((*std)[:0], t)
			// The standard descriptor and the catalogue's entry carry the
			// digest of the tool's definition: the standard descriptor as
			// encoded so far. (The compact view does not: a model has no
			// use for it, and it would cost the compact list about 60
			// tokens a tool.)
			canon := scratchBuffers.Get().(*[]byte)
			def, err := tool.DefinitionOf(t, *std, input, response, canon)
			scratchBuffers.Put(canon)
			if err != nil {
				return fmt.Errorf("digest the definition of tool %s: %w", t.ToolID, err)
			}
			*std = tool.AppendMeta(*std, def)
			if err := lim.document(route, len(*std)); err != nil {
				return err
			}
			*std = append(*std, '\n') // as a document of its own; not in a list
			var compact []byte
			if c.compact != nil {
				cpt := scratchBuffers.Get().(*[]byte)
				defer scratchBuffers.Put(cpt)
				*cpt = tool.AppendCompactDescriptor((*cpt)[:0], t, compactOpts)
				if err := lim.document(spec.Request(route, spec.ViewCompact), len(*cpt)); err != nil {
					return err
				}
				*cpt = append(*cpt, '\n')
				compact = *cpt
			}
			cost, err := measureTokens(counter, *std, compact)
			if err != nil {
				return fmt.Errorf("count the tokens of tool %s: %w", t.ToolID, err)
			}
			costs[i] = cost
			entry := tool.CatalogueEntry(t, cost, def, input.Of(*std), response.Of(*std))
			k := 0 // the entry's size
			for _, p := range entry {
				k += len(p)
			}
			if err := lim.document(spec.RouteToolCatalogue, k); err != nil {
				return err
			}
			// Every site that shows the tool serves these documents: made
			// once, their keys and hashes shared. The three go to the
			// spill file in one hold.
			n := len(*std)
			all, err := spill.Hold(append(entry, *std, compact)...)
			if err != nil {
				return err
			}
			entries[i] = all.Slice(0, int64(k))
			if c.bodies[i], c.docs[c.per()*i], err = held(all.Slice(int64(k), int64(k+n)), route, spec.ViewStandard, *std); err != nil {
				return err
			}
			if compact != nil {
				c.compact[i], c.docs[c.per()*i+1], err = held(all.Slice(int64(k+n), all.Len()), route, spec.ViewCompact, compact)
			}
			return err
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
	// The server cards, each site's discovery catalogs and tool catalogue,
	// and each site's lists of tools are made at the same time: they
	// depend on nothing the sites count, and hashing a large list or
	// catalogue takes tens of milliseconds.
	others := make([][]output.Document, len(tenants))
	lists := make([][]output.Document, len(tenants))
	errs := make([]error, 3*len(tenants))
	var made sync.WaitGroup
	for i, tenant := range tenants {
		made.Go(func() {
			others[i], errs[3*i] = catalogue.Documents(cat.Config.APIVersionOrDefault(), tools, entries, costs, tenant)
		})
		made.Go(func() { lists[i], errs[3*i+1] = compileLists(tenant, tools, c) })
	}
	// The AI catalogs name the cards' digests: the cards come first.
	cards, err := discoverydocs.Cards(cat.Config.discoverySite(""), cat.Servers)
	if err == nil {
		err = hold(spill, cards)
	}
	if err != nil {
		made.Wait()
		return nil, err
	}
	cardSums := map[string]string{}
	for _, d := range cards {
		cardSums[d.Route.Route] = d.SHA256
	}
	catalogs := make([][]output.Document, len(tenants))
	sign, err := signingOf(cat)
	if err != nil {
		made.Wait()
		return nil, err
	}
	for i, tenant := range tenants {
		site := cat.Config.discoverySite(tenant)
		site.Sign = sign
		made.Go(func() { catalogs[i], errs[3*i+2] = discoverydocs.Catalogs(ctx, site, cat.Servers, tools, cardSums) })
	}
	made.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i := range tenants {
		if err := hold(spill, catalogs[i]); err != nil {
			return nil, err
		}
		others[i] = slices.Concat(catalogs[i], others[i])
	}
	for i, tenant := range tenants {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		endpointCards, err := discoverydocs.EndpointCards(cat.Config.discoverySite(tenant), cat.Servers, cards)
		if err != nil {
			return nil, err
		}
		registry, err := compileRegistry(cat, cat.Tools, tenant, cardSums)
		if err == nil {
			err = hold(spill, registry)
		}
		if err != nil {
			return nil, err
		}
		others := slices.Concat(cards, endpointCards, others[i], registry)
		s, err := compileSite(tenant, output.SiteDir(tenant), tools, c, i == len(tenants)-1, lists[i], len(others), &lim)
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

// discoverySite is what the discovery documents of tenant's site say
// besides its servers and tools (package discoverydocs), unsigned.
func (c *Config) discoverySite(tenant string) discoverydocs.Site {
	return discoverydocs.Site{
		Tenant: tenant, Origin: c.SiteOrigin(tenant), EndpointOrigin: c.EndpointOrigin(tenant),
		Publisher: c.Publisher, DisplayName: c.DisplayName,
		PrivacyPolicyURL: c.PrivacyPolicyURL, TermsOfServiceURL: c.TermsOfServiceURL,
		MCPCatalog: c.MCPCatalog, AICatalog: c.AICatalog, ARD: c.ARD, CompactView: c.CompactView,
	}
}

// signingOf is how the AI catalogs of cat are signed, nil when they are
// not: cat has no Signer, or signpost.yaml no signing:. Every signature is
// dated by the newest commit of the catalog folder (History.Head), never
// by the clock, so that a build of one commit always has the same bytes;
// a catalog without a commit cannot be signed.
func signingOf(cat *Catalog) (*discoverydocs.Signing, error) {
	if cat.Signer == nil || cat.Config.Signing == nil || !cat.Config.AICatalog {
		return nil, nil
	}
	if cat.History == nil || cat.History.Head.IsZero() {
		return nil, errors.New("signing: a signature's issuedAt is the time of the catalog folder's newest commit, and it has none: commit the catalog, then build (signatures are never dated by the clock)")
	}
	o := signing.Options{Domain: cat.Config.Publisher, IssuedAt: cat.History.Head.UTC().Truncate(time.Second)}
	if v := cat.Config.Signing.Validity; v > 0 {
		o.ExpiresAt = o.IssuedAt.Add(v)
	}
	return &discoverydocs.Signing{Signer: cat.Signer, Options: o, PreviousKeys: cat.Config.Signing.PreviousKeys}, nil
}

// compiledTools is what Compile makes of each tool for every site that shows
// it: its encoded descriptors, without the newline that ends them as
// documents, and its documents, per() of them (its standard one, then its
// compact one), all held in the spill file. The compact ones are nil when
// the compact view is off.
type compiledTools struct {
	bodies, compact []content.Body
	docs            []output.Document
}

// per is how many documents each tool has: two with the compact view.
func (c *compiledTools) per() int {
	if c.compact != nil {
		return 2
	}
	return 1
}

// held returns the document of route in view whose bytes are doc, an
// encoded descriptor and its newline, hashed in memory and held as body,
// their copy in the spill file; and the descriptor without its newline,
// as a list joins it.
func held(body content.Body, route, view string, doc []byte) (content.Body, output.Document, error) {
	d, err := output.NewDocument(route, view, spec.ContentTypeJSON, content.New(doc))
	d.Body = body
	return body.Slice(0, body.Len()-1), d, err
}

// hold moves the bodies of docs, made in memory, to spill.
func hold(spill *content.Spill, docs []output.Document) error {
	for i := range docs {
		body, err := docs[i].Body.Bytes()
		if err == nil {
			docs[i].Body, err = spill.Hold(body)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", spec.Request(docs[i].Route.Route, docs[i].View), err)
		}
	}
	return nil
}

// compileSite assembles the documents of one site from the tools'
// documents, one per tool and view, and the site's lists (see
// compileLists), after counting them into the build. Room is made for
// others more documents, which the caller adds. The last site compiled
// takes c's documents, those it shows moved to the front, rather than a
// copy of them: the documents of 100,000 tools are 40 MB.
func compileSite(tenant, dir string, tools []*tool.Tool, c *compiledTools, last bool, lists []output.Document, others int, lim *budget) (*output.Site, error) {
	s := &output.Site{Tenant: tenant, Dir: dir}
	// Each descriptor is a document of its own, with a newline, and is in
	// each list.
	var visible int
	var bodyBytes, compactBytes int64
	for i, t := range tools {
		if t.VisibleTo(tenant) {
			visible++
			bodyBytes += c.bodies[i].Len()
			if c.compact != nil {
				compactBytes += c.compact[i].Len()
			}
		}
	}
	n := bodyBytes + compactBytes
	for _, l := range lists {
		if err := lim.document(spec.Request(l.Route.Route, l.View), int(l.Size)); err != nil {
			return nil, err
		}
		n += l.Size + int64(visible)
	}
	if err := lim.grow(n); err != nil {
		return nil, err
	}
	s.Tools = visible
	if last {
		n := 0
		for i, t := range tools {
			if t.VisibleTo(tenant) {
				n += copy(c.docs[n:], c.docs[c.per()*i:c.per()*(i+1)])
			}
		}
		clear(c.docs[n:]) // the documents it does not show, which it would keep
		s.Documents = append(slices.Grow(c.docs[:n], len(lists)+others), lists...)
		c.docs = nil
		return s, nil
	}
	s.Documents = make([]output.Document, 0, c.per()*visible+len(lists)+others)
	for i, t := range tools {
		if t.VisibleTo(tenant) {
			s.Documents = append(s.Documents, c.docs[c.per()*i:c.per()*(i+1)]...)
		}
	}
	s.Documents = append(s.Documents, lists...)
	return s, nil
}

// compileLists makes the lists of the tools a site shows, /tools and, with
// the compact view, its compact view: "[…]\n" and {"tools":[…]}\n hold the
// descriptors joined by commas.
func compileLists(tenant string, tools []*tool.Tool, c *compiledTools) ([]output.Document, error) {
	comma := content.New([]byte(",")) // the part between two descriptors
	// Room for every tool and a comma after each, and both ends.
	var list, clist content.Builder
	list.Grow(2*len(tools) + 2)
	list.AddBytes([]byte("["))
	if c.compact != nil {
		clist.Grow(2*len(tools) + 2)
		clist.AddBytes([]byte(`{"tools":[`))
	}
	first := true
	for i, t := range tools {
		if !t.VisibleTo(tenant) {
			continue
		}
		if !first {
			list.Add(comma)
			if c.compact != nil {
				clist.Add(comma)
			}
		}
		first = false
		list.Add(c.bodies[i])
		if c.compact != nil {
			clist.Add(c.compact[i])
		}
	}
	list.AddBytes([]byte("]\n"))
	var docs output.Documents
	docs.Add(spec.RouteTools, spec.ViewStandard, spec.ContentTypeJSON, list.Body())
	if c.compact != nil {
		clist.AddBytes([]byte("]}\n"))
		docs.Add(spec.RouteTools, spec.ViewCompact, spec.ContentTypeJSON, clist.Body())
	}
	return docs.List, docs.Err
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
