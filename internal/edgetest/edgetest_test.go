package edgetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"
)

// templatePath is the distribution template, relative to this package.
var templatePath = filepath.Join("..", "..", "templates", "aws", "cloudfront-s3.yaml")

func TestLoadTemplate(t *testing.T) {
	cors := []CustomHeader{
		{"Access-Control-Allow-Origin", "*", true},
		{"Access-Control-Allow-Methods", "GET, HEAD, OPTIONS", true},
		{"Access-Control-Allow-Headers", "Authorization, Content-Type, If-None-Match", true},
		{"Access-Control-Expose-Headers", "ETag", true},
	}
	registryCORS := []CustomHeader{
		{"Access-Control-Allow-Origin", "*", true},
		{"Access-Control-Allow-Methods", "GET, OPTIONS", true},
		{"Access-Control-Allow-Headers", "Authorization, Content-Type", true},
		{"Access-Control-Expose-Headers", "ETag", true},
	}
	for _, c := range []struct{ prefix, page string }{
		{"", "/.signpost-404.json"},
		{"tenants/acme", "/tenants/acme/.signpost-404.json"},
	} {
		d, err := LoadTemplate(templatePath, c.prefix)
		if err != nil {
			t.Fatal(err)
		}
		methods := []string{"GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE"}
		functions := []string{ViewerRequest, ViewerResponse}
		want := Distribution{
			AllowedMethods: methods,
			Functions:      functions,
			Headers:        cors,
			ErrorResponses: map[int]ErrorResponse{403: {404, c.page}, 404: {404, c.page}},
			CacheBehaviors: []CacheBehavior{
				{PathPattern: "/v0.1/servers", AllowedMethods: methods, Functions: functions, Headers: registryCORS},
				{PathPattern: "/v0.1/servers/*", AllowedMethods: methods, Functions: functions, Headers: registryCORS},
			},
		}
		if diff := cmp.Diff(want, d); diff != "" {
			t.Errorf("prefix %q (-want +got):\n%s", c.prefix, diff)
		}
	}
	if _, err := LoadTemplate(filepath.Join(t.TempDir(), "none.yaml"), ""); err == nil {
		t.Error("a missing template loaded")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("Resources:\n  Distribution:\n    Properties:\n      DistributionConfig:\n        DefaultCacheBehavior:\n          AllowedMethods: !GetAtt X.Y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTemplate(bad, ""); err == nil || !strings.Contains(err.Error(), "AllowedMethods") {
		t.Errorf("an intrinsic function it does not understand: %v", err)
	}
}

// TestMatchPattern holds path patterns to CloudFront's rules: '*' any
// run of characters, slashes included, '?' one, case-sensitive.
func TestMatchPattern(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/v0.1/servers", "/v0.1/servers", true},
		{"/v0.1/servers", "/v0.1/servers/", false},
		{"/v0.1/servers", "/V0.1/servers", false},
		{"/v0.1/servers/*", "/v0.1/servers/", true},
		{"/v0.1/servers/*", "/v0.1/servers/com.example%2Fweather/versions/latest", true},
		{"/v0.1/servers/*", "/v0.1/servers", false},
		{"/v0.1/servers/*", "/v0.1/serversx/a", false},
		{"v0.1/servers/*", "/v0.1/servers/a", true},
		{"/a?c", "/abc", true},
		{"/a?c", "/ac", false},
		{"/*.json", "/a/b.json", true},
		{"/*a*b*c", "/xaybzc", true},
		{"/*a*b*c", "/xaybz", false},
		{"*", "/", true},
	} {
		if got := matchPattern(c.pattern, c.path); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

// object is one object of the fake bucket.
type object struct {
	body              []byte
	contentType, etag string
}

// fakeOrigin is a bucket in memory that answers like S3: 404 NoSuchKey for
// a missing key (as a server that lets the reader list the bucket).
type fakeOrigin struct {
	mu      sync.Mutex
	objects map[string]object
	keys    []string // the keys asked for, in order
}

func notFound() error {
	return &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: http.StatusNotFound}},
		Err:      &smithy.GenericAPIError{Code: "NoSuchKey", Message: "The specified key does not exist."},
	}
}

