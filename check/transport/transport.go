// Package transport holds the checker's rules of how an origin serves its
// documents, whatever the documents say: each origin over https with TLS
// 1.2 or later (transport.https, and transport.tls-minimum, which offers
// it a TLS 1.0 and a TLS 1.1 handshake it must refuse), the CORS headers
// of every response, Cache-Control and a strong ETag that revalidates, the
// same bytes at every GET (determinism.repeatable), and each response in a
// content coding that decodes to the identity bytes (transport.encoding).
//
// The check's crawl makes the requests; a Page is what they answered, and
// Rules records its findings through Findings, which the check implements.
// The check chooses which rule names a page's findings take (those of the
// MCP catalog have their own) and which pages are behind a gate; this
// package judges no document by what it says.
package transport

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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/dial"
)

// Response is one response as the crawl read it, its body up to the
// check's size limit.
type Response struct {
	Err    error
	Status int
	Header http.Header
	// Body is the bytes as sent; the rules read it of Page.Encoded only.
	Body []byte
	// Size and Sum are of the body as the client read it, when within
	// the limit; TooBig says it was not.
	Size   int
	Sum    [sha256.Size]byte
	TooBig bool
	// Compressed is set when the response came content-encoded (the
	// client asked for gzip and decompressed it).
	Compressed bool
}

// Page is one document of the checked origin and the GETs the crawl made
// of it.
type Page struct {
	URL string
	// Response is the plain GET's.
	Response
	// WithOrigin is the same GET with the Origin header OriginHeader; its
	// body was not kept, and SameBytes says whether it was the plain
	// GET's (by size and SHA-256).
	WithOrigin   Response
	OriginHeader string
	SameBytes    bool
	// Cond is the GET with If-None-Match and the plain GET's ETag, nil
	// when none was made.
	Cond *Response
	// Encoded are the GETs with Accept-Encoding, one for each of Codings
	// in order, when they were made.
	Encoded []Response
}

// Codings are the content codings transport.encoding asks for, one GET
// each, in the order of Page.Encoded.
func Codings() []string { return []string{"br", "gzip"} }

// Findings is where the rules' findings go, each of a rule at a URL, with
// its evidence and message; a failure of a rule the specs say should hold
// is the check's to record as a warning.
type Findings interface {
	Pass(rule, u, evidence, msg string)
	Fail(rule, u, evidence, msg string)
	Skip(rule, u, evidence, msg string)
}

// Rules applies the transport rules with the check's limits.
type Rules struct {
	Findings Findings
	// Probes makes the handshakes of transport.tls-minimum.
	Probes dial.Handshaker
	// Timeout bounds each handshake, and is what an error's text names;
	// Concurrency is how many handshakes run at once.
	Timeout     time.Duration
	Concurrency int
	// MaxBodyBytes is the most a body may decode to.
	MaxBodyBytes int64
}

// Origins applies transport.https and transport.tls-minimum to origins
// (origin -> the place its findings name); negotiated is the lowest TLS
// version the check's own requests got from each, 0 for none. ctx bounds
// the handshakes of transport.tls-minimum.
func (t Rules) Origins(ctx context.Context, origins map[string]string, negotiated map[string]uint16) {
	f := t.Findings
	for o, place := range origins {
		u, err := url.Parse(o)
		if err != nil {
			f.Fail("transport.https", place, o, "must be an origin a client can connect to")
			continue
		}
		switch {
		case u.Scheme == "https" && negotiated[o] != 0 && negotiated[o] < 0x0303:
			f.Fail("transport.https", place, "TLS version 0x"+strconv.FormatUint(uint64(negotiated[o]), 16), "must use TLS 1.2 or later")
		case u.Scheme == "https":
			ev := "https"
			if v := negotiated[o]; v != 0 {
				ev += ", TLS 1." + strconv.Itoa(int(v)-0x0301)
			}
			f.Pass("transport.https", place, ev, "served over https")
		case spec.IsLoopbackHost(u.Hostname()):
			f.Pass("transport.https", place, "http on loopback host "+u.Hostname(), "plain http is allowed on a loopback host, for local development")
		default:
			f.Fail("transport.https", place, "http://"+u.Host, "must be served over https (plain http only on loopback hosts)")
		}
	}
	t.tlsMinimum(ctx, origins, negotiated)
}

