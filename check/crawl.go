package check

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/check/transport"
)

// pageRole is what a page is, for the rules that differ by document.
type pageRole int

const (
	roleMCPCatalog pageRole = iota
	roleAICatalog
	roleCard
	roleTools
	roleRegistry
)

// response is one response, its body read up to the size limit.
type response struct {
	err    error
	status int
	header http.Header
	body   []byte // nil once the rules that need it have run (see checker.release)
	size   int    // of the body, when within the limit
	sum    [sha256.Size]byte
	tooBig bool
	tls    uint16
	// compressed is set when the response came content-encoded (the
	// client asked for gzip and decompressed it).
	compressed bool
}

// page is one document and what fetching it showed.
type page struct {
	url  string
	role pageRole
	// local is true on the checked origin, where the header contract holds.
	local bool
	// accept, when set, is the Accept header of every GET of the page, and
	// origin the Origin header of its second (probeOrigin when "").
	accept, origin string
	response
	// withOrigin is the same GET with an Origin header (local pages). Its
	// body is not kept: sameBytes says whether it was the plain GET's (by
	// size and SHA-256).
	withOrigin response
	sameBytes  bool
	// cond is the GET with If-None-Match and the plain GET's ETag, made
	// when the plain GET was 200 with an ETag.
	cond *response
	// probeEncodings makes the GETs of encoded: one with Accept-Encoding
	// of each coding of transport.Codings, when the plain GET was 200.
	probeEncodings bool
	encoded        []response
	// keep is set on the pages whose bodies the rules read after the
	// crawl: the first stage's, and the two checkUnknown compares.
	keep     bool
	consumed bool // the rules of the second stage have seen it
}

// fetch loads pages not loaded yet, in order, as far as the document
// budget allows. The budget is spent before any request is made, so which
// pages are left out does not depend on timing.
//
// consume, when set, is called on this goroutine for each page loaded (or
// loaded before, when a page of the first stage comes again), as soon as
// it is; then the body is let go unless the page is kept. So at most
// Concurrency bodies are in flight, and those of kept pages held, and
// within Options.MaxHeldBytes: a load starts only when its body fits beside
// them, or when no other is running.
func (c *checker) fetch(ctx context.Context, pages []*page, consume func(*page)) {
	done := make(chan *page)
	running := 0
	finish := func() {
		p := <-done
		running--
		c.inFlight -= c.opts.MaxBodyBytes
		c.settle(p, consume)
	}
	for _, p := range pages {
		if q, ok := c.pages[p.url]; ok {
			if q.keep && !q.consumed && consume != nil {
				c.settle(q, consume)
			}
			continue
		}
		if c.budget == 0 {
			c.notFetched++
			continue
		}
		c.budget--
		c.pages[p.url] = p
		for running == c.opts.Concurrency || running > 0 && c.held+c.inFlight+c.opts.MaxBodyBytes > c.opts.MaxHeldBytes {
			finish()
		}
		running++
		c.inFlight += c.opts.MaxBodyBytes
		c.peakHeld = max(c.peakHeld, c.held+c.inFlight)
		go func() {
			c.load(ctx, p)
			done <- p
		}()
	}
	for running > 0 {
		finish()
	}
}

// settle runs consume on a loaded page, then lets its body go or counts it
// as held.
func (c *checker) settle(p *page, consume func(*page)) {
	if consume != nil {
		p.consumed = true
		consume(p)
	}
	if p.keep {
		c.held += int64(len(p.body))
		c.peakHeld = max(c.peakHeld, c.held+c.inFlight)
		return
	}
	p.body = nil
}

// load makes the GETs of p: plain, then, on the checked origin, with an
// Origin header and, when the plain GET gave 200 and an ETag, with
// If-None-Match.
func (c *checker) load(ctx context.Context, p *page) {
	if ctx.Err() != nil {
		p.err = errOutOfTime
		return
	}
	var accept [][2]string
	if p.accept != "" {
		accept = [][2]string{{"Accept", p.accept}}
	}
	and := func(name, value string) [][2]string { return append(slices.Clip(accept), [2]string{name, value}) }
	token := c.opts.Token != ""
	p.response = c.do(ctx, http.MethodGet, p.url, accept, true, token)
	if !p.local || p.err != nil {
		return
	}
	p.withOrigin = c.do(ctx, http.MethodGet, p.url, and("Origin", p.originHeader()), false, token)
	p.sameBytes = !p.tooBig && !p.withOrigin.tooBig && p.size == p.withOrigin.size && p.sum == p.withOrigin.sum
	if etag := p.header.Get("ETag"); p.status == http.StatusOK && etag != "" {
		r := c.do(ctx, http.MethodGet, p.url, and("If-None-Match", etag), false, token)
		p.cond = &r
	}
	if p.probeEncodings && p.status == http.StatusOK && !p.tooBig {
		// The header set here, the transport decompresses nothing: the
		// body is the bytes as sent.
		for _, coding := range transport.Codings() {
			p.encoded = append(p.encoded, c.do(ctx, http.MethodGet, p.url, and("Accept-Encoding", coding), true, token))
		}
	}
}

