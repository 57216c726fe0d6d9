package check

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/internal/english"
)

// The MCP registry (spec.RouteRegistry and below), checked by replaying
// what its clients send and saying what each would see:
//
//   - VS Code probes /v0.1/servers?limit=1, lists ?limit=50&version=latest
//     (following metadata.nextCursor with &cursor= when a page has one),
//     searches with &search=TEXT, and opens a server at
//     /v0.1/servers/{encodeURIComponent(name)}/versions/latest, its '/'
//     as %2F.
//   - Copilot CLI asks for the same latest version with Accept:
//     application/json and no Authorization: 200 allows the server, 404
//     refuses it; any other answer to a name the registry does not list
//     (401 or 403 above all) refuses every server.
//   - VS Code's renderer is a browser: its requests with Authorization are
//     preceded by a preflight (OPTIONS, Origin vscode-file://vscode-app),
//     and it reads an answer only with Access-Control-Allow-Origin.
//
// Beside them, each server's versions and its exact latest version ('+'
// sent as %2B) are read, and every document is held to the registry's
// schemas and to the list. A site whose /v0.1/servers?limit=1 answers 404
// has no registry (a catalog may turn it off): its rules are skipped.
const (
	// vscodeOrigin is the Origin of VS Code's renderer.
	vscodeOrigin = "vscode-file://vscode-app"
	// registryAccept is the Accept header of Copilot CLI's requests,
	// which the check sends with every request of the registry.
	registryAccept = "application/json"
	// registryProbeQuery and registryListQuery are VS Code's queries of the list.
	registryProbeQuery = "?limit=1"
	registryListQuery  = "?limit=50&version=latest"
	// registryListLimit is the limit of VS Code's list and search.
	registryListLimit = 50
	// unknownServer is a server name no registry lists.
	unknownServer = "zz.signpost.check/unknown-0"
	// maxRegistryPages bounds the pages of the list the check follows.
	maxRegistryPages = 20
	// maxSearchCandidates bounds the names chooseSearch tries, each against
	// every server.
	maxSearchCandidates = 20
)

// registryState is what the check learned of the registry.
type registryState struct {
	// absent is why the registry's rules do not apply, "" when the site
	// has a registry.
	absent string
	// lists are the pages of VS Code's list fetched, in order; more is
	// set when the last had a nextCursor the check did not follow.
	lists []registryPage
	more  bool
	// servers are the servers the list names, each name once, in order;
	// unqueued counts those the document limit left without a lookup.
	servers  []*registryServer
	unqueued int
	// The documents of the second stage, by URL: each server's latest
	// version, versions and exact version.
	lookups, versions, exact map[string]*registryServer
	// search is VS Code's search for a part of a listed server's name.
	search registrySearch
}

// registryPage is one page of the list.
type registryPage struct {
	url  string
	list registryList // of nil when it is not JSON (registry.list says why)
}

// registryServer is one server of the list.
type registryServer struct {
	name, version string
	entry         registryResponse // as the list has it
	listURL       string
}

// registrySearch is the search the check makes, and what it expects.
type registrySearch struct {
	url, text string
	// searched is the server whose name holds text.
	searched string
	// matching are the listed servers whose name or description holds
	// text, ignoring case; firstPage the names of the list's first page.
	matching  map[string]bool
	firstPage []string
}

// registryRules are the names of the registry's rules.
func registryRules() []string {
	var out []string
	for _, r := range ruleTable {
		if strings.HasPrefix(r.Name, "registry.") {
			out = append(out, r.Name)
		}
	}
	return out
}

// registryPageAt is a page of the registry on the checked origin,
// requested as its clients request it.
func (c *checker) registryPageAt(u string, keep bool) *page {
	return &page{url: u, role: roleRegistry, local: true, keep: keep, accept: registryAccept, origin: vscodeOrigin}
}

// registryStage1 are the registry's pages of the first stage: VS Code's
// probe and list, and Copilot CLI's lookup of a name no registry lists.
func (c *checker) registryStage1() []*page {
	return []*page{
		c.registryPageAt(c.at(spec.RouteRegistry+registryProbeQuery), true),
		c.registryPageAt(c.at(spec.RouteRegistry+registryListQuery), true),
		c.registryPageAt(c.lookupURL(unknownServer), true),
	}
}

