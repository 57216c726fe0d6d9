package publish

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/schemas"
)

// Level says how strongly a spec demands what a rule checks.
type Level string

// The levels of the specs' requirements.
const (
	LevelMust   Level = "must"
	LevelShould Level = "should"
)

// verb is how a finding of the level words a requirement: "must" or
// "should".
func (l Level) verb() string {
	if l == LevelMust {
		return "must"
	}
	return "should"
}

// Result is the outcome of one rule at one place.
type Result string

// The outcomes of a rule. A rule that is not met fails at LevelMust and
// warns at LevelShould; it is skipped where it does not apply or where what
// it needs could not be had (and another finding says why).
const (
	ResultPass Result = "pass"
	ResultFail Result = "fail"
	ResultWarn Result = "warn"
	ResultSkip Result = "skip"
)

// Finding is one rule applied to one place.
type Finding struct {
	Rule   string `json:"rule"`
	Level  Level  `json:"level"`
	Result Result `json:"result"`
	// URL is the place: a document, an origin, or the base URL for
	// findings about the whole crawl.
	URL string `json:"url"`
	// Evidence is what the check saw, on one line: a header value, a
	// status, a JSON pointer and value.
	Evidence string `json:"evidence,omitempty"`
	// Message says, for a person, what the rule wants and how it went.
	Message string `json:"message"`
}

// Report is the outcome of Check.
type Report struct {
	// Base is the URL that was checked, without a trailing slash.
	Base string `json:"base"`
	// Findings are sorted by rule, then URL (then evidence and message, so
	// that two checks of the same site give the same report).
	Findings []Finding `json:"findings"`
	// Documents counts the documents fetched.
	Documents int `json:"documents"`
}

// CheckRule is one requirement of the specs that Check applies.
type CheckRule struct {
	Name string
	// Level is the rule's level. tools.status, compact.list and compact.item
	// are MUST when the AI catalog advertises what they check, SHOULD
	// otherwise; their findings carry the level that applied.
	Level Level
	Text  string
}

// checkRules are the rules of Check, sorted by name.
var checkRules = []CheckRule{
	{"ai-catalog.content-type", LevelMust, "/.well-known/ai-catalog.json is served as application/ai-catalog+json"},
	{"ai-catalog.entries", LevelMust, "the AI catalog is a JSON object whose entries each have an identifier, a type and exactly one of url (absolute http or https) or data; a tool catalog entry's toolCatalog has a url and a boolean compactView"},
	{"ai-catalog.identifier", LevelMust, "identifiers are unique; an MCP server's is urn:air:DOMAIN:mcp:NAME, with DOMAIN the host's domain when the catalog names one"},
	{"ai-catalog.media-type", LevelMust, "entries of a type clients do not know are ignored: reported as skip and not fetched"},
	{"ai-catalog.spec-version", LevelMust, `specVersion is "1.0"`},
	{"ai-catalog.status", LevelShould, "/.well-known/ai-catalog.json is published (200)"},
	{"cache.control", LevelShould, "every document but the MCP catalog is served with Cache-Control: public, max-age=3600"},
	{"cache.etag", LevelShould, "every document has a strong ETag (a weak one only on a response compressed on the way, as CDNs do), and a GET with If-None-Match and that ETag gets 304"},
	{"card.content-type", LevelMust, "a card is served with the media type its catalog entry names: application/mcp-server+json from the MCP catalog, the entry's type (application/mcp-server-card+json for v1 cards) from the AI catalog"},
	{"card.cors-etag", LevelShould, "a card on the checked origin also allows the If-None-Match request header (Access-Control-Allow-Headers) and exposes ETag (Access-Control-Expose-Headers)"},
	{"card.name", LevelMust, "a card's name is the server name its catalog identifier names"},
	{"card.status", LevelMust, "every card a catalog points at answers 200"},
	{"card.v1-schema", LevelMust, "a v1 card has the v1 $schema URL, a name, a version and a description of at most 100 characters"},
	{"compact.item", LevelMust, "/tools/{toolId}?view=compact answers 200 with the tool's entry of the compact list"},
	{"compact.keywords", LevelMust, "a compact inputSchema uses none of $ref, oneOf, allOf, anyOf, not, patternProperties and dependentSchemas at any depth"},
	{"compact.list", LevelMust, `/tools?view=compact answers {"tools": [...]} of compact descriptors valid against compact-tool-list, with exactly the toolIds of /tools and the same safety fields`},
	{"cors.every-response", LevelMust, "every response of the checked origin (404s included) but the MCP catalog's own (see mcp-catalog.cors), with and without an Origin request header, has Access-Control-Allow-Origin: *, Access-Control-Allow-Methods with GET and Access-Control-Allow-Headers with Content-Type"},
	{"determinism.repeatable", LevelShould, "fetching a document twice gives the same bytes and the same ETag"},
	{"discovery.credentials", LevelMust, "catalogs and cards carry no credential material"},
	{"limits.body-size", LevelMust, "every body fits the size limit of the check"},
	{"limits.documents", LevelShould, "the whole site fits the document limit of the check"},
	{"mcp-catalog.cache", LevelShould, "the MCP catalog is served with Cache-Control: public, max-age=3600"},
	{"mcp-catalog.content-type", LevelMust, "/.well-known/mcp/catalog.json is served as application/json"},
	{"mcp-catalog.cors", LevelMust, "the MCP catalog, with and without an Origin request header, has Access-Control-Allow-Origin: *, Access-Control-Allow-Methods with GET and Access-Control-Allow-Headers with Content-Type"},
	{"mcp-catalog.entries", LevelMust, "the MCP catalog is a JSON object with an entries array; every entry has a string identifier, mediaType and url (absolute http or https)"},
	{"mcp-catalog.identifier", LevelMust, "every identifier is urn:mcp:server: followed by a server name"},
	{"mcp-catalog.media-type", LevelMust, "entries whose mediaType is not application/mcp-server+json are ignored: reported as skip and not fetched"},
	{"mcp-catalog.status", LevelShould, "/.well-known/mcp/catalog.json is published (200)"},
	{"tools.annotations", LevelMust, "every descriptor's annotations carry all four hints, derived from safetyTier, replayPolicy and egress"},
	{"tools.content-type", LevelMust, "every tool catalog document is served as application/json"},
	{"tools.credentials", LevelMust, "the tool lists carry no credential material"},
	{"tools.exec", LevelMust, `a tool with safetyTier "exec" has source "host-extension"`},
	{"tools.item", LevelMust, "/tools/{toolId} answers 200 with the tool's entry of /tools"},
	{"tools.list", LevelMust, "/tools is a JSON array of tool descriptors valid against tool-list (annotations and exec sources are left to their own rules)"},
	{"tools.sorted", LevelShould, "the tool lists are sorted by toolId"},
	{"tools.status", LevelMust, "/tools answers 200 (MUST when the AI catalog advertises the tool catalog, SHOULD otherwise)"},
	{"tools.unique-id", LevelMust, "toolIds are unique in /tools"},
	{"tools.unknown-id", LevelMust, "/tools/{toolId} of a toolId that cannot exist answers 404, in both views"},
	{"transport.https", LevelMust, "every origin is served over https; plain http only on loopback hosts (local development)"},
	{"view.unknown", LevelMust, "an unknown view (?view=zz) of /tools and of /tools/{toolId} answers the standard view"},
}

// CheckRules returns the rules Check applies, sorted by name.
func CheckRules() []CheckRule { return slices.Clone(checkRules) }

// CheckOptions bound a crawl. Zero values take the defaults.
type CheckOptions struct {
	// Client sends the requests; default a new http.Client. Check never
	// follows redirects: a redirect is reported as the status it is.
	Client *http.Client
	// MaxBodyBytes bounds each body (default 8 MiB); a longer one is a
	// limits.body-size failure, and the rules that need it are skipped.
	MaxBodyBytes int64
	// MaxDocuments bounds the number of documents fetched (default 5000).
	MaxDocuments int
	// Concurrency bounds the documents fetched at once (default 4).
	Concurrency int
	// Timeout bounds each request, body included (default 10s).
	Timeout time.Duration
}

// Defaults of CheckOptions.
const (
	checkDefaultMaxBody      = 8 << 20
	checkDefaultMaxDocuments = 5000
	checkDefaultConcurrency  = 4
	checkDefaultTimeout      = 10 * time.Second
)

// Probes: a toolId and a view that no site can have.
const (
	checkUnknownID   = "zz_signpost_check_unknown_0"
	checkUnknownView = "zz"
	checkOrigin      = "https://example.org"
	checkUserAgent   = "signpost-check/1"
)

