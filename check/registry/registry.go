// Package registry is the check of a site's MCP registry
// (spec.RouteRegistry and below): it replays what the registry's clients
// send and says what each would see:
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
//
// The check's crawl fetches the pages a Replay asks for (Stage1, then
// Stage2 once Learn has read the list) and hands each document of the
// second stage to Document as it arrives; Check applies the rest. The
// Replay reads the site and records its findings through Site, which the
// check implements: it knows nothing of the crawl's other documents.
package registry

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
	"github.com/signpost-dev/signpost/check/transport"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/schemas"
)

// Site is what a Replay needs of the check: the site as the crawl fetched
// it, requests of its own, and where its findings go, whose rules'
// names are those of the check's rule table that start with registry.
type Site interface {
	// At is the URL of route on the checked site.
	At(route string) string
	// Page is the page of u the crawl fetched, nil when it did not.
	Page(u string) *Page
	// Pages are the pages of the registry the crawl fetched (those of
	// Stage1, Stage2 and Learn), sorted by URL.
	Pages() []*Page
	// Fetch fetches the pages of reqs as the registry's clients ask for
	// them (Accept and Origin), then returns.
	Fetch(ctx context.Context, reqs ...Request)
	// Do sends one request of the method to u with header, without the
	// token of a gated site, and returns its answer.
	Do(ctx context.Context, method, u string, header [][2]string) Response
	// LeftOut counts a document the check's document limit left out.
	LeftOut()
	// Token reports whether the check's requests carry a gated site's
	// token.
	Token() bool
	// ErrText says briefly why a request failed.
	ErrText(err error) string
	// StatusEvidence is the evidence of the status of the page of u.
	StatusEvidence(u string) string

	// Pass, Fail, Warn and Skip record a finding of rule at u.
	Pass(rule, u, evidence, message string)
	Fail(rule, u, evidence, message string)
	Warn(rule, u, evidence, message string)
	Skip(rule, u, evidence, message string)
	// TooBig skips rule at u for a body over the check's size limit.
	TooBig(rule, u string)
	// Problems records one finding of rule at u: a pass when probs is
	// empty, else a failure with the first problem as evidence.
	Problems(rule, u string, probs []string, passEvidence, passMessage, failMessage string)
	// ContentType applies a content-type rule to the page of u.
	ContentType(rule, u, want string)
}

// Request is a page for the crawl to fetch as the registry's clients ask
// for it (Accept and Origin below); Keep keeps its body for Check.
type Request struct {
	URL  string
	Keep bool
}

// Response is an answer to one request.
type Response struct {
	Err    error
	Status int
	Header http.Header
	// Body is nil but for a page the rules read.
	Body []byte
	// TooBig is set when the body was over the check's size limit.
	TooBig bool
}

// Page is a page of the registry the crawl fetched: the GET as the
// registry's clients send it, and the same GET with VS Code's Origin.
type Page struct {
	URL string
	Response
	WithOrigin Response
}

// New is the replay of the registry's clients on site; v holds the
// documents to the registry's schemas.
func New(site Site, v *schemas.Validator) *Replay {
	return &Replay{site: site, v: v}
}

// Absent is why the registry's rules do not apply (the site has no
// registry), "" when they do.
func (rp *Replay) Absent() string { return rp.absent }

// decoded is the JSON of the page of u, when it was fetched and answered
// 200 with a body within the limit.
func (rp *Replay) decoded(u string) (any, bool) {
	p := rp.site.Page(u)
	if p == nil || p.Err != nil || p.Status != http.StatusOK || p.TooBig {
		return nil, false
	}
	doc, err := jsonval.Decode(p.Body)
	return doc, err == nil
}