// lookupURL is the URL of the latest version of the server name, as
// VS Code and Copilot CLI ask for it.
func (c *checker) lookupURL(name string) string {
	return c.at(spec.RegistryVersionRoute(name, spec.RegistryLatest))
}

// learnRegistry reads VS Code's list, following its pages (at most
// maxRegistryPages, each fetched once), and chooses the search.
func (c *checker) learnRegistry(ctx context.Context) {
	r := &c.registry
	probe := c.pages[c.at(spec.RouteRegistry+registryProbeQuery)]
	if probe != nil && probe.err == nil && probe.status == http.StatusNotFound {
		r.absent = "the site has no MCP registry: " + spec.RouteRegistry + registryProbeQuery + " answers 404 (a catalog may turn it off), so its rules do not apply"
		return
	}
	seen := map[string]bool{}
	cursors := map[string]bool{}
	u := c.at(spec.RouteRegistry + registryListQuery)
	for {
		if c.pages[u] == nil {
			break // over the document limit
		}
		doc, _ := c.decodedPage(u)
		pg := registryPage{url: u, list: registryListOf(doc)}
		r.lists = append(r.lists, pg)
		for _, e := range pg.list.servers {
			name, ok := e.Name.Str()
			if !ok || seen[name] {
				continue
			}
			seen[name] = true
			version, _ := e.Version.Str()
			r.servers = append(r.servers, &registryServer{name: name, version: version, entry: e, listURL: u})
		}
		cursor, ok := pg.list.NextCursor.Str()
		if !ok || cursor == "" || cursors[cursor] {
			break
		}
		if len(r.lists) == maxRegistryPages || ctx.Err() != nil {
			r.more = true
			break
		}
		cursors[cursor] = true
		u = c.at(spec.RouteRegistry + registryListQuery + "&cursor=" + url.QueryEscape(cursor))
		c.fetch(ctx, []*page{c.registryPageAt(u, true)}, nil)
	}
	c.chooseSearch()
}

// chooseSearch picks the text of VS Code's search: the part after '/' of
// the first listed name that not every server matches (so that a filtered
// answer shows), else of the first name.
func (c *checker) chooseSearch() {
	r := &c.registry
	if len(r.servers) == 0 {
		return
	}
	for _, e := range r.lists[0].list.servers {
		if name, ok := e.Name.Str(); ok {
			r.search.firstPage = append(r.search.firstPage, name)
		}
	}
	for i, s := range r.servers[:min(len(r.servers), maxSearchCandidates)] {
		_, text, _ := strings.Cut(s.name, "/")
		if text == "" {
			text = s.name
		}
		matching := map[string]bool{}
		for _, o := range r.servers {
			if registryMatches(o.entry, text) {
				matching[o.name] = true
			}
		}
		if i == 0 || len(matching) < len(r.servers) {
			r.search = registrySearch{
				url:  c.at(spec.RouteRegistry + registryListQuery + "&search=" + url.QueryEscape(text)),
				text: text, searched: s.name, matching: matching, firstPage: r.search.firstPage,
			}
		}
		if len(matching) < len(r.servers) {
			return
		}
	}
}

// registryMatches reports whether a server's name or description holds
// text, ignoring case, as a registry's search matches.
func registryMatches(e registryResponse, text string) bool {
	text = strings.ToLower(text)
	return strings.Contains(strings.ToLower(e.Name.Text()), text) || strings.Contains(strings.ToLower(e.Description.Text()), text)
}

