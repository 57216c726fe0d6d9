package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/compress"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/fastpath"
	"golang.org/x/sync/errgroup"
)

// Handler serves one site of a build exactly as the HTTP contract says:
// every route and view of the route table with its Content-Type,
// Cache-Control and strong ETag; ?view=compact on the tool catalog, any
// other view giving the standard one; 304 for a matching If-None-Match;
// HEAD; OPTIONS preflight; 404 with a small JSON error for anything else; 405
// with Allow for other methods; a document's precompressed variant (brotli,
// then gzip) when the client's Accept-Encoding allows it. The
// documents are held in memory and looked up by route, so no request path
// ever reaches a filesystem.
//
// The registry's routes (spec.RouteRegistry and below) answer as its
// clients ask (see registry.go): a name and a version however they are
// escaped, a trailing slash, any query (a search filtering the list), with
// the registry's CORS headers and error document.
//
// A gated site (output.Site.Access) answers only requests with a valid
// token for its tenant, signed with one of keys, as its edge does (see
// package gate), and marks what it lets through private.
type Handler struct {
	docs map[docKey]*servedDoc
	// cors are the CORS headers of every response but the registry's, and
	// registryCORS of the registry's.
	cors, registryCORS *corsSet
	// search is the registry's list, as a search filters it; nil when the
	// site has no registry.
	search *registrySearch
	// link is the Link header of every document response
	// (output.Site.Link), nil when the site has none.
	link   []string
	tenant string
	access gate.Access
	keys   gate.Keys
	now    func() time.Time
}

type docKey struct{ route, view string }

// servedDoc is a document ready to send, as it is and in each of its
// variants, with the values of its headers made once: a request for it
// allocates nothing in the handler.
type servedDoc struct {
	route      output.Route
	body       []byte
	lengthText string
	// encoded are the build's variants of the document, in the order of
	// spec.Encodings, the order they are preferred in.
	encoded []servedVariant
	// cors are the CORS headers it is sent with.
	cors *corsSet

	contentType, cacheControl, private, etag, length []string
}

// servedVariant is a document's variant in one content coding, ready to
// send.
type servedVariant struct {
	coding     string
	body       []byte
	etagText   string
	lengthText string
	// header is the line of the response head that names the coding.
	header string

	encoding, etag, length []string
}

// pick returns the variant the values of a request's Accept-Encoding
// allow, the first of spec.Encodings' order, or nil for the document as
// it is.
func (d *servedDoc) pick(accept []string) *servedVariant {
	if len(accept) == 0 {
		return nil
	}
	for i := range d.encoded {
		if spec.AcceptsEncoding(accept, d.encoded[i].coding) {
			return &d.encoded[i]
		}
	}
	return nil
}

// corsSet is a set of CORS headers, as headers and as the lines of a
// response head (see front).
type corsSet struct {
	headers [4]header
	block   []byte
}

func newCORSSet(kvs [4][2]string) *corsSet {
	c := &corsSet{}
	for i, kv := range kvs {
		c.headers[i] = header{http.CanonicalHeaderKey(kv[0]), values(kv[1])}
	}
	c.block = corsHeaders(c.headers)
	return c
}

// header is a header's canonical name and its value as http.Header holds
// it. The value slices are shared by every response, so they have no spare
// capacity: an Add on one response copies instead of writing into another's.
type header struct {
	name  string
	value []string
}

// values returns v as a header value no append can write through.
func values(v string) []string { return []string{v}[:1:1] }

// Header values every document response shares.
var varyAcceptEncoding = values("Accept-Encoding")

// ErrNoKeys is the error of NewHandler, wrapped with the tenant, for a
// gated site without a key of its tenant: it would refuse every request.
var ErrNoKeys = errors.New("the site is gated, and no key opens it")

// gzipMin is the size below which a document without variants is not
// worth compressing at start.
const gzipMin = 512

