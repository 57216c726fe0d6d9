// Package edgetest emulates, for tests, one CloudFront distribution as
// templates/aws/cloudfront-s3.yaml declares it, in front of a real S3 (or
// S3-compatible) bucket, so that a published site can be checked over HTTP
// without deploying anything:
//
//  1. a method the cache behavior does not allow gets CloudFront's own 403;
//  2. the viewer-request function runs (under node, as cloudfront-js-2.0
//     code) and either answers itself or rewrites the request;
//  3. the origin is asked for the object with GetObject (HeadObject for
//     HEAD), as the origin access control would; a missing key is the 403
//     S3 gives a reader without s3:ListBucket;
//  4. an origin error with a custom error response is answered with the
//     response code and the page at ResponsePagePath, read from the origin,
//     no function running for it;
//  5. a conditional GET or HEAD whose If-None-Match matches the object's
//     ETag gets a 304 (CloudFront answers it itself);
//  6. the viewer-response function runs when the origin answered below 400;
//  7. the response headers policy's custom headers go on every response.
//
// Nothing is cached and nothing is compressed: every request reaches the
// origin, so a test sees what the bucket holds at that moment.
package edgetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"go.yaml.in/yaml/v3"
	"testing"
)

// ErrNoNode is returned by New when node, which runs the functions, is not
// installed. Tests skip on it locally and fail on it in CI.
var ErrNoNode = errors.New("node is not installed: the CloudFront Functions run under node (install Node.js 18 or later)")

// Defaults of Config.
const (
	DefaultFunctionTimeout = 5 * time.Second
	DefaultOriginTimeout   = 10 * time.Second
	// startTimeout bounds node's start and the compilation of the functions.
	startTimeout = 30 * time.Second
	// closeTimeout bounds the wait for node to exit once its input is closed.
	closeTimeout = 5 * time.Second
	// maxObjectBytes bounds an object read from the origin.
	maxObjectBytes = 64 << 20
	// maxResultBytes bounds one line of node's output.
	maxResultBytes = 16 << 20
)

// Event types of function associations.
const (
	ViewerRequest  = "viewer-request"
	ViewerResponse = "viewer-response"
)

// CustomHeader is one custom header of a response headers policy.
type CustomHeader struct {
	Name, Value string
	// Override replaces a header of the same name the response already
	// has; otherwise the header is added only when the response lacks it.
	Override bool
}

// ErrorResponse is a custom error response: an origin error answered with
// ResponseCode and the object at PagePath.
type ErrorResponse struct {
	ResponseCode int
	PagePath     string // "/tenants/acme/.signpost-404.json"
}

// Distribution is what the emulator takes from a distribution's
// configuration.
type Distribution struct {
	// AllowedMethods of the default cache behavior.
	AllowedMethods []string
	// Functions are the event types that have a function association.
	Functions []string
	// Headers are the custom headers of the response headers policy.
	Headers []CustomHeader
	// ErrorResponses are the custom error responses by origin status.
	ErrorResponses map[int]ErrorResponse
}