func (f *fakeOrigin) lookup(key string) (object, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = append(f.keys, key)
	o, ok := f.objects[key]
	return o, ok
}

func (f *fakeOrigin) GetObject(_ context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	o, ok := f.lookup(aws.ToString(in.Key))
	if !ok {
		return nil, notFound()
	}
	return &s3.GetObjectOutput{Body: io.NopCloser(bytes.NewReader(o.body)), ContentType: aws.String(o.contentType),
		CacheControl: aws.String("public, max-age=3600"), ETag: aws.String(o.etag), ContentLength: aws.Int64(int64(len(o.body)))}, nil
}

func (f *fakeOrigin) HeadObject(_ context.Context, in *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	o, ok := f.lookup(aws.ToString(in.Key))
	if !ok {
		return nil, notFound()
	}
	return &s3.HeadObjectOutput{ContentType: aws.String(o.contentType), CacheControl: aws.String("public, max-age=3600"),
		ETag: aws.String(o.etag), ContentLength: aws.Int64(int64(len(o.body)))}, nil
}

// testViewerRequest answers /hello itself, loops forever on /loop, logs on
// /log, and sends everything else to the object of the same name under
// site/, with ".json" added.
const testViewerRequest = `function handler(event) {
  var req = event.request;
  if (req.uri === '/hello') {
    return { statusCode: 200, statusDescription: 'OK',
      headers: { 'content-type': { value: 'text/plain' }, 'access-control-allow-origin': { value: 'https://mine.example' } },
      body: { encoding: 'base64', data: 'aGVsbG8=' } };
  }
  if (req.uri === '/loop') {
    for (;;) {}
  }
  if (req.uri === '/log') {
    console.log('hi');
  }
  req.uri = '/site' + req.uri + '.json';
  return req;
}
`

// testViewerResponse marks the responses it sees.
const testViewerResponse = `function handler(event) {
  event.response.headers['x-viewer-response'] = { value: String(event.response.statusCode) };
  return event.response;
}
`