// NewHandler prepares the documents of one site for serving, each with the
// variants the build made of it (output.Build.Precompress, a build for S3);
// a document of gzipMin bytes or more that has none, as a build for no host
// has, is compressed in gzip at start, on every CPU, and sent so when that
// pays. keys open the site when it is gated. NewHandler returns ctx's
// error soon after ctx is done.
func NewHandler(ctx context.Context, site *output.Site, keys gate.Keys) (*Handler, error) {
	if _, ok := keys.Latest(site.Tenant); site.Access.Token && !ok {
		return nil, fmt.Errorf("%s: %w: add a key for %s to the keys file", spec.SiteName(site.Tenant), ErrNoKeys, site.Tenant)
	}
	docs := site.Documents
	h := &Handler{docs: make(map[docKey]*servedDoc, len(docs)), tenant: site.Tenant, access: site.Access, keys: keys, now: time.Now,
		cors: newCORSSet(spec.CORSHeaders()), registryCORS: newCORSSet(spec.RegistryCORSHeaders())}
	if l := site.Link(); l != "" {
		h.link = values(l)
	}
	served := make([]*servedDoc, len(docs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range docs {
		g.Go(func() error {
			d := &docs[i]
			body, err := d.Body.Bytes()
			if err != nil {
				return fmt.Errorf("serve %s: %w", d.Route.Route, err)
			}
			served[i] = h.prepare(d, body)
			if len(served[i].encoded) > 0 || len(body) < gzipMin {
				return nil
			}
			gz, err := compress.Encode(gctx, spec.EncodingGzip, bytes.NewReader(body), int64(len(body)))
			if err != nil {
				return fmt.Errorf("serve %s: %w", d.Route.Route, err)
			}
			if len(gz) < len(body) {
				sum := sha256.Sum256(gz)
				served[i].addVariant(spec.EncodingGzip, spec.VariantETag(hex.EncodeToString(sum[:]), spec.EncodingGzip), gz)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, d := range docs {
		if d.Route.Route == spec.RouteRegistry {
			s, err := newRegistrySearch(served[i].body)
			if err != nil {
				return nil, fmt.Errorf("serve %s: %w", d.Route.Route, err)
			}
			h.search = s
		}
		h.docs[docKey{d.Route.Route, d.View}] = served[i]
	}
	return h, nil
}

// served prepares a document of route with body for serving, without
// variants: a registry search's answer.
func (h *Handler) served(route output.Route, body []byte) *servedDoc {
	return h.prepare(&output.Document{Route: route}, body)
}

// prepare makes a document, whose body is body, ready to send: its body
// and variants, its CORS and its headers' values.
func (h *Handler) prepare(d *output.Document, body []byte) *servedDoc {
	route := d.Route
	sd := &servedDoc{route: route, body: body, lengthText: strconv.Itoa(len(body)), cors: h.corsOf(route.Route)}
	for i, v := range route.Variants {
		if i >= len(d.Encoded) {
			break
		}
		sd.addVariant(v.Encoding, v.ETag, d.Encoded[i])
	}
	sd.contentType, sd.cacheControl = values(route.ContentType), values(route.CacheControl)
	sd.private, sd.etag, sd.length = values(gate.CacheControl(route.CacheControl)), values(route.ETag), values(sd.lengthText)
	return sd
}

// addVariant adds the document's variant in coding, body with ETag etag.
func (d *servedDoc) addVariant(coding, etag string, body []byte) {
	n := strconv.Itoa(len(body))
	d.encoded = append(d.encoded, servedVariant{coding: coding, body: body, etagText: etag, lengthText: n,
		header: "Content-Encoding: " + coding + "\r\n", encoding: values(coding), etag: values(etag), length: values(n)})
}

// corsOf returns the CORS headers of the responses at path.
func (h *Handler) corsOf(path string) *corsSet {
	if spec.IsRegistryRoute(path) {
		return h.registryCORS
	}
	return h.cors
}

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	registry := spec.IsRegistryRoute(r.URL.Path)
	for _, c := range h.corsOf(r.URL.Path).headers {
		hdr[c.name] = c.value
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		hdr.Set("Access-Control-Max-Age", spec.PreflightMaxAge)
		hdr.Set("Allow", spec.AllowMethods)
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		hdr.Set("Allow", spec.AllowMethods)
		message := fmt.Sprintf("method %s is not allowed: use GET or HEAD", r.Method)
		if registry {
			writeRegistryError(w, r, http.StatusMethodNotAllowed, message)
			return
		}
		writeError(w, r, http.StatusMethodNotAllowed, message)
		return
	}

	gated := !h.access.IsPublic(r.URL.Path)
	if gated {
		err := gate.Verify(r.Header.Get("Authorization"), h.tenant, h.now(), h.keys.Lookup)
		if err != nil {
			no := gate.Refuse(h.tenant, r.URL.Path, err)
			if no.Challenge != "" {
				hdr.Set("WWW-Authenticate", no.Challenge)
			}
			if no.Message == "" {
				no.Message = notFoundMessage(r.URL.Path)
			}
			writeError(w, r, no.Status, no.Message)
			return
		}
	}
	var doc *servedDoc
	if registry {
		var missing string
		if doc, missing = h.registryLookup(r.URL.EscapedPath(), r.URL.RawQuery, true); doc == nil {
			writeRegistryError(w, r, http.StatusNotFound, missing)
			return
		}
	} else if doc = h.lookup(r.URL.Path, r.URL.RawQuery); doc == nil {
		writeError(w, r, http.StatusNotFound, notFoundMessage(r.URL.Path))
		return
	}
	// The values were made with the document; assigning them, rather than
	// Set, allocates nothing.
	hdr["Content-Type"] = doc.contentType
	if gated {
		hdr["Cache-Control"] = doc.private
	} else {
		hdr["Cache-Control"] = doc.cacheControl
	}
	hdr["Vary"] = varyAcceptEncoding
	body, etag, tag, length := doc.body, doc.etag, doc.route.ETag, doc.length
	v := doc.pick(r.Header["Accept-Encoding"])
	if v != nil {
		body, etag, tag, length = v.body, v.etag, v.etagText, v.length
	}
	hdr["Etag"] = etag
	if h.link != nil {
		hdr["Link"] = h.link
	}
	// If-None-Match is held to the ETag of the representation this
	// request selects (RFC 9110, section 13.1.2), the one a 304 carries:
	// a cache that revalidates its gzip copy with a request that selects
	// brotli must get the brotli answer, not a 304 it cannot use.
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && etagMatches(inm, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if v != nil {
		hdr["Content-Encoding"] = v.encoding
	}
	hdr["Content-Length"] = length
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}

// lookup finds the document of a request's path and raw query: on the
// tool catalog, the query's view. Any view other than compact, and compact on a site
// that does not serve it, gives the standard view.
func (h *Handler) lookup(path, rawQuery string) *servedDoc {
	if queryValue(rawQuery, "view") == spec.ViewCompact {
		if d := h.docs[docKey{path, spec.ViewCompact}]; d != nil {
			return d
		}
	}
	return h.docs[docKey{path, spec.ViewStandard}]
}

func notFoundMessage(path string) string {
	if id, ok := spec.ToolSegment(path); ok {
		return fmt.Sprintf("no tool %q in this catalog", id)
	}
	return fmt.Sprintf("nothing at %q", path)
}

// writeError answers with a small JSON error document.
func writeError(w http.ResponseWriter, r *http.Request, status int, message string) {
	writeErrorBody(w, r, status, spec.ErrorBody(status, message))
}

// writeRegistryError answers with the registry's error document.
func writeRegistryError(w http.ResponseWriter, r *http.Request, status int, message string) {
	writeErrorBody(w, r, status, spec.RegistryErrorBody(message))
}

func writeErrorBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	hdr := w.Header()
	hdr.Set("Content-Type", spec.ContentTypeJSON)
	hdr.Set("Cache-Control", spec.ErrorCacheControl)
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// etagMatches applies If-None-Match's weak comparison: any listed tag, with
// or without W/, equal to one of tags; or *.
func etagMatches(values []string, tags ...string) bool {
	for _, v := range values {
		for t := range strings.SplitSeq(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" {
				return true
			}
			t = strings.TrimPrefix(t, "W/")
			for _, tag := range tags {
				if tag != "" && t == tag {
					return true
				}
			}
		}
	}
	return false
}

// setCORS puts the headers every response carries on hdr.
func setCORS(hdr http.Header) {
	for _, kv := range spec.CORSHeaders() {
		hdr.Set(kv[0], kv[1])
	}
}

// queryValue is url.ParseQuery(raw).Get(key) without the map: the first
// value of key, unescaped, skipping the pairs ParseQuery rejects (with a
// semicolon, or an escape that does not decode). In a build without fast
// paths (package fastpath) it is url.ParseQuery itself.
func queryValue(raw, key string) string {
	if !fastpath.Enabled {
		q, _ := url.ParseQuery(raw)
		return q.Get(key)
	}
	return scanQuery(raw, key)
}

// scanQuery is queryValue in a build with fast paths.
func scanQuery(raw, key string) string {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if strings.ContainsAny(k, "%+") {
			var err error
			if k, err = url.QueryUnescape(k); err != nil {
				continue
			}
		}
		if k != key {
			continue
		}
		if strings.ContainsAny(v, "%+") {
			var err error
			if v, err = url.QueryUnescape(v); err != nil {
				continue
			}
		}
		return v
	}
	return ""
}