const (
	// Origin is the Origin of VS Code's renderer.
	Origin = "vscode-file://vscode-app"
	// Accept is the Accept header of Copilot CLI's requests,
	// which the check sends with every request of the registry.
	Accept = "application/json"
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

// Replay is the replay of the registry's clients on one site: what it
// learned of the registry, and the rules it applies.
type Replay struct {
	site Site
	v    *schemas.Validator

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

// Stage1 are the registry's pages of the first stage: VS Code's
// probe and list, and Copilot CLI's lookup of a name no registry lists.
func (rp *Replay) Stage1() []Request {
	return []Request{
		{URL: rp.site.At(spec.RouteRegistry + registryProbeQuery), Keep: true},
		{URL: rp.site.At(spec.RouteRegistry + registryListQuery), Keep: true},
		{URL: rp.lookupURL(unknownServer), Keep: true},
	}
}

// lookupURL is the URL of the latest version of the server name, as
// VS Code and Copilot CLI ask for it.
func (rp *Replay) lookupURL(name string) string {
	return rp.site.At(spec.RegistryVersionRoute(name, spec.RegistryLatest))
}

// Learn reads VS Code's list, following its pages (at most
// maxRegistryPages, each fetched once), and chooses the search.
func (rp *Replay) Learn(ctx context.Context) {
	probe := rp.site.Page(rp.site.At(spec.RouteRegistry + registryProbeQuery))
	if probe != nil && probe.Err == nil && probe.Status == http.StatusNotFound {
		rp.absent = "the site has no MCP registry: " + spec.RouteRegistry + registryProbeQuery + " answers 404 (a catalog may turn it off), so its rules do not apply"
		return
	}
	seen := map[string]bool{}
	cursors := map[string]bool{}
	u := rp.site.At(spec.RouteRegistry + registryListQuery)
	for {
		if rp.site.Page(u) == nil {
			break // over the document limit
		}
		doc, _ := rp.decoded(u)
		pg := registryPage{url: u, list: registryListOf(doc)}
		rp.lists = append(rp.lists, pg)
		for _, e := range pg.list.servers {
			name, ok := e.Name.Str()
			if !ok || seen[name] {
				continue
			}
			seen[name] = true
			version, _ := e.Version.Str()
			rp.servers = append(rp.servers, &registryServer{name: name, version: version, entry: e, listURL: u})
		}
		cursor, ok := pg.list.NextCursor.Str()
		if !ok || cursor == "" || cursors[cursor] {
			break
		}
		if len(rp.lists) == maxRegistryPages || ctx.Err() != nil {
			rp.more = true
			break
		}
		cursors[cursor] = true
		u = rp.site.At(spec.RouteRegistry + registryListQuery + "&cursor=" + url.QueryEscape(cursor))
		rp.site.Fetch(ctx, Request{URL: u, Keep: true})
	}
	rp.chooseSearch()
}

// chooseSearch picks the text of VS Code's search: the part after '/' of
// the first listed name that not every server matches (so that a filtered
// answer shows), else of the first name.
func (rp *Replay) chooseSearch() {
	if len(rp.servers) == 0 {
		return
	}
	for _, e := range rp.lists[0].list.servers {
		if name, ok := e.Name.Str(); ok {
			rp.search.firstPage = append(rp.search.firstPage, name)
		}
	}
	for i, s := range rp.servers[:min(len(rp.servers), maxSearchCandidates)] {
		_, text, _ := strings.Cut(s.name, "/")
		if text == "" {
			text = s.name
		}
		matching := map[string]bool{}
		for _, o := range rp.servers {
			if registryMatches(o.entry, text) {
				matching[o.name] = true
			}
		}
		if i == 0 || len(matching) < len(rp.servers) {
			rp.search = registrySearch{
				url:  rp.site.At(spec.RouteRegistry + registryListQuery + "&search=" + url.QueryEscape(text)),
				text: text, searched: s.name, matching: matching, firstPage: rp.search.firstPage,
			}
		}
		if len(matching) < len(rp.servers) {
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

// Stage2 are the registry's pages of the second stage: each
// server's latest version (what VS Code opens and Copilot CLI allows),
// the search, then each server's versions and exact version, at most room
// of them: those past it count as not fetched (limits.documents), and
// registry.lookup says how many servers were not looked up. The documents
// are checked as they arrive (Document).
func (rp *Replay) Stage2(room int) []Request {
	if rp.absent != "" {
		return nil
	}
	rp.lookups, rp.versions, rp.exact = map[string]*registryServer{}, map[string]*registryServer{}, map[string]*registryServer{}
	var pages []Request
	queue := func(u string, s *registryServer, docs map[string]*registryServer) bool {
		if len(pages) >= room {
			rp.site.LeftOut()
			return false
		}
		if docs != nil {
			docs[u] = s
		}
		pages = append(pages, Request{URL: u, Keep: false})
		return true
	}
	for _, s := range rp.servers {
		if !queue(rp.lookupURL(s.name), s, rp.lookups) {
			rp.unqueued++
		}
	}
	if rp.search.url != "" && !queue(rp.search.url, nil, nil) {
		rp.search.url = ""
	}
	for _, s := range rp.servers {
		queue(rp.site.At(spec.RegistryVersionsRoute(s.name)), s, rp.versions)
	}
	for _, s := range rp.servers {
		if s.version != "" && s.version != spec.RegistryLatest {
			queue(rp.site.At(spec.RegistryVersionRoute(s.name, s.version)), s, rp.exact)
		}
	}
	return pages
}

// Document applies the rules of one document of the second stage.
func (rp *Replay) Document(p *Page) {
	if s := rp.lookups[p.URL]; s != nil {
		rp.checkLookup(p, s)
	}
	if s := rp.versions[p.URL]; s != nil {
		rp.checkVersions(p, s)
	}
	if s := rp.exact[p.URL]; s != nil {
		rp.checkExact(p, s)
	}
	if p.URL == rp.search.url {
		rp.checkSearch(p)
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
func (rp *Replay) registryDoc(rule string, p *Page, failed func(status int) string) (any, bool) {
	switch {
	case p.Err != nil:
		rp.site.Fail(rule, p.URL, "GET failed: "+rp.site.ErrText(p.Err), failed(0))
		return nil, false
	case p.TooBig:
		rp.site.TooBig(rule, p.URL)
		return nil, false
	case p.Status != http.StatusOK:
		ev := rp.site.StatusEvidence(p.URL)
		rp.site.Fail(rule, p.URL, ev, failed(p.Status))
		return nil, false
	}
	doc, err := jsonval.Decode(p.Body)
	if err != nil {
		rp.site.Fail(rule, p.URL, "not JSON: "+err.Error(), failed(http.StatusOK))
		return nil, false
	}
	return doc, true
}

// checkLookup applies registry.lookup, registry.server, registry.schema
// and registry.consistent to a server's latest version.
func (rp *Replay) checkLookup(p *Page, s *registryServer) {
	doc, ok := rp.registryDoc("registry.lookup", p, func(status int) string {
		if status == http.StatusOK {
			return fmt.Sprintf("VS Code and Copilot CLI could not read %s: the answer is not JSON", s.name)
		}
		return refusal(s.name, status)
	})
	if !ok {
		return
	}
	ev := "200, Accept: " + Accept + ", no Authorization"
	if rp.site.Token() {
		ev = "200, Accept: " + Accept + ", with the token"
	}
	rp.site.Pass("registry.lookup", p.URL, ev, fmt.Sprintf("VS Code would open %s, and Copilot CLI allow it", s.name))
	resp := registryResponseOf(doc)
	rp.site.Problems("registry.server", p.URL, serverProblems(resp, "", s.name),
		"name, description, version and the official _meta", fmt.Sprintf("VS Code can read %s", s.name),
		fmt.Sprintf("VS Code could not read %s: a server needs server.name, .description and .version strings and _meta with its %s block (status, isLatest, publishedAt, updatedAt)", s.name, spec.RegistryOfficialMeta))
	rp.registrySchema(p.URL, "registry-server-response", doc)
	rp.consistent(p.URL, s, doc, "latest version")
}

// checkVersions applies registry.versions, registry.schema and
// registry.consistent to a server's versions.
func (rp *Replay) checkVersions(p *Page, s *registryServer) {
	doc, ok := rp.registryDoc("registry.versions", p, func(status int) string {
		return fmt.Sprintf("the versions of %s should answer 200 with a server list", s.name)
	})
	if !ok {
		return
	}
	l := registryListOf(doc)
	rp.registrySchema(p.URL, "registry-server-list", l.forSchema())
	for _, e := range l.servers {
		if e.Version.Is(s.version) {
			rp.site.Pass("registry.versions", p.URL, fmt.Sprintf("%s among %s", jsonval.Show(s.version), english.Count(len(l.servers), "version", "versions")), "lists the latest version")
			rp.consistent(p.URL, s, e.raw, "versions' entry")
			return
		}
	}
	rp.site.Fail("registry.versions", p.URL, fmt.Sprintf("no version %s among %s", jsonval.Show(s.version), english.Count(len(l.servers), "version", "versions")), fmt.Sprintf("the versions of %s should list its latest version, %s", s.name, s.version))
}

// checkExact applies registry.versions, registry.schema and
// registry.consistent to a server's latest version asked by its number.
func (rp *Replay) checkExact(p *Page, s *registryServer) {
	doc, ok := rp.registryDoc("registry.versions", p, func(int) string {
		msg := fmt.Sprintf("version %s of %s should answer 200", s.version, s.name)
		if strings.Contains(s.version, "+") {
			msg += ", its number as encodeURIComponent writes it ('+' as %2B)"
		}
		return msg
	})
	if !ok {
		return
	}
	rp.site.Pass("registry.versions", p.URL, "200", fmt.Sprintf("version %s of %s answers", s.version, s.name))
	rp.registrySchema(p.URL, "registry-server-response", doc)
	rp.consistent(p.URL, s, doc, "version "+s.version)
}

// consistent applies registry.consistent: doc, a document of the server
// s (what), is the list's entry.
func (rp *Replay) consistent(u string, s *registryServer, doc any, what string) {
	if d := jsonval.Diff(s.entry.raw, doc, ""); d != "" {
		rp.site.Fail("registry.consistent", u, "the list here, the "+what+" there: "+d,
			fmt.Sprintf("the %s of %s should be the list's entry: VS Code would show one server and install another", what, s.name))
		return
	}
	rp.site.Pass("registry.consistent", u, "the same as the list's entry", fmt.Sprintf("the %s of %s is the list's entry", what, s.name))
}

// registrySchema applies registry.schema to a document.
func (rp *Replay) registrySchema(u, schema string, doc any) {
	var probs []string
	for _, v := range rp.v.Validate(schema, doc) {
		probs = append(probs, jsonval.ShowPointer(v.Pointer)+": "+v.Message)
	}
	rp.site.Problems("registry.schema", u, probs, "valid against "+schema, "valid against "+schema, "should be valid against "+schema)
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
func (rp *Replay) checkSearch(p *Page) {
	q := rp.search
	what := fmt.Sprintf("VS Code's search for %s", jsonval.Show(q.text))
	doc, ok := rp.registryDoc("registry.search", p, func(int) string {
		return what + " would fail: it must answer 200 with a server list"
	})
	if !ok {
		rp.site.Skip("registry.search-filter", p.URL, "", "the search did not answer a list (see registry.search)")
		return
	}
	l := registryListOf(doc)
	if !l.listed {
		rp.site.Fail("registry.search", p.URL, "servers: "+missingOr(l.Servers), what+" would fail: the answer is not a server list")
		rp.site.Skip("registry.search-filter", p.URL, "", "the search did not answer a list (see registry.search)")
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
	rp.registrySchema(p.URL, "registry-server-list", l.forSchema())
	full := slices.Equal(names, q.firstPage)
	shown := english.Count(len(names), "server", "servers")
	switch {
	case full:
		rp.site.Pass("registry.search", p.URL, "the whole list: "+shown, what+" answers the whole list, which VS Code shows as it is")
	case len(unmatched) > 0:
		rp.site.Fail("registry.search", p.URL, shown+"; not matching: "+english.Some(unmatched, 3), what+" would show servers that do not match: a filtered answer must hold only servers whose name or description holds the text")
	case !found && len(q.matching) <= registryListLimit:
		rp.site.Fail("registry.search", p.URL, shown+", without "+q.searched, fmt.Sprintf("%s would not find %s, whose name holds it", what, q.searched))
	default:
		rp.site.Pass("registry.search", p.URL, shown+", each matching", what+" shows only matching servers")
	}
	switch {
	case full && len(q.matching) < len(names):
		rp.site.Warn("registry.search-filter", p.URL, fmt.Sprintf("the whole list: %s, %d matching", shown, len(q.matching)),
			fmt.Sprintf("%s would show all %s, not the %d that match: the host answers search= with the whole list (a static host cannot search)", what, shown, len(q.matching)))
	case full:
		rp.site.Pass("registry.search-filter", p.URL, shown+", every one matching", what+": every server matches, so the whole list is the answer")
	default:
		rp.site.Pass("registry.search-filter", p.URL, fmt.Sprintf("%s of %s", shown, english.Count(len(rp.servers), "listed server", "listed servers")), what+" is filtered by the host")
	}
}

// Check applies the registry's rules that read the first stage's
// documents, those of the responses' headers, and the requests made after
// the crawl: the preflights, and Copilot CLI's request without the token
// of a gated site. ctx bounds those requests. A site without a registry
// (Absent) has none of these to apply.
func (rp *Replay) Check(ctx context.Context) {
	if rp.absent != "" {
		return
	}
	rp.checkRegistryList()
	rp.checkUnknownServer()
	rp.checkRegistryHeaders()
	rp.checkPreflight(ctx)
	rp.checkWithoutToken(ctx)
	rp.skipUnfetched()
}

// checkRegistryList applies registry.list, registry.server and
// registry.schema to VS Code's probe and the pages of its list.
func (rp *Replay) checkRegistryList() {
	probeURL := rp.site.At(spec.RouteRegistry + registryProbeQuery)
	if p := rp.site.Page(probeURL); p != nil {
		if doc, ok := rp.registryDoc("registry.list", p, func(status int) string {
			return fmt.Sprintf("VS Code would find no registry: its probe got status %d, not a server list", status)
		}); ok {
			l := registryListOf(doc)
			if l.listed {
				rp.site.Pass("registry.list", p.URL, "200, "+english.Count(len(l.servers), "server", "servers"), "VS Code's probe finds a registry")
			} else {
				rp.site.Fail("registry.list", p.URL, "servers: "+missingOr(l.Servers), "VS Code would find no registry: its probe's answer is not a server list")
			}
			rp.registrySchema(p.URL, "registry-server-list", l.forSchema())
		}
	}
	if len(rp.lists) == 0 {
		rp.site.Skip("registry.list", rp.site.At(spec.RouteRegistry+registryListQuery), "", "not fetched: the check's document limit was reached (see limits.documents)")
	}
	for _, pg := range rp.lists {
		p := rp.site.Page(pg.url)
		if _, ok := rp.registryDoc("registry.list", p, func(status int) string {
			if status == http.StatusOK {
				return "VS Code would show no servers: the list is not JSON"
			}
			return fmt.Sprintf("VS Code would show no servers: status %d on its list", status)
		}); !ok {
			continue
		}
		if !pg.list.listed {
			rp.site.Fail("registry.list", p.URL, "servers: "+missingOr(pg.list.Servers), "VS Code would show no servers: the answer is not a server list")
			continue
		}
		ev := "200, " + english.Count(len(pg.list.servers), "server", "servers")
		if cursor, ok := pg.list.NextCursor.Str(); ok && cursor != "" {
			ev += ", nextCursor " + jsonval.Show(cursor)
		}
		rp.site.Pass("registry.list", p.URL, ev, fmt.Sprintf("VS Code would list %s", english.Count(len(pg.list.servers), "server", "servers")))
		var probs []string
		for i, e := range pg.list.servers {
			probs = append(probs, serverProblems(e, "/servers/"+strconv.Itoa(i), "")...)
		}
		rp.site.Problems("registry.server", p.URL, probs, "each entry has its name, description, version and the official _meta",
			"VS Code can show every listed server",
			fmt.Sprintf("VS Code would list servers it cannot show: each needs server.name, .description and .version strings and _meta with its %s block (status, isLatest, publishedAt, updatedAt)", spec.RegistryOfficialMeta))
		rp.registrySchema(p.URL, "registry-server-list", pg.list.forSchema())
	}
	if rp.more {
		last := rp.lists[len(rp.lists)-1].url
		rp.site.Skip("registry.list", last, fmt.Sprintf("a nextCursor after %d pages", len(rp.lists)), "the check follows at most "+strconv.Itoa(maxRegistryPages)+" pages of the list: the servers of the rest are not checked")
	}
}

// checkUnknownServer applies registry.unknown-name: Copilot CLI's lookup
// of a name the registry does not list answers 404.
func (rp *Replay) checkUnknownServer() {
	const rule = "registry.unknown-name"
	p := rp.site.Page(rp.lookupURL(unknownServer))
	if p == nil {
		rp.site.Skip(rule, rp.lookupURL(unknownServer), "", "not fetched: the check's document limit was reached (see limits.documents)")
		return
	}
	switch {
	case p.Err != nil:
		rp.site.Fail(rule, p.URL, "GET failed: "+rp.site.ErrText(p.Err), "Copilot CLI could not tell a server the registry does not list: it must answer 404")
	case p.Status == http.StatusNotFound:
		rp.site.Pass(rule, p.URL, "status 404", "Copilot CLI refuses a server the registry does not list, and only that one")
	case p.Status == http.StatusUnauthorized || p.Status == http.StatusForbidden:
		rp.site.Fail(rule, p.URL, "status "+strconv.Itoa(p.Status),
			fmt.Sprintf("Copilot CLI would refuse every server: %d on a name the registry does not list, which it takes for a registry it may not read (an unknown name must answer 404)", p.Status))
	case p.Status == http.StatusOK:
		rp.site.Fail(rule, p.URL, "status 200", "Copilot CLI would allow a server the registry does not list: an unknown name must answer 404")
	default:
		ev := rp.site.StatusEvidence(p.URL)
		rp.site.Fail(rule, p.URL, ev, "Copilot CLI could not tell a server the registry does not list from a broken registry: an unknown name must answer 404")
	}
}

// checkRegistryHeaders applies registry.cors and registry.content-type to
// every response of the registry's routes.
func (rp *Replay) checkRegistryHeaders() {
	for _, p := range rp.site.Pages() {
		if p.Err != nil {
			continue
		}
		u := p.URL
		if p.Status == http.StatusOK {
			rp.site.ContentType("registry.content-type", p.URL, spec.ContentTypeJSON)
		}
		if p.WithOrigin.Err != nil {
			rp.site.Fail("registry.cors", u, "with Origin "+Origin+": GET failed: "+rp.site.ErrText(p.WithOrigin.Err), "VS Code would not read the answer")
			continue
		}
		if prob := allowOriginProblem(p.WithOrigin.Header); prob != "" {
			rp.site.Fail("registry.cors", u, "with Origin "+Origin+": "+prob,
				"VS Code would not read the answer: a registry's response must allow its origin (Access-Control-Allow-Origin: * or "+Origin+")")
			continue
		}
		rp.site.Pass("registry.cors", u, "Access-Control-Allow-Origin: "+p.WithOrigin.Header.Get("Access-Control-Allow-Origin"), "VS Code can read the answer")
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
	case strings.TrimSpace(v[0]) != "*" && strings.TrimSpace(v[0]) != Origin:
		return "Access-Control-Allow-Origin: " + v[0]
	}
	return ""
}

// checkPreflight applies registry.preflight: the preflight VS Code's
// renderer sends before a request with Authorization, to the list and to
// a server's latest version.
func (rp *Replay) checkPreflight(ctx context.Context) {
	targets := []string{rp.site.At(spec.RouteRegistry)}
	if s := rp.servers; len(s) > 0 {
		targets = append(targets, rp.lookupURL(s[0].name))
	}
	header := [][2]string{
		{"Origin", Origin},
		{"Access-Control-Request-Method", http.MethodGet},
		{"Access-Control-Request-Headers", "authorization,content-type"},
	}
	for _, u := range targets {
		if ctx.Err() != nil {
			rp.site.Skip("registry.preflight", u, "out of time", "no preflight sent: the check ran out of time first (see limits.deadline)")
			continue
		}
		r := rp.site.Do(ctx, http.MethodOptions, u, header)
		if r.Err != nil {
			rp.site.Fail("registry.preflight", u, "OPTIONS failed: "+rp.site.ErrText(r.Err), "VS Code would send no request to the registry: its preflight got no answer")
			continue
		}
		var probs []string
		if r.Status != http.StatusNoContent && r.Status != http.StatusOK {
			probs = append(probs, "status "+strconv.Itoa(r.Status))
		}
		if prob := allowOriginProblem(r.Header); prob != "" {
			probs = append(probs, prob)
		}
		probs = transport.TokenProblem(probs, r.Header, "Access-Control-Allow-Methods", http.MethodGet, true)
		for _, name := range []string{"Authorization", "Content-Type"} {
			if !listsHeader(r.Header, name) {
				probs = append(probs, "Access-Control-Allow-Headers without "+name)
			}
		}
		if len(probs) > 0 {
			rp.site.Fail("registry.preflight", u, "OPTIONS with Origin "+Origin+": "+strings.Join(probs, "; "),
				"VS Code would send no request with Authorization to the registry: the preflight must answer 204 or 200 allowing its origin, GET, Authorization and Content-Type")
			continue
		}
		rp.site.Pass("registry.preflight", u, "status "+strconv.Itoa(r.Status)+"; "+transport.CORSSummary(r.Header), "VS Code's preflight is allowed")
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
func (rp *Replay) checkWithoutToken(ctx context.Context) {
	if !rp.site.Token() || len(rp.servers) == 0 {
		return
	}
	s := rp.servers[0]
	u := rp.lookupURL(s.name)
	if ctx.Err() != nil {
		rp.site.Skip("registry.lookup", u, "out of time", "not asked without the token: the check ran out of time first (see limits.deadline)")
		return
	}
	r := rp.site.Do(ctx, http.MethodGet, u, [][2]string{{"Accept", Accept}})
	switch {
	case r.Err != nil:
		rp.site.Fail("registry.lookup", u, "without Authorization: GET failed: "+rp.site.ErrText(r.Err), fmt.Sprintf("Copilot CLI could not tell whether %s is allowed", s.name))
	case r.Status == http.StatusOK:
		rp.site.Pass("registry.lookup", u, "without Authorization: 200", fmt.Sprintf("Copilot CLI, which sends no token, would allow %s", s.name))
	case r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden:
		rp.site.Skip("registry.lookup", u, "without Authorization: status "+strconv.Itoa(r.Status),
			"the registry is behind the site's gate: Copilot CLI, which sends no token, would refuse every server of it (access.gate checks the gate)")
	default:
		rp.site.Fail("registry.lookup", u, "without Authorization: status "+strconv.Itoa(r.Status), refusal(s.name, r.Status))
	}
}

// skipUnfetched skips the rules of the registry's documents the document
// limit left out.
func (rp *Replay) skipUnfetched() {
	const why = "not fetched: the check's document limit was reached (see limits.documents)"
	for _, m := range []struct {
		docs map[string]*registryServer
		rule string
	}{{rp.lookups, "registry.lookup"}, {rp.versions, "registry.versions"}, {rp.exact, "registry.versions"}} {
		var urls []string
		for u := range m.docs {
			if rp.site.Page(u) == nil {
				urls = append(urls, u)
			}
		}
		slices.Sort(urls)
		for _, u := range urls {
			rp.site.Skip(m.rule, u, "", why)
		}
	}
	if rp.search.url != "" && rp.site.Page(rp.search.url) == nil {
		rp.site.Skip("registry.search", rp.search.url, "", why)
		rp.site.Skip("registry.search-filter", rp.search.url, "", why)
	}
	if rp.unqueued > 0 {
		rp.site.Skip("registry.lookup", rp.site.At(spec.RouteRegistry+registryListQuery), fmt.Sprintf("%s of %d not looked up", english.Count(rp.unqueued, "server", "servers"), len(rp.servers)), why)
	}
}
