package check

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/transport"
)

// The rules of how the origin serves its documents are check/transport's:
// the check hands it the origins it read from and the pages of the checked
// origin as the crawl fetched them, chooses the rule names of each page's
// findings, and records them (transportFindings).

// transportRules are check/transport's rules with this check's limits.
func (c *checker) transportRules() transport.Rules {
	return transport.Rules{
		Findings:     transportFindings{c},
		Probes:       c.probes,
		Timeout:      c.opts.Timeout,
		Concurrency:  c.opts.Concurrency,
		MaxBodyBytes: c.opts.MaxBodyBytes,
	}
}

// checkTransport applies transport.https and transport.tls-minimum to the
// checked origin and to every other origin a card was fetched from. ctx
// bounds the handshakes of transport.tls-minimum.
func (c *checker) checkTransport(ctx context.Context) {
	lowest := map[string]uint16{}
	origins := map[string]string{c.origin: c.base}
	for _, p := range c.pages {
		u, err := url.Parse(p.url)
		if err != nil {
			continue
		}
		o := originOf(u)
		if _, ok := origins[o]; !ok {
			origins[o] = o
		}
		if p.tls != 0 && (lowest[o] == 0 || p.tls < lowest[o]) {
			lowest[o] = p.tls
		}
	}
	c.transportRules().Origins(ctx, origins, lowest)
}

// checkHeaders applies the header rules to every response of the checked
// origin.
func (c *checker) checkHeaders() {
	t := c.transportRules()
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
		tp := transportPage(p)
		corsRule, cacheRule := "cors.every-response", "cache.control"
		if p.role == roleMCPCatalog && p.status == http.StatusOK {
			corsRule, cacheRule = "mcp-catalog.cors", "mcp-catalog.cache"
		}
		t.CORS(corsRule, tp)
		if p.role == roleTools && p.status == http.StatusOK && u != c.toolURL(unknownID, "") && u != c.toolURL(unknownID, spec.ViewCompact) {
			c.contentType("tools.content-type", p, spec.ContentTypeJSON)
		}
		if p.status != http.StatusOK {
			continue
		}
		if p.role == roleCard {
			t.CardCORS(tp)
		}
		t.Cache(cacheRule, tp, c.private(u))
		t.ETag(tp)
		t.Repeatable(tp)
		t.Encodings(tp)
	}
}

// transportPage is p as check/transport reads it.
func transportPage(p *page) transport.Page {
	tp := transport.Page{
		URL:          p.url,
		Response:     transportResponse(p.response),
		WithOrigin:   transportResponse(p.withOrigin),
		OriginHeader: p.originHeader(),
		SameBytes:    p.sameBytes,
	}
	if p.cond != nil {
		r := transportResponse(*p.cond)
		tp.Cond = &r
	}
	for _, r := range p.encoded {
		tp.Encoded = append(tp.Encoded, transportResponse(r))
	}
	return tp
}

func transportResponse(r response) transport.Response {
	return transport.Response{Err: r.err, Status: r.status, Header: r.header, Body: r.body, Size: r.size, Sum: r.sum, TooBig: r.tooBig, Compressed: r.compressed}
}

// transportFindings records check/transport's findings.
type transportFindings struct{ c *checker }

func (f transportFindings) Pass(rule, u, ev, msg string) { f.c.add(rule, ResultPass, u, ev, msg) }
func (f transportFindings) Fail(rule, u, ev, msg string) { f.c.add(rule, ResultFail, u, ev, msg) }
func (f transportFindings) Skip(rule, u, ev, msg string) { f.c.add(rule, ResultSkip, u, ev, msg) }