// checkSchemaV1 is the $schema of a v1 server card.
const checkSchemaV1 = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// Check crawls the site at base as a discovery client would and applies
// every rule of CheckRules: both catalogs, every card they point at with a
// known media type, /tools, every /tools/{toolId}, both compact endpoints,
// an unknown toolId and an unknown view. Every request is made without and
// again with an Origin header, and every document once more with
// If-None-Match. base is an http or https URL; a path is a prefix of every
// route.
//
// Cards on another origin are checked as a client checks them (status,
// media type, name, v1 fields, https) but not against this site's header
// contract (CORS, caching), which that host does not owe it.
//
// Check returns an error only when base is not a usable URL or ctx ends;
// network failures, timeouts and oversized bodies are findings.
func Check(ctx context.Context, base string, opts CheckOptions) (*Report, error) {
	b, err := checkParseBase(base)
	if err != nil {
		return nil, err
	}
	v, err := checkValidator()
	if err != nil {
		return nil, err
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = checkDefaultMaxBody
	}
	if opts.MaxDocuments <= 0 {
		opts.MaxDocuments = checkDefaultMaxDocuments
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = checkDefaultConcurrency
	}
	if opts.Timeout <= 0 {
		opts.Timeout = checkDefaultTimeout
	}
	client := &http.Client{}
	if opts.Client != nil {
		copied := *opts.Client
		client = &copied
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	c := &checker{
		opts:      opts,
		client:    client,
		v:         v,
		base:      b.String(),
		origin:    checkOriginOf(b),
		budget:    opts.MaxDocuments,
		pages:     map[string]*checkPage{},
		tcCompact: -1,
	}
	c.run(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.report(), nil
}

var checkValidator = sync.OnceValues(schemas.NewValidator)

// checkParseBase checks base and returns it without a trailing slash.
func checkParseBase(base string) (*url.URL, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("check: %q is not a URL: %w", base, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("check: %q: want an http or https URL, such as https://example.com", base)
	case u.Host == "" || u.Opaque != "":
		return nil, fmt.Errorf("check: %q: the URL has no host", base)
	case u.User != nil:
		return nil, fmt.Errorf("check: %q: the URL must not carry a user name or password", base)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("check: %q: the URL must not have a query or fragment", base)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u, nil
}

// checkOriginOf is scheme://host[:port] in lower case, without a default port.
func checkOriginOf(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	return strings.ToLower(u.Scheme) + "://" + host
}

// What a page is, for the rules that differ by document.
type checkRole int

const (
	roleMCPCatalog checkRole = iota
	roleAICatalog
	roleCard
	roleTools
)

// checkResp is one response, its body read up to the size limit.
type checkResp struct {
	err    error
	status int
	header http.Header
	body   []byte
	tooBig bool
	tls    uint16
	// compressed is set when the response came content-encoded (the
	// client asked for gzip and decompressed it).
	compressed bool
}

// checkPage is one document and what fetching it showed.
type checkPage struct {
	url  string
	role checkRole
	// local is true on the checked origin, where the header contract holds.
	local bool
	checkResp
	// withOrigin is the same GET with an Origin header (local pages). Its
	// body is not kept: sameBytes says whether it was the plain GET's.
	withOrigin checkResp
	sameBytes  bool
	// cond is the GET with If-None-Match and the plain GET's ETag, made
	// when the plain GET was 200 with an ETag.
	cond *checkResp
}

// checker is one run of Check. Fetching is concurrent; everything after
// it runs on one goroutine.
type checker struct {
	opts   CheckOptions
	client *http.Client
	v      *schemas.Validator
	base   string
	origin string

	budget     int // documents still allowed
	notFetched int
	pages      map[string]*checkPage
	findings   []Finding

	// What the first stage learned.
	mcpCatalog, aiCatalog          any
	cards                          []checkCardRef
	tcAdvertised                   bool
	tcCompact                      int // -1: not said, 0: false, 1: true
	toolList                       []any
	toolIDs                        []string // valid, unique, sorted
	compactMode                    checkCompactMode
	compactList                    []any
	compactByID, toolByID          map[string]any
	compactLevel, toolsStatusLevel Level
}

type checkCompactMode int

const (
	compactOff      checkCompactMode = iota // not advertised; the standard view answers
	compactChecked                          // checked at compactLevel
	compactNotShown                         // not advertised and not served
)

// checkCardRef is a catalog entry that points at a card.
type checkCardRef struct {
	url        string
	catalog    string // the catalog's URL
	identifier string
	name       string // the server name the identifier gives; "" if it gives none
	mediaType  string // what the entry says the card is served as
}

func (c *checker) at(route string) string { return c.base + route }

func (c *checker) toolURL(id, view string) string {
	u := c.base + "/tools/" + url.PathEscape(id)
	if view != "" {
		u += "?view=" + url.QueryEscape(view)
	}
	return u
}

func (c *checker) run(ctx context.Context) {
	mcpURL, aiURL, toolsURL := c.at(spec.RouteMCPCatalog), c.at(spec.RouteAICatalog), c.at("/tools")
	type fetchSpec struct {
		url  string
		role checkRole
	}
	stage1 := []fetchSpec{
		{mcpURL, roleMCPCatalog},
		{aiURL, roleAICatalog},
		{toolsURL, roleTools},
		{toolsURL + "?view=" + spec.ViewCompact, roleTools},
		{toolsURL + "?view=" + checkUnknownView, roleTools},
		{c.toolURL(checkUnknownID, ""), roleTools},
		{c.toolURL(checkUnknownID, spec.ViewCompact), roleTools},
	}
	var pages []*checkPage
	for _, s := range stage1 {
		pages = append(pages, &checkPage{url: s.url, role: s.role, local: true})
	}
	c.fetch(ctx, pages)
	if ctx.Err() != nil {
		return
	}

	c.learnMCPCatalog(mcpURL)
	c.learnAICatalog(aiURL)
	c.learnTools(toolsURL)
	c.learnCompact(toolsURL + "?view=" + spec.ViewCompact)

	pages = nil
	seen := map[string]bool{}
	for _, r := range c.cards {
		if seen[r.url] {
			continue
		}
		seen[r.url] = true
		local := false
		if u, err := url.Parse(r.url); err == nil {
			local = checkOriginOf(u) == c.origin
		}
		pages = append(pages, &checkPage{url: r.url, role: roleCard, local: local})
	}
	ids := c.itemIDs()
	for _, id := range ids {
		pages = append(pages, &checkPage{url: c.toolURL(id, ""), role: roleTools, local: true})
	}
	if c.compactMode == compactChecked {
		for _, id := range ids {
			pages = append(pages, &checkPage{url: c.toolURL(id, spec.ViewCompact), role: roleTools, local: true})
		}
	}
	if len(ids) > 0 {
		pages = append(pages, &checkPage{url: c.toolURL(ids[0], checkUnknownView), role: roleTools, local: true})
	}
	c.fetch(ctx, pages)
	if ctx.Err() != nil {
		return
	}

	c.checkTransport()
	c.checkMCPCatalog(mcpURL)
	c.checkAICatalog(aiURL)
	c.checkCards()
	c.checkTools(toolsURL)
	c.checkCompact(toolsURL + "?view=" + spec.ViewCompact)
	c.checkUnknown(toolsURL, ids)
	c.checkHeaders()
	c.checkLimits()
}

// itemIDs are the toolIds whose documents are fetched: those of /tools, or
// of the compact list when /tools gave none.
func (c *checker) itemIDs() []string {
	if c.toolList != nil {
		return c.toolIDs
	}
	var ids []string
	for id := range c.compactByID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// fetch loads pages not loaded yet, in order, as far as the document
// budget allows. The budget is spent before any request is made, so which
// pages are left out does not depend on timing.
func (c *checker) fetch(ctx context.Context, pages []*checkPage) {
	var wg sync.WaitGroup
	// sem has a slot per page loading: the loop waits for a free one
	// before it starts a page, so at most Concurrency pages load at once.
	sem := make(chan struct{}, c.opts.Concurrency)
	for _, p := range pages {
		if _, ok := c.pages[p.url]; ok {
			continue
		}
		if c.budget == 0 {
			c.notFetched++
			continue
		}
		c.budget--
		c.pages[p.url] = p
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c.load(ctx, p)
		})
	}
	wg.Wait()
}

func (c *checker) load(ctx context.Context, p *checkPage) {
	if ctx.Err() != nil {
		p.err = ctx.Err()
		return
	}
	p.checkResp = c.get(ctx, p.url, "", "")
	if !p.local || p.err != nil {
		return
	}
	p.withOrigin = c.get(ctx, p.url, "Origin", checkOrigin)
	p.sameBytes = !p.tooBig && !p.withOrigin.tooBig && bytes.Equal(p.body, p.withOrigin.body)
	p.withOrigin.body = nil
	if etag := p.header.Get("ETag"); p.status == http.StatusOK && etag != "" {
		r := c.get(ctx, p.url, "If-None-Match", etag)
		r.body = nil
		p.cond = &r
	}
}

// get sends one GET, with one extra request header when name is not "".
func (c *checker) get(ctx context.Context, u, name, value string) checkResp {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return checkResp{err: err}
	}
	req.Header.Set("User-Agent", checkUserAgent)
	if name != "" {
		req.Header.Set(name, value)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return checkResp{err: err}
	}
	defer resp.Body.Close()
	r := checkResp{status: resp.StatusCode, header: resp.Header, compressed: resp.Uncompressed}
	if resp.TLS != nil {
		r.tls = resp.TLS.Version
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBodyBytes+1))
	switch {
	case int64(len(body)) > c.opts.MaxBodyBytes:
		r.tooBig = true
	case err != nil:
		r.err = fmt.Errorf("reading the body: %w", err)
	default:
		r.body = body
	}
	return r
}

// add records a finding of a rule at the rule's level.
func (c *checker) add(rule string, res Result, u, evidence, msg string) {
	c.addAt(rule, checkRuleLevel(rule), res, u, evidence, msg)
}

// addAt records a finding at the given level; a failure at LevelShould is a
// warning.
func (c *checker) addAt(rule string, level Level, res Result, u, evidence, msg string) {
	if res == ResultFail && level == LevelShould {
		res = ResultWarn
	}
	c.findings = append(c.findings, Finding{Rule: rule, Level: level, Result: res, URL: u, Evidence: checkOneLine(evidence), Message: msg})
}

func checkRuleLevel(rule string) Level {
	i, ok := slices.BinarySearchFunc(checkRules, rule, func(r CheckRule, name string) int { return strings.Compare(r.Name, name) })
	if !ok {
		panic("publish: unknown check rule " + rule)
	}
	return checkRules[i].Level
}