// tlsMinimum applies transport.tls-minimum to the https origins: each is
// offered a TLS 1.0 and a TLS 1.1 handshake, which it must refuse. The
// handshakes run Concurrency at a time, each within Timeout.
func (t Rules) tlsMinimum(ctx context.Context, origins map[string]string, negotiated map[string]uint16) {
	const rule = "transport.tls-minimum"
	f := t.Findings
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
		switch proxied := t.Probes.Proxied(u); {
		case t.Probes.Why != "":
			f.Skip(rule, place, "", "not probed: "+t.Probes.Why)
		case negotiated[o] == 0:
			f.Skip(rule, place, "no response over TLS", "not probed: the check got no response from this origin over TLS (its other findings say why)")
		case proxied != "":
			f.Skip(rule, place, proxied, "not probed: the check's requests go through a proxy, and the probe connects directly only")
		case ctx.Err() != nil:
			f.Skip(rule, place, "", "not probed: the check ran out of time first (see limits.deadline)")
		default:
			jobs = append(jobs, job{u, place})
		}
	}
	results := make([][]dial.ProbeResult, len(jobs))
	sem := make(chan struct{}, max(t.Concurrency, 1))
	var wg sync.WaitGroup
	for i, j := range jobs {
		results[i] = make([]dial.ProbeResult, len(dial.ProbeVersions()))
		for k, v := range dial.ProbeVersions() {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				results[i][k] = t.Probes.Probe(ctx, j.u, v, t.Timeout)
			})
		}
	}
	wg.Wait()
	for i, j := range jobs {
		var evidence, accepted, unknown []string
		for _, r := range results[i] {
			name := tls.VersionName(r.Version)
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
			f.Fail(rule, j.place, ev, "accepts "+strings.Join(accepted, " and ")+": must refuse every TLS version before 1.2")
		case len(unknown) > 0:
			f.Skip(rule, j.place, ev, "could not tell whether it refuses "+strings.Join(unknown, " and "))
		default:
			f.Pass(rule, j.place, ev, "refuses TLS 1.0 and 1.1 handshakes")
		}
	}
}

// errText says briefly why a request failed.
func (t Rules) errText(err error) string { return dial.ErrText(err, t.Timeout) }

// CORS applies a rule of the CORS headers every response must have
// (cors.every-response, or mcp-catalog.cors) to p's GETs without and
// with Origin.
func (t Rules) CORS(rule string, p Page) {
	t.cors(rule, p, CORSProblem, "CORS headers with and without an Origin request header", "every response must have the CORS headers")
}

// CardCORS applies card.cors-etag to a card's GETs without and with
// Origin: it should allow If-None-Match and expose ETag.
func (t Rules) CardCORS(p Page) {
	t.cors("card.cors-etag", p, cardCORSProblem, "conditional requests allowed, ETag exposed", "a card should allow If-None-Match and expose ETag")
}

// cors applies a CORS rule to p's responses without and with Origin.
func (t Rules) cors(rule string, p Page, problem func(http.Header) string, passMsg, failMsg string) {
	f := t.Findings
	plain := problem(p.Header)
	var withOrigin string
	if p.WithOrigin.Err != nil {
		withOrigin = "GET failed: " + t.errText(p.WithOrigin.Err)
	} else {
		withOrigin = problem(p.WithOrigin.Header)
	}
	switch {
	case plain == "" && withOrigin == "":
		f.Pass(rule, p.URL, CORSSummary(p.Header)+" (with and without Origin)", passMsg)
	case plain == withOrigin:
		f.Fail(rule, p.URL, "with and without Origin: "+plain, failMsg)
	case withOrigin == "":
		f.Fail(rule, p.URL, "without Origin: "+plain+" (with Origin: fine)", failMsg+", also without an Origin request header")
	case plain == "":
		f.Fail(rule, p.URL, "with Origin "+p.OriginHeader+": "+withOrigin+" (without Origin: fine)", failMsg+", also with an Origin request header")
	default:
		f.Fail(rule, p.URL, "without Origin: "+plain+"; with Origin: "+withOrigin, failMsg)
	}
}

