package build

import (
	"fmt"

	"github.com/signpost-dev/signpost/build/declarations"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/internal/english"
)

// fileState is what the passes of one declaration file, or of one part of
// a large one (see source.SplitYAML), read and settle, in the order of
// filePasses.
type fileState struct {
	task  fileTask          // the file, or the part, and what is read of it
	src   *source.File      // the file, once parsed; a part's is its file's
	value any               // the file's value, or the part's, once parsed
	bad   map[string]bool   // the items that failed the schema (/tools/3, /mcp)
	decl  declarations.File // the value decoded
	out   declared          // what the file declares, as the passes make it
	// whole is set when the large file the part belongs to must be parsed
	// whole after all.
	whole bool
}

// isPart reports whether the passes run on a part of a large file.
func (f *fileState) isPart() bool { return f.task.src != nil }

// filePass is one pass over a declaration file, or over one part of a
// large one: it reads what the passes before it settled in the fileState,
// settles its own, and reports to the loader's sink. It returns false when
// the file holds nothing more to pass over (what stops it is reported).
type filePass struct {
	name string
	run  func(*loader, *fileState) bool
}

// filePasses are the passes of each declaration file, in the order they
// run: each file, or each part of a large one, goes through them on its
// own, several at once (see loader.declare). Once they are done, the
// file's values are let go (see declareFile and declarePart).
func filePasses() []filePass {
	return []filePass{
		// The file parsed with positions, a part on its own; an OpenAPI
		// document, which an openapi: import reads, declares nothing.
		{"parse", (*loader).parseDeclarations},
		// The value held to the declarations schema: an item that fails
		// it is left out of the passes below, but a tool, whose other
		// fields are checked all the same (what its checks find in a value
		// that failed, the sink leaves out).
		{"schema", (*loader).checkDeclarations},
		// The value decoded into typed declarations (package declarations), a
		// tool's when it is declared.
		{"decode", func(_ *loader, f *fileState) bool { f.decl = declarations.Decode(f.value); return true }},
		// The tools and servers written out, declared: a tool's schema
		// files read, each server within the value limit and held to the
		// rules of package discovery (declaredTool, declaredServer).
		{"declare", (*loader).declareWritten},
		// The tools of an mcp: and an openapi: import, from the files they
		// name (importMCP, importOpenAPI).
		{"imports", (*loader).declareImports},
		// Each tool checked and prepared for publishing: its schemas
		// encoded, its size measured (preparer.prepare). A part that broke
		// a schema rule stops here: its file is parsed whole, for the
		// reports need the whole file's values.
		{"prepare", (*loader).prepareTools},
	}
}

// wholeCatalog is what the passes across files read and settle: the
// catalog's settings, and every tool and server its files declare, in the
// files' order.
type wholeCatalog struct {
	config  *Config
	tools   []*pendingTool
	servers []pendingServer
	// limitsAt is where signpost.yaml sets its limits, or its top.
	limitsAt ref
	// tooLarge is set when the catalog is over its document, build or
	// file limit: nothing more is reported about its tools.
	tooLarge bool
	// size is what checkSizes expects the build to write.
	size BuildSize
}

// catalogPass is one pass across files: it reads the catalog, settles
// what it is about in it, and reports to the sink.
type catalogPass struct {
	name string
	run  func(sink, *wholeCatalog)
}

// catalogPasses are the rules that concern the files together, run once
// every file is declared and prepared (see loader.declare), one after the
// other on one goroutine, in this order: each may read what the passes
// before it settled.
func catalogPasses() []catalogPass {
	return []catalogPass{
		// The toolIds of the tools an import declares, derived from their
		// names; declared toolIds are kept. Every later pass names a tool
		// by its toolId.
		{"ids", assignToolIDs},
		// Each toolId well formed, free of credentials, and unique.
		{"toolids", checkToolIDs},
		// safetyTier exec for host extensions only; tenants the catalog
		// declares.
		{"tools", checkToolRules},
		// Every tool's group named and keyed.
		{"groups", func(_ sink, c *wholeCatalog) { assignGroupKeys(c.tools) }},
		// Each tool, each site's list and the whole build within limits.
		{"limits", checkSizes},
		// What prepare found in each tool (checkPublished), unless the
		// catalog is too large for it to matter.
		{"published", reportPublished},
		// Server names, card paths and identifiers unique; the servers
		// tools name declared.
		{"servers", checkServers},
	}
}

// assignToolIDs gives derived toolIds to the tools of imports; declared
// ones keep theirs.
func assignToolIDs(_ sink, c *wholeCatalog) {
	ps := c.tools
	explicit := map[string]bool{}
	var claims []toolid.Claim
	var derived []*pendingTool
	for _, p := range ps {
		if p.explicit {
			explicit[p.tool.ToolID] = true
		} else {
			claims = append(claims, p.claim)
			derived = append(derived, p)
		}
	}
	for i, id := range toolid.Derive(claims, explicit) {
		derived[i].tool.ToolID = id
	}
}