// registryStage2 are the registry's pages of the second stage: each
// server's latest version (what VS Code opens and Copilot CLI allows),
// the search, then each server's versions and exact version, at most room
// of them: those past it count as not fetched (limits.documents), and
// registry.lookup says how many servers were not looked up. The documents
// are checked as they arrive (registryDocument).
func (c *checker) registryStage2(room int) []*page {
	r := &c.registry
	if r.absent != "" {
		return nil
	}
	r.lookups, r.versions, r.exact = map[string]*registryServer{}, map[string]*registryServer{}, map[string]*registryServer{}
	var pages []*page
	queue := func(u string, s *registryServer, docs map[string]*registryServer) bool {
		if len(pages) >= room {
			c.notFetched++
			return false
		}
		if docs != nil {
			docs[u] = s
		}
		pages = append(pages, c.registryPageAt(u, false))
		return true
	}
	for _, s := range r.servers {
		if !queue(c.lookupURL(s.name), s, r.lookups) {
			r.unqueued++
		}
	}
	if r.search.url != "" && !queue(r.search.url, nil, nil) {
		r.search.url = ""
	}
	for _, s := range r.servers {
		queue(c.at(spec.RegistryVersionsRoute(s.name)), s, r.versions)
	}
	for _, s := range r.servers {
		if s.version != "" && s.version != spec.RegistryLatest {
			queue(c.at(spec.RegistryVersionRoute(s.name, s.version)), s, r.exact)
		}
	}
	return pages
}

// registryDocument applies the rules of one document of the second stage.
func (c *checker) registryDocument(p *page) {
	r := &c.registry
	if s := r.lookups[p.url]; s != nil {
		c.checkLookup(p, s)
	}
	if s := r.versions[p.url]; s != nil {
		c.checkVersions(p, s)
	}
	if s := r.exact[p.url]; s != nil {
		c.checkExact(p, s)
	}
	if p.url == r.search.url {
		c.checkSearch(p)
	}
}

// refusal says what a client sees of a status other than 200 at a lookup.
func refusal(name string, status int) string {
	switch status {
	case 0:
		return fmt.Sprintf("VS Code could not open %s, and Copilot CLI would refuse it: no answer", name)
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Sprintf("Copilot CLI would refuse every server: %d on %s, which it takes for a registry it may not read; VS Code could not open it", status, name)
	case http.StatusNotFound:
		return fmt.Sprintf("VS Code could not open %s, and Copilot CLI would refuse it: 404 for the name as encodeURIComponent writes it ('/' as %%2F)", name)
	}
	return fmt.Sprintf("VS Code could not open %s, and Copilot CLI would refuse it: status %d", name, status)
}

// registryDoc is the JSON of a page of the registry for rule, or false
// when there is none, and then the rule's finding says why.
func (c *checker) registryDoc(rule string, p *page, failed func(status int) string) (any, bool) {
	switch {
	case p.err != nil:
		c.add(rule, ResultFail, p.url, "GET failed: "+errText(p.err, c.opts.Timeout), failed(0))
		return nil, false
	case p.tooBig:
		c.add(rule, ResultSkip, p.url, "", skippedTooBig)
		return nil, false
	case p.status != http.StatusOK:
		_, ev := c.statusOf(p)
		c.add(rule, ResultFail, p.url, ev, failed(p.status))
		return nil, false
	}
	doc, err := jsonval.Decode(p.body)
	if err != nil {
		c.add(rule, ResultFail, p.url, "not JSON: "+err.Error(), failed(http.StatusOK))
		return nil, false
	}
	return doc, true
}

// checkLookup applies registry.lookup, registry.server, registry.schema
// and registry.consistent to a server's latest version.
func (c *checker) checkLookup(p *page, s *registryServer) {
	doc, ok := c.registryDoc("registry.lookup", p, func(status int) string {
		if status == http.StatusOK {
			return fmt.Sprintf("VS Code and Copilot CLI could not read %s: the answer is not JSON", s.name)
		}
		return refusal(s.name, status)
	})
	if !ok {
		return
	}
	ev := "200, Accept: " + registryAccept + ", no Authorization"
	if c.opts.Token != "" {
		ev = "200, Accept: " + registryAccept + ", with the token"
	}
	c.add("registry.lookup", ResultPass, p.url, ev, fmt.Sprintf("VS Code would open %s, and Copilot CLI allow it", s.name))
	resp := registryResponseOf(doc)
	c.problems("registry.server", p.url, serverProblems(resp, "", s.name),
		"name, description, version and the official _meta", fmt.Sprintf("VS Code can read %s", s.name),
		fmt.Sprintf("VS Code could not read %s: a server needs server.name, .description and .version strings and _meta with its %s block (status, isLatest, publishedAt, updatedAt)", s.name, spec.RegistryOfficialMeta))
	c.registrySchema(p.url, "registry-server-response", doc)
	c.consistent(p.url, s, doc, "latest version")
}

