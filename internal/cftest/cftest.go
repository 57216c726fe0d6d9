// Package cftest is a fake of the CloudFront API calls signpost publish
// makes (functions and invalidations), served over HTTP on 127.0.0.1 in
// the wire format of the real service, so that tests drive the real SDK
// client. It keeps the rules publish relies on: a function has a
// DEVELOPMENT and a LIVE stage, updates and publishes must name the current
// version (If-Match), a name that does not exist is NoSuchFunctionExists,
// and each stage has its own key value store associations, which an update
// replaces (none given is none kept) and a publish copies to LIVE.
package cftest

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// Function is the state of one function.
type Function struct {
	Name, Runtime, Comment string
	Development, Live      []byte
	// KeyValueStores and LiveKeyValueStores are the ARNs of the key value
	// stores associated with the DEVELOPMENT and the LIVE stage.
	KeyValueStores, LiveKeyValueStores []string
	Version                            int // bumped by every create, update and publish
}

// Invalidation is one invalidation request received.
type Invalidation struct {
	DistributionID, CallerReference string
	Paths                           []string
	// Polls counts the GetInvalidation calls that asked for it.
	Polls int
}

// Server is the fake. Its zero value is not usable: call Start.
type Server struct {
	URL string // http://127.0.0.1:PORT, for AWS_ENDPOINT_URL_CLOUDFRONT

	srv *httptest.Server

	mu            sync.Mutex
	functions     map[string]*Function
	invalidations []Invalidation
	calls         map[string]int
	fail          map[string]int // operation → status to answer with
	pollsToDone   int            // GetInvalidation calls before Completed
	log           []string       // operations in the order they were called
}

// Start serves the fake on a free loopback port until Close.
func Start() *Server {
	s := &Server{functions: map[string]*Function{}, calls: map[string]int{}, fail: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// AddFunction creates a function with code published to both stages, as
// infrastructure code would.
func (s *Server) AddFunction(name string, code []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.functions[name] = &Function{Name: name, Runtime: "cloudfront-js-2.0", Development: code, Live: code, Version: 1}
}

// AssociateKeyValueStore associates the key value store arn with both
// stages of the function name, as infrastructure code would; "" removes
// every association. It reports whether the function exists.
func (s *Server) AssociateKeyValueStore(name, arn string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.functions[name]
	if !ok {
		return false
	}
	f.KeyValueStores = nil
	if arn != "" {
		f.KeyValueStores = []string{arn}
	}
	f.LiveKeyValueStores = slices.Clone(f.KeyValueStores)
	f.Version++
	return true
}

// Function returns a copy of the function name, or false.
func (s *Server) Function(name string) (Function, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.functions[name]
	if !ok {
		return Function{}, false
	}
	c := *f
	c.KeyValueStores, c.LiveKeyValueStores = slices.Clone(f.KeyValueStores), slices.Clone(f.LiveKeyValueStores)
	return c, true
}

// Invalidations returns the invalidations received, in order.
func (s *Server) Invalidations() []Invalidation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.invalidations)
}

// CompleteAfter makes every invalidation report InProgress to its first
// polls GetInvalidation calls, and Completed after.
func (s *Server) CompleteAfter(polls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pollsToDone = polls
}

// Log returns the operations called, in order.
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Calls returns how many times operation (for example "UpdateFunction")
// was called.
func (s *Server) Calls(operation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[operation]
}

// Fail makes every later call of operation answer status, until Fail with
// status 0.
func (s *Server) Fail(operation string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == 0 {
		delete(s.fail, operation)
	} else {
		s.fail[operation] = status
	}
}

const apiPrefix = "/2020-05-31/"

type functionConfig struct {
	Comment                   string                     `xml:"Comment"`
	Runtime                   string                     `xml:"Runtime"`
	KeyValueStoreAssociations *keyValueStoreAssociations `xml:"KeyValueStoreAssociations"`
}

// keyValueStoreAssociations is FunctionConfig.KeyValueStoreAssociations:
// KeyValueStoreAssociations > Quantity, and Items > KeyValueStoreAssociation
// > KeyValueStoreARN.
type keyValueStoreAssociations struct {
	Quantity *int     `xml:"Quantity"`
	ARNs     []string `xml:"Items>KeyValueStoreAssociation>KeyValueStoreARN"`
}

type functionRequest struct {
	Name           string         `xml:"Name"`
	FunctionCode   string         `xml:"FunctionCode"`
	FunctionConfig functionConfig `xml:"FunctionConfig"`
}

