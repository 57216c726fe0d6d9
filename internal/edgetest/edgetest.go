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
// Each request gets the settings (allowed methods, functions, response
// headers policy) of the first cache behavior whose path pattern matches
// its path as sent, or of the default cache behavior; every behavior runs
// the same two functions.
//
// Nothing is cached and nothing is compressed: every request reaches the
// origin, so a test sees what the bucket holds at that moment.
//
// The functions run as the cloudfront-js-2.0 runtime offers them: a
// handler may be async (a promise still pending once the function has no
// more work is an error, as nothing else could settle it); a function may
// import cf from 'cloudfront' and read Config.KeyValueStore through
// cf.kvs() (get, exists, meta), and use require('crypto') (createHash,
// createHmac: md5, sha1, sha256) and Buffer. Any other import or require
// fails, and nothing of node (process, its require, its Buffer) is
// reachable. StartFunctions and StartFunctionsWithStore run the functions
// alone, for tests that call them directly.
package edgetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
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
	// A CloudFront key value store's quotas: a key's size, a value's, the
	// whole store's.
	maxKeyBytes   = 512
	maxValueBytes = 1 << 10
	maxStoreBytes = 5 << 20
)

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
	// KeyValueStore is the key value store associated with the functions
	// (key → value), which they read with import cf from 'cloudfront' and
	// cf.kvs(). Nil is none associated: cf.kvs() throws.
	KeyValueStore map[string]string
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
		used := slices.Contains(cfg.Distribution.Functions, f.event)
		for _, b := range cfg.Distribution.CacheBehaviors {
			used = used || slices.Contains(b.Functions, f.event)
		}
		if !used {
			continue
		}
		if len(f.code) == 0 {
			return nil, fmt.Errorf("edgetest: the distribution has a %s function but no code was given", f.event)
		}
		functions[f.event] = string(f.code)
	}
	e := &Edge{cfg: cfg}
	if len(functions) > 0 {
		n, err := startNode(ctx, functions, cfg.KeyValueStore)
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