func newTestEdge(t *testing.T, edit func(*Config)) (*Edge, *fakeOrigin) {
	t.Helper()
	d, err := LoadTemplate(templatePath, "site")
	if err != nil {
		t.Fatal(err)
	}
	origin := &fakeOrigin{objects: map[string]object{
		"site/doc.json":           {[]byte(`{"a":1}`), "application/json", `"abc"`},
		"site/.signpost-404.json": {[]byte(`{"error":{"status":404}}`), "application/json", `"e404"`},
	}}
	cfg := Config{Distribution: d, ViewerRequest: []byte(testViewerRequest), ViewerResponse: []byte(testViewerResponse),
		Origin: origin, Bucket: "b", FunctionTimeout: 3 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	e := StartForTest(t, cfg)
	return e, origin
}

func TestEdge(t *testing.T) {
	// A distribution that allows GET, HEAD and OPTIONS only, so that
	// CloudFront's own 403 for other methods is emulated too.
	e, origin := newTestEdge(t, func(c *Config) {
		c.Distribution.AllowedMethods = []string{"GET", "HEAD", "OPTIONS"}
	})
	cases := []struct {
		name, method, target string
		header               map[string]string
		status               int
		body                 string
		want                 map[string]string // headers; "" for absent
	}{
		{"object", "GET", "/doc", nil, 200, `{"a":1}`,
			map[string]string{"Content-Type": "application/json", "Etag": `"abc"`, "X-Viewer-Response": "200", "Access-Control-Allow-Origin": "*", "X-Cache": "Miss from cloudfront"}},
		{"HEAD", "HEAD", "/doc", nil, 200, "",
			map[string]string{"Content-Length": "7", "X-Viewer-Response": "200"}},
		{"If-None-Match", "GET", "/doc", map[string]string{"If-None-Match": `W/"abc"`}, 304, "",
			map[string]string{"Etag": `"abc"`, "X-Viewer-Response": "304", "Access-Control-Expose-Headers": "ETag", "Content-Type": ""}},
		{"If-None-Match of another", "GET", "/doc", map[string]string{"If-None-Match": `"zzz"`}, 200, `{"a":1}`, nil},
		// A missing key: S3's 403 (no ListBucket), the custom error
		// response's page, no viewer-response function.
		{"missing key", "GET", "/nope", nil, 404, `{"error":{"status":404}}`,
			map[string]string{"Etag": `"e404"`, "X-Viewer-Response": "", "Access-Control-Allow-Origin": "*", "X-Cache": "Error from cloudfront"}},
		{"missing key, HEAD", "HEAD", "/nope", nil, 404, "", map[string]string{"X-Viewer-Response": ""}},
		// The policy overrides what the function set, and the body is
		// decoded.
		{"generated", "GET", "/hello", nil, 200, "hello",
			map[string]string{"Access-Control-Allow-Origin": "*", "X-Viewer-Response": "", "X-Cache": "FunctionGeneratedResponse from cloudfront"}},
		{"method not allowed", "POST", "/doc", nil, 403, "",
			map[string]string{"Content-Type": "text/html", "Access-Control-Allow-Origin": "*"}},
		{"endless function", "GET", "/loop", nil, 503, "", map[string]string{"Access-Control-Allow-Origin": "*"}},
		{"function logs", "GET", "/log", nil, 503, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.target, nil)
			for k, v := range c.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			if w.Code != c.status {
				t.Errorf("status %d, want %d (%s)", w.Code, c.status, w.Body.String())
			}
			if c.body != "" && w.Body.String() != c.body {
				t.Errorf("body %q, want %q", w.Body.String(), c.body)
			}
			if c.method == "HEAD" && w.Body.Len() > 0 {
				t.Errorf("HEAD with a body: %q", w.Body.String())
			}
			got := map[string]string{}
			for k := range c.want {
				got[k] = w.Header().Get(k)
			}
			if diff := cmp.Diff(c.want, got); c.want != nil && diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
	if got := len(e.Problems()); got != 2 {
		t.Errorf("problems %q, want the endless function and the log", e.Problems())
	}
	for _, k := range origin.keys {
		if strings.Contains(k, "hello") || strings.Contains(k, "loop") {
			t.Errorf("origin asked for %s, which the function answered or failed", k)
		}
	}
}

func TestEdgeOriginCanList(t *testing.T) {
	// Without a custom error response for 404, the origin's 404 goes to the
	// viewer as it is when the distribution may list the bucket, and becomes
	// the page's 404 through the 403 response when it may not.
	for _, canList := range []bool{false, true} {
		e, _ := newTestEdge(t, func(c *Config) {
			c.OriginCanList = canList
			delete(c.Distribution.ErrorResponses, 404)
		})
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest("GET", "/nope", nil))
		wantType := "application/json"
		if canList {
			wantType = "application/xml"
		}
		if w.Code != 404 || w.Header().Get("Content-Type") != wantType {
			t.Errorf("OriginCanList %v: %d %s, want 404 %s", canList, w.Code, w.Header().Get("Content-Type"), wantType)
		}
	}
}

func TestEdgeMissingErrorPage(t *testing.T) {
	// Without the page in the bucket, the origin's error goes through.
	e, origin := newTestEdge(t, nil)
	delete(origin.objects, "site/.signpost-404.json")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest("GET", "/nope", nil))
	if w.Code != 403 || !strings.Contains(w.Body.String(), "AccessDenied") {
		t.Errorf("%d %q, want S3's 403", w.Code, w.Body.String())
	}
	if len(e.Problems()) != 1 {
		t.Errorf("problems %q, want the missing page", e.Problems())
	}
}

func TestNewBadFunction(t *testing.T) {
	d, err := LoadTemplate(templatePath, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, code := range map[string]string{
		"syntax error": "function handler(event) {",
		"no handler":   "function other(event) { return event.request; }",
	} {
		_, err := New(t.Context(), Config{Distribution: d, ViewerRequest: []byte(code), ViewerResponse: []byte(testViewerResponse), Origin: &fakeOrigin{}, Bucket: "b"})
		if errors.Is(err, ErrNoNode) {
			t.Skip(err)
		}
		if err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	if _, err := New(t.Context(), Config{Distribution: d, Origin: &fakeOrigin{}, Bucket: "b"}); err == nil {
		t.Error("New accepted a distribution with functions and no code")
	}
}