type invalidationBatch struct {
	CallerReference string   `xml:"CallerReference"`
	Quantity        int      `xml:"Paths>Quantity"`
	Paths           []string `xml:"Paths>Items>Path"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, apiPrefix)
	if !ok {
		writeError(w, http.StatusNotFound, "NotFound", "unknown path")
		return
	}
	parts := strings.Split(rest, "/")
	var op string
	switch {
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "distribution" && parts[2] == "invalidation":
		op = "CreateInvalidation"
	case r.Method == http.MethodGet && len(parts) == 4 && parts[0] == "distribution" && parts[2] == "invalidation":
		op = "GetInvalidation"
	case r.Method == http.MethodPost && len(parts) == 1 && parts[0] == "function":
		op = "CreateFunction"
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "function":
		op = "GetFunction"
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "function" && parts[2] == "describe":
		op = "DescribeFunction"
	case r.Method == http.MethodPut && len(parts) == 2 && parts[0] == "function":
		op = "UpdateFunction"
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "function" && parts[2] == "publish":
		op = "PublishFunction"
	default:
		writeError(w, http.StatusNotFound, "NotFound", "unknown operation "+r.Method+" "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "InvalidArgument", err.Error())
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
	s.log = append(s.log, op)
	if status := s.fail[op]; status != 0 {
		writeError(w, status, "ServiceUnavailable", "failing on purpose")
		return
	}
	stage := r.URL.Query().Get("Stage")
	switch op {
	case "CreateInvalidation":
		var b invalidationBatch
		if err := xml.Unmarshal(body, &b); err != nil || b.Quantity != len(b.Paths) || len(b.Paths) == 0 || b.CallerReference == "" {
			writeError(w, http.StatusBadRequest, "InvalidArgument", "malformed invalidation batch")
			return
		}
		for _, p := range b.Paths {
			if !strings.HasPrefix(p, "/") || strings.Contains(strings.TrimSuffix(p, "*"), "*") {
				writeError(w, http.StatusBadRequest, "InvalidArgument", "invalid path "+p)
				return
			}
		}
		s.invalidations = append(s.invalidations, Invalidation{DistributionID: parts[1], CallerReference: b.CallerReference, Paths: b.Paths})
		id := fmt.Sprintf("I%d", len(s.invalidations))
		w.Header().Set("Location", s.URL+apiPrefix+"distribution/"+parts[1]+"/invalidation/"+id)
		writeXML(w, http.StatusCreated, fmt.Sprintf("<Invalidation><Id>%s</Id><Status>InProgress</Status><CreateTime>2026-01-01T00:00:00Z</CreateTime>%s</Invalidation>", id, body))
	case "GetInvalidation":
		var n int
		if _, err := fmt.Sscanf(parts[3], "I%d", &n); err != nil || n < 1 || n > len(s.invalidations) || s.invalidations[n-1].DistributionID != parts[1] {
			writeError(w, http.StatusNotFound, "NoSuchInvalidation", "no invalidation "+parts[3])
			return
		}
		inv := &s.invalidations[n-1]
		inv.Polls++
		status := "InProgress"
		if inv.Polls > s.pollsToDone {
			status = "Completed"
		}
		var items strings.Builder
		for _, p := range inv.Paths {
			items.WriteString("<Path>")
			_ = xml.EscapeText(&items, []byte(p))
			items.WriteString("</Path>")
		}
		writeXML(w, http.StatusOK, fmt.Sprintf("<Invalidation><Id>%s</Id><Status>%s</Status><CreateTime>2026-01-01T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>%d</Quantity><Items>%s</Items></Paths><CallerReference>%s</CallerReference></InvalidationBatch></Invalidation>", parts[3], status, len(inv.Paths), items.String(), inv.CallerReference))
	case "CreateFunction":
		var req functionRequest
		code, err := decodeFunction(body, &req)
		if err != nil {
			writeError(w, http.StatusBadRequest, "InvalidArgument", err.Error())
			return
		}
		if _, exists := s.functions[req.Name]; exists {
			writeError(w, http.StatusConflict, "FunctionAlreadyExists", "function exists")
			return
		}
		f := &Function{Name: req.Name, Runtime: req.FunctionConfig.Runtime, Comment: req.FunctionConfig.Comment, Development: code, KeyValueStores: req.stores(), Version: 1}
		s.functions[req.Name] = f
		s.writeSummary(w, http.StatusCreated, "ETag", f, "DEVELOPMENT")
	case "GetFunction", "DescribeFunction":
		f, ok := s.functions[parts[1]]
		if !ok || stage == "LIVE" && f.Live == nil {
			writeError(w, http.StatusNotFound, "NoSuchFunctionExists", "no function "+parts[1])
			return
		}
		if op == "DescribeFunction" {
			s.writeSummary(w, http.StatusOK, "ETag", f, stage)
			return
		}
		code := f.Development
		if stage == "LIVE" {
			code = f.Live
		}
		w.Header().Set("ETag", etag(f))
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(code)
	case "UpdateFunction":
		f := s.current(w, r, parts[1])
		if f == nil {
			return
		}
		var req functionRequest
		code, err := decodeFunction(body, &req)
		if err != nil {
			writeError(w, http.StatusBadRequest, "InvalidArgument", err.Error())
			return
		}
		// The config is replaced whole: associations left out are removed.
		f.Development, f.Runtime, f.Comment, f.KeyValueStores = code, req.FunctionConfig.Runtime, req.FunctionConfig.Comment, req.stores()
		f.Version++
		// The real service names the version in an "ETtag" header here.
		s.writeSummary(w, http.StatusOK, "ETtag", f, "DEVELOPMENT")
	case "PublishFunction":
		f := s.current(w, r, parts[1])
		if f == nil {
			return
		}
		f.Live, f.LiveKeyValueStores = f.Development, slices.Clone(f.KeyValueStores)
		f.Version++
		s.writeSummary(w, http.StatusOK, "", f, "LIVE")
	}
}

// current returns the function name when the request's If-Match names its
// current version, as updates and publishes must; otherwise it answers the
// error and returns nil. The caller holds s.mu.
func (s *Server) current(w http.ResponseWriter, r *http.Request, name string) *Function {
	f, ok := s.functions[name]
	if !ok {
		writeError(w, http.StatusNotFound, "NoSuchFunctionExists", "no function "+name)
		return nil
	}
	if r.Header.Get("If-Match") != etag(f) {
		writeError(w, http.StatusPreconditionFailed, "PreconditionFailed", "If-Match does not name the current version")
		return nil
	}
	return f
}

// decodeFunction reads a create or update request and checks what the
// real service checks of it.
func decodeFunction(body []byte, req *functionRequest) ([]byte, error) {
	if err := xml.Unmarshal(body, req); err != nil {
		return nil, fmt.Errorf("malformed request: %v", err)
	}
	code, err := base64.StdEncoding.DecodeString(req.FunctionCode)
	if err != nil {
		return nil, fmt.Errorf("FunctionCode is not base64: %v", err)
	}
	if len(code) == 0 || len(code) > 10*1024 {
		return nil, fmt.Errorf("FunctionCode must be 1 to 10240 bytes; got %d", len(code))
	}
	if req.FunctionConfig.Runtime != "cloudfront-js-1.0" && req.FunctionConfig.Runtime != "cloudfront-js-2.0" {
		return nil, fmt.Errorf("unknown runtime %q", req.FunctionConfig.Runtime)
	}
	if a := req.FunctionConfig.KeyValueStoreAssociations; a != nil {
		switch {
		case a.Quantity == nil || *a.Quantity != len(a.ARNs):
			return nil, fmt.Errorf("KeyValueStoreAssociations: Quantity does not count the %d items", len(a.ARNs))
		case len(a.ARNs) > 1:
			return nil, fmt.Errorf("a function can have only one key value store; got %d", len(a.ARNs))
		case len(a.ARNs) == 1 && req.FunctionConfig.Runtime != "cloudfront-js-2.0":
			return nil, fmt.Errorf("a key value store needs the cloudfront-js-2.0 runtime; got %q", req.FunctionConfig.Runtime)
		}
		for _, arn := range a.ARNs {
			if !strings.HasPrefix(arn, "arn:aws:cloudfront::") || !strings.Contains(arn, ":key-value-store/") {
				return nil, fmt.Errorf("KeyValueStoreARN %q is not the ARN of a key value store", arn)
			}
		}
	}
	return code, nil
}

// stores returns the ARNs of the request's key value store associations,
// nil for none.
func (req *functionRequest) stores() []string {
	if a := req.FunctionConfig.KeyValueStoreAssociations; a != nil && len(a.ARNs) > 0 {
		return slices.Clone(a.ARNs)
	}
	return nil
}

func etag(f *Function) string { return fmt.Sprintf("E%d", f.Version) }

func (s *Server) writeSummary(w http.ResponseWriter, status int, etagHeader string, f *Function, stage string) {
	if etagHeader != "" {
		w.Header().Set(etagHeader, etag(f))
	}
	var b strings.Builder
	b.WriteString("<FunctionSummary><Name>")
	_ = xml.EscapeText(&b, []byte(f.Name))
	b.WriteString("</Name><Status>UNASSOCIATED</Status><FunctionConfig><Comment>")
	_ = xml.EscapeText(&b, []byte(f.Comment))
	b.WriteString("</Comment>")
	stores := f.KeyValueStores
	if stage == "LIVE" {
		stores = f.LiveKeyValueStores
	}
	if len(stores) > 0 {
		fmt.Fprintf(&b, "<KeyValueStoreAssociations><Quantity>%d</Quantity><Items>", len(stores))
		for _, arn := range stores {
			b.WriteString("<KeyValueStoreAssociation><KeyValueStoreARN>")
			_ = xml.EscapeText(&b, []byte(arn))
			b.WriteString("</KeyValueStoreARN></KeyValueStoreAssociation>")
		}
		b.WriteString("</Items></KeyValueStoreAssociations>")
	}
	b.WriteString("<Runtime>" + f.Runtime + "</Runtime></FunctionConfig>")
	b.WriteString("<FunctionMetadata><FunctionARN>arn:aws:cloudfront::000000000000:function/")
	_ = xml.EscapeText(&b, []byte(f.Name))
	b.WriteString("</FunctionARN><Stage>" + stage + "</Stage><LastModifiedTime>2026-01-01T00:00:00Z</LastModifiedTime></FunctionMetadata></FunctionSummary>")
	writeXML(w, status, b.String())
}

func writeXML(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+body)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(message))
	writeXML(w, status, "<ErrorResponse><Error><Type>Sender</Type><Code>"+code+"</Code><Message>"+b.String()+"</Message></Error><RequestId>fake</RequestId></ErrorResponse>")
}