// checkVersions applies registry.versions, registry.schema and
// registry.consistent to a server's versions.
func (c *checker) checkVersions(p *page, s *registryServer) {
	doc, ok := c.registryDoc("registry.versions", p, func(status int) string {
		return fmt.Sprintf("the versions of %s should answer 200 with a server list", s.name)
	})
	if !ok {
		return
	}
	l := registryListOf(doc)
	c.registrySchema(p.url, "registry-server-list", l.forSchema())
	for _, e := range l.servers {
		if e.Version.Is(s.version) {
			c.add("registry.versions", ResultPass, p.url, fmt.Sprintf("%s among %s", jsonval.Show(s.version), english.Count(len(l.servers), "version", "versions")), "lists the latest version")
			c.consistent(p.url, s, e.raw, "versions' entry")
			return
		}
	}
	c.add("registry.versions", ResultFail, p.url, fmt.Sprintf("no version %s among %s", jsonval.Show(s.version), english.Count(len(l.servers), "version", "versions")), fmt.Sprintf("the versions of %s should list its latest version, %s", s.name, s.version))
}

// checkExact applies registry.versions, registry.schema and
// registry.consistent to a server's latest version asked by its number.
func (c *checker) checkExact(p *page, s *registryServer) {
	doc, ok := c.registryDoc("registry.versions", p, func(int) string {
		msg := fmt.Sprintf("version %s of %s should answer 200", s.version, s.name)
		if strings.Contains(s.version, "+") {
			msg += ", its number as encodeURIComponent writes it ('+' as %2B)"
		}
		return msg
	})
	if !ok {
		return
	}
	c.add("registry.versions", ResultPass, p.url, "200", fmt.Sprintf("version %s of %s answers", s.version, s.name))
	c.registrySchema(p.url, "registry-server-response", doc)
	c.consistent(p.url, s, doc, "version "+s.version)
}

// consistent applies registry.consistent: doc, a document of the server
// s (what), is the list's entry.
func (c *checker) consistent(u string, s *registryServer, doc any, what string) {
	if d := jsonval.Diff(s.entry.raw, doc, ""); d != "" {
		c.add("registry.consistent", ResultFail, u, "the list here, the "+what+" there: "+d,
			fmt.Sprintf("the %s of %s should be the list's entry: VS Code would show one server and install another", what, s.name))
		return
	}
	c.add("registry.consistent", ResultPass, u, "the same as the list's entry", fmt.Sprintf("the %s of %s is the list's entry", what, s.name))
}

// registrySchema applies registry.schema to a document.
func (c *checker) registrySchema(u, schema string, doc any) {
	c.violations("registry.schema", ruleLevel("registry.schema"), u, c.v.Validate(schema, doc), "valid against "+schema, "valid against "+schema, "should be valid against "+schema)
}

// serverProblems lists what a client misses in a server's response: at
// the JSON pointer at, and, when asked is set, the name it was asked by.
func serverProblems(r registryResponse, at, asked string) []string {
	if !r.isObject {
		return []string{jsonval.ShowPointer(at) + ": " + jsonval.Show(r.raw) + ", not an object"}
	}
	var probs []string
	str := func(ptr string, m jsonval.Member) {
		if _, ok := m.Str(); !ok {
			probs = append(probs, at+ptr+": "+missingOr(m)+", not a string")
		}
	}
	if _, ok := jsonval.Object(r.Server.Value); !ok {
		probs = append(probs, at+"/server: "+missingOr(r.Server)+", not an object")
	} else {
		str("/server/name", r.Name)
		str("/server/description", r.Description)
		str("/server/version", r.Version)
		if name, ok := r.Name.Str(); ok && asked != "" && name != asked {
			probs = append(probs, fmt.Sprintf("%s/server/name: %s, asked for %s", at, jsonval.Show(name), jsonval.Show(asked)))
		}
	}
	official := "/_meta/" + jsonval.Escape(spec.RegistryOfficialMeta)
	switch _, metaOK := jsonval.Object(r.Meta.Value); {
	case !metaOK:
		probs = append(probs, at+"/_meta: "+missingOr(r.Meta)+", not an object")
	case !isObject(r.Official):
		probs = append(probs, at+official+": "+missingOr(r.Official)+", not an object")
	default:
		str(official+"/status", r.Status)
		str(official+"/publishedAt", r.PublishedAt)
		str(official+"/updatedAt", r.UpdatedAt)
		if _, ok := r.IsLatest.Boolean(); !ok {
			probs = append(probs, at+official+"/isLatest: "+missingOr(r.IsLatest)+", not a boolean")
		}
	}
	return probs
}

