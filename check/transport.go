package check

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/dial"
)

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
	for o, place := range origins {
		u, err := url.Parse(o)
		if err != nil {
			c.add("transport.https", ResultFail, place, o, "must be an origin a client can connect to")
			continue
		}
		switch {
		case u.Scheme == "https" && lowest[o] != 0 && lowest[o] < 0x0303:
			c.add("transport.https", ResultFail, place, "TLS version 0x"+strconv.FormatUint(uint64(lowest[o]), 16), "must use TLS 1.2 or later")
		case u.Scheme == "https":
			ev := "https"
			if v := lowest[o]; v != 0 {
				ev += ", TLS 1." + strconv.Itoa(int(v)-0x0301)
			}
			c.add("transport.https", ResultPass, place, ev, "served over https")
		case spec.IsLoopbackHost(u.Hostname()):
			c.add("transport.https", ResultPass, place, "http on loopback host "+u.Hostname(), "plain http is allowed on a loopback host, for local development")
		default:
			c.add("transport.https", ResultFail, place, "http://"+u.Host, "must be served over https (plain http only on loopback hosts)")
		}
	}
	c.checkTLSMinimum(ctx, origins, lowest)
}

// checkTLSMinimum applies transport.tls-minimum to the https origins (origin
// -> the place its findings name): each is offered a TLS 1.0 and a TLS 1.1
// handshake, which it must refuse. negotiated is the lowest version the
// check's own requests got from each. The handshakes run Concurrency at a
// time, each within Timeout.
func (c *checker) checkTLSMinimum(ctx context.Context, origins map[string]string, negotiated map[string]uint16) {
	const rule = "transport.tls-minimum"
	type job struct {
		u     *url.URL
		place string
	}
	var jobs []job
	for o, place := range origins {
		u, err := url.Parse(o)
		if err != nil || u.Scheme != "https" {
			continue
		}
		switch proxied := c.probes.Proxied(u); {
		case c.probes.Why != "":
			c.add(rule, ResultSkip, place, "", "not probed: "+c.probes.Why)
		case negotiated[o] == 0:
			c.add(rule, ResultSkip, place, "no response over TLS", "not probed: the check got no response from this origin over TLS (its other findings say why)")
		case proxied != "":
			c.add(rule, ResultSkip, place, proxied, "not probed: the check's requests go through a proxy, and the probe connects directly only")
		case ctx.Err() != nil:
			c.add(rule, ResultSkip, place, "", "not probed: the check ran out of time first (see limits.deadline)")
		default:
			jobs = append(jobs, job{u, place})
		}
	}
	results := make([][]dial.ProbeResult, len(jobs))
	sem := make(chan struct{}, c.opts.Concurrency)
	var wg sync.WaitGroup
	for i, j := range jobs {
		results[i] = make([]dial.ProbeResult, len(dial.ProbeVersions()))
		for k, v := range dial.ProbeVersions() {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				results[i][k] = c.probes.Probe(ctx, j.u, v, c.opts.Timeout)
			})
		}
	}
	wg.Wait()
	for i, j := range jobs {
		var evidence, accepted, unknown []string
		for _, r := range results[i] {
			name := tlsName(r.Version)
			evidence = append(evidence, name+": "+r.Detail)
			switch r.Outcome {
			case dial.Accepted:
				accepted = append(accepted, name)
			case dial.Unknown:
				unknown = append(unknown, name)
			}
		}
		ev := strings.Join(evidence, "; ")
		switch {
		case len(accepted) > 0:
			c.add(rule, ResultFail, j.place, ev, "accepts "+strings.Join(accepted, " and ")+": must refuse every TLS version before 1.2")
		case len(unknown) > 0:
			c.add(rule, ResultSkip, j.place, ev, "could not tell whether it refuses "+strings.Join(unknown, " and "))
		default:
			c.add(rule, ResultPass, j.place, ev, "refuses TLS 1.0 and 1.1 handshakes")
		}
	}
}

