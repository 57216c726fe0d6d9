package check

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/signpost-dev/signpost/build/diag/records"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/registry"
	"github.com/signpost-dev/signpost/schemas"
)

// Options bound a crawl. Zero values take the defaults.
type Options struct {
	// Client sends the requests; default a new http.Client. Run never
	// follows redirects: a redirect is reported as the status it is.
	Client *http.Client
	// MaxBodyBytes bounds each body (default 8 MiB); a longer one is a
	// limits.body-size failure, and the rules that need it are skipped.
	MaxBodyBytes int64
	// MaxHeldBytes bounds the bytes of the bodies held in memory at once
	// (default 256 MiB): those being fetched, each counted at
	// MaxBodyBytes, and those the rules still need. Each document is
	// checked as soon as it is fetched and its body let go; the lists and
	// catalogs, which later rules compare the documents with, are held to
	// the end. When the budget is spent, fetching waits; one document is
	// always fetched, whatever the budget.
	MaxHeldBytes int64
	// MaxDocuments bounds the number of documents fetched (default 5000),
	// the MCP registry's included: the servers of its list past the limit
	// are not looked up.
	MaxDocuments int
	// Concurrency bounds the documents fetched at once, and the probing
	// handshakes of transport.tls-minimum made at once (default 4).
	Concurrency int
	// Timeout bounds each request, body included, and each probing
	// handshake, dial included (default 10s).
	Timeout time.Duration
	// Deadline bounds the whole crawl, the probing handshakes included
	// (default 5m): what is not fetched by then is not checked, and
	// limits.deadline fails, so that an origin that answers slowly cannot
	// hold a CI job for hours.
	Deadline time.Duration
	// AllowPrivate lets the default client connect to loopback, private,
	// link-local, multicast and unspecified addresses that the checked
	// origin does not itself have: a catalog may name any host, and a
	// check runs where internal services are within reach. Client, when
	// set, is used as it is.
	AllowPrivate bool
	// Resolve sends the connections of the default client to a
	// "host:port" (lower case) to the IP address it maps to, on the same
	// port, whatever DNS says, as curl's --resolve does (see
	// dial.ParseResolve): a site built for its production origin can be
	// checked where it runs now. The URLs, Host headers and TLS names stay
	// the host's. Client, when set, is used as it is.
	Resolve map[string]string
	// SameOrigin keeps the check on the checked origin: a card a catalog
	// names on another host is not fetched (no request, no DNS lookup, no
	// handshake), and its rules are skipped, saying why.
	SameOrigin bool
	// Token, when set, is a bearer token of a gated site: every request to
	// the checked origin carries it (and no other request), and the
	// access.gate rule asks the gated routes without it.
	Token string
	// Now, when set, is the clock signatures' issuedAt and expiresAt are
	// held to (a test's); time.Now otherwise.
	Now func() time.Time
}

// Defaults of Options.
const (
	defaultMaxBody      = 8 << 20
	defaultMaxHeld      = 256 << 20
	defaultMaxDocuments = 5000
	defaultConcurrency  = 4
	defaultTimeout      = 10 * time.Second
	defaultDeadline     = 5 * time.Minute
)

// The probes: a toolId and a view that no site can have, the Origin of the
// second GET of each page, and the User-Agent of every request.
const (
	unknownID   = "zz_signpost_check_unknown_0"
	unknownView = "zz"
	probeOrigin = "https://example.org"
	userAgent   = "signpost-check/1"
)