// LoadTemplate reads the distribution of the CloudFormation template at
// path (templates/aws/cloudfront-s3.yaml) as deployed with the parameter
// SitePrefix set to sitePrefix ("" or "tenants/acme"). It understands the
// few intrinsic functions the distribution's settings use: !Ref of a
// resource, !If on HasSitePrefix and !Sub of ${SitePrefix}.
func LoadTemplate(path, sitePrefix string) (Distribution, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Distribution{}, fmt.Errorf("read the distribution template: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Distribution{}, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(doc.Content) != 1 {
		return Distribution{}, fmt.Errorf("%s: not a YAML document", path)
	}
	t := cfnTemplate{resources: yamlGet(doc.Content[0], "Resources"), sitePrefix: sitePrefix}
	d, err := t.distribution()
	if err != nil {
		return Distribution{}, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

type cfnTemplate struct {
	resources  *yaml.Node
	sitePrefix string
}

func (t cfnTemplate) distribution() (Distribution, error) {
	var d Distribution
	config := yamlGet(yamlGet(yamlGet(t.resources, "Distribution"), "Properties"), "DistributionConfig")
	behavior := yamlGet(config, "DefaultCacheBehavior")
	if behavior == nil {
		return d, errors.New("no Resources.Distribution.Properties.DistributionConfig.DefaultCacheBehavior")
	}
	methods, err := t.strings(yamlGet(behavior, "AllowedMethods"))
	if err != nil {
		return d, fmt.Errorf("AllowedMethods: %w", err)
	}
	d.AllowedMethods = methods
	if assoc := yamlGet(behavior, "FunctionAssociations"); assoc != nil {
		for _, a := range assoc.Content {
			ev, err := t.eval(yamlGet(a, "EventType"))
			if err != nil {
				return d, fmt.Errorf("FunctionAssociations: %w", err)
			}
			d.Functions = append(d.Functions, ev)
		}
	}
	if ref := yamlGet(behavior, "ResponseHeadersPolicyId"); ref != nil {
		if ref.Tag != "!Ref" {
			return d, errors.New("ResponseHeadersPolicyId is not a !Ref of a resource")
		}
		policy := yamlGet(yamlGet(yamlGet(t.resources, ref.Value), "Properties"), "ResponseHeadersPolicyConfig")
		if policy == nil {
			return d, fmt.Errorf("no response headers policy %s", ref.Value)
		}
		if items := yamlGet(yamlGet(policy, "CustomHeadersConfig"), "Items"); items != nil {
			for _, it := range items.Content {
				var h CustomHeader
				if h.Name, err = t.eval(yamlGet(it, "Header")); err != nil {
					return d, fmt.Errorf("%s: %w", ref.Value, err)
				}
				if h.Value, err = t.eval(yamlGet(it, "Value")); err != nil {
					return d, fmt.Errorf("%s: %w", ref.Value, err)
				}
				o, err := t.eval(yamlGet(it, "Override"))
				if err != nil {
					return d, fmt.Errorf("%s: %w", ref.Value, err)
				}
				h.Override = o == "true"
				d.Headers = append(d.Headers, h)
			}
		}
	}
	d.ErrorResponses = map[int]ErrorResponse{}
	if errs := yamlGet(config, "CustomErrorResponses"); errs != nil {
		for _, e := range errs.Content {
			var vals [3]string
			for i, k := range []string{"ErrorCode", "ResponseCode", "ResponsePagePath"} {
				if vals[i], err = t.eval(yamlGet(e, k)); err != nil {
					return d, fmt.Errorf("CustomErrorResponses %s: %w", k, err)
				}
			}
			code, err1 := strconv.Atoi(vals[0])
			resp, err2 := strconv.Atoi(vals[1])
			if err1 != nil || err2 != nil || vals[2] == "" {
				return d, fmt.Errorf("CustomErrorResponses: %v is not a code, a response code and a page", vals)
			}
			d.ErrorResponses[code] = ErrorResponse{ResponseCode: resp, PagePath: vals[2]}
		}
	}
	return d, nil
}

// eval evaluates a scalar setting; a missing one is "".
func (t cfnTemplate) eval(n *yaml.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	switch n.Tag {
	case "!Sub":
		if n.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("line %d: only the one-string form of !Sub is understood", n.Line)
		}
		s := strings.ReplaceAll(n.Value, "${SitePrefix}", t.sitePrefix)
		if strings.Contains(s, "${") {
			return "", fmt.Errorf("line %d: !Sub %q: only ${SitePrefix} is understood", n.Line, n.Value)
		}
		return s, nil
	case "!If":
		if n.Kind != yaml.SequenceNode || len(n.Content) != 3 || n.Content[0].Value != "HasSitePrefix" {
			return "", fmt.Errorf("line %d: only !If [HasSitePrefix, A, B] is understood", n.Line)
		}
		if t.sitePrefix != "" {
			return t.eval(n.Content[1])
		}
		return t.eval(n.Content[2])
	}
	// "!!str", "!!bool": plain YAML; "!GetAtt" and the like: not understood.
	if n.Kind != yaml.ScalarNode || (strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!")) {
		return "", fmt.Errorf("line %d: %s is not understood", n.Line, n.Tag)
	}
	return n.Value, nil
}

// strings evaluates a list of scalars.
func (t cfnTemplate) strings(n *yaml.Node) ([]string, error) {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, errors.New("not a list")
	}
	var out []string
	for _, c := range n.Content {
		s, err := t.eval(c)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// yamlGet returns the value of key in mapping m, or nil.
func yamlGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// Origin is the bucket as the distribution reads it. *s3.Client satisfies
// it.
type Origin interface {
	GetObject(ctx context.Context, params *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	HeadObject(ctx context.Context, params *s3.HeadObjectInput, optFns ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
}

// Config is one distribution in front of one bucket.
type Config struct {
	Distribution Distribution
	// ViewerRequest and ViewerResponse are the functions' code
	// (cloudfront-js-2.0), run for the event types Distribution associates.
	ViewerRequest, ViewerResponse []byte
	Origin                        Origin
	Bucket                        string
	// OriginCanList says the distribution may list the bucket, so that S3
	// answers 404 for a missing key. The template grants s3:GetObject only,
	// so by default a missing key is S3's 403 AccessDenied, whatever the
	// S3-compatible server under test answers.
	OriginCanList bool
	// FunctionTimeout bounds each function run (DefaultFunctionTimeout when
	// zero); OriginTimeout each origin request (DefaultOriginTimeout).
	FunctionTimeout, OriginTimeout time.Duration
}

// Edge is an emulated distribution, an http.Handler. One node process runs
// the functions of every request; Close stops it.
type Edge struct {
	cfg       Config
	node      *nodeRunner
	closeOnce sync.Once
	closeErr  error

	mu       sync.Mutex
	problems []string
}

// New checks the configuration, starts node and compiles the functions.
// ctx bounds the life of node: when it is done, node is stopped.
func New(ctx context.Context, cfg Config) (*Edge, error) {
	if cfg.Origin == nil || cfg.Bucket == "" {
		return nil, errors.New("edgetest: an origin and a bucket are required")
	}
	if cfg.FunctionTimeout <= 0 {
		cfg.FunctionTimeout = DefaultFunctionTimeout
	}
	if cfg.OriginTimeout <= 0 {
		cfg.OriginTimeout = DefaultOriginTimeout
	}
	functions := map[string]string{}
	for _, f := range []struct {
		event string
		code  []byte
	}{{ViewerRequest, cfg.ViewerRequest}, {ViewerResponse, cfg.ViewerResponse}} {
		if !slices.Contains(cfg.Distribution.Functions, f.event) {
			continue
		}
		if len(f.code) == 0 {
			return nil, fmt.Errorf("edgetest: the distribution has a %s function but no code was given", f.event)
		}
		functions[f.event] = string(f.code)
	}
	e := &Edge{cfg: cfg}
	if len(functions) > 0 {
		n, err := startNode(ctx, functions)
		if err != nil {
			return nil, err
		}
		e.node = n
	}
	return e, nil
}

// Close stops node. Later calls do nothing.
func (e *Edge) Close() error {
	e.closeOnce.Do(func() {
		if e.node != nil {
			e.closeErr = e.node.close()
		}
	})
	return e.closeErr
}

// Problems returns what went wrong inside the edge, in order: functions
// that failed or logged, origin requests that failed other than with an
// HTTP status. A correct site behind a correct distribution has none.
func (e *Edge) Problems() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.problems)
}

func (e *Edge) problem(format string, args ...any) {
	e.mu.Lock()
	e.problems = append(e.problems, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

// response is a response on its way to the viewer.
type response struct {
	status int
	header http.Header
	body   []byte
	cache  string // X-Cache, as CloudFront says where a response came from
}

// ServeHTTP answers one viewer request as the distribution would.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res := e.answer(r)
	for _, h := range e.cfg.Distribution.Headers {
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

func (e *Edge) answer(r *http.Request) response {
	if !slices.Contains(e.cfg.Distribution.AllowedMethods, r.Method) {
		// CloudFront refuses the method before any function runs.
		return cloudFrontError(http.StatusForbidden, "This distribution is not configured to allow the HTTP request method that was used for this request. The distribution supports only cachable requests.")
	}
	req := viewerRequest(r)
	if e.has(ViewerRequest) {
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
	if !e.has(ViewerResponse) {
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

func (e *Edge) has(event string) bool {
	return e.node != nil && slices.Contains(e.cfg.Distribution.Functions, event)
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
	meta := func(ct, cc, etag *string, lm *time.Time, n *int64) {
		for k, v := range map[string]*string{"Content-Type": ct, "Cache-Control": cc, "ETag": etag} {
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
		meta(out.ContentType, out.CacheControl, out.ETag, out.LastModified, out.ContentLength)
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
	meta(out.ContentType, out.CacheControl, out.ETag, out.LastModified, nil)
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

// cfValue is a header or query string value of a function event.
type cfValue struct {
	Value      string    `json:"value"`
	MultiValue []cfValue `json:"multiValue,omitempty"`
}

// cfRequest is the request of a function event.
type cfRequest struct {
	Method      string             `json:"method"`
	URI         string             `json:"uri"`
	Querystring map[string]cfValue `json:"querystring"`
	Headers     map[string]cfValue `json:"headers"`
	Cookies     map[string]cfValue `json:"cookies"`
}

// header returns the values of a request header, joined by commas.
func (q cfRequest) header(name string) string {
	v, ok := q.Headers[name]
	if !ok {
		return ""
	}
	if len(v.MultiValue) == 0 {
		return v.Value
	}
	var all []string
	for _, m := range v.MultiValue {
		all = append(all, m.Value)
	}
	return strings.Join(all, ",")
}

// cfBody is the body of a response a function generates.
type cfBody struct {
	Encoding string `json:"encoding"`
	Data     string `json:"data"`
}

// cfResult is what a function returns: a request (viewer-request only),
// or a response, which has a statusCode.
type cfResult struct {
	cfRequest
	StatusCode        *int            `json:"statusCode"`
	StatusDescription string          `json:"statusDescription"`
	Body              json.RawMessage `json:"body"`
}

// response turns a function's response into the edge's. Body: a string,
// or {encoding, data}; HEAD responses carry none.
func (c *cfResult) response(method string) (response, error) {
	status := *c.StatusCode
	if status < 100 || status > 599 {
		return response{}, fmt.Errorf("statusCode %d", status)
	}
	h := http.Header{}
	for name, v := range c.Headers {
		if len(v.MultiValue) == 0 {
			h.Add(name, v.Value)
			continue
		}
		for _, m := range v.MultiValue {
			h.Add(name, m.Value)
		}
	}
	res := response{status: status, header: h}
	if len(c.Body) == 0 || string(c.Body) == "null" {
		return res, nil
	}
	var b cfBody
	var s string
	switch {
	case json.Unmarshal(c.Body, &s) == nil:
		res.body = []byte(s)
	case json.Unmarshal(c.Body, &b) == nil && (b.Encoding == "text" || b.Encoding == ""):
		res.body = []byte(b.Data)
	case b.Encoding == "base64":
		data, err := base64.StdEncoding.DecodeString(b.Data)
		if err != nil {
			return response{}, fmt.Errorf("body: %w", err)
		}
		res.body = data
	default:
		return response{}, fmt.Errorf("body %s is neither a string nor {encoding, data}", c.Body)
	}
	if method == http.MethodHead {
		res.body = nil
	}
	return res, nil
}

// viewerRequest is the viewer's request as a function event has it: the
// URI and query string as sent (escaped), header names in lower case.
func viewerRequest(r *http.Request) cfRequest {
	uri, rawQuery, _ := strings.Cut(r.RequestURI, "?")
	if uri == "" || !strings.HasPrefix(uri, "/") {
		uri = r.URL.EscapedPath()
	}
	q := cfRequest{Method: r.Method, URI: uri, Querystring: map[string]cfValue{}, Headers: map[string]cfValue{}, Cookies: map[string]cfValue{}}
	var order []string
	multi := map[string][]cfValue{}
	for _, part := range strings.Split(rawQuery, "&") {
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		if _, ok := multi[name]; !ok {
			order = append(order, name)
		}
		multi[name] = append(multi[name], cfValue{Value: value})
	}
	for _, name := range order {
		vs := multi[name]
		v := cfValue{Value: vs[0].Value}
		if len(vs) > 1 {
			v.MultiValue = vs
		}
		q.Querystring[name] = v
	}
	add := func(name string, vs []string) {
		v := cfValue{Value: vs[0]}
		if len(vs) > 1 {
			for _, s := range vs {
				v.MultiValue = append(v.MultiValue, cfValue{Value: s})
			}
		}
		q.Headers[strings.ToLower(name)] = v
	}
	add("host", []string{r.Host})
	for name, vs := range r.Header {
		if len(vs) > 0 && !strings.EqualFold(name, "cookie") {
			add(name, vs)
		}
	}
	return q
}

// requestEvent is the event of a function: the request, and for
// viewer-response the response without its body.
func requestEvent(eventType string, req cfRequest, res *response) map[string]any {
	ev := map[string]any{
		"version": "1.0",
		"context": map[string]any{
			"distributionDomainName": "edgetest.cloudfront.net",
			"distributionId":         "EDGETEST",
			"eventType":              eventType,
			"requestId":              "edgetest",
		},
		"viewer":  map[string]any{"ip": "127.0.0.1"},
		"request": req,
	}
	if res != nil {
		h := map[string]cfValue{}
		for name, vs := range res.header {
			v := cfValue{Value: vs[0]}
			if len(vs) > 1 {
				for _, s := range vs {
					v.MultiValue = append(v.MultiValue, cfValue{Value: s})
				}
			}
			h[strings.ToLower(name)] = v
		}
		ev["response"] = map[string]any{
			"statusCode":        res.status,
			"statusDescription": http.StatusText(res.status),
			"headers":           h,
			"cookies":           map[string]any{},
		}
	}
	return ev
}

// nodeHarness runs CloudFront Functions under node, one JSON message a
// line. The first line is {"id": 0, "functions": {name: source}}: each is
// compiled and must define handler(event). Every later line is {"id": N,
// "function": name, "event": {...}}; the answer is {"id": N, "result": ...}
// or {"id": N, "error": "..."}, with "logs" when the function logged. Each
// run gets a fresh vm context holding the ECMAScript built-ins and
// console.log, nothing of node, and not the built-ins cloudfront-js-2.0
// lacks; state never carries over from one request to the next, as at the
// edge.
const nodeHarness = `'use strict';
const vm = require('vm');
const readline = require('readline');

const absent = ['WebAssembly', 'SharedArrayBuffer', 'Atomics', 'WeakRef',
  'FinalizationRegistry', 'Intl'];
const scripts = {};

function fresh(logs) {
  const context = vm.createContext({});
  vm.runInContext(absent.map((g) => 'delete globalThis.' + g + ';').join(''), context);
  context.console = { log: (...args) => { logs.push(args.map(String).join(' ')); } };
  return context;
}

function load(functions) {
  for (const name of Object.keys(functions)) {
    const script = new vm.Script(functions[name], { filename: name + '.js' });
    const context = fresh([]);
    script.runInContext(context, { timeout: 1000 });
    if (vm.runInContext('typeof handler === "function" ? handler.length : -1', context) !== 1) {
      throw new Error(name + ': no function handler(event) at the top level');
    }
    scripts[name] = script;
  }
}

function run(name, event) {
  const logs = [];
  const script = scripts[name];
  if (!script) {
    return { error: 'unknown function ' + name, logs };
  }
  try {
    const context = fresh(logs);
    script.runInContext(context, { timeout: 1000 });
    // The event is parsed inside the context, so that every object the
    // handler sees and returns belongs to the function's own realm.
    const call = 'JSON.stringify(handler(JSON.parse(' + JSON.stringify(JSON.stringify(event)) + ')))';
    const out = vm.runInContext(call, context, { timeout: 1000 });
    if (typeof out !== 'string') {
      return { error: 'handler returned nothing', logs };
    }
    return { result: JSON.parse(out), logs };
  } catch (e) {
    return { error: String(e && e.stack ? e.stack : e), logs };
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    process.stdout.write(JSON.stringify({ id: -1, error: 'bad input: ' + e }) + '\n');
    return;
  }
  let answer;
  if (msg.functions) {
    try {
      load(msg.functions);
      answer = { result: true };
    } catch (e) {
      answer = { error: String(e && e.stack ? e.stack : e) };
    }
  } else {
    answer = run(msg.function, msg.event);
  }
  answer.id = msg.id;
  process.stdout.write(JSON.stringify(answer) + '\n');
});
rl.on('close', () => { process.exit(0); });
`

// Functions runs CloudFront Functions under node, outside an edge: the
// harness an Edge uses, for tests that call the functions directly.
type Functions struct{ n *nodeRunner }

// StartFunctions starts one node process holding functions (name →
// source); each must define handler(event). Without node, the error is
// ErrNoNode.
func StartFunctions(ctx context.Context, functions map[string][]byte) (*Functions, error) {
	src := make(map[string]string, len(functions))
	for name, code := range functions {
		src[name] = string(code)
	}
	n, err := startNode(ctx, src)
	if err != nil {
		return nil, err
	}
	return &Functions{n}, nil
}

// Run runs the function name on event, in a fresh context, and returns
// what the handler returned, as JSON, and what it logged. A function that
// throws or runs past timeout is an error.
func (f *Functions) Run(ctx context.Context, name string, event any, timeout time.Duration) (json.RawMessage, []string, error) {
	a, err := f.n.roundTrip(ctx, map[string]any{"function": name, "event": event}, timeout)
	if err != nil {
		return nil, nil, err
	}
	return a.Result, a.Logs, nil
}

// Close stops node.
func (f *Functions) Close() error { return f.n.close() }

// nodeAnswer is one line of the harness's output.
type nodeAnswer struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
	Logs   []string        `json:"logs"`
}

// nodeRunner is the node process and the calls waiting for its answers.
type nodeRunner struct {
	cmd    *exec.Cmd
	ctx    context.Context // node's: done when the caller's ends, or on close
	cancel context.CancelFunc
	stdin  io.WriteCloser
	stderr *lockedBuffer
	done   chan struct{} // closed when the reader stops: node exited

	wmu sync.Mutex // serializes writes to stdin

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan nodeAnswer
	err     error // why node stopped answering
}

func startNode(ctx context.Context, functions map[string]string) (*nodeRunner, error) {
	bin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNode, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	n := &nodeRunner{ctx: ctx, cancel: cancel, stderr: &lockedBuffer{}, done: make(chan struct{}), pending: map[int64]chan nodeAnswer{}}
	n.cmd = exec.CommandContext(ctx, bin, "-e", nodeHarness)
	n.cmd.Stderr = n.stderr
	n.cmd.WaitDelay = closeTimeout
	n.stdin, err = n.cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	stdout, err := n.cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := n.cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go n.read(stdout)
	if _, err := n.roundTrip(ctx, map[string]any{"functions": functions}, startTimeout); err != nil {
		n.close()
		return nil, fmt.Errorf("load the CloudFront Functions into node: %w", err)
	}
	return n, nil
}

// read dispatches node's answers to the calls waiting for them, until node
// exits.
func (n *nodeRunner) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), maxResultBytes)
	for sc.Scan() {
		var a nodeAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			continue
		}
		n.mu.Lock()
		ch := n.pending[a.ID]
		delete(n.pending, a.ID)
		n.mu.Unlock()
		if ch != nil {
			ch <- a // buffered
		}
	}
	n.mu.Lock()
	n.err = fmt.Errorf("node stopped: %v %s", sc.Err(), strings.TrimSpace(n.stderr.String()))
	n.mu.Unlock()
	close(n.done)
}

// roundTrip sends one message and waits, at most timeout, for its answer.
func (n *nodeRunner) roundTrip(ctx context.Context, msg map[string]any, timeout time.Duration) (nodeAnswer, error) {
	ch := make(chan nodeAnswer, 1)
	n.mu.Lock()
	if n.err != nil {
		err := n.err
		n.mu.Unlock()
		return nodeAnswer{}, err
	}
	n.nextID++
	id := n.nextID
	n.pending[id] = ch
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.pending, id)
		n.mu.Unlock()
	}()
	msg["id"] = id
	line, err := json.Marshal(msg)
	if err != nil {
		return nodeAnswer{}, err
	}
	n.wmu.Lock()
	_, err = n.stdin.Write(append(line, '\n'))
	n.wmu.Unlock()
	if err != nil {
		return nodeAnswer{}, fmt.Errorf("write to node: %w", err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case a := <-ch:
		if a.Error != "" {
			return a, errors.New(a.Error)
		}
		return a, nil
	case <-n.done:
		n.mu.Lock()
		defer n.mu.Unlock()
		return nodeAnswer{}, n.err
	case <-timer.C:
		return nodeAnswer{}, fmt.Errorf("no answer from node within %v", timeout)
	case <-ctx.Done():
		return nodeAnswer{}, ctx.Err()
	}
}

// call runs a function on event.
func (n *nodeRunner) call(ctx context.Context, function string, event map[string]any, timeout time.Duration) (*cfResult, error) {
	a, err := n.roundTrip(ctx, map[string]any{"function": function, "event": event}, timeout)
	if err != nil {
		return nil, err
	}
	if len(a.Logs) > 0 {
		return nil, fmt.Errorf("the function logged %q", a.Logs)
	}
	var out cfResult
	if err := json.Unmarshal(a.Result, &out); err != nil {
		return nil, fmt.Errorf("result %s: %w", a.Result, err)
	}
	return &out, nil
}

// close ends node's input, waits for it to exit, and kills it past
// closeTimeout.
func (n *nodeRunner) close() error {
	_ = n.stdin.Close()
	killed := false
	select {
	case <-n.done:
	case <-time.After(closeTimeout):
		// Cancelling kills node.
		n.cancel()
		killed = true
	}
	// A death by signal is expected when we killed node, or when the
	// caller's context ended first (exec kills it then); any other is a
	// crash to report.
	expected := killed || n.ctx.Err() != nil
	err := n.cmd.Wait()
	n.cancel()
	var ee *exec.ExitError
	if expected && errors.As(err, &ee) && !ee.Exited() {
		return nil
	}
	return err
}

// lockedBuffer is node's stderr, read while node writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil // enough to say why node failed
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartForTest starts an Edge for a test and closes it when the test ends.
// Without node the test is skipped, or fails when CI is set: CI must run
// the functions.
func StartForTest(tb testing.TB, cfg Config) *Edge {
	tb.Helper()
	e, err := New(tb.Context(), cfg)
	if errors.Is(err, ErrNoNode) {
		if os.Getenv("CI") != "" {
			tb.Fatalf("node is required in CI: %v", err)
		}
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Errorf("close the edge: %v", err)
		}
	})
	return e
}