// skip records a skip finding for each rule.
func (c *checker) skip(u, msg string, rules ...string) {
	for _, r := range rules {
		c.add(r, ResultSkip, u, "", msg)
	}
}

// statusOf says whether p answered 200 and what it answered.
func (c *checker) statusOf(p *checkPage) (bool, string) {
	if p.err != nil {
		return false, "GET failed: " + checkErr(p.err, c.opts.Timeout)
	}
	ev := "status " + strconv.Itoa(p.status)
	if loc := p.header.Get("Location"); loc != "" {
		ev += ", Location: " + loc
	}
	return p.status == http.StatusOK, ev
}

// status applies a status rule to p (what names the document) and reports
// whether p answered 200.
func (c *checker) status(rule string, level Level, p *checkPage, what string) bool {
	ok, ev := c.statusOf(p)
	if ok {
		c.addAt(rule, level, ResultPass, p.url, ev, what+" answers 200")
	} else {
		c.addAt(rule, level, ResultFail, p.url, ev, what+" "+level.verb()+" answer 200")
	}
	return ok
}

// checkTooBig is the message of a rule skipped for an oversized body.
const checkTooBig = "body over the size limit (see limits.body-size)"

// contentType applies a content-type rule to p: its media type is want.
func (c *checker) contentType(rule string, p *checkPage, want string) {
	got := p.header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(got)
	ev := "Content-Type: " + got
	if got == "" {
		ev = "no Content-Type"
	}
	if err == nil && mt == want {
		c.add(rule, ResultPass, p.url, ev, "served as "+want)
		return
	}
	c.add(rule, ResultFail, p.url, ev, "must be served as "+want)
}

// decode parses p's body as one JSON value (numbers as json.Number).
func checkDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// decodedPage is the JSON of the fetched page u, when it answered 200 with
// a body within the limit that decodes.
func (c *checker) decodedPage(u string) (any, bool) {
	p := c.pages[u]
	if p == nil || p.err != nil || p.status != http.StatusOK || p.tooBig {
		return nil, false
	}
	doc, err := checkDecode(p.body)
	return doc, err == nil
}