// Run crawls the site at base as a discovery client would and applies
// every rule of Rules: both catalogs, every card they point at with a
// known media type, /tools, every /tools/{toolId}, both compact endpoints,
// an unknown toolId and an unknown view, and the MCP registry's documents
// as its clients ask for them (see registry.go), with the preflights of a
// browser. Every request is made without and
// again with an Origin header, and every document once more with
// If-None-Match. Every https origin read from is offered a TLS 1.0 and a
// TLS 1.1 handshake, through the client's dialer and with its TLS settings
// (when its Transport is an *http.Transport that does not dial TLS itself
// and uses no proxy for the origin; else transport.tls-minimum is skipped). base is an http or https URL; a path is a prefix of every
// route.
//
// Cards on another origin are checked as a client checks them (status,
// media type, name, v1 fields, https) but not against this site's header
// contract (CORS, caching), which that host does not owe it.
//
// Run returns an error when base is not a usable URL, when ctx ends, and
// when the origin answers none of the first requests (an
// *UnreachableError); other network failures, timeouts and oversized
// bodies are findings.
func Run(ctx context.Context, base string, opts Options) (*Report, error) {
	c, err := newChecker(ctx, base, opts)
	if err != nil {
		return nil, err
	}
	c.run(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.unreachable != nil {
		return nil, &UnreachableError{Base: c.base, Err: c.unreachable}
	}
	return c.report(), nil
}

// UnreachableError is Run's error when the origin answered none of the
// first requests: there is nothing to check, and a report would only say
// so many times over.
type UnreachableError struct {
	Base string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s does not answer: %s", e.Base, Cause(e.Err))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Cause says in a few words why a request got no answer: connection
// refused, a DNS lookup that failed, a TLS handshake that failed, no
// answer in time, or the guard's refusal; else the innermost error.
func Cause(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var alert tls.AlertError
	var record tls.RecordHeaderError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return fmt.Sprintf("DNS: no such host %s", dns.Name)
		}
		return fmt.Sprintf("DNS: the lookup of %s failed: %s", dns.Name, dns.Err)
	case errors.As(err, &cert):
		return "TLS: the certificate is not valid: " + cert.Err.Error()
	case errors.As(err, &alert), errors.As(err, &record):
		return "TLS: the handshake failed: " + innermost(err).Error()
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "no answer in time"
	}
	return innermost(err).Error()
}