// checkToolIDs holds each toolId to its format, and to being unique and
// free of credentials.
func checkToolIDs(s sink, c *wholeCatalog) {
	first := map[string]*pendingTool{}
	for _, p := range c.tools {
		t := p.tool
		if found := secrets.Find(t.ToolID); len(found) > 0 {
			// Not the format's message, whose example would spell it out.
			s.errorf(p.from("toolId"), "credential", "toolId %s: remove it; published documents are public", found[0].Reason)
		} else if msg := toolid.Check(t.ToolID); msg != "" {
			s.errorf(p.from("toolId"), "toolid-format", "%s", msg)
		} else if q, dup := first[t.ToolID]; dup {
			s.errorf(p.from("toolId"), "toolid-unique", "toolId %q is already used by the tool at %s: toolIds must be unique", t.ToolID, q.at.src.Pos(q.at.ptr))
		} else {
			first[t.ToolID] = p
		}
	}
}

// checkToolRules applies the rules of each tool that need the catalog's
// settings: safetyTier exec is for host extensions, and a tool's tenants
// are the catalog's.
func checkToolRules(s sink, c *wholeCatalog) {
	tenants := map[string]bool{}
	for _, t := range c.config.Tenants {
		tenants[t] = true
	}
	for _, p := range c.tools {
		t := p.tool
		if t.SafetyTier == spec.TierExec && t.Source != spec.SourceHostExtension {
			s.errorf(p.from("safetyTier"), "exec-source", "safetyTier exec is only for source: host-extension (this tool's source is %s): use write, or declare the tool as a host extension", t.Source)
		}
		for i, tn := range t.Tenants {
			switch {
			case len(tenants) == 0:
				s.errorf(p.from("tenants").at(fmt.Sprint(i)), "tenant", "tool is scoped to tenant %q but %s declares no tenants: add tenants: [%s] there, or drop the scope", tn, ConfigFile, tn)
			case !tenants[tn]:
				s.errorf(p.from("tenants").at(fmt.Sprint(i)), "tenant", "unknown tenant %q: %s declares %s", tn, ConfigFile, english.Some(sortedKeys(tenants), 8))
			}
		}
	}
}

// reportPublished reports what checkPublished found in each tool as it
// was prepared, unless the catalog is over its list or build limit.
func reportPublished(s sink, c *wholeCatalog) {
	if c.tooLarge {
		return
	}
	for _, p := range c.tools {
		for _, f := range p.published {
			sev := Error
			if f.warn {
				sev = Warning
			}
			s.report(sev, f.at, f.rule, "%s", f.msg)
		}
		p.published = nil
	}
}

// checkSizes holds the tools to the catalog's limits, with the sizes
// prepare measured: each tool to the value limit; then, with the documents
// the sites will hold measured (see estimateBuild), each document that
// joins tools to the document limit, and all sites together to the build
// and file limits. It sets tooLarge when the catalog is over one of the
// three, too large for anything else to be reported about its tools.
func checkSizes(s sink, whole *wholeCatalog) {
	ps, lim := whole.tools, whole.config.Limits
	// A schema file too large for the tools that use it is reported once,
	// at its cause, for all of them.
	type cause struct {
		at    ref
		tools []string
	}
	var causes []*cause
	byPlace := map[ref]*cause{}
	for _, p := range ps {
		if p.sizeOK {
			continue
		}
		c := byPlace[p.sizeAt]
		if c == nil {
			c = &cause{at: p.sizeAt}
			byPlace[p.sizeAt] = c
			causes = append(causes, c)
		}
		c.tools = append(c.tools, p.tool.ToolID)
	}
	for _, c := range causes {
		what := fmt.Sprintf("tool %q is", c.tools[0])
		if len(c.tools) > 1 {
			what = fmt.Sprintf("tool %q and %s are each", c.tools[0], english.Count(len(c.tools)-1, "other", "others"))
		}
		s.errorf(c.at, "limits", "%s", limitMessage(what, "value", english.Bytes(lim.ValueLimit()), ""))
	}
	if len(causes) > 0 {
		return
	}
	est := estimateBuild(whole)
	whole.size = est.BuildSize
	switch largest := est.largest; {
	case largest.size > lim.DocumentLimit():
		what := largest.what
		if largest.tenant != "" {
			what += " of tenant " + largest.tenant
		}
		reportAggregate(s, whole.limitsAt, ps, est.sizes, largest.tenant, what, "document", largest.size, lim.DocumentLimit())
	case est.Bytes > lim.BuildLimit():
		reportAggregate(s, whole.limitsAt, ps, est.sizes, "", "the build", "build", est.Bytes, lim.BuildLimit())
	case est.Files > lim.FileLimit():
		s.errorf(whole.limitsAt, "limits", "%s", filesMessage(fmt.Sprintf("the build would write %d files,", est.Files), lim.FileLimit()))
	default:
		return
	}
	whole.tooLarge = true
}