func isObject(m jsonval.Member) bool {
	_, ok := jsonval.Object(m.Value)
	return ok
}

// missingOr is "missing" for an absent member, else its value.
func missingOr(m jsonval.Member) string {
	if !m.Present {
		return "missing"
	}
	return m.Show()
}

// checkSearch applies registry.search and registry.search-filter to VS
// Code's search.
func (c *checker) checkSearch(p *page) {
	q := c.registry.search
	what := fmt.Sprintf("VS Code's search for %s", jsonval.Show(q.text))
	doc, ok := c.registryDoc("registry.search", p, func(int) string {
		return what + " would fail: it must answer 200 with a server list"
	})
	if !ok {
		c.add("registry.search-filter", ResultSkip, p.url, "", "the search did not answer a list (see registry.search)")
		return
	}
	l := registryListOf(doc)
	if !l.listed {
		c.add("registry.search", ResultFail, p.url, "servers: "+missingOr(l.Servers), what+" would fail: the answer is not a server list")
		c.add("registry.search-filter", ResultSkip, p.url, "", "the search did not answer a list (see registry.search)")
		return
	}
	var names, unmatched []string
	found := false
	for _, e := range l.servers {
		name := e.Name.Text()
		names = append(names, name)
		found = found || name == q.searched
		if !registryMatches(e, q.text) {
			unmatched = append(unmatched, name)
		}
	}
	c.registrySchema(p.url, "registry-server-list", l.forSchema())
	full := slices.Equal(names, q.firstPage)
	shown := english.Count(len(names), "server", "servers")
	switch {
	case full:
		c.add("registry.search", ResultPass, p.url, "the whole list: "+shown, what+" answers the whole list, which VS Code shows as it is")
	case len(unmatched) > 0:
		c.add("registry.search", ResultFail, p.url, shown+"; not matching: "+english.Some(unmatched, 3), what+" would show servers that do not match: a filtered answer must hold only servers whose name or description holds the text")
	case !found && len(q.matching) <= registryListLimit:
		c.add("registry.search", ResultFail, p.url, shown+", without "+q.searched, fmt.Sprintf("%s would not find %s, whose name holds it", what, q.searched))
	default:
		c.add("registry.search", ResultPass, p.url, shown+", each matching", what+" shows only matching servers")
	}
	switch {
	case full && len(q.matching) < len(names):
		c.add("registry.search-filter", ResultWarn, p.url, fmt.Sprintf("the whole list: %s, %d matching", shown, len(q.matching)),
			fmt.Sprintf("%s would show all %s, not the %d that match: the host answers search= with the whole list (a static host cannot search)", what, shown, len(q.matching)))
	case full:
		c.add("registry.search-filter", ResultPass, p.url, shown+", every one matching", what+": every server matches, so the whole list is the answer")
	default:
		c.add("registry.search-filter", ResultPass, p.url, fmt.Sprintf("%s of %s", shown, english.Count(len(c.registry.servers), "listed server", "listed servers")), what+" is filtered by the host")
	}
}

