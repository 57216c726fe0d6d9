package edgetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// response is a response on its way to the viewer.
type response struct {
	status int
	header http.Header
	body   []byte
	cache  string // X-Cache, as CloudFront says where a response came from
}

// ServeHTTP answers one viewer request as the distribution would.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := e.cfg.Distribution.behavior(viewerPath(r))
	res := e.answer(r, b)
	for _, h := range b.Headers {
		if h.Override || res.header.Get(h.Name) == "" {
			res.header.Set(h.Name, h.Value)
		}
	}
	res.header.Set("X-Cache", res.cache)
	res.header.Set("Via", "1.1 edgetest.cloudfront.net (CloudFront)")
	hdr := w.Header()
	for k, v := range res.header {
		hdr[k] = v
	}
	if r.Method == http.MethodHead || res.status == http.StatusNotModified || res.status == http.StatusNoContent {
		w.WriteHeader(res.status)
		return
	}
	hdr.Set("Content-Length", strconv.Itoa(len(res.body)))
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body)
}

// viewerPath is the path of the viewer's request as sent (escaped),
// which cache behaviors' path patterns are matched against.
func viewerPath(r *http.Request) string {
	uri, _, _ := strings.Cut(r.RequestURI, "?")
	if uri == "" || !strings.HasPrefix(uri, "/") {
		uri = r.URL.EscapedPath()
	}
	return uri
}

// answer answers a request with the settings of its cache behavior b,
// but for the response headers policy.
func (e *Edge) answer(r *http.Request, b CacheBehavior) response {
	if !slices.Contains(b.AllowedMethods, r.Method) {
		// CloudFront refuses the method before any function runs.
		return cloudFrontError(http.StatusForbidden, "This distribution is not configured to allow the HTTP request method that was used for this request. The distribution supports only cachable requests.")
	}
	req := viewerRequest(r)
	if e.has(b, ViewerRequest) {
		out, err := e.node.call(r.Context(), ViewerRequest, requestEvent(ViewerRequest, req, nil), e.cfg.FunctionTimeout)
		if err != nil {
			e.problem("%s %s: viewer-request: %v", r.Method, r.RequestURI, err)
			return cloudFrontError(http.StatusServiceUnavailable, "The CloudFront function associated with the CloudFront distribution is invalid or could not run correctly.")
		}
		if out.StatusCode != nil {
			res, err := out.response(r.Method)
			if err != nil {
				e.problem("%s %s: viewer-request: %v", r.Method, r.RequestURI, err)
				return cloudFrontError(http.StatusServiceUnavailable, "The CloudFront function returned an invalid value to the response.")
			}
			res.cache = "FunctionGeneratedResponse from cloudfront"
			return res
		}
		if out.URI == "" || !strings.HasPrefix(out.URI, "/") {
			e.problem("%s %s: viewer-request returned neither a response nor a request with a uri", r.Method, r.RequestURI)
			return cloudFrontError(http.StatusServiceUnavailable, "The CloudFront function returned an invalid value to the request.")
		}
		req = out.cfRequest
	}

	res := e.fetch(r.Context(), r.Method, req.URI)
	if res.status >= 400 {
		if er, ok := e.cfg.Distribution.ErrorResponses[res.status]; ok {
			// The page is read from the origin as it is, without the
			// viewer-request function; failing that, the origin's error
			// goes to the viewer.
			page := e.fetch(r.Context(), http.MethodGet, er.PagePath)
			if page.status == http.StatusOK {
				page.status = er.ResponseCode
				page.cache = "Error from cloudfront"
				return page
			}
			e.problem("%s %s: the custom error page %s answered %d", r.Method, r.RequestURI, er.PagePath, page.status)
		}
		res.cache = "Error from cloudfront"
		return res
	}
	if etag := res.header.Get("ETag"); etag != "" && etagMatch(req.header("if-none-match"), etag) {
		h := http.Header{}
		for _, k := range []string{"Etag", "Cache-Control", "Last-Modified", "Server"} {
			if v := res.header.Values(k); len(v) > 0 {
				h[k] = v
			}
		}
		res = response{status: http.StatusNotModified, header: h, cache: res.cache}
	}
	if !e.has(b, ViewerResponse) {
		return res
	}
	out, err := e.node.call(r.Context(), ViewerResponse, requestEvent(ViewerResponse, req, &res), e.cfg.FunctionTimeout)
	if err == nil && out.StatusCode == nil {
		err = errors.New("returned no response")
	}
	if err != nil {
		e.problem("%s %s: viewer-response: %v", r.Method, r.RequestURI, err)
		return cloudFrontError(http.StatusServiceUnavailable, "The CloudFront function associated with the CloudFront distribution is invalid or could not run correctly.")
	}
	// A viewer-response function sets the status and headers; the body
	// stays the origin's.
	fres, err := out.response(r.Method)
	if err != nil {
		e.problem("%s %s: viewer-response: %v", r.Method, r.RequestURI, err)
		return cloudFrontError(http.StatusServiceUnavailable, "The CloudFront function returned an invalid value to the response.")
	}
	fres.body, fres.cache = res.body, res.cache
	return fres
}