// tlsName names a TLS version: "TLS 1.0".
func tlsName(v uint16) string { return tls.VersionName(v) }

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
		c.cors(corsRule, p, corsProblem, "CORS headers with and without an Origin request header", "every response must have the CORS headers")
		if p.role == roleTools && p.status == http.StatusOK && u != c.toolURL(unknownID, "") && u != c.toolURL(unknownID, spec.ViewCompact) {
			c.contentType("tools.content-type", p, spec.ContentTypeJSON)
		}
		if p.status != http.StatusOK {
			continue
		}
		if p.role == roleCard {
			c.cors("card.cors-etag", p, cardCORSProblem, "conditional requests allowed, ETag exposed", "a card should allow If-None-Match and expose ETag")
		}
		cc := strings.Join(p.header.Values("Cache-Control"), ", ")
		private := c.private(u)
		want := "should be served with Cache-Control: public, max-age=3600"
		if private {
			want = "should be served with Cache-Control: private, max-age=3600: it is behind the gate, and a shared cache must not keep it"
		}
		switch prob := cacheProblem(cc, private); {
		case cc == "":
			c.add(cacheRule, ResultFail, u, "no Cache-Control", want)
		case prob != "":
			c.add(cacheRule, ResultFail, u, "Cache-Control: "+cc+" ("+prob+")", want)
		default:
			c.add(cacheRule, ResultPass, u, "Cache-Control: "+cc, "cacheable for an hour")
		}
		c.etag(p)
		c.repeatable(p)
		c.encodings(p)
	}
}

// cors applies a CORS rule to p's responses without and with Origin.
func (c *checker) cors(rule string, p *page, problem func(http.Header) string, passMsg, failMsg string) {
	plain := problem(p.header)
	var withOrigin string
	if p.withOrigin.err != nil {
		withOrigin = "GET failed: " + dial.ErrText(p.withOrigin.err, c.opts.Timeout)
	} else {
		withOrigin = problem(p.withOrigin.header)
	}
	switch {
	case plain == "" && withOrigin == "":
		c.add(rule, ResultPass, p.url, corsSummary(p.header)+" (with and without Origin)", passMsg)
	case plain == withOrigin:
		c.add(rule, ResultFail, p.url, "with and without Origin: "+plain, failMsg)
	case withOrigin == "":
		c.add(rule, ResultFail, p.url, "without Origin: "+plain+" (with Origin: fine)", failMsg+", also without an Origin request header")
	case plain == "":
		c.add(rule, ResultFail, p.url, "with Origin "+p.originHeader()+": "+withOrigin+" (without Origin: fine)", failMsg+", also with an Origin request header")
	default:
		c.add(rule, ResultFail, p.url, "without Origin: "+plain+"; with Origin: "+withOrigin, failMsg)
	}
}