// innermost is the last error of err's chain.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// newChecker readies a Run of base with opts, defaults filled in.
func newChecker(ctx context.Context, base string, opts Options) (*checker, error) {
	b, err := parseBase(base)
	if err != nil {
		return nil, err
	}
	v, err := validator()
	if err != nil {
		return nil, err
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBody
	}
	if opts.MaxHeldBytes <= 0 {
		opts.MaxHeldBytes = defaultMaxHeld
	}
	if opts.MaxDocuments <= 0 {
		opts.MaxDocuments = defaultMaxDocuments
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = defaultConcurrency
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.Deadline <= 0 {
		opts.Deadline = defaultDeadline
	}
	var client *http.Client
	switch {
	case opts.Client != nil:
		copied := *opts.Client
		client = &copied
	case opts.AllowPrivate:
		client = dial.Open(opts.Resolve)
	default:
		client = dial.Guarded(ctx, b.Hostname(), opts.Resolve)
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	c := &checker{
		opts:      opts,
		client:    client,
		probes:    dial.NewHandshaker(client),
		v:         v,
		base:      b.String(),
		origin:    originOf(b),
		budget:    opts.MaxDocuments,
		pages:     map[string]*page{},
		tcCompact: -1,
	}
	return c, nil
}

// validator compiles the schemas once, for every Run.
var validator = sync.OnceValues(schemas.NewValidator)

// parseBase checks base and returns it without a trailing slash.
func parseBase(base string) (*url.URL, error) {
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

// originOf is scheme://host[:port] in lower case, without a default port.
func originOf(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		// An IPv6 zone's % is escaped, as a URL writes it, so that the
		// origin parses back.
		host = "[" + strings.ReplaceAll(host, "%", "%25") + "]"
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

// checker is the state of one Run. Fetching is concurrent; the rules run on
// one goroutine, as the documents arrive and after the crawl.
type checker struct {
	opts Options
	// unreachable is why the origin answered none of the first requests.
	unreachable error
	client      *http.Client
	probes      dial.Handshaker // the handshakes of transport.tls-minimum
	v           *schemas.Validator
	base        string
	origin      string

	budget     int // documents still allowed
	notFetched int
	// The bytes of the bodies being fetched (counted at MaxBodyBytes
	// each) and held for later rules, and the most held.
	inFlight, held, peakHeld int64
	// outOfTime is set when Options.Deadline ended the crawl.
	outOfTime bool
	pages     map[string]*page
	findings  records.Log[Finding]

	// What the first stage learned.
	// The catalogs are nil unless they were served and are JSON.
	mcpCatalog *documents.MCPCatalog
	aiCatalog  *documents.AICatalog
	// didURL is where the AI catalog's signer's DID document is read
	// ("" when nothing is signed); level is the AI Catalog conformance
	// level the site reaches (0: no AI catalog), levelWhy what keeps it
	// from the next.
	didURL   string
	level    int
	levelWhy string
	cards    []cardRef
	// endpointCards maps the URL of a card beside its endpoint on the
	// checked origin (<endpoint>/server-card) to the card found at a
	// catalog's URL: what the third stage fetches and compares.
	endpointCards map[string]endpointCard
	tcAdvertised  bool
	tcCompact     int // -1: not said, 0: false, 1: true
	// toolList is nil unless /tools is a JSON array.
	toolList []documents.Descriptor
	toolIDs  []string // valid, unique, sorted
	compact  compactMode
	// compactDoc is what ?view=compact answered, compactErr why it is not
	// JSON; compactList is nil unless its tools are an array.
	compactDoc            documents.CompactList
	compactErr            error
	compactList           []documents.Descriptor
	compactByID, toolByID map[string]*documents.Descriptor // the first descriptor of each toolId
	// toolDigests are the digests of definitions /tools carries, by
	// toolId (the first descriptor's).
	toolDigests                    map[string]documents.DefinitionMeta
	compactLevel, toolsStatusLevel Level
	catalogue                      catalogueState
	gate                           gateState
	registry                       *registry.Replay
}

// at is the URL of route on the checked site.
func (c *checker) at(route string) string { return c.base + route }

// toolURL is the URL of the tool id in view ("" for none).
func (c *checker) toolURL(id, view string) string {
	u := c.at(spec.ToolRoute(url.PathEscape(id)))
	if view != "" {
		u += "?view=" + url.QueryEscape(view)
	}
	return u
}

// run crawls in two stages, because what the second fetches (cards, tools)
// is only known from what the first did (catalogs, lists); then it applies
// the rules, in one goroutine.
func (c *checker) run(ctx context.Context) {
	// The crawl has its own deadline; ctx, the caller's, stops the run.
	crawl, cancel := context.WithTimeout(ctx, c.opts.Deadline)
	defer cancel()
	mcpURL, aiURL, toolsURL := c.at(spec.RouteMCPCatalog), c.at(spec.RouteAICatalog), c.at(spec.RouteTools)
	type fetchSpec struct {
		url  string
		role pageRole
	}
	stage1 := []fetchSpec{
		{mcpURL, roleMCPCatalog},
		{aiURL, roleAICatalog},
		{toolsURL, roleTools},
		{toolsURL + "?view=" + spec.ViewCompact, roleTools},
		{toolsURL + "?view=" + unknownView, roleTools},
		{c.toolURL(unknownID, ""), roleTools},
		{c.toolURL(unknownID, spec.ViewCompact), roleTools},
		{c.at(spec.RouteToolCatalogue), roleTools},
	}
	var pages []*page
	for _, s := range stage1 {
		// The documents that grow with the catalog are where compression
		// pays: their encodings are held to the identity's bytes.
		probe := s.url == mcpURL || s.url == aiURL || s.url == toolsURL || s.url == toolsURL+"?view="+spec.ViewCompact || s.url == c.at(spec.RouteToolCatalogue)
		pages = append(pages, &page{url: s.url, role: s.role, local: true, keep: true, probeEncodings: probe})
	}
	pages = append(pages, c.registryStage1()...)
	c.fetch(crawl, pages, nil)
	if ctx.Err() != nil {
		return
	}
	if c.unreachable = unanswered(pages); c.unreachable != nil {
		return
	}

	c.learnMCPCatalog(mcpURL)
	c.learnAICatalog(aiURL)
	c.learnTools(toolsURL)
	c.learnCompact(toolsURL + "?view=" + spec.ViewCompact)
	c.learnCatalogue(c.at(spec.RouteToolCatalogue))
	c.learnRegistry(crawl)

	pages = nil
	seen := map[string]bool{}
	for _, r := range c.cards {
		local := false
		if u, err := url.Parse(r.url); err == nil {
			local = originOf(u) == c.origin
		}
		if !local && c.opts.SameOrigin {
			rules := []string{"card.status", "card.content-type", "card.name"}
			if r.mediaType == spec.ContentTypeServerCardV1 {
				rules = append(rules, "card.v1-schema")
			}
			if r.digest != "" {
				rules = append(rules, "ai-catalog.digest")
			}
			c.skip(r.url, offOrigin, rules...)
			continue
		}
		if seen[r.url] {
			continue
		}
		seen[r.url] = true
		pages = append(pages, &page{url: r.url, role: roleCard, local: local})
	}
	ids := c.itemIDs()
	for _, id := range ids {
		pages = append(pages, &page{url: c.toolURL(id, ""), role: roleTools, local: true})
	}
	if c.compact == compactChecked {
		for _, id := range ids {
			pages = append(pages, &page{url: c.toolURL(id, spec.ViewCompact), role: roleTools, local: true})
		}
	}
	pages = append(pages, c.groupPages()...)
	if len(ids) > 0 {
		pages = append(pages, &page{url: c.toolURL(ids[0], unknownView), role: roleTools, local: true})
		// checkUnknown compares these two after the crawl.
		for _, p := range pages {
			p.keep = p.url == c.toolURL(ids[0], "") || p.url == c.toolURL(ids[0], unknownView)
		}
	}
	// The signer's DID document, held for checkSignatures.
	pages = append(pages, c.didPage()...)
	pages = append(pages, c.registryStage2(c.budget-len(pages))...)
	c.fetch(crawl, pages, c.documentRules(ids))
	if ctx.Err() != nil {
		return
	}
	c.outOfTime = crawl.Err() != nil
	c.fetchEndpointCards(crawl)
	if ctx.Err() != nil {
		return
	}

	c.checkTransport(crawl)
	c.checkMCPCatalog(mcpURL)
	c.checkAICatalog(aiURL)
	c.checkTools(toolsURL)
	c.checkCompact(toolsURL + "?view=" + spec.ViewCompact)
	c.checkUnknown(toolsURL, ids)
	c.checkCatalogue(c.at(spec.RouteToolCatalogue))
	c.checkGate(crawl, ids)
	c.checkRegistry(crawl)
	c.checkHeaders()
	c.checkLimits()
}

// offOrigin is why the rules of a card on another host are skipped under
// Options.SameOrigin.
const offOrigin = "the card is on another origin, and this check stays on the checked one"

// documentRules returns what fetch runs on each document of the second
// stage as it arrives: the rules of the cards, of /tools/{toolId} in either
// view, that read one document and what the first stage learned. A URL may
// be more than one of these; its document is checked as each.
func (c *checker) documentRules(ids []string) func(*page) {
	cards := map[string][]cardRef{}
	for _, r := range c.cards {
		cards[r.url] = append(cards[r.url], r)
	}
	tools, compacts := map[string]string{}, map[string]string{}
	for _, id := range ids {
		tools[c.toolURL(id, "")] = id
		if c.compact == compactChecked {
			compacts[c.toolURL(id, spec.ViewCompact)] = id
		}
	}
	return func(p *page) {
		for _, r := range cards[p.url] {
			c.checkCard(r, p)
		}
		if id, ok := tools[p.url]; ok && c.toolList != nil {
			c.item("tools.item", LevelMust, p, c.toolByID[id], "", "/tools", nil)
		}
		if id, ok := compacts[p.url]; ok {
			c.compactItem(p, id)
		}
		if g, ok := c.catalogue.groups[p.url]; ok {
			c.checkGroup(p, g)
		}
		if p.role == roleRegistry {
			c.registryDocument(p)
		}
	}
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

// unanswered is the error of the first page when no page got an answer,
// nil when one did.
func unanswered(pages []*page) error {
	for _, p := range pages {
		if p.err == nil {
			return nil
		}
	}
	if len(pages) == 0 {
		return nil
	}
	return pages[0].err
}