// has reports whether the cache behavior b runs a function for event.
func (e *Edge) has(b CacheBehavior, event string) bool {
	return e.node != nil && slices.Contains(b.Functions, event)
}

// fetch asks the origin for the object at uri (a path of percent-escaped
// segments) as CloudFront's signed request would: GetObject, or HeadObject
// for HEAD.
func (e *Edge) fetch(ctx context.Context, method, uri string) response {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.OriginTimeout)
	defer cancel()
	key, err := url.PathUnescape(strings.TrimPrefix(uri, "/"))
	if err != nil {
		return s3Error(http.StatusBadRequest, "InvalidURI", "Couldn't parse the specified URI.")
	}
	h := http.Header{}
	h.Set("Server", "AmazonS3")
	meta := func(ct, cc, ce, etag *string, lm *time.Time, n *int64) {
		for k, v := range map[string]*string{"Content-Type": ct, "Cache-Control": cc, "Content-Encoding": ce, "ETag": etag} {
			if v != nil && *v != "" {
				h.Set(k, *v)
			}
		}
		if lm != nil {
			h.Set("Last-Modified", lm.UTC().Format(http.TimeFormat))
		}
		if n != nil {
			h.Set("Content-Length", strconv.FormatInt(*n, 10))
		}
	}
	if method == http.MethodHead {
		out, err := e.cfg.Origin.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(e.cfg.Bucket), Key: aws.String(key)})
		if err != nil {
			return e.originError(method, key, err)
		}
		meta(out.ContentType, out.CacheControl, out.ContentEncoding, out.ETag, out.LastModified, out.ContentLength)
		return response{status: http.StatusOK, header: h, cache: "Miss from cloudfront"}
	}
	out, err := e.cfg.Origin.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(e.cfg.Bucket), Key: aws.String(key)})
	if err != nil {
		return e.originError(method, key, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(io.LimitReader(out.Body, maxObjectBytes+1))
	if err == nil && len(body) > maxObjectBytes {
		err = fmt.Errorf("more than %d bytes", maxObjectBytes)
	}
	if err != nil {
		e.problem("GET s3://%s/%s: read: %v", e.cfg.Bucket, key, err)
		return cloudFrontError(http.StatusBadGateway, "CloudFront wasn't able to read the response of the origin.")
	}
	meta(out.ContentType, out.CacheControl, out.ContentEncoding, out.ETag, out.LastModified, nil)
	return response{status: http.StatusOK, header: h, body: body, cache: "Miss from cloudfront"}
}

// originError turns an origin request's error into the response S3 gives
// the distribution.
func (e *Edge) originError(method, key string, err error) response {
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() == 0 {
		e.problem("%s s3://%s/%s: %v", method, e.cfg.Bucket, key, err)
		return cloudFrontError(http.StatusBadGateway, "CloudFront wasn't able to connect to the origin.")
	}
	status := re.HTTPStatusCode()
	code, message := http.StatusText(status), err.Error()
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code, message = ae.ErrorCode(), ae.ErrorMessage()
	}
	if status == http.StatusNotFound && !e.cfg.OriginCanList {
		// Without s3:ListBucket, S3 does not say that a key is missing.
		status, code, message = http.StatusForbidden, "AccessDenied", "Access Denied"
	}
	res := s3Error(status, code, message)
	if method == http.MethodHead {
		res.body = nil
	}
	return res
}

// s3Error is an error response of S3.
func s3Error(status int, code, message string) response {
	h := http.Header{}
	h.Set("Content-Type", "application/xml")
	h.Set("Server", "AmazonS3")
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>")
	xmlEscape(&b, code)
	b.WriteString("</Code><Message>")
	xmlEscape(&b, message)
	b.WriteString("</Message></Error>")
	return response{status: status, header: h, body: b.Bytes(), cache: "Error from cloudfront"}
}

func xmlEscape(b *bytes.Buffer, s string) {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	b.WriteString(r.Replace(s))
}

// cloudFrontError is an error CloudFront generates itself: a small HTML
// page.
func cloudFrontError(status int, text string) response {
	h := http.Header{}
	h.Set("Content-Type", "text/html")
	h.Set("Server", "CloudFront")
	body := fmt.Sprintf("<HTML><HEAD><TITLE>ERROR: The request could not be satisfied</TITLE></HEAD><BODY>\n<H1>%d ERROR</H1>\n<H2>The request could not be satisfied.</H2>\n%s\nGenerated by cloudfront (CloudFront)\n</BODY></HTML>\n", status, text)
	return response{status: status, header: h, body: []byte(body), cache: "Error from cloudfront"}
}

// etagMatch reports whether an If-None-Match value names etag (weak
// comparison, as for If-None-Match).
func etagMatch(inm, etag string) bool {
	if inm == "" {
		return false
	}
	weak := func(s string) string { return strings.TrimPrefix(strings.TrimSpace(s), "W/") }
	for _, t := range strings.Split(inm, ",") {
		if t = strings.TrimSpace(t); t == "*" || weak(t) == weak(etag) {
			return true
		}
	}
	return false
}