// checkRegistry applies the registry's rules that read the first stage's
// documents, those of the responses' headers, and the requests made after
// the crawl: the preflights, and Copilot CLI's request without the token
// of a gated site. ctx bounds those requests.
func (c *checker) checkRegistry(ctx context.Context) {
	r := &c.registry
	listRoute := c.at(spec.RouteRegistry)
	if r.absent != "" {
		c.skip(listRoute, r.absent, registryRules()...)
		return
	}
	c.checkRegistryList()
	c.checkUnknownServer()
	c.checkRegistryHeaders()
	c.checkPreflight(ctx)
	c.checkWithoutToken(ctx)
	c.skipUnfetched()
}

// checkRegistryList applies registry.list, registry.server and
// registry.schema to VS Code's probe and the pages of its list.
func (c *checker) checkRegistryList() {
	r := &c.registry
	probeURL := c.at(spec.RouteRegistry + registryProbeQuery)
	if p := c.pages[probeURL]; p != nil {
		if doc, ok := c.registryDoc("registry.list", p, func(status int) string {
			return fmt.Sprintf("VS Code would find no registry: its probe got status %d, not a server list", status)
		}); ok {
			l := registryListOf(doc)
			if l.listed {
				c.add("registry.list", ResultPass, p.url, "200, "+english.Count(len(l.servers), "server", "servers"), "VS Code's probe finds a registry")
			} else {
				c.add("registry.list", ResultFail, p.url, "servers: "+missingOr(l.Servers), "VS Code would find no registry: its probe's answer is not a server list")
			}
			c.registrySchema(p.url, "registry-server-list", l.forSchema())
		}
	}
	if len(r.lists) == 0 {
		c.add("registry.list", ResultSkip, c.at(spec.RouteRegistry+registryListQuery), "", "not fetched: the check's document limit was reached (see limits.documents)")
	}
	for _, pg := range r.lists {
		p := c.pages[pg.url]
		if _, ok := c.registryDoc("registry.list", p, func(status int) string {
			if status == http.StatusOK {
				return "VS Code would show no servers: the list is not JSON"
			}
			return fmt.Sprintf("VS Code would show no servers: status %d on its list", status)
		}); !ok {
			continue
		}
		if !pg.list.listed {
			c.add("registry.list", ResultFail, p.url, "servers: "+missingOr(pg.list.Servers), "VS Code would show no servers: the answer is not a server list")
			continue
		}
		ev := "200, " + english.Count(len(pg.list.servers), "server", "servers")
		if cursor, ok := pg.list.NextCursor.Str(); ok && cursor != "" {
			ev += ", nextCursor " + jsonval.Show(cursor)
		}
		c.add("registry.list", ResultPass, p.url, ev, fmt.Sprintf("VS Code would list %s", english.Count(len(pg.list.servers), "server", "servers")))
		var probs []string
		for i, e := range pg.list.servers {
			probs = append(probs, serverProblems(e, "/servers/"+strconv.Itoa(i), "")...)
		}
		c.problems("registry.server", p.url, probs, "each entry has its name, description, version and the official _meta",
			"VS Code can show every listed server",
			fmt.Sprintf("VS Code would list servers it cannot show: each needs server.name, .description and .version strings and _meta with its %s block (status, isLatest, publishedAt, updatedAt)", spec.RegistryOfficialMeta))
		c.registrySchema(p.url, "registry-server-list", pg.list.forSchema())
	}
	if r.more {
		last := r.lists[len(r.lists)-1].url
		c.add("registry.list", ResultSkip, last, fmt.Sprintf("a nextCursor after %d pages", len(r.lists)), "the check follows at most "+strconv.Itoa(maxRegistryPages)+" pages of the list: the servers of the rest are not checked")
	}
}

