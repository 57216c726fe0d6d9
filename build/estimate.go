package build

import (
	"context"
	"maps"

	"github.com/signpost-dev/signpost/build/catalogue"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/definition"
	"github.com/signpost-dev/signpost/build/discoverydocs"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
)

// BuildSize is what a build of a catalog writes, as its limits count it:
// the bytes of the documents of every site with their lines of the route
// table (limits.build), and the files, the route table's included
// (limits.files).
type BuildSize struct {
	Bytes int64
	Files int64
}

// buildEstimate is Load's estimate of what Compile will make of a catalog.
type buildEstimate struct {
	BuildSize
	// largest is the largest document that joins tools (a list, the tool
	// catalogue or one of its groups) of any site.
	largest estimatedDoc
	// sizes are the sizes of the tools' descriptors, by their place in
	// wholeCatalog.tools (0 for a tool that is not published).
	sizes []int64
}

// estimatedDoc is a document of one site, as Load measures it.
type estimatedDoc struct {
	tenant string
	what   string // "the /tools list", "the document /tool-catalogue.json", …
	size   int64
}

// estimateBuild measures what Compile will make of the published tools and
// servers of the catalog, from the tools as prepare left them (their schemas
// encoded): each site's documents, their lines of the route table, and the
// files. The measure is a lower bound, so that a limit Load finds exceeded
// is exceeded, and within a few percent of the build: each document is
// measured as Compile encodes it, but for what only Compile knows, the
// token counts of the tool catalogue (written here with one digit), the
// origins the discovery catalogs and the registry name (left out, since
// serve and build --origin set another after Load), and the registry's
// earlier versions, which the catalog's Git history gives Compile.
func estimateBuild(whole *wholeCatalog) buildEstimate {
	c := whole.config
	est := buildEstimate{sizes: make([]int64, len(whole.tools))}
	var tools []*tool.Tool
	var at []int // the place of each of tools in whole.tools
	for i, p := range whole.tools {
		if p.tool.Published() {
			tools, at = append(tools, p.tool), append(at, i)
		}
	}
	// Each tool measured once, whichever sites show it.
	desc, compactDesc := make([]int64, len(tools)), make([]int64, len(tools))
	entries := make([]content.Body, len(tools))
	costs := make([]output.Tokens, len(tools))
	opts := c.compactOptions()
	var scratch []byte
	// The catalogue's entries are measured, not kept: each is a slice of
	// blank of its length, which catalogue.Bodies joins as it would join
	// the entry.
	var blank []byte
	for i, t := range tools {
		// The tool with its schemas read back from the spill file. One
		// whose schemas cannot be read (Compile fails on it, and says
		// why) is measured without them: it counts its least size.
		if withSchemas, err := t.WithSchemas(); err == nil {
			t = withSchemas
		}
		// The digests of the definitions are measured, not made: each is
		// as long as any, its size the least.
		scratch, _, _ = tool.AppendDescriptor(scratch[:0], t)
		scratch = tool.AppendMeta(scratch, definition.Placeholder)
		// A tool whose schemas prepare did not encode (in a catalog over
		// its build limit) is encoded here without them: it counts its
		// least size.
		desc[i] = max(int64(len(scratch)), whole.tools[at[i]].size)
		est.sizes[at[i]] = desc[i]
		costs[i].Standard = 1
		if c.CompactView {
			scratch = tool.AppendCompactDescriptor(scratch[:0], t, opts)
			compactDesc[i] = int64(len(scratch))
			costs[i].Compact = 1
		}
		input := []byte(t.InputSchema)
		if input == nil {
			input = []byte("null")
		}
		n := 0
		for _, part := range tool.CatalogueEntry(t, costs[i], definition.Placeholder, input, t.OutputSchema) {
			n += len(part)
		}
		if n > len(blank) {
			blank = make([]byte, max(n, 2*len(blank)))
		}
		entries[i] = content.New(blank[:n])
	}

	// The cards and the discovery catalogs are encoded as Compile encodes
	// them, without the origins.
	config := *c
	config.TenantSites = maps.Clone(c.TenantSites)
	config.SetOrigin("")
	var servers []*Server
	for _, s := range whole.servers {
		servers = append(servers, s.server)
	}
	// In memory, these documents are made without fail; one that cannot
	// be made is Compile's error, and left out here.
	cards, _ := discoverydocs.Cards(config.discoverySite(""), servers)
	cardSums := map[string]string{}
	for _, d := range cards {
		cardSums[d.Route.Route] = d.SHA256
	}

	sites := c.Tenants
	if len(sites) == 0 {
		sites = []string{""}
	}
	for _, tenant := range sites {
		add := func(route, view, contentType string, size int64) {
			est.Files++
			est.Bytes += size + output.EntrySize(route, view, contentType, size)
		}
		joined := func(what string, size int64) {
			if size > est.largest.size {
				est.largest = estimatedDoc{tenant: tenant, what: what, size: size}
			}
		}
		// "[…]\n" and {"tools":[…]}\n join the descriptors with commas.
		list, compactList, visible := int64(len("[]\n")), int64(len(`{"tools":[]}`+"\n")), int64(0)
		for i, t := range tools {
			if !t.VisibleTo(tenant) {
				continue
			}
			visible++
			route := spec.ToolRoute(t.ToolID)
			add(route, spec.ViewStandard, spec.ContentTypeJSON, desc[i]+1)
			list += desc[i]
			if c.CompactView {
				add(route, spec.ViewCompact, spec.ContentTypeJSON, compactDesc[i]+1)
				compactList += compactDesc[i]
			}
		}
		if visible > 0 {
			list, compactList = list+visible-1, compactList+visible-1
		}
		add(spec.RouteTools, spec.ViewStandard, spec.ContentTypeJSON, list)
		joined("the /tools list", list)
		if c.CompactView {
			add(spec.RouteTools, spec.ViewCompact, spec.ContentTypeJSON, compactList)
			joined("the /tools?view=compact list", compactList)
		}
		for _, b := range catalogue.Bodies(config.APIVersionOrDefault(), tools, entries, costs, tenant) {
			add(b.Route, spec.ViewStandard, spec.ContentTypeJSON, b.Body.Len())
			joined("the document "+b.Route, b.Body.Len())
		}
		// The registry as the latest versions make it: the catalog's
		// history, which Load does not read, only adds versions.
		// A catalog JCS cannot take is a diagnostic of its own (and
		// Compile's error): the estimate leaves it out. So it does a
		// signed catalog's signatures and its DID document, a few hundred
		// bytes per entry that Load has no key to make.
		site := config.discoverySite(tenant)
		catalogs, _ := discoverydocs.Catalogs(context.Background(), site, servers, tools, cardSums)
		endpointCards, _ := discoverydocs.EndpointCards(site, servers, cards)
		registry, _ := compileRegistry(&Catalog{Config: config, Servers: servers}, tools, tenant, cardSums)
		for _, docs := range [][]output.Document{cards, endpointCards, catalogs, registry} {
			for _, d := range docs {
				add(d.Route.Route, d.View, d.ContentType, d.Size)
			}
		}
	}
	est.Files++ // the route table
	return est
}