// CORSSummary is the CORS headers of h, for the evidence of a pass.
func CORSSummary(h http.Header) string {
	var parts []string
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Expose-Headers"} {
		if v := h.Values(k); len(v) > 0 {
			parts = append(parts, k+": "+strings.Join(v, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// CORSProblem says what the CORS headers of h lack, "" if nothing.
func CORSProblem(h http.Header) string {
	var probs []string
	switch v := h.Values("Access-Control-Allow-Origin"); {
	case len(v) == 0:
		probs = append(probs, "no Access-Control-Allow-Origin")
	case len(v) > 1 || strings.TrimSpace(v[0]) != "*":
		probs = append(probs, "Access-Control-Allow-Origin: "+strings.Join(v, ", ")+", not *")
	}
	probs = TokenProblem(probs, h, "Access-Control-Allow-Methods", "GET", true)
	probs = TokenProblem(probs, h, "Access-Control-Allow-Headers", "Content-Type", false)
	return strings.Join(probs, "; ")
}

// cardCORSProblem says what a card's CORS headers lack for
// conditional requests, "" if nothing.
func cardCORSProblem(h http.Header) string {
	probs := TokenProblem(nil, h, "Access-Control-Allow-Headers", "If-None-Match", false)
	probs = TokenProblem(probs, h, "Access-Control-Expose-Headers", "ETag", false)
	return strings.Join(probs, "; ")
}

// TokenProblem appends to probs what is wrong when the header name of h
// does not list token (or *), compared exactly when caseSensitive is set.
func TokenProblem(probs []string, h http.Header, name, token string, caseSensitive bool) []string {
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

// Cache applies a rule of Cache-Control (cache.control, or
// mcp-catalog.cache) to a 200 page: public, max-age=3600, or private,
// max-age=3600 when private is set (the page is behind the gate).
func (t Rules) Cache(rule string, p Page, private bool) {
	f := t.Findings
	cc := strings.Join(p.Header.Values("Cache-Control"), ", ")
	want := "should be served with Cache-Control: public, max-age=3600"
	if private {
		want = "should be served with Cache-Control: private, max-age=3600: it is behind the gate, and a shared cache must not keep it"
	}
	switch prob := cacheProblem(cc, private); {
	case cc == "":
		f.Fail(rule, p.URL, "no Cache-Control", want)
	case prob != "":
		f.Fail(rule, p.URL, "Cache-Control: "+cc+" ("+prob+")", want)
	default:
		f.Pass(rule, p.URL, "Cache-Control: "+cc, "cacheable for an hour")
	}
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

// ETag applies cache.etag to a 200 page.
func (t Rules) ETag(p Page) {
	f := t.Findings
	etag := p.Header.Get("ETag")
	switch {
	case etag == "":
		f.Fail("cache.etag", p.URL, "no ETag", "documents should have a strong ETag")
	case strings.HasPrefix(etag, "W/") && p.Compressed && strongETag.MatchString(etag[2:]) && p.Cond != nil && p.Cond.Err == nil && p.Cond.Status == http.StatusNotModified:
		// A CDN that compresses a response weakens its ETag, rightly:
		// the compressed bytes are not the ones the tag was made of.
		f.Pass("cache.etag", p.URL, "ETag: "+etag+" on a compressed response; If-None-Match: 304", "a weak ETag is right for bytes compressed on the way, and it revalidates")
	case strings.HasPrefix(etag, "W/"):
		f.Fail("cache.etag", p.URL, "ETag: "+etag, "the ETag should be strong, a hash of the bytes")
	case !strongETag.MatchString(etag):
		f.Fail("cache.etag", p.URL, "ETag: "+etag, "the ETag should be a quoted string")
	case p.Cond == nil:
	case p.Cond.Err != nil:
		f.Fail("cache.etag", p.URL, "If-None-Match: GET failed: "+t.errText(p.Cond.Err), "If-None-Match with the ETag should answer 304")
	case p.Cond.Status != http.StatusNotModified:
		f.Fail("cache.etag", p.URL, "ETag: "+etag+"; If-None-Match: status "+strconv.Itoa(p.Cond.Status), "If-None-Match with the ETag should answer 304")
	default:
		f.Pass("cache.etag", p.URL, "ETag: "+etag+"; If-None-Match: 304", "a strong ETag that revalidates")
	}
}

// Repeatable applies determinism.repeatable to a 200 page: the GET with
// Origin gave the same bytes and ETag as the plain one.
func (t Rules) Repeatable(p Page) {
	f := t.Findings
	o := p.WithOrigin
	if o.Err != nil || o.Status != http.StatusOK || p.TooBig || o.TooBig {
		return
	}
	a, b := p.Header.Get("ETag"), o.Header.Get("ETag")
	switch {
	case !p.SameBytes:
		f.Fail("determinism.repeatable", p.URL, "two GETs gave different bytes", "a document should be the same bytes every time")
	case a != b:
		f.Fail("determinism.repeatable", p.URL, "ETag "+a+", then "+b, "a document should keep its ETag")
	default:
		f.Pass("determinism.repeatable", p.URL, "two GETs, same bytes and ETag", "the same bytes every time")
	}
}

// Encodings applies transport.encoding to p's GETs with Accept-Encoding:
// a response in the coding asked for decodes to the bytes of the plain
// GET, varies with Accept-Encoding and has an ETag of its own; one sent as
// it is passes too, compression being the origin's choice.
func (t Rules) Encodings(p Page) {
	const rule = "transport.encoding"
	f := t.Findings
	codings := Codings()
	for i, r := range p.Encoded {
		coding := codings[i]
		asked := "Accept-Encoding: " + coding
		got := r.Header.Get("Content-Encoding")
		etag := r.Header.Get("ETag")
		switch {
		case r.Err != nil:
			f.Fail(rule, p.URL, asked+": GET failed: "+t.errText(r.Err), "a GET that accepts "+coding+" should be answered")
			continue
		case r.Status != http.StatusOK:
			f.Fail(rule, p.URL, asked+": status "+strconv.Itoa(r.Status), "a GET that accepts "+coding+" should answer 200, as the plain GET did")
			continue
		case r.TooBig:
			f.Skip(rule, p.URL, asked+": larger than the body limit", "not decoded")
			continue
		case got == "" || strings.EqualFold(got, "identity"):
			if r.Size == p.Size && r.Sum == p.Sum {
				f.Pass(rule, p.URL, asked+": sent as it is", "compression is the origin's choice; the bytes are the document's")
			} else {
				f.Fail(rule, p.URL, asked+": sent as it is, but other bytes than the plain GET's", "a document should be the same bytes whatever the request accepts")
			}
			continue
		case !strings.EqualFold(got, coding):
			f.Fail(rule, p.URL, asked+"; Content-Encoding: "+got, "a response should be in a coding the request accepts")
			continue
		}
		decoded, err := decode(coding, r.Body, t.MaxBodyBytes)
		sum := sha256.Sum256(decoded)
		vary := false
		for _, v := range r.Header.Values("Vary") {
			for field := range strings.SplitSeq(v, ",") {
				vary = vary || strings.EqualFold(strings.TrimSpace(field), "Accept-Encoding") || strings.TrimSpace(field) == "*"
			}
		}
		plainTag := p.Header.Get("ETag")
		switch {
		case err != nil:
			f.Fail(rule, p.URL, asked+"; Content-Encoding: "+got+": "+err.Error(), "the body should decode")
		case len(decoded) != p.Size || sum != p.Sum:
			f.Fail(rule, p.URL, fmt.Sprintf("%s; Content-Encoding: %s: decodes to %d bytes, not the plain GET's %d", asked, got, len(decoded), p.Size), "a compressed response should decode to the document's bytes")
		case !vary:
			f.Fail(rule, p.URL, asked+"; Content-Encoding: "+got+"; Vary: "+r.Header.Get("Vary"), "a response that depends on Accept-Encoding should say so in Vary, or a shared cache may hand it to a client that cannot decode it")
		case etag != "" && !strings.HasPrefix(etag, "W/") && etag == plainTag && !(p.Compressed && coding == "gzip"):
			// The plain GET is the transport's, which asks for gzip and
			// decodes it: its response may be gzip itself, and then has
			// this ETag rightly.
			f.Fail(rule, p.URL, asked+"; Content-Encoding: "+got+"; ETag: "+etag+", the plain GET's too", "each representation should have an ETag of its own (or a weak one)")
		default:
			f.Pass(rule, p.URL, fmt.Sprintf("%s; Content-Encoding: %s: %d bytes, decoding to the document's %d", asked, got, r.Size, p.Size), "compressed, and the same document")
		}
	}
}

// decode decodes a body in coding, to at most limit bytes.
func decode(coding string, data []byte, limit int64) ([]byte, error) {
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
