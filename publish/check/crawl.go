package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// pageRole is what a page is, for the rules that differ by document.
type pageRole int

const (
	roleMCPCatalog pageRole = iota
	roleAICatalog
	roleCard
	roleTools
)

// response is one response, its body read up to the size limit.
type response struct {
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

// page is one document and what fetching it showed.
type page struct {
	url  string
	role pageRole
	// local is true on the checked origin, where the header contract holds.
	local bool
	response
	// withOrigin is the same GET with an Origin header (local pages). Its
	// body is not kept: sameBytes says whether it was the plain GET's.
	withOrigin response
	sameBytes  bool
	// cond is the GET with If-None-Match and the plain GET's ETag, made
	// when the plain GET was 200 with an ETag.
	cond *response
}

// fetch loads pages not loaded yet, in order, as far as the document
// budget allows. The budget is spent before any request is made, so which
// pages are left out does not depend on timing.
func (c *checker) fetch(ctx context.Context, pages []*page) {
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

// load makes the GETs of p: plain, then, on the checked origin, with an
// Origin header and, when the plain GET gave 200 and an ETag, with
// If-None-Match.
func (c *checker) load(ctx context.Context, p *page) {
	if ctx.Err() != nil {
		p.err = errOutOfTime
		return
	}
	p.response = c.get(ctx, p.url, "", "")
	if !p.local || p.err != nil {
		return
	}
	p.withOrigin = c.get(ctx, p.url, "Origin", probeOrigin)
	p.sameBytes = !p.tooBig && !p.withOrigin.tooBig && bytes.Equal(p.body, p.withOrigin.body)
	p.withOrigin.body = nil
	if etag := p.header.Get("ETag"); p.status == http.StatusOK && etag != "" {
		r := c.get(ctx, p.url, "If-None-Match", etag)
		r.body = nil
		p.cond = &r
	}
}

// get sends one GET, with one extra request header when name is not "".
func (c *checker) get(ctx context.Context, u, name, value string) response {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return response{err: err}
	}
	req.Header.Set("User-Agent", userAgent)
	if name != "" {
		req.Header.Set(name, value)
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

// statusOf says whether p answered 200 and what it answered.
func (c *checker) statusOf(p *page) (bool, string) {
	if p.err != nil {
		return false, "GET failed: " + errText(p.err, c.opts.Timeout)
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
	doc, err := decode(p.body)
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
		largest = max(largest, len(p.body))
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

// errText shortens a request error: no method and URL, which the finding
// has already.
func errText(err error, timeout time.Duration) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out after " + timeout.String()
	}
	return err.Error()
}