// originHeader is the Origin header of the page's second GET.
func (p *page) originHeader() string {
	if p.origin != "" {
		return p.origin
	}
	return probeOrigin
}

// send sends one GET, with one extra request header when name is not "",
// and with the token when withToken is set and u is on the checked origin.
// The body is kept when keep is set; its size and SHA-256 always are.
func (c *checker) send(ctx context.Context, u, name, value string, keep, withToken bool) response {
	var header [][2]string
	if name != "" {
		header = [][2]string{{name, value}}
	}
	return c.do(ctx, http.MethodGet, u, header, keep, withToken)
}

// do sends one request of method to u with the request headers header,
// and with the token of Options when withToken is set and u is on the
// checked origin: never to a host a catalog names. The body is kept when
// keep is set; its size and SHA-256 always are.
func (c *checker) do(ctx context.Context, method, u string, header [][2]string, keep, withToken bool) response {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return response{err: err}
	}
	req.Header.Set("User-Agent", userAgent)
	if withToken && originOf(req.URL) == c.origin {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
	for _, h := range header {
		req.Header.Set(h[0], h[1])
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	r := response{status: resp.StatusCode, header: resp.Header, compressed: resp.Uncompressed}
	if resp.TLS != nil {
		r.tls = resp.TLS.Version
	}
	h := sha256.New()
	var buf bytes.Buffer
	var w io.Writer = h
	if keep {
		w = io.MultiWriter(h, &buf)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, c.opts.MaxBodyBytes+1))
	switch {
	case n > c.opts.MaxBodyBytes:
		r.tooBig = true
	case err != nil:
		r.err = fmt.Errorf("reading the body: %w", err)
	default:
		r.size = int(n)
		h.Sum(r.sum[:0])
		if keep {
			r.body = buf.Bytes()
		}
	}
	return r
}

// statusOf says whether p answered 200 and what it answered.
func (c *checker) statusOf(p *page) (bool, string) {
	if p.err != nil {
		return false, "GET failed: " + dial.ErrText(p.err, c.opts.Timeout)
	}
	ev := "status " + strconv.Itoa(p.status)
	if loc := p.header.Get("Location"); loc != "" {
		ev += ", Location: " + loc
	}
	return p.status == http.StatusOK, ev
}

// decodedPage is the JSON of the fetched page u, when it answered 200 with
// a body within the limit that decodes.
func (c *checker) decodedPage(u string) (any, bool) {
	p := c.pages[u]
	if p == nil || p.err != nil || p.status != http.StatusOK || p.tooBig {
		return nil, false
	}
	doc, err := jsonval.Decode(p.body)
	return doc, err == nil
}

// errOutOfTime is the error of a page the crawl had no time left for.
var errOutOfTime = errors.New("not fetched: the check ran out of time (see limits.deadline)")

// checkLimits applies limits.body-size, limits.documents and
// limits.deadline.
func (c *checker) checkLimits() {
	var largest int
	big := false
	for _, p := range c.pages {
		if p.tooBig || p.withOrigin.tooBig {
			big = true
			c.add("limits.body-size", ResultFail, p.url, fmt.Sprintf("body over %d bytes", c.opts.MaxBodyBytes), "the document is larger than the check's limit (check.Options.MaxBodyBytes): not checked")
		}
		largest = max(largest, p.size)
	}
	if !big {
		c.add("limits.body-size", ResultPass, c.base, fmt.Sprintf("largest body %d bytes, limit %d", largest, c.opts.MaxBodyBytes), "every body fits the limit")
	}
	n := len(c.pages)
	if c.notFetched > 0 {
		c.add("limits.documents", ResultFail, c.base, fmt.Sprintf("%d documents fetched, %d more not fetched (limit %d)", n, c.notFetched, c.opts.MaxDocuments), "the site has more documents than the check's limit (check.Options.MaxDocuments): some were not checked")
	} else {
		c.add("limits.documents", ResultPass, c.base, fmt.Sprintf("%d documents, limit %d", n, c.opts.MaxDocuments), "the whole site was checked")
	}
	if c.outOfTime {
		c.add("limits.deadline", ResultFail, c.base, "time limit "+c.opts.Deadline.String()+" reached", "the check ran out of time (check.Options.Deadline): what was not fetched by then was not checked")
	} else {
		c.add("limits.deadline", ResultPass, c.base, "time limit "+c.opts.Deadline.String(), "the whole site was checked in time")
	}
}