// reportAggregate reports a document or the build over its limit at the
// largest tool that contributes to it, and says how many tools share its
// schema (at limitsAt when it has no tools). what names the document or the
// build; tenant is the site whose tools it joins ("" for every tool).
func reportAggregate(s sink, limitsAt ref, ps []*pendingTool, sizes []int64, tenant, what, limit string, size, max int64) {
	big := -1
	for i, p := range ps {
		if p.tool.Published() && p.tool.VisibleTo(tenant) && (big < 0 || sizes[i] > sizes[big]) {
			big = i
		}
	}
	shown, maxShown := output.SizePair(size, max)
	if big < 0 {
		// Only servers' cards and the discovery catalogs.
		s.errorf(limitsAt, "limits", "%s", limitMessage(fmt.Sprintf("%s would be at least %s,", what, shown), limit, maxShown, "it publishes no tools"))
		return
	}
	p := ps[big]
	largest := fmt.Sprintf("the largest of its tools, %q, is %s", p.tool.ToolID, english.Bytes(sizes[big]))
	if in := p.from("inputSchema"); in.src != p.at.src && in.ptr == "" {
		users := 0
		for _, q := range ps {
			if q.from("inputSchema").src == in.src {
				users++
			}
		}
		largest += fmt.Sprintf(", and %s use its input schema, %s", english.Count(users, "tool", "tools"), in.src.Rel)
	}
	s.errorf(p.at, "limits", "%s", limitMessage(fmt.Sprintf("%s would be at least %s,", what, shown), limit, maxShown, largest))
}

// checkEndpointCards refuses an endpoint on a site's origin whose card
// cannot be answered beside it (discovery.CheckEndpointCards), once per
// origin the sites have, when the AI catalog, and so the v1 card, is on.
func checkEndpointCards(s sink, c *Config, servers []pendingServer, list []*Server) {
	if !c.AICatalog {
		return
	}
	var reserved []string
	if c.MCPCatalog {
		reserved = append(reserved, spec.RouteMCPCatalog)
	}
	reserved = append(reserved, spec.RouteAICatalog, spec.RouteToolCatalogue)
	if c.ARD {
		reserved = append(reserved, spec.RouteARD)
	}
	tenants := append([]string{""}, c.Tenants...)
	seen := map[string]bool{}
	reported := map[string]bool{}
	for _, t := range tenants {
		origin := c.EndpointOrigin(t)
		if seen[origin] {
			continue
		}
		seen[origin] = true
		for _, p := range discovery.CheckEndpointCards(discovery.EndpointCards(origin, list), list, reserved) {
			key := fmt.Sprint(p.Server, p.Pointer, p.Message)
			if reported[key] {
				continue
			}
			reported[key] = true
			s.errorf(servers[p.Server].at.at(source.SplitPointer(p.Pointer)...), "server", "%s", p.Message)
		}
	}
}

// checkServers applies the rules that concern servers together (unique
// names, card paths and AI catalog identifiers) and warns about tools that name a server the
// catalog does not declare.
func checkServers(s sink, c *wholeCatalog) {
	publisher, servers, tools := c.config.Publisher, c.servers, c.tools
	list := make([]*Server, len(servers))
	declared := map[string]bool{}
	for i, s := range servers {
		list[i] = s.server
		declared[s.server.Name] = true
	}
	for i, ps := range discovery.Check(publisher, list) {
		for _, p := range ps {
			s.errorf(servers[i].at.at(source.SplitPointer(p.Pointer)...), "server", "%s", p.Message)
		}
	}
	checkEndpointCards(s, c.config, servers, list)
	if len(servers) == 0 {
		return
	}
	// One warning per undeclared server, however many tools name it, at
	// the first of them.
	var order []string
	at := map[string]ref{}
	ids := map[string][]string{}
	for _, p := range tools {
		if t := p.tool; t.Server != "" && !declared[t.Server] && t.Status != tool.StatusHidden {
			if _, seen := ids[t.Server]; !seen {
				order = append(order, t.Server)
				at[t.Server] = p.from("server")
			}
			ids[t.Server] = append(ids[t.Server], t.ToolID)
		}
	}
	for _, name := range order {
		who := "tool " + ids[name][0] + " names"
		if n := len(ids[name]); n > 1 {
			who = fmt.Sprintf("%d tools (%s) name", n, english.Some(ids[name], 3))
		}
		s.report(Warning, at[name], "server-unknown", "%s server %s, which no declaration in the catalog describes: declare it under servers: so that clients can find its card", who, name)
	}
}