// learnMCPCatalog decodes the MCP catalog and collects its card entries.
func (c *checker) learnMCPCatalog(u string) {
	doc, ok := c.decodedPage(u)
	if !ok {
		return
	}
	c.mcpCatalog = doc
	obj, _ := doc.(map[string]any)
	entries, _ := obj["entries"].([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		mt, _ := m["mediaType"].(string)
		cardURL, _ := m["url"].(string)
		id, _ := m["identifier"].(string)
		if mt != spec.ContentTypeServerCardDraft || !checkAbsURL(cardURL) {
			continue
		}
		name, _ := strings.CutPrefix(id, "urn:mcp:server:")
		if name == id {
			name = ""
		}
		c.cards = append(c.cards, checkCardRef{url: cardURL, catalog: u, identifier: id, name: name, mediaType: mt})
	}
}

// learnAICatalog decodes the AI catalog, collects its card entries and
// reads its tool catalog advertisement.
func (c *checker) learnAICatalog(u string) {
	c.toolsStatusLevel = LevelShould
	doc, ok := c.decodedPage(u)
	if !ok {
		return
	}
	c.aiCatalog = doc
	obj, _ := doc.(map[string]any)
	entries, _ := obj["entries"].([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		id, _ := m["identifier"].(string)
		switch {
		case typ == spec.ContentTypeServerCardDraft || typ == spec.ContentTypeServerCardV1:
			cardURL, _ := m["url"].(string)
			if _, inline := m["data"]; inline || !checkAbsURL(cardURL) {
				continue
			}
			_, name := checkAIName(id)
			c.cards = append(c.cards, checkCardRef{url: cardURL, catalog: u, identifier: id, name: name, mediaType: typ})
		case checkToolCatalogEntry(m) != nil && !c.tcAdvertised:
			c.tcAdvertised = true
			c.toolsStatusLevel = LevelMust
			switch checkToolCatalogEntry(m)["compactView"] {
			case true:
				c.tcCompact = 1
			case false:
				c.tcCompact = 0
			}
		}
	}
	slices.SortFunc(c.cards, func(a, b checkCardRef) int {
		return cmp.Or(strings.Compare(a.url, b.url), strings.Compare(a.catalog, b.catalog), strings.Compare(a.identifier, b.identifier))
	})
}

// checkToolCatalogEntry returns the toolCatalog object of an AI catalog
// entry that advertises a tool catalog, nil for other entries.
func checkToolCatalogEntry(m map[string]any) map[string]any {
	if typ, _ := m["type"].(string); typ != spec.ContentTypeJSON {
		return nil
	}
	data, _ := m["data"].(map[string]any)
	tc, _ := data["toolCatalog"].(map[string]any)
	return tc
}

// checkAIName splits an AI catalog MCP identifier, urn:air:DOMAIN:mcp:NAME.
func checkAIName(id string) (domain, name string) {
	rest, ok := strings.CutPrefix(id, "urn:air:")
	if !ok {
		return "", ""
	}
	domain, name, ok = strings.Cut(rest, ":mcp:")
	if !ok || domain == "" || strings.Contains(domain, ":") || name == "" {
		return "", ""
	}
	return domain, name
}

func checkAbsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// learnTools decodes /tools.
func (c *checker) learnTools(u string) {
	doc, _ := c.decodedPage(u)
	list, ok := doc.([]any)
	if !ok {
		return
	}
	c.toolList = list
	c.toolByID = map[string]any{}
	for _, e := range list {
		m, _ := e.(map[string]any)
		id, _ := m["toolId"].(string)
		if id == "" {
			continue
		}
		if _, dup := c.toolByID[id]; !dup {
			c.toolByID[id] = e
			c.toolIDs = append(c.toolIDs, id)
		}
	}
	slices.Sort(c.toolIDs)
}

// learnCompact decides how the compact view is checked and decodes its list.
func (c *checker) learnCompact(u string) {
	c.compactLevel = LevelShould
	if c.tcCompact == 1 {
		c.compactLevel = LevelMust
	}
	p := c.pages[u]
	var doc any
	if p != nil && p.err == nil && p.status == http.StatusOK && !p.tooBig {
		doc, _ = checkDecode(p.body)
	}
	_, isList := doc.([]any)
	obj, isObj := doc.(map[string]any)
	switch {
	case c.tcCompact == 1 || isObj:
		c.compactMode = compactChecked
	case isList:
		c.compactMode = compactOff
	default:
		c.compactMode = compactNotShown
	}
	list, _ := obj["tools"].([]any)
	c.compactList = list
	c.compactByID = map[string]any{}
	for _, e := range list {
		m, _ := e.(map[string]any)
		if id, _ := m["toolId"].(string); id != "" {
			if _, dup := c.compactByID[id]; !dup {
				c.compactByID[id] = e
			}
		}
	}
}

// checkTransport applies transport.https to the checked origin and to every
// other origin a card was fetched from.
func (c *checker) checkTransport() {
	tls := map[string]uint16{}
	origins := map[string]string{c.origin: c.base}
	for _, p := range c.pages {
		u, err := url.Parse(p.url)
		if err != nil {
			continue
		}
		o := checkOriginOf(u)
		if _, ok := origins[o]; !ok {
			origins[o] = o
		}
		if p.tls != 0 && (tls[o] == 0 || p.tls < tls[o]) {
			tls[o] = p.tls
		}
	}
	for o, place := range origins {
		u, _ := url.Parse(o)
		switch {
		case u.Scheme == "https" && tls[o] != 0 && tls[o] < 0x0303:
			c.add("transport.https", ResultFail, place, "TLS version 0x"+strconv.FormatUint(uint64(tls[o]), 16), "must use TLS 1.2 or later")
		case u.Scheme == "https":
			ev := "https"
			if v := tls[o]; v != 0 {
				ev += ", TLS 1." + strconv.Itoa(int(v)-0x0301)
			}
			c.add("transport.https", ResultPass, place, ev, "served over https")
		case spec.IsLoopbackHost(u.Hostname()):
			c.add("transport.https", ResultPass, place, "http on loopback host "+u.Hostname(), "plain http is allowed on a loopback host, for local development")
		default:
			c.add("transport.https", ResultFail, place, "http://"+u.Host, "must be served over https (plain http only on loopback hosts)")
		}
	}
}

func (c *checker) checkMCPCatalog(u string) {
	p := c.pages[u]
	if p == nil {
		return
	}
	if !c.status("mcp-catalog.status", LevelShould, p, "the MCP catalog") {
		c.skip(u, "the MCP catalog is not served", "mcp-catalog.content-type", "mcp-catalog.entries", "mcp-catalog.identifier", "mcp-catalog.media-type", "mcp-catalog.cache", "mcp-catalog.cors")
		return
	}
	c.contentType("mcp-catalog.content-type", p, spec.ContentTypeJSON)
	if p.tooBig {
		c.skip(u, checkTooBig, "mcp-catalog.entries", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	if c.mcpCatalog == nil {
		_, err := checkDecode(p.body)
		c.add("mcp-catalog.entries", ResultFail, u, "invalid JSON: "+err.Error(), "the MCP catalog must be a JSON object")
		c.skip(u, "the MCP catalog is not JSON", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	c.credentials("discovery.credentials", u, c.mcpCatalog)
	obj, ok := c.mcpCatalog.(map[string]any)
	entries, isArray := obj["entries"].([]any)
	if !ok || !isArray {
		ev := "top level is " + schemas.KindOf(c.mcpCatalog)
		if ok {
			ev = "/entries: " + schemas.KindOf(obj["entries"])
		}
		c.add("mcp-catalog.entries", ResultFail, u, ev, "the MCP catalog must be a JSON object with an entries array")
		c.skip(u, "the MCP catalog has no entries array", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	var shape, ids []string
	for i, e := range entries {
		ptr := "/entries/" + strconv.Itoa(i)
		m, ok := e.(map[string]any)
		if !ok {
			shape = append(shape, ptr+": "+schemas.KindOf(e)+", want an object")
			continue
		}
		for _, k := range []string{"identifier", "mediaType", "url"} {
			if s, ok := m[k].(string); !ok || s == "" {
				shape = append(shape, ptr+"/"+k+": "+checkShow(m[k])+", want a string")
			}
		}
		if s, ok := m["url"].(string); ok && s != "" && !checkAbsURL(s) {
			shape = append(shape, ptr+"/url: "+checkShow(s)+", want an absolute http or https URL")
		}
		id, _ := m["identifier"].(string)
		if name, ok := strings.CutPrefix(id, "urn:mcp:server:"); !ok || name == "" {
			ids = append(ids, ptr+"/identifier: "+checkShow(m["identifier"]))
		}
		place := u + "#" + ptr
		if s, ok := m["url"].(string); ok && s != "" {
			place = s
		}
		if mt, _ := m["mediaType"].(string); mt == spec.ContentTypeServerCardDraft {
			c.add("mcp-catalog.media-type", ResultPass, place, "mediaType "+mt, "a server card entry: its card is fetched")
		} else {
			c.add("mcp-catalog.media-type", ResultSkip, place, "mediaType "+checkShow(m["mediaType"]), "not "+spec.ContentTypeServerCardDraft+": ignored, as clients must, and not fetched")
		}
	}
	c.problems("mcp-catalog.entries", u, shape, fmt.Sprintf("%d entries, each with identifier, mediaType and url", len(entries)), "every entry is well formed", "every entry must have a string identifier, mediaType and url")
	c.problems("mcp-catalog.identifier", u, ids, fmt.Sprintf("%d identifiers, each urn:mcp:server:NAME", len(entries)), "every identifier names a server", "every identifier must be urn:mcp:server: followed by the server name")
	if len(entries) == 0 {
		c.add("mcp-catalog.media-type", ResultSkip, u, "no entries", "the catalog lists no servers")
	}
}

// problems records one finding of a rule at u: pass (passEv, passMsg)
// when there are no problems, else fail with the first problem as evidence.
func (c *checker) problems(rule, u string, probs []string, passEv, passMsg, failMsg string) {
	c.problemsAt(rule, checkRuleLevel(rule), u, probs, passEv, passMsg, failMsg)
}

func (c *checker) problemsAt(rule string, level Level, u string, probs []string, passEv, passMsg, failMsg string) {
	if len(probs) == 0 {
		c.addAt(rule, level, ResultPass, u, passEv, passMsg)
		return
	}
	msg := failMsg
	if len(probs) > 1 {
		msg += fmt.Sprintf(" (%d problems; the first is shown)", len(probs))
	}
	c.addAt(rule, level, ResultFail, u, probs[0], msg)
}

func (c *checker) checkAICatalog(u string) {
	p := c.pages[u]
	if p == nil {
		return
	}
	if !c.status("ai-catalog.status", LevelShould, p, "the AI catalog") {
		c.skip(u, "the AI catalog is not served", "ai-catalog.content-type", "ai-catalog.spec-version", "ai-catalog.entries", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	c.contentType("ai-catalog.content-type", p, spec.ContentTypeAICatalog)
	if p.tooBig {
		c.skip(u, checkTooBig, "ai-catalog.spec-version", "ai-catalog.entries", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	if c.aiCatalog == nil {
		_, err := checkDecode(p.body)
		c.add("ai-catalog.entries", ResultFail, u, "invalid JSON: "+err.Error(), "the AI catalog must be a JSON object")
		c.skip(u, "the AI catalog is not JSON", "ai-catalog.spec-version", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	c.credentials("discovery.credentials", u, c.aiCatalog)
	obj, ok := c.aiCatalog.(map[string]any)
	if sv, _ := obj["specVersion"].(string); sv == "1.0" {
		c.add("ai-catalog.spec-version", ResultPass, u, `specVersion "1.0"`, "the AI Catalog version is 1.0")
	} else {
		c.add("ai-catalog.spec-version", ResultFail, u, "specVersion "+checkShow(obj["specVersion"]), `specVersion must be "1.0"`)
	}
	entries, isArray := obj["entries"].([]any)
	if !ok || !isArray {
		ev := "top level is " + schemas.KindOf(c.aiCatalog)
		if ok {
			ev = "/entries: " + schemas.KindOf(obj["entries"])
		}
		c.add("ai-catalog.entries", ResultFail, u, ev, "the AI catalog must be a JSON object with an entries array")
		c.skip(u, "the AI catalog has no entries array", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	host, _ := obj["host"].(map[string]any)
	domain, _ := host["domain"].(string)
	var shape, ids []string
	seen := map[string]string{}
	for i, e := range entries {
		ptr := "/entries/" + strconv.Itoa(i)
		m, ok := e.(map[string]any)
		if !ok {
			shape = append(shape, ptr+": "+schemas.KindOf(e)+", want an object")
			continue
		}
		for _, k := range []string{"identifier", "type"} {
			if s, ok := m[k].(string); !ok || s == "" {
				shape = append(shape, ptr+"/"+k+": "+checkShow(m[k])+", want a string")
			}
		}
		_, hasURL := m["url"]
		_, hasData := m["data"]
		if hasURL == hasData {
			shape = append(shape, ptr+": has "+map[bool]string{true: "both url and data", false: "neither url nor data"}[hasURL]+", want exactly one")
		}
		if s, ok := m["url"].(string); hasURL && (!ok || !checkAbsURL(s)) {
			shape = append(shape, ptr+"/url: "+checkShow(m["url"])+", want an absolute http or https URL")
		}
		typ, _ := m["type"].(string)
		id, _ := m["identifier"].(string)
		if id != "" {
			if first, dup := seen[id]; dup {
				ids = append(ids, ptr+"/identifier: "+checkShow(id)+" repeats "+first)
			}
			seen[id] = ptr
		}
		place := u + "#" + ptr
		if s, ok := m["url"].(string); ok && s != "" {
			place = s
		}
		switch {
		case typ == spec.ContentTypeServerCardDraft || typ == spec.ContentTypeServerCardV1:
			if d, name := checkAIName(id); name == "" {
				ids = append(ids, ptr+"/identifier: "+checkShow(m["identifier"])+", want urn:air:DOMAIN:mcp:NAME")
			} else if domain != "" && d != domain {
				ids = append(ids, ptr+"/identifier: "+checkShow(id)+", DOMAIN is not the host's domain "+domain)
			}
			if hasData {
				c.add("ai-catalog.media-type", ResultPass, place, "type "+typ+", inline data", "a server card entry, inline")
				c.inlineCard(u, ptr, id, m["data"])
			} else {
				c.add("ai-catalog.media-type", ResultPass, place, "type "+typ, "a server card entry: its card is fetched")
			}
		case checkToolCatalogEntry(m) != nil:
			tc := checkToolCatalogEntry(m)
			if s, ok := tc["url"].(string); !ok || !checkAbsURL(s) {
				shape = append(shape, ptr+"/data/toolCatalog/url: "+checkShow(tc["url"])+", want an absolute http or https URL")
			}
			if _, ok := tc["compactView"].(bool); !ok {
				shape = append(shape, ptr+"/data/toolCatalog/compactView: "+checkShow(tc["compactView"])+", want a boolean")
			}
			c.add("ai-catalog.media-type", ResultPass, place, "type "+typ+", data.toolCatalog", "the tool catalog's advertisement")
		default:
			c.add("ai-catalog.media-type", ResultSkip, place, "type "+checkShow(m["type"]), "a type this check does not know: ignored, as clients must, and not fetched")
		}
	}
	c.problems("ai-catalog.entries", u, shape, fmt.Sprintf("%d entries, each with identifier, type and one of url or data", len(entries)), "every entry is well formed", "every entry must have an identifier, a type and exactly one of url or data")
	c.problems("ai-catalog.identifier", u, ids, fmt.Sprintf("%d unique identifiers", len(entries)), "identifiers are unique and well formed", "identifiers must be unique, and an MCP server's must be urn:air:DOMAIN:mcp:NAME")
	if len(entries) == 0 {
		c.add("ai-catalog.media-type", ResultSkip, u, "no entries", "the catalog lists nothing")
	}
}

// inlineCard checks a card given inline as an AI catalog entry's data.
func (c *checker) inlineCard(catalogURL, ptr, id string, data any) {
	place := catalogURL + "#" + ptr + "/data"
	_, want := checkAIName(id)
	m, _ := data.(map[string]any)
	if name, _ := m["name"].(string); want != "" && name == want {
		c.add("card.name", ResultPass, place, "name "+checkShow(name)+", identifier "+id, "the name is the identifier's")
	} else {
		c.add("card.name", ResultFail, place, "name "+checkShow(m["name"])+", identifier "+id, "the card's name must be the server name of its identifier")
	}
}

// checkCards applies the card rules to every card entry. A URL listed by
// both catalogs is fetched once and checked for each entry; identical
// findings are merged in the report.
func (c *checker) checkCards() {
	for _, r := range c.cards {
		p := c.pages[r.url]
		if p == nil {
			continue
		}
		if !c.status("card.status", LevelMust, p, "the card") {
			c.skip(r.url, "the card is not served", "card.content-type", "card.name")
			continue
		}
		c.contentType("card.content-type", p, r.mediaType)
		if p.tooBig {
			c.skip(r.url, checkTooBig, "card.name")
			continue
		}
		c.cardBody(r, p)
	}
}

func (c *checker) cardBody(r checkCardRef, p *checkPage) {
	doc, err := checkDecode(p.body)
	if err != nil {
		c.add("card.name", ResultFail, r.url, "invalid JSON: "+err.Error(), "a card must be a JSON object")
		return
	}
	c.credentials("discovery.credentials", r.url, doc)
	m, _ := doc.(map[string]any)
	name, _ := m["name"].(string)
	switch {
	case r.name == "":
		c.add("card.name", ResultSkip, r.url, "identifier "+checkShow(r.identifier), "the identifier names no server (see the catalog's identifier rule)")
	case name == r.name:
		c.add("card.name", ResultPass, r.url, "name "+checkShow(name)+", identifier "+r.identifier, "the name is the identifier's")
	default:
		c.add("card.name", ResultFail, r.url, "name "+checkShow(m["name"])+", identifier "+r.identifier, "the card's name must be the server name of its identifier")
	}
	if r.mediaType != spec.ContentTypeServerCardV1 {
		return
	}
	var probs []string
	if s, _ := m["$schema"].(string); s != checkSchemaV1 {
		probs = append(probs, "/$schema: "+checkShow(m["$schema"])+", want "+checkSchemaV1)
	}
	for _, k := range []string{"name", "version", "description"} {
		if s, ok := m[k].(string); !ok || s == "" {
			probs = append(probs, "/"+k+": "+checkShow(m[k])+", want a non-empty string")
		}
	}
	if s, ok := m["description"].(string); ok && utf8.RuneCountInString(s) > 100 {
		probs = append(probs, fmt.Sprintf("/description: %d characters, want at most 100", utf8.RuneCountInString(s)))
	}
	c.problems("card.v1-schema", r.url, probs, "$schema v1, name, version and description present", "the v1 card has its required fields", "a v1 card must have the v1 $schema, a name, a version and a description of at most 100 characters")
}

// checkTools applies the rules of /tools and /tools/{toolId}.
func (c *checker) checkTools(u string) {
	p := c.pages[u]
	listRules := []string{"tools.list", "tools.sorted", "tools.unique-id", "tools.exec", "tools.annotations", "tools.credentials"}
	if p == nil {
		return
	}
	if !c.status("tools.status", c.toolsStatusLevel, p, "the tool list") {
		c.skip(u, "the tool list is not served", listRules...)
		return
	}
	if p.tooBig {
		c.skip(u, checkTooBig, listRules...)
		return
	}
	if c.toolList == nil {
		doc, err := checkDecode(p.body)
		ev := "top level is " + schemas.KindOf(doc)
		if err != nil {
			ev = "invalid JSON: " + err.Error()
		}
		c.add("tools.list", ResultFail, u, ev, "/tools must be a JSON array of tool descriptors")
		c.skip(u, "the tool list is not a JSON array", listRules[1:]...)
		return
	}
	// Validate a copy in which what the dedicated rules check is made
	// right, so that each problem is reported once, under its own rule.
	dup, _ := checkDecode(p.body)
	for _, e := range dup.([]any) {
		checkFixDescriptor(e, true)
	}
	c.violations("tools.list", LevelMust, u, c.v.Validate("tool-list", dup), fmt.Sprintf("%d descriptors valid against tool-list", len(c.toolList)), "/tools is a valid tool list", "every descriptor must be valid against the tool-descriptor schema")
	c.sorted(u, c.toolList, "")
	var dups []string
	seen := map[string]int{}
	for i, e := range c.toolList {
		m, _ := e.(map[string]any)
		id, ok := m["toolId"].(string)
		if !ok {
			continue
		}
		if j, dup := seen[id]; dup {
			dups = append(dups, fmt.Sprintf("/%d/toolId %s repeats /%d", i, checkShow(id), j))
		}
		seen[id] = i
	}
	c.problems("tools.unique-id", u, dups, fmt.Sprintf("%d unique toolIds", len(seen)), "every toolId is unique", "toolIds must be unique")
	c.exec(u, c.toolList, "")
	c.annotations(u)
	c.credentials("tools.credentials", u, c.toolList)

	for _, id := range c.toolIDs {
		if ip := c.pages[c.toolURL(id, "")]; ip != nil {
			c.item("tools.item", LevelMust, ip, c.toolByID[id], "", "/tools")
		}
	}
}

// item checks a /tools/{toolId} document, in one finding: 200 and equal
// to its list entry, or, when the list has none, valid against schema.
func (c *checker) item(rule string, level Level, p *checkPage, entry any, schema, list string) {
	ok, ev := c.statusOf(p)
	switch {
	case !ok:
		c.addAt(rule, level, ResultFail, p.url, ev, "the tool's document "+level.verb()+" answer 200")
		return
	case p.tooBig:
		c.addAt(rule, level, ResultSkip, p.url, ev, checkTooBig)
		return
	}
	doc, err := checkDecode(p.body)
	if err != nil {
		c.addAt(rule, level, ResultFail, p.url, "invalid JSON: "+err.Error(), "the tool's document "+level.verb()+" be its descriptor")
		return
	}
	// The lists are scanned for credentials; a tool's own document gets a
	// finding only when it carries some.
	if probs := checkSecrets(doc); len(probs) > 0 {
		c.problems("tools.credentials", p.url, probs, "", "", "published documents must not carry credential material")
	}
	if entry == nil {
		checkFixDescriptor(doc, schema == "tool-descriptor")
		c.violations(rule, level, p.url, c.v.Validate(schema, doc), "200, valid against "+schema, "a valid descriptor (the list has no entry to compare it with)", "the tool's document "+level.verb()+" be a valid descriptor")
		return
	}
	if d := checkDiff(doc, entry, ""); d != "" {
		c.addAt(rule, level, ResultFail, p.url, d+" (there: "+list+")", "the tool's document "+level.verb()+" equal its entry in "+list)
		return
	}
	c.addAt(rule, level, ResultPass, p.url, "200, equal to its entry in "+list, "the tool's document is its list entry")
}

// violations records one finding from schema violations.
func (c *checker) violations(rule string, level Level, u string, vs []schemas.Violation, passEv, passMsg, failMsg string) {
	var probs []string
	for _, v := range vs {
		probs = append(probs, checkPtr(v.Pointer)+": "+v.Message)
	}
	c.problemsAt(rule, level, u, probs, passEv, passMsg, failMsg)
}

func checkPtr(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// checkFixDescriptor makes right, in a decoded descriptor, what
// tools.annotations, tools.exec and compact.keywords check: derived
// annotations (standard view), the source of exec tools and the compact
// schema keywords (compact view).
func checkFixDescriptor(e any, standard bool) {
	m, ok := e.(map[string]any)
	if !ok {
		return
	}
	if m["safetyTier"] == spec.TierExec {
		if s, ok := m["source"].(string); ok && (s == spec.SourceMCP || s == spec.SourceOpenAPI) {
			m["source"] = spec.SourceHostExtension
		}
	}
	if standard {
		if _, ok := m["annotations"]; ok || m["safetyTier"] != nil {
			tier, _ := m["safetyTier"].(string)
			replay, _ := m["replayPolicy"].(string)
			egress, _ := m["egress"].(string)
			a := spec.Derive(tier, replay, egress)
			m["annotations"] = map[string]any{"readOnlyHint": a.ReadOnlyHint, "destructiveHint": a.DestructiveHint, "idempotentHint": a.IdempotentHint, "openWorldHint": a.OpenWorldHint}
		}
		return
	}
	checkWalkSchema(m["inputSchema"], "", func(s map[string]any, _ string) {
		for _, k := range checkCompactForbidden {
			delete(s, k)
		}
	})
}

// sorted applies tools.sorted to a list (ptr is the list's pointer).
func (c *checker) sorted(u string, list []any, ptr string) {
	prev, prevAt := "", -1
	for i, e := range list {
		m, _ := e.(map[string]any)
		id, ok := m["toolId"].(string)
		if !ok {
			continue
		}
		if prevAt >= 0 && id < prev {
			c.add("tools.sorted", ResultFail, u, fmt.Sprintf("%s/%d/toolId %s after %s", ptr, i, checkShow(id), checkShow(prev)), "the list should be sorted by toolId")
			return
		}
		prev, prevAt = id, i
	}
	c.add("tools.sorted", ResultPass, u, fmt.Sprintf("%d tools in toolId order", len(list)), "sorted by toolId")
}

// exec applies tools.exec to a list.
func (c *checker) exec(u string, list []any, ptr string) {
	var probs []string
	n := 0
	for i, e := range list {
		m, _ := e.(map[string]any)
		if m["safetyTier"] != spec.TierExec {
			continue
		}
		n++
		if m["source"] != spec.SourceHostExtension {
			probs = append(probs, fmt.Sprintf("%s/%d: safetyTier exec, source %s", ptr, i, checkShow(m["source"])))
		}
	}
	c.problems("tools.exec", u, probs, fmt.Sprintf("%d exec tools, all host-extension", n), "exec only with source host-extension", `a tool with safetyTier "exec" must have source "host-extension"`)
}

// annotations applies tools.annotations to /tools.
func (c *checker) annotations(u string) {
	var probs []string
	for i, e := range c.toolList {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		ptr := "/" + strconv.Itoa(i) + "/annotations"
		a, ok := m["annotations"].(map[string]any)
		if !ok {
			probs = append(probs, ptr+": "+checkShow(m["annotations"])+", want an object with all four hints")
			continue
		}
		tier, _ := m["safetyTier"].(string)
		replay, _ := m["replayPolicy"].(string)
		egress, _ := m["egress"].(string)
		// The hints as the build derives them; a hint is judged only when
		// the field that decides it holds a known value.
		d := spec.Derive(tier, replay, egress)
		knownTier := slices.Contains(spec.Tiers[:], tier)
		want := []struct {
			hint  string
			field string
			value string
			known bool
			is    bool
		}{
			{"readOnlyHint", "safetyTier", tier, knownTier, d.ReadOnlyHint},
			{"destructiveHint", "safetyTier", tier, knownTier, d.DestructiveHint},
			{"idempotentHint", "replayPolicy", replay, slices.Contains(spec.ReplayPolicies[:], replay), d.IdempotentHint},
			{"openWorldHint", "egress", egress, slices.Contains(spec.Egresses[:], egress), d.OpenWorldHint},
		}
		for _, w := range want {
			got, ok := a[w.hint].(bool)
			switch {
			case !ok:
				probs = append(probs, ptr+"/"+w.hint+": "+checkShow(a[w.hint])+", want a boolean")
			case w.known && got != w.is:
				probs = append(probs, fmt.Sprintf("%s/%s: %t, but %s %s makes it %t", ptr, w.hint, got, w.field, w.value, w.is))
			}
		}
	}
	c.problems("tools.annotations", u, probs, fmt.Sprintf("%d descriptors, hints derived from the safety fields", len(c.toolList)), "all four hints, derived from the safety fields", "annotations must carry all four hints, derived from safetyTier, replayPolicy and egress")
}

// checkCompact applies the compact view's rules.
func (c *checker) checkCompact(u string) {
	p := c.pages[u]
	if p == nil {
		return
	}
	switch c.compactMode {
	case compactOff:
		c.addAt("compact.list", LevelShould, ResultSkip, u, "a JSON array", "the compact view is not advertised, and the standard view answers, as allowed")
		c.skip(u, "the compact view is not served", "compact.item", "compact.keywords")
		return
	case compactNotShown:
		ev := "status " + strconv.Itoa(p.status)
		if p.err != nil {
			ev = "GET failed: " + checkErr(p.err, c.opts.Timeout)
		} else if p.tooBig {
			ev = "body over the size limit"
		} else if p.status == http.StatusOK {
			ev = "neither a JSON array nor a JSON object"
		}
		c.addAt("compact.list", LevelShould, ResultFail, u, ev, "the compact view is not advertised, so the standard view should answer")
		c.skip(u, "the compact view is not served", "compact.item", "compact.keywords")
		return
	}
	level := c.compactLevel
	switch ok, ev := c.statusOf(p); {
	case !ok:
		c.addAt("compact.list", level, ResultFail, u, ev, "the compact list "+level.verb()+" answer 200")
		c.skip(u, "the compact list is not served", "compact.keywords")
	case p.tooBig:
		c.addAt("compact.list", level, ResultSkip, u, ev, checkTooBig)
		c.skip(u, checkTooBig, "compact.keywords")
	default:
		c.compactListBody(u, p, level)
	}
	for _, id := range c.itemIDs() {
		ip := c.pages[c.toolURL(id, spec.ViewCompact)]
		if ip == nil {
			continue
		}
		entry := c.compactByID[id]
		c.item("compact.item", level, ip, entry, "compact-tool-descriptor", "/tools?view=compact")
		if ip.err == nil && ip.status == http.StatusOK && !ip.tooBig {
			if doc, err := checkDecode(ip.body); err == nil {
				m, _ := doc.(map[string]any)
				c.keywords(ip.url, []any{m["inputSchema"]}, "/inputSchema", false)
			}
		}
	}
}

// compactListBody checks the body of the compact list.
func (c *checker) compactListBody(u string, p *checkPage, level Level) {
	doc, err := checkDecode(p.body)
	if err != nil {
		c.addAt("compact.list", level, ResultFail, u, "invalid JSON: "+err.Error(), level.verb()+` be {"tools": [...]}`)
		c.skip(u, "the compact list is not JSON", "compact.keywords")
		return
	}
	if c.compactList == nil {
		ev := "top level is " + schemas.KindOf(doc)
		if m, ok := doc.(map[string]any); ok {
			ev = "/tools: " + schemas.KindOf(m["tools"])
		}
		c.addAt("compact.list", level, ResultFail, u, ev, level.verb()+` be {"tools": [...]} of compact descriptors`)
		c.skip(u, "the compact list has no tools array", "compact.keywords")
		return
	}
	fixed, _ := checkDecode(p.body)
	for _, e := range fixed.(map[string]any)["tools"].([]any) {
		checkFixDescriptor(e, false)
	}
	var probs []string
	for _, v := range c.v.Validate("compact-tool-list", fixed) {
		probs = append(probs, checkPtr(v.Pointer)+": "+v.Message)
	}
	if c.toolList != nil {
		seen := map[string]bool{}
		for i, e := range c.compactList {
			m, _ := e.(map[string]any)
			id, ok := m["toolId"].(string)
			if !ok {
				continue
			}
			ptr := "/tools/" + strconv.Itoa(i)
			std, _ := c.toolByID[id].(map[string]any)
			switch {
			case seen[id]:
				probs = append(probs, ptr+"/toolId: "+checkShow(id)+" repeats")
			case std == nil:
				probs = append(probs, ptr+"/toolId: "+checkShow(id)+" is not in /tools")
			default:
				for _, f := range []string{"source", "safetyTier", "replayPolicy", "egress"} {
					if m[f] != std[f] {
						probs = append(probs, fmt.Sprintf("%s/%s: %s, /tools says %s", ptr, f, checkShow(m[f]), checkShow(std[f])))
					}
				}
			}
			seen[id] = true
		}
		for _, id := range c.toolIDs {
			if !seen[id] {
				probs = append(probs, "/tools: no "+checkShow(id)+", which /tools lists")
			}
		}
	}
	c.problemsAt("compact.list", level, u, probs, fmt.Sprintf(`{"tools": [...]} of %d compact descriptors, the toolIds of /tools`, len(c.compactList)), "the compact view of the tools of /tools", level.verb()+" be the compact descriptors of exactly the tools of /tools")
	c.sorted(u, c.compactList, "/tools")
	c.exec(u, c.compactList, "/tools")
	c.credentials("tools.credentials", u, c.compactList)
	var inputs []any
	for _, e := range c.compactList {
		m, _ := e.(map[string]any)
		inputs = append(inputs, m["inputSchema"])
	}
	c.keywords(u, inputs, "/tools", true)
}

// The keywords a compact inputSchema must not use.
var checkCompactForbidden = []string{"$ref", "oneOf", "allOf", "anyOf", "not", "patternProperties", "dependentSchemas"}

// keywords applies compact.keywords to input schemas; in a list, schema i
// is at ptr/i/inputSchema, else at ptr.
func (c *checker) keywords(u string, inputs []any, ptr string, list bool) {
	var probs []string
	for i, s := range inputs {
		at := ptr
		if list {
			at = ptr + "/" + strconv.Itoa(i) + "/inputSchema"
		}
		checkWalkSchema(s, at, func(m map[string]any, p string) {
			for _, k := range checkCompactForbidden {
				if _, ok := m[k]; ok {
					probs = append(probs, p+"/"+checkEscape(k)+" is used")
				}
			}
		})
	}
	c.problems("compact.keywords", u, probs, "no $ref, oneOf, allOf, anyOf, not, patternProperties or dependentSchemas", "compact input schemas use no forbidden keyword", "a compact inputSchema must not use $ref, oneOf, allOf, anyOf, not, patternProperties or dependentSchemas")
}

// checkWalkSchema calls visit for s and every subschema of s (JSON objects
// in schema positions), depth first, keys in order. visit may delete keys
// of the object it is given: their subschemas are then not visited.
func checkWalkSchema(s any, ptr string, visit func(m map[string]any, ptr string)) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	visit(m, ptr)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		at := ptr + "/" + checkEscape(k)
		switch k {
		case "additionalProperties", "additionalItems", "contains", "propertyNames", "if", "then", "else", "not",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema", "items":
			if arr, ok := v.([]any); ok && k == "items" {
				for i, x := range arr {
					checkWalkSchema(x, at+"/"+strconv.Itoa(i), visit)
				}
				continue
			}
			checkWalkSchema(v, at, visit)
		case "prefixItems", "allOf", "anyOf", "oneOf":
			arr, _ := v.([]any)
			for i, x := range arr {
				checkWalkSchema(x, at+"/"+strconv.Itoa(i), visit)
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			sub, _ := v.(map[string]any)
			names := make([]string, 0, len(sub))
			for n := range sub {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				checkWalkSchema(sub[n], at+"/"+checkEscape(n), visit)
			}
		}
	}
}

// checkUnknown applies tools.unknown-id and view.unknown.
func (c *checker) checkUnknown(toolsURL string, ids []string) {
	for _, view := range []string{"", spec.ViewCompact} {
		p := c.pages[c.toolURL(checkUnknownID, view)]
		switch {
		case p == nil:
		case p.err != nil:
			c.add("tools.unknown-id", ResultFail, p.url, "GET failed: "+checkErr(p.err, c.opts.Timeout), "an unknown toolId must answer 404")
		case p.status == http.StatusNotFound:
			c.add("tools.unknown-id", ResultPass, p.url, "status 404", "an unknown toolId answers 404")
		default:
			c.add("tools.unknown-id", ResultFail, p.url, "status "+strconv.Itoa(p.status), "an unknown toolId must answer 404")
		}
	}

	// The standard view's documents to compare with, and the probes.
	pairs := [][2]string{{toolsURL, toolsURL + "?view=" + checkUnknownView}}
	if len(ids) > 0 {
		pairs = append(pairs, [2]string{c.toolURL(ids[0], ""), c.toolURL(ids[0], checkUnknownView)})
	}
	for _, pair := range pairs {
		std, probe := c.pages[pair[0]], c.pages[pair[1]]
		switch {
		case probe == nil:
		case probe.err != nil:
			c.add("view.unknown", ResultFail, probe.url, "GET failed: "+checkErr(probe.err, c.opts.Timeout), "an unknown view must answer the standard view")
		case probe.status != http.StatusOK:
			c.add("view.unknown", ResultFail, probe.url, "status "+strconv.Itoa(probe.status), "an unknown view must answer the standard view")
		case std == nil || std.err != nil || std.status != http.StatusOK || std.tooBig || probe.tooBig:
			c.add("view.unknown", ResultSkip, probe.url, "status 200", "the standard view is not there to compare with")
		default:
			a, errA := checkDecode(probe.body)
			b, errB := checkDecode(std.body)
			switch {
			case errB != nil:
				c.add("view.unknown", ResultSkip, probe.url, "status 200", "the standard view is not JSON")
			case errA != nil:
				c.add("view.unknown", ResultFail, probe.url, "invalid JSON: "+errA.Error(), "an unknown view must answer the standard view")
			default:
				if d := checkDiff(a, b, ""); d != "" {
					c.add("view.unknown", ResultFail, probe.url, d, "an unknown view must answer the standard view")
				} else {
					c.add("view.unknown", ResultPass, probe.url, "200, equal to the standard view", "an unknown view answers the standard view")
				}
			}
		}
	}
}

// checkHeaders applies the header rules to every response of the checked
// origin.
func (c *checker) checkHeaders() {
	urls := make([]string, 0, len(c.pages))
	for u := range c.pages {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	for _, u := range urls {
		p := c.pages[u]
		if !p.local || p.err != nil {
			continue
		}
		corsRule, cacheRule := "cors.every-response", "cache.control"
		if p.role == roleMCPCatalog && p.status == http.StatusOK {
			corsRule, cacheRule = "mcp-catalog.cors", "mcp-catalog.cache"
		}
		c.cors(corsRule, p, checkCORSProblem, "CORS headers with and without an Origin request header", "every response must have the CORS headers")
		if p.role == roleTools && p.status == http.StatusOK && u != c.toolURL(checkUnknownID, "") && u != c.toolURL(checkUnknownID, spec.ViewCompact) {
			c.contentType("tools.content-type", p, spec.ContentTypeJSON)
		}
		if p.status != http.StatusOK {
			continue
		}
		if p.role == roleCard {
			c.cors("card.cors-etag", p, checkCardCORSProblem, "conditional requests allowed, ETag exposed", "a card should allow If-None-Match and expose ETag")
		}
		cc := strings.Join(p.header.Values("Cache-Control"), ", ")
		switch prob := checkCacheProblem(cc); {
		case cc == "":
			c.add(cacheRule, ResultFail, u, "no Cache-Control", "should be served with Cache-Control: public, max-age=3600")
		case prob != "":
			c.add(cacheRule, ResultFail, u, "Cache-Control: "+cc+" ("+prob+")", "should be served with Cache-Control: public, max-age=3600")
		default:
			c.add(cacheRule, ResultPass, u, "Cache-Control: "+cc, "cacheable for an hour")
		}
		c.etag(p)
		c.repeatable(p)
	}
}

// cors applies a CORS rule to p's responses without and with Origin.
func (c *checker) cors(rule string, p *checkPage, problem func(http.Header) string, passMsg, failMsg string) {
	plain := problem(p.header)
	var withOrigin string
	if p.withOrigin.err != nil {
		withOrigin = "GET failed: " + checkErr(p.withOrigin.err, c.opts.Timeout)
	} else {
		withOrigin = problem(p.withOrigin.header)
	}
	switch {
	case plain == "" && withOrigin == "":
		c.add(rule, ResultPass, p.url, checkCORSSummary(p.header)+" (with and without Origin)", passMsg)
	case plain == withOrigin:
		c.add(rule, ResultFail, p.url, "with and without Origin: "+plain, failMsg)
	case withOrigin == "":
		c.add(rule, ResultFail, p.url, "without Origin: "+plain+" (with Origin: fine)", failMsg+", also without an Origin request header")
	case plain == "":
		c.add(rule, ResultFail, p.url, "with Origin "+checkOrigin+": "+withOrigin+" (without Origin: fine)", failMsg+", also with an Origin request header")
	default:
		c.add(rule, ResultFail, p.url, "without Origin: "+plain+"; with Origin: "+withOrigin, failMsg)
	}
}

func checkCORSSummary(h http.Header) string {
	var parts []string
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Expose-Headers"} {
		if v := h.Values(k); len(v) > 0 {
			parts = append(parts, k+": "+strings.Join(v, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// checkCORSProblem says what the CORS headers of h lack, "" if nothing.
func checkCORSProblem(h http.Header) string {
	var probs []string
	switch v := h.Values("Access-Control-Allow-Origin"); {
	case len(v) == 0:
		probs = append(probs, "no Access-Control-Allow-Origin")
	case len(v) > 1 || strings.TrimSpace(v[0]) != "*":
		probs = append(probs, "Access-Control-Allow-Origin: "+strings.Join(v, ", ")+", not *")
	}
	probs = checkTokenProblem(probs, h, "Access-Control-Allow-Methods", "GET", true)
	probs = checkTokenProblem(probs, h, "Access-Control-Allow-Headers", "Content-Type", false)
	return strings.Join(probs, "; ")
}

// checkCardCORSProblem says what a card's CORS headers lack for
// conditional requests, "" if nothing.
func checkCardCORSProblem(h http.Header) string {
	probs := checkTokenProblem(nil, h, "Access-Control-Allow-Headers", "If-None-Match", false)
	probs = checkTokenProblem(probs, h, "Access-Control-Expose-Headers", "ETag", false)
	return strings.Join(probs, "; ")
}

// checkTokenProblem appends to probs what is wrong when the header name
// does not list token.
func checkTokenProblem(probs []string, h http.Header, name, token string, caseSensitive bool) []string {
	if checkHasToken(h, name, token, caseSensitive) {
		return probs
	}
	if v := h.Values(name); len(v) > 0 {
		return append(probs, name+": "+strings.Join(v, ", ")+", without "+token)
	}
	return append(probs, "no "+name)
}

// checkHasToken reports whether a comma-separated header lists token, or *.
func checkHasToken(h http.Header, name, token string, caseSensitive bool) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || t == token || (!caseSensitive && strings.EqualFold(t, token)) {
				return true
			}
		}
	}
	return false
}

// checkCacheProblem says how a Cache-Control value falls short of
// "public, max-age=3600", "" if it does not.
func checkCacheProblem(v string) string {
	public, maxAge := false, ""
	for _, d := range strings.Split(strings.ToLower(v), ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch name {
		case "public":
			public = true
		case "max-age":
			maxAge = strings.Trim(val, `"`)
		case "private", "no-store":
			return name
		}
	}
	switch {
	case !public:
		return "not public"
	case maxAge == "":
		return "no max-age"
	case maxAge != "3600":
		return "max-age " + maxAge + ", not 3600"
	}
	return ""
}

var checkStrongETag = regexp.MustCompile(`^"[\x21\x23-\x7e\x80-\xff]*"$`)

// etag applies cache.etag to a 200 page.
func (c *checker) etag(p *checkPage) {
	etag := p.header.Get("ETag")
	switch {
	case etag == "":
		c.add("cache.etag", ResultFail, p.url, "no ETag", "documents should have a strong ETag")
	case strings.HasPrefix(etag, "W/") && p.compressed && checkStrongETag.MatchString(etag[2:]) && p.cond != nil && p.cond.err == nil && p.cond.status == http.StatusNotModified:
		// A CDN that compresses a response weakens its ETag, rightly:
		// the compressed bytes are not the ones the tag was made of.
		c.add("cache.etag", ResultPass, p.url, "ETag: "+etag+" on a compressed response; If-None-Match: 304", "a weak ETag is right for bytes compressed on the way, and it revalidates")
	case strings.HasPrefix(etag, "W/"):
		c.add("cache.etag", ResultFail, p.url, "ETag: "+etag, "the ETag should be strong, a hash of the bytes")
	case !checkStrongETag.MatchString(etag):
		c.add("cache.etag", ResultFail, p.url, "ETag: "+etag, "the ETag should be a quoted string")
	case p.cond == nil:
	case p.cond.err != nil:
		c.add("cache.etag", ResultFail, p.url, "If-None-Match: GET failed: "+checkErr(p.cond.err, c.opts.Timeout), "If-None-Match with the ETag should answer 304")
	case p.cond.status != http.StatusNotModified:
		c.add("cache.etag", ResultFail, p.url, "ETag: "+etag+"; If-None-Match: status "+strconv.Itoa(p.cond.status), "If-None-Match with the ETag should answer 304")
	default:
		c.add("cache.etag", ResultPass, p.url, "ETag: "+etag+"; If-None-Match: 304", "a strong ETag that revalidates")
	}
}

// repeatable applies determinism.repeatable: the GET with Origin gave the
// same bytes and ETag as the plain one.
func (c *checker) repeatable(p *checkPage) {
	o := p.withOrigin
	if o.err != nil || o.status != http.StatusOK || p.tooBig || o.tooBig {
		return
	}
	a, b := p.header.Get("ETag"), o.header.Get("ETag")
	switch {
	case !p.sameBytes:
		c.add("determinism.repeatable", ResultFail, p.url, "two GETs gave different bytes", "a document should be the same bytes every time")
	case a != b:
		c.add("determinism.repeatable", ResultFail, p.url, "ETag "+a+", then "+b, "a document should keep its ETag")
	default:
		c.add("determinism.repeatable", ResultPass, p.url, "two GETs, same bytes and ETag", "the same bytes every time")
	}
}

// checkLimits applies limits.body-size and limits.documents.
func (c *checker) checkLimits() {
	var largest int
	big := false
	for _, p := range c.pages {
		if p.tooBig || p.withOrigin.tooBig {
			big = true
			c.add("limits.body-size", ResultFail, p.url, fmt.Sprintf("body over %d bytes", c.opts.MaxBodyBytes), "the document is larger than the check's limit (CheckOptions.MaxBodyBytes): not checked")
		}
		largest = max(largest, len(p.body))
	}
	if !big {
		c.add("limits.body-size", ResultPass, c.base, fmt.Sprintf("largest body %d bytes, limit %d", largest, c.opts.MaxBodyBytes), "every body fits the limit")
	}
	n := len(c.pages)
	if c.notFetched > 0 {
		c.add("limits.documents", ResultFail, c.base, fmt.Sprintf("%d documents fetched, %d more not fetched (limit %d)", n, c.notFetched, c.opts.MaxDocuments), "the site has more documents than the check's limit (CheckOptions.MaxDocuments): some were not checked")
	} else {
		c.add("limits.documents", ResultPass, c.base, fmt.Sprintf("%d documents, limit %d", n, c.opts.MaxDocuments), "the whole site was checked")
	}
}

// Credential material: small, high-precision patterns.
var checkSecretPatterns = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), "a private key"},
	{regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`), "an AWS access key id"},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,}\b`), "a GitHub token"},
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{40,}\b`), "a GitHub token"},
	{regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}\b`), "a GitLab token"},
	{regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`), "a Slack token"},
	{regexp.MustCompile(`\b[sr]k_live_[A-Za-z0-9]{16,}\b`), "a Stripe key"},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), "a Google API key"},
	{regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@{}<>$]+:[^/\s@{}<>$]+@`), "a password in a URL"},
}

// credentials applies a credentials rule to a decoded document.
func (c *checker) credentials(rule, u string, doc any) {
	c.problems(rule, u, checkSecrets(doc), "no private keys, access keys, tokens or passwords in URLs", "no credential material", "published documents must not carry credential material")
}

// checkSecrets lists the credential material in a decoded document.
func checkSecrets(doc any) []string {
	var probs []string
	checkWalkStrings(doc, "", func(s, ptr string) {
		for _, p := range checkSecretPatterns {
			if loc := p.re.FindStringIndex(s); loc != nil {
				shown := s[loc[0]:min(loc[1], loc[0]+4)]
				probs = append(probs, fmt.Sprintf("%s: %s (%q…)", checkPtr(ptr), p.what, shown))
				return
			}
		}
	})
	return probs
}

// checkWalkStrings calls f for every string value and object key in v.
func checkWalkStrings(v any, ptr string, f func(s, ptr string)) {
	switch v := v.(type) {
	case string:
		f(v, ptr)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			at := ptr + "/" + checkEscape(k)
			f(k, at)
			checkWalkStrings(v[k], at, f)
		}
	case []any:
		for i, x := range v {
			checkWalkStrings(x, ptr+"/"+strconv.Itoa(i), f)
		}
	}
}

// checkDiff returns where a and b (decoded JSON) first differ, "" if
// they are equal: a pointer and both values, "here" being a's and "there"
// b's.
func checkDiff(a, b any, ptr string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			at := ptr + "/" + checkEscape(k)
			va, oka := x[k]
			vb, okb := y[k]
			switch {
			case !oka:
				return at + ": missing here, " + checkShow(vb) + " there"
			case !okb:
				return at + ": " + checkShow(va) + " here, missing there"
			}
			if d := checkDiff(va, vb, at); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(x), len(y)) {
			if d := checkDiff(x[i], y[i], ptr+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: %d items here, %d there", checkPtr(ptr), len(x), len(y))
		}
		return ""
	default:
		if a == b {
			return ""
		}
	}
	return checkPtr(ptr) + ": " + checkShow(a) + " here, " + checkShow(b) + " there"
}

// checkShow renders a decoded JSON value briefly.
func checkShow(v any) string {
	if v == nil {
		return "null"
	}
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + `…`
	}
	return s
}

func checkEscape(token string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
}

// checkErr shortens a request error: no method and URL, which the finding
// has already.
func checkErr(err error, timeout time.Duration) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out after " + timeout.String()
	}
	return err.Error()
}

// checkOneLine makes evidence one line of reasonable length.
func checkOneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		cut := 297
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// report sorts and deduplicates the findings.
func (c *checker) report() *Report {
	fs := c.findings
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Rule, b.Rule), strings.Compare(a.URL, b.URL), strings.Compare(a.Evidence, b.Evidence),
			strings.Compare(a.Message, b.Message), strings.Compare(string(a.Result), string(b.Result)), strings.Compare(string(a.Level), string(b.Level)))
	})
	fs = slices.Compact(fs)
	if fs == nil {
		fs = []Finding{}
	}
	return &Report{Base: c.base, Findings: fs, Documents: len(c.pages)}
}

// Failed reports whether a MUST rule failed anywhere.
func (r *Report) Failed() bool {
	for _, f := range r.Findings {
		if f.Result == ResultFail && f.Level == LevelMust {
			return true
		}
	}
	return false
}

// checkRuleResult is one rule's outcome over all its findings: fail if one
// failed, else warn if one warned, else pass if one passed, else skip.
type checkRuleResult struct {
	Rule   string `json:"rule"`
	Level  Level  `json:"level"`
	Result Result `json:"result"`
}

func (r *Report) rules() []checkRuleResult {
	rank := map[Result]int{ResultSkip: 0, ResultPass: 1, ResultWarn: 2, ResultFail: 3}
	var out []checkRuleResult
	for _, f := range r.Findings {
		if len(out) == 0 || out[len(out)-1].Rule != f.Rule {
			out = append(out, checkRuleResult{Rule: f.Rule, Level: f.Level, Result: f.Result})
			continue
		}
		last := &out[len(out)-1]
		if rank[f.Result] > rank[last.Result] {
			last.Result = f.Result
		}
		if f.Level == LevelMust {
			last.Level = LevelMust
		}
	}
	return out
}

type checkSummary struct {
	Rules    int `json:"rules"`
	Passed   int `json:"passed"`
	Failed   int `json:"failed"`
	Warnings int `json:"warnings"`
	Skipped  int `json:"skipped"`
}

func (r *Report) summary(rules []checkRuleResult) checkSummary {
	s := checkSummary{Rules: len(rules)}
	for _, x := range rules {
		switch x.Result {
		case ResultPass:
			s.Passed++
		case ResultFail:
			s.Failed++
		case ResultWarn:
			s.Warnings++
		case ResultSkip:
			s.Skipped++
		}
	}
	return s
}

// WriteText writes the report for people: a line naming the site, then
// each rule with its outcome and one line per finding that is not a pass
// (every finding when verbose; URLs on the checked site relative to it),
// then the summary line "N rules: P passed, F failed, W warnings, S skipped".
func (r *Report) WriteText(w io.Writer, verbose bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "check %s: %d documents\n", r.Base, r.Documents)
	rules := r.rules()
	i := 0
	for _, rule := range rules {
		fmt.Fprintf(&b, "%s %s (%s)\n", rule.Result, rule.Rule, rule.Level)
		for ; i < len(r.Findings) && r.Findings[i].Rule == rule.Rule; i++ {
			f := r.Findings[i]
			if f.Result == ResultPass && !verbose {
				continue
			}
			place := f.URL
			if rest, ok := strings.CutPrefix(place, r.Base); ok && (rest == "" || rest[0] == '/' || rest[0] == '?' || rest[0] == '#') {
				place = rest
				if place == "" {
					place = "/"
				}
			}
			fmt.Fprintf(&b, "  %-4s %s: %s", f.Result, place, f.Message)
			if f.Evidence != "" {
				fmt.Fprintf(&b, " [%s]", f.Evidence)
			}
			b.WriteByte('\n')
		}
	}
	s := r.summary(rules)
	fmt.Fprintf(&b, "%d rules: %d passed, %d failed, %d warnings, %d skipped\n", s.Rules, s.Passed, s.Failed, s.Warnings, s.Skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as one JSON object: base, documents, failed
// (a MUST rule failed), summary (the counts of WriteText's last line),
// rules (each rule's outcome) and findings.
func (r *Report) WriteJSON(w io.Writer) error {
	rules := r.rules()
	if rules == nil {
		rules = []checkRuleResult{}
	}
	findings := r.Findings
	if findings == nil {
		findings = []Finding{}
	}
	out := struct {
		Base      string            `json:"base"`
		Documents int               `json:"documents"`
		Failed    bool              `json:"failed"`
		Summary   checkSummary      `json:"summary"`
		Rules     []checkRuleResult `json:"rules"`
		Findings  []Finding         `json:"findings"`
	}{r.Base, r.Documents, r.Failed(), r.summary(rules), rules, findings}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