// corsSummary is the CORS headers of h, for the evidence of a pass.
func corsSummary(h http.Header) string {
	var parts []string
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Expose-Headers"} {
		if v := h.Values(k); len(v) > 0 {
			parts = append(parts, k+": "+strings.Join(v, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// corsProblem says what the CORS headers of h lack, "" if nothing.
func corsProblem(h http.Header) string {
	var probs []string
	switch v := h.Values("Access-Control-Allow-Origin"); {
	case len(v) == 0:
		probs = append(probs, "no Access-Control-Allow-Origin")
	case len(v) > 1 || strings.TrimSpace(v[0]) != "*":
		probs = append(probs, "Access-Control-Allow-Origin: "+strings.Join(v, ", ")+", not *")
	}
	probs = tokenProblem(probs, h, "Access-Control-Allow-Methods", "GET", true)
	probs = tokenProblem(probs, h, "Access-Control-Allow-Headers", "Content-Type", false)
	return strings.Join(probs, "; ")
}

// cardCORSProblem says what a card's CORS headers lack for
// conditional requests, "" if nothing.
func cardCORSProblem(h http.Header) string {
	probs := tokenProblem(nil, h, "Access-Control-Allow-Headers", "If-None-Match", false)
	probs = tokenProblem(probs, h, "Access-Control-Expose-Headers", "ETag", false)
	return strings.Join(probs, "; ")
}

// tokenProblem appends to probs what is wrong when the header name
// does not list token.
func tokenProblem(probs []string, h http.Header, name, token string, caseSensitive bool) []string {
	if hasToken(h, name, token, caseSensitive) {
		return probs
	}
	if v := h.Values(name); len(v) > 0 {
		return append(probs, name+": "+strings.Join(v, ", ")+", without "+token)
	}
	return append(probs, "no "+name)
}

// hasToken reports whether a comma-separated header lists token, or *.
func hasToken(h http.Header, name, token string, caseSensitive bool) bool {
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

// cacheProblem says how a Cache-Control value falls short of
// "public, max-age=3600", or of "private, max-age=3600" when private is
// set, "" if it does not.
func cacheProblem(v string, private bool) string {
	public, priv, maxAge := false, false, ""
	for _, d := range strings.Split(strings.ToLower(v), ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch name {
		case "public":
			public = true
		case "private":
			priv = true
		case "max-age":
			maxAge = strings.Trim(val, `"`)
		case "no-store":
			return name
		}
	}
	switch {
	case private && (public || !priv):
		return "not private"
	case !private && priv:
		return "private"
	case !private && !public:
		return "not public"
	case maxAge == "":
		return "no max-age"
	case maxAge != "3600":
		return "max-age " + maxAge + ", not 3600"
	}
	return ""
}

// strongETag matches a strong entity tag (RFC 9110, section 8.8.3).
var strongETag = regexp.MustCompile(`^"[\x21\x23-\x7e\x80-\xff]*"$`)

// etag applies cache.etag to a 200 page.
func (c *checker) etag(p *page) {
	etag := p.header.Get("ETag")
	switch {
	case etag == "":
		c.add("cache.etag", ResultFail, p.url, "no ETag", "documents should have a strong ETag")
	case strings.HasPrefix(etag, "W/") && p.compressed && strongETag.MatchString(etag[2:]) && p.cond != nil && p.cond.err == nil && p.cond.status == http.StatusNotModified:
		// A CDN that compresses a response weakens its ETag, rightly:
		// the compressed bytes are not the ones the tag was made of.
		c.add("cache.etag", ResultPass, p.url, "ETag: "+etag+" on a compressed response; If-None-Match: 304", "a weak ETag is right for bytes compressed on the way, and it revalidates")
	case strings.HasPrefix(etag, "W/"):
		c.add("cache.etag", ResultFail, p.url, "ETag: "+etag, "the ETag should be strong, a hash of the bytes")
	case !strongETag.MatchString(etag):
		c.add("cache.etag", ResultFail, p.url, "ETag: "+etag, "the ETag should be a quoted string")
	case p.cond == nil:
	case p.cond.err != nil:
		c.add("cache.etag", ResultFail, p.url, "If-None-Match: GET failed: "+dial.ErrText(p.cond.err, c.opts.Timeout), "If-None-Match with the ETag should answer 304")
	case p.cond.status != http.StatusNotModified:
		c.add("cache.etag", ResultFail, p.url, "ETag: "+etag+"; If-None-Match: status "+strconv.Itoa(p.cond.status), "If-None-Match with the ETag should answer 304")
	default:
		c.add("cache.etag", ResultPass, p.url, "ETag: "+etag+"; If-None-Match: 304", "a strong ETag that revalidates")
	}
}

// repeatable applies determinism.repeatable: the GET with Origin gave the
// same bytes and ETag as the plain one.
func (c *checker) repeatable(p *page) {
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

// contentCodings are the codings transport.encoding asks for, one GET
// each.
var contentCodings = []string{"br", "gzip"}

// encodings applies transport.encoding to p's GETs with Accept-Encoding:
// a response in the coding asked for decodes to the bytes of the plain
// GET, varies with Accept-Encoding and has an ETag of its own; one sent as
// it is passes too, compression being the origin's choice.
func (c *checker) encodings(p *page) {
	const rule = "transport.encoding"
	for i, r := range p.encoded {
		coding := contentCodings[i]
		asked := "Accept-Encoding: " + coding
		got := r.header.Get("Content-Encoding")
		etag := r.header.Get("ETag")
		switch {
		case r.err != nil:
			c.add(rule, ResultFail, p.url, asked+": GET failed: "+dial.ErrText(r.err, c.opts.Timeout), "a GET that accepts "+coding+" should be answered")
			continue
		case r.status != http.StatusOK:
			c.add(rule, ResultFail, p.url, asked+": status "+strconv.Itoa(r.status), "a GET that accepts "+coding+" should answer 200, as the plain GET did")
			continue
		case r.tooBig:
			c.add(rule, ResultSkip, p.url, asked+": larger than the body limit", "not decoded")
			continue
		case got == "" || strings.EqualFold(got, "identity"):
			if r.size == p.size && r.sum == p.sum {
				c.add(rule, ResultPass, p.url, asked+": sent as it is", "compression is the origin's choice; the bytes are the document's")
			} else {
				c.add(rule, ResultFail, p.url, asked+": sent as it is, but other bytes than the plain GET's", "a document should be the same bytes whatever the request accepts")
			}
			continue
		case !strings.EqualFold(got, coding):
			c.add(rule, ResultFail, p.url, asked+"; Content-Encoding: "+got, "a response should be in a coding the request accepts")
			continue
		}
		decoded, err := decodeContent(coding, r.body, c.opts.MaxBodyBytes)
		sum := sha256.Sum256(decoded)
		vary := false
		for _, v := range r.header.Values("Vary") {
			for f := range strings.SplitSeq(v, ",") {
				vary = vary || strings.EqualFold(strings.TrimSpace(f), "Accept-Encoding") || strings.TrimSpace(f) == "*"
			}
		}
		plainTag := p.header.Get("ETag")
		switch {
		case err != nil:
			c.add(rule, ResultFail, p.url, asked+"; Content-Encoding: "+got+": "+err.Error(), "the body should decode")
		case len(decoded) != p.size || sum != p.sum:
			c.add(rule, ResultFail, p.url, fmt.Sprintf("%s; Content-Encoding: %s: decodes to %d bytes, not the plain GET's %d", asked, got, len(decoded), p.size), "a compressed response should decode to the document's bytes")
		case !vary:
			c.add(rule, ResultFail, p.url, asked+"; Content-Encoding: "+got+"; Vary: "+r.header.Get("Vary"), "a response that depends on Accept-Encoding should say so in Vary, or a shared cache may hand it to a client that cannot decode it")
		case etag != "" && !strings.HasPrefix(etag, "W/") && etag == plainTag && !(p.compressed && coding == "gzip"):
			// The plain GET is the transport's, which asks for gzip and
			// decodes it: its response may be gzip itself, and then has
			// this ETag rightly.
			c.add(rule, ResultFail, p.url, asked+"; Content-Encoding: "+got+"; ETag: "+etag+", the plain GET's too", "each representation should have an ETag of its own (or a weak one)")
		default:
			c.add(rule, ResultPass, p.url, fmt.Sprintf("%s; Content-Encoding: %s: %d bytes, decoding to the document's %d", asked, got, r.size, p.size), "compressed, and the same document")
		}
	}
}

// decodeContent decodes a body in coding, to at most limit bytes.
func decodeContent(coding string, data []byte, limit int64) ([]byte, error) {
	var zr io.Reader
	switch coding {
	case "gzip":
		g, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("not gzip: %w", err)
		}
		zr = g
	case "br":
		zr = brotli.NewReader(bytes.NewReader(data))
	default:
		return nil, fmt.Errorf("a coding this check does not decode")
	}
	out, err := io.ReadAll(io.LimitReader(zr, limit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("does not decode: %w", err)
	case int64(len(out)) > limit:
		return nil, fmt.Errorf("decodes to more than %d bytes", limit)
	}
	return out, nil
}