// checkUnknownServer applies registry.unknown-name: Copilot CLI's lookup
// of a name the registry does not list answers 404.
func (c *checker) checkUnknownServer() {
	const rule = "registry.unknown-name"
	p := c.pages[c.lookupURL(unknownServer)]
	if p == nil {
		c.add(rule, ResultSkip, c.lookupURL(unknownServer), "", "not fetched: the check's document limit was reached (see limits.documents)")
		return
	}
	switch {
	case p.err != nil:
		c.add(rule, ResultFail, p.url, "GET failed: "+errText(p.err, c.opts.Timeout), "Copilot CLI could not tell a server the registry does not list: it must answer 404")
	case p.status == http.StatusNotFound:
		c.add(rule, ResultPass, p.url, "status 404", "Copilot CLI refuses a server the registry does not list, and only that one")
	case p.status == http.StatusUnauthorized || p.status == http.StatusForbidden:
		c.add(rule, ResultFail, p.url, "status "+strconv.Itoa(p.status),
			fmt.Sprintf("Copilot CLI would refuse every server: %d on a name the registry does not list, which it takes for a registry it may not read (an unknown name must answer 404)", p.status))
	case p.status == http.StatusOK:
		c.add(rule, ResultFail, p.url, "status 200", "Copilot CLI would allow a server the registry does not list: an unknown name must answer 404")
	default:
		_, ev := c.statusOf(p)
		c.add(rule, ResultFail, p.url, ev, "Copilot CLI could not tell a server the registry does not list from a broken registry: an unknown name must answer 404")
	}
}

// checkRegistryHeaders applies registry.cors and registry.content-type to
// every response of the registry's routes.
func (c *checker) checkRegistryHeaders() {
	var urls []string
	for u, p := range c.pages {
		if p.role == roleRegistry && p.err == nil {
			urls = append(urls, u)
		}
	}
	slices.Sort(urls)
	for _, u := range urls {
		p := c.pages[u]
		if p.status == http.StatusOK {
			c.contentType("registry.content-type", p, spec.ContentTypeJSON)
		}
		if p.withOrigin.err != nil {
			c.add("registry.cors", ResultFail, u, "with Origin "+vscodeOrigin+": GET failed: "+errText(p.withOrigin.err, c.opts.Timeout), "VS Code would not read the answer")
			continue
		}
		if prob := allowOriginProblem(p.withOrigin.header); prob != "" {
			c.add("registry.cors", ResultFail, u, "with Origin "+vscodeOrigin+": "+prob,
				"VS Code would not read the answer: a registry's response must allow its origin (Access-Control-Allow-Origin: * or "+vscodeOrigin+")")
			continue
		}
		c.add("registry.cors", ResultPass, u, "Access-Control-Allow-Origin: "+p.withOrigin.header.Get("Access-Control-Allow-Origin"), "VS Code can read the answer")
	}
}

// allowOriginProblem says why a response does not let VS Code's renderer
// read it, "" if it does.
func allowOriginProblem(h http.Header) string {
	v := h.Values("Access-Control-Allow-Origin")
	switch {
	case len(v) == 0:
		return "no Access-Control-Allow-Origin"
	case len(v) > 1:
		return "Access-Control-Allow-Origin: " + strings.Join(v, ", ") + " (more than one)"
	case strings.TrimSpace(v[0]) != "*" && strings.TrimSpace(v[0]) != vscodeOrigin:
		return "Access-Control-Allow-Origin: " + v[0]
	}
	return ""
}

// checkPreflight applies registry.preflight: the preflight VS Code's
// renderer sends before a request with Authorization, to the list and to
// a server's latest version.
func (c *checker) checkPreflight(ctx context.Context) {
	targets := []string{c.at(spec.RouteRegistry)}
	if s := c.registry.servers; len(s) > 0 {
		targets = append(targets, c.lookupURL(s[0].name))
	}
	header := [][2]string{
		{"Origin", vscodeOrigin},
		{"Access-Control-Request-Method", http.MethodGet},
		{"Access-Control-Request-Headers", "authorization,content-type"},
	}
	for _, u := range targets {
		if ctx.Err() != nil {
			c.add("registry.preflight", ResultSkip, u, "out of time", "no preflight sent: the check ran out of time first (see limits.deadline)")
			continue
		}
		r := c.do(ctx, http.MethodOptions, u, header, false, false)
		if r.err != nil {
			c.add("registry.preflight", ResultFail, u, "OPTIONS failed: "+errText(r.err, c.opts.Timeout), "VS Code would send no request to the registry: its preflight got no answer")
			continue
		}
		var probs []string
		if r.status != http.StatusNoContent && r.status != http.StatusOK {
			probs = append(probs, "status "+strconv.Itoa(r.status))
		}
		if prob := allowOriginProblem(r.header); prob != "" {
			probs = append(probs, prob)
		}
		probs = tokenProblem(probs, r.header, "Access-Control-Allow-Methods", http.MethodGet, true)
		for _, name := range []string{"Authorization", "Content-Type"} {
			if !listsHeader(r.header, name) {
				probs = append(probs, "Access-Control-Allow-Headers without "+name)
			}
		}
		if len(probs) > 0 {
			c.add("registry.preflight", ResultFail, u, "OPTIONS with Origin "+vscodeOrigin+": "+strings.Join(probs, "; "),
				"VS Code would send no request with Authorization to the registry: the preflight must answer 204 or 200 allowing its origin, GET, Authorization and Content-Type")
			continue
		}
		c.add("registry.preflight", ResultPass, u, "status "+strconv.Itoa(r.status)+"; "+corsSummary(r.header), "VS Code's preflight is allowed")
	}
}

// listsHeader reports whether Access-Control-Allow-Headers of h names the
// request header name. A '*' does not cover Authorization (Fetch).
func listsHeader(h http.Header, name string) bool {
	for _, v := range h.Values("Access-Control-Allow-Headers") {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if strings.EqualFold(t, name) || t == "*" && !strings.EqualFold(name, "Authorization") {
				return true
			}
		}
	}
	return false
}

// checkWithoutToken applies registry.lookup to Copilot CLI's request of a
// gated site, which carries no token: the check's own lookups carry it.
func (c *checker) checkWithoutToken(ctx context.Context) {
	if c.opts.Token == "" || len(c.registry.servers) == 0 {
		return
	}
	s := c.registry.servers[0]
	u := c.lookupURL(s.name)
	if ctx.Err() != nil {
		c.add("registry.lookup", ResultSkip, u, "out of time", "not asked without the token: the check ran out of time first (see limits.deadline)")
		return
	}
	r := c.do(ctx, http.MethodGet, u, [][2]string{{"Accept", registryAccept}}, false, false)
	switch {
	case r.err != nil:
		c.add("registry.lookup", ResultFail, u, "without Authorization: GET failed: "+errText(r.err, c.opts.Timeout), fmt.Sprintf("Copilot CLI could not tell whether %s is allowed", s.name))
	case r.status == http.StatusOK:
		c.add("registry.lookup", ResultPass, u, "without Authorization: 200", fmt.Sprintf("Copilot CLI, which sends no token, would allow %s", s.name))
	case r.status == http.StatusUnauthorized || r.status == http.StatusForbidden:
		c.add("registry.lookup", ResultSkip, u, "without Authorization: status "+strconv.Itoa(r.status),
			"the registry is behind the site's gate: Copilot CLI, which sends no token, would refuse every server of it (access.gate checks the gate)")
	default:
		c.add("registry.lookup", ResultFail, u, "without Authorization: status "+strconv.Itoa(r.status), refusal(s.name, r.status))
	}
}

// skipUnfetched skips the rules of the registry's documents the document
// limit left out.
func (c *checker) skipUnfetched() {
	r := &c.registry
	const why = "not fetched: the check's document limit was reached (see limits.documents)"
	for _, m := range []struct {
		docs map[string]*registryServer
		rule string
	}{{r.lookups, "registry.lookup"}, {r.versions, "registry.versions"}, {r.exact, "registry.versions"}} {
		var urls []string
		for u := range m.docs {
			if c.pages[u] == nil {
				urls = append(urls, u)
			}
		}
		slices.Sort(urls)
		for _, u := range urls {
			c.add(m.rule, ResultSkip, u, "", why)
		}
	}
	if r.search.url != "" && c.pages[r.search.url] == nil {
		c.skip(r.search.url, why, "registry.search", "registry.search-filter")
	}
	if r.unqueued > 0 {
		c.add("registry.lookup", ResultSkip, c.at(spec.RouteRegistry+registryListQuery), fmt.Sprintf("%s of %d not looked up", english.Count(r.unqueued, "server", "servers"), len(r.servers)), why)
	}
}
