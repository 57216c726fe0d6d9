package edgetest

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// startTestFunctions starts functions with store for a test: skipped
// without node, failed in CI.
func startTestFunctions(t *testing.T, functions map[string]string, store map[string]string) *Functions {
	t.Helper()
	fns, err := startFunctions(t, functions, store)
	if err != nil {
		t.Fatal(err)
	}
	return fns
}

// startFunctions is startTestFunctions returning the error of a load.
func startFunctions(t *testing.T, functions map[string]string, store map[string]string) (*Functions, error) {
	t.Helper()
	code := map[string][]byte{}
	for name, src := range functions {
		code[name] = []byte(src)
	}
	fns, err := StartFunctionsWithStore(t.Context(), code, store)
	if errors.Is(err, ErrNoNode) {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is required in CI: %v", err)
		}
		t.Skip(err)
	}
	if err == nil {
		t.Cleanup(func() {
			if err := fns.Close(); err != nil {
				t.Errorf("close node: %v", err)
			}
		})
	}
	return fns, err
}

// runJSON runs name on event and decodes its result.
func runJSON(t *testing.T, fns *Functions, name string, event any) (any, error) {
	t.Helper()
	out, logs, err := fns.Run(t.Context(), name, event, 5*time.Second)
	if len(logs) > 0 {
		t.Errorf("%s logged %q", name, logs)
	}
	if err != nil {
		return nil, err
	}
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %s: %v", name, out, err)
	}
	return got, nil
}

var testStore = map[string]string{
	"greeting": "héllo",
	"config":   `{"plans":["free","pro"],"limit":3}`,
}

// kvsFunction reads testStore in every way the module offers.
const kvsFunction = `import cf from 'cloudfront';
const kvsHandle = cf.kvs();

async function handler(event) {
  const out = {};
  out.hit = await kvsHandle.get('greeting');
  out.asString = await kvsHandle.get('greeting', { format: 'string' });
  try {
    out.miss = await kvsHandle.get('nope');
  } catch (e) {
    out.miss = e instanceof Error ? 'Error' : typeof e;
  }
  out.json = await kvsHandle.get('config', { format: 'json' });
  const b = await kvsHandle.get('greeting', { format: 'bytes' });
  out.bytes = [b instanceof Uint8Array, b.length, b.toString('hex'), b.toString()];
  out.exists = [await kvsHandle.exists('greeting'), await kvsHandle.exists('nope')];
  const m = await kvsHandle.meta();
  out.keyCount = m.keyCount;
  out.dates = !isNaN(Date.parse(m.creationDateTime)) && !isNaN(Date.parse(m.lastUpdatedDateTime));
  out.byID = await cf.kvs('a1b2c3d4-5678-90ab-cdef-EXAMPLE1').get('greeting');
  try {
    await kvsHandle.get('greeting', { format: 'xml' });
  } catch (e) {
    out.badFormat = e instanceof TypeError;
  }
  return out;
}
`

func TestFunctionsKeyValueStore(t *testing.T) {
	fns := startTestFunctions(t, map[string]string{
		"kvs": kvsFunction,
		// Double quotes, another name, no semicolon, after comments.
		"other": "/* a store\n   reader */\n// reads the store\nimport store from \"cloudfront\"\nfunction handler(event) {\n  return store.kvs().exists(event.key);\n}\n",
	}, testStore)
	got, err := runJSON(t, fns, "kvs", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"hit": "héllo", "asString": "héllo", "miss": "Error",
		"json":      map[string]any{"plans": []any{"free", "pro"}, "limit": 3.0},
		"bytes":     []any{true, 6.0, "68c3a96c6c6f", "héllo"},
		"exists":    []any{true, false},
		"keyCount":  2.0,
		"dates":     true,
		"byID":      "héllo",
		"badFormat": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for key, want := range map[string]bool{"config": true, "absent": false} {
		if got, err := runJSON(t, fns, "other", map[string]any{"key": key}); err != nil || got != want {
			t.Errorf("exists(%q): %v %v, want %v", key, got, err, want)
		}
	}
}

func TestFunctionsNoStore(t *testing.T) {
	inHandler := "import cf from 'cloudfront';\nfunction handler(event) { return cf.kvs().get('a'); }\n"
	fns := startTestFunctions(t, map[string]string{"f": inHandler}, nil)
	if _, err := runJSON(t, fns, "f", map[string]any{}); err == nil || !strings.Contains(err.Error(), "No key value store") {
		t.Errorf("cf.kvs() without a store: %v", err)
	}
	// An empty store is a store.
	fns = startTestFunctions(t, map[string]string{"f": inHandler}, map[string]string{})
	if _, err := runJSON(t, fns, "f", map[string]any{}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("get from an empty store: %v", err)
	}
	if _, err := startFunctions(t, map[string]string{"f": kvsFunction}, nil); err == nil || !strings.Contains(err.Error(), "No key value store") {
		t.Errorf("cf.kvs() at the top level without a store loaded: %v", err)
	}
	for name, store := range map[string]map[string]string{
		"empty key":  {"": "v"},
		"long key":   {strings.Repeat("k", maxKeyBytes+1): "v"},
		"long value": {"k": strings.Repeat("v", maxValueBytes+1)},
		"not UTF-8":  {"k": "\xff"},
	} {
		if _, err := StartFunctionsWithStore(t.Context(), map[string][]byte{"f": []byte(inHandler)}, store); err == nil || errors.Is(err, ErrNoNode) {
			t.Errorf("%s: %v, want the store refused", name, err)
		}
	}
}

func TestFunctionsCrypto(t *testing.T) {
	const src = `const crypto = require('crypto');
function handler(event) {
  const raw = crypto.createHmac('sha256', event.key).update(event.data).digest();
  return {
    hmac: crypto.createHmac('sha256', event.key).update(event.data).digest('base64url'),
    hmacBytesKey: crypto.createHmac('sha256', Buffer.from(event.key)).update(event.data.slice(0, 3)).update(event.data.slice(3)).digest('hex'),
    sha1: crypto.createHash('sha1').update(event.data).digest('hex'),
    md5: crypto.createHash('md5').update(event.data).digest('base64'),
    sha256: crypto.createHash('sha256').update(Buffer.from(event.data)).digest('base64'),
    raw: [Buffer.isBuffer(raw), raw.length, raw.toString('hex')],
    buffer: [Buffer.from('aGVsbG8', 'base64').toString(), Buffer.from('hé').toString('base64url'), Buffer.from('68c3a9', 'hex').toString('utf8')],
    bad: [
      (() => { try { crypto.createHash('sha512'); return 'made'; } catch (e) { return e instanceof Error; } })(),
      (() => { try { crypto.createHash('md5').digest('latin1'); return 'made'; } catch (e) { return e instanceof Error; } })(),
      (() => { try { Buffer.from('x', 'ucs2'); return 'made'; } catch (e) { return e instanceof TypeError; } })(),
    ],
  };
}
`
	fns := startTestFunctions(t, map[string]string{"f": src}, nil)
	key, data := "s3cret-ké", "/private/doc?exp=1767225600"
	got, err := runJSON(t, fns, "f", map[string]any{"key": key, "data": data})
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(data))
	sum := mac.Sum(nil)
	s1 := sha1.Sum([]byte(data))
	m5 := md5.Sum([]byte(data))
	s256 := sha256.Sum256([]byte(data))
	want := map[string]any{
		"hmac":         base64.RawURLEncoding.EncodeToString(sum),
		"hmacBytesKey": hex.EncodeToString(sum),
		"sha1":         hex.EncodeToString(s1[:]),
		"md5":          base64.StdEncoding.EncodeToString(m5[:]),
		"sha256":       base64.StdEncoding.EncodeToString(s256[:]),
		"raw":          []any{true, 32.0, hex.EncodeToString(sum)},
		"buffer":       []any{"hello", "aMOp", "hé"},
		"bad":          []any{true, true, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFunctionsAsync(t *testing.T) {
	fns := startTestFunctions(t, map[string]string{
		"async": `async function handler(event) {
  const n = await Promise.resolve(event.n);
  await null;
  return { uri: '/n/' + n };
}`,
		"promise":    "function handler(event) { return Promise.resolve({ uri: event.uri }); }",
		"never":      "function handler(event) { return new Promise(function () {}); }",
		"awaitNever": "async function handler(event) { await new Promise(function () {}); return event; }",
		"spin":       "async function handler(event) { for (;;) { await null; } }",
		"rejects":    "async function handler(event) { throw new Error('refused ' + event.uri); }",
		"rejected":   "async function handler(event) { Promise.reject(new Error('ignored')); return { uri: event.uri }; }",
		"sync":       "function handler(event) { return { uri: event.uri }; }",
	}, nil)
	for name, want := range map[string]string{"promise": "/p", "rejected": "/p", "sync": "/p"} {
		got, err := runJSON(t, fns, name, map[string]any{"uri": "/p"})
		if err != nil || !cmp.Equal(got, map[string]any{"uri": want}) {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
	for name, want := range map[string]string{
		"never":      "never settles",
		"awaitNever": "never settles",
		"spin":       "timed out",
		"rejects":    "refused /x",
	} {
		start := time.Now()
		_, err := runJSON(t, fns, name, map[string]any{"uri": "/x"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", name, err, want)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: %v to fail", name, d)
		}
	}
	// Many runs at once: each answer is its own run's.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := runJSON(t, fns, "async", map[string]any{"n": i})
			if want := map[string]any{"uri": fmt.Sprintf("/n/%d", i)}; err != nil || !cmp.Equal(got, want) {
				t.Errorf("run %d: %v %v", i, got, err)
			}
		}()
	}
	wg.Wait()
}

func TestFunctionsRefused(t *testing.T) {
	for name, c := range map[string]struct{ src, want string }{
		"another module":       {"import fs from 'fs';\nfunction handler(event) { return event.request; }", "f.js:1: import fs from 'fs';: cloudfront-js-2.0 imports its 'cloudfront' module only"},
		"named import":         {"import { kvs } from 'cloudfront';\nfunction handler(event) { return event.request; }", "'cloudfront' module only"},
		"namespace import":     {"import * as cf from 'cloudfront';\nfunction handler(event) { return event.request; }", "'cloudfront' module only"},
		"side-effect import":   {"import 'cloudfront';\nfunction handler(event) { return event.request; }", "'cloudfront' module only"},
		"not on its own line":  {"import cf from 'cloudfront'; const x = 1;\nfunction handler(event) { return event.request; }", "on a line of its own"},
		"an import in a block": {"function handler(event) {\n  import cf from 'cloudfront';\n  return event.request;\n}", "f.js:2: import cf from 'cloudfront';: an import comes first"},
		"an import after code": {"var x = 1;\nimport cf from 'cloudfront';\nfunction handler(event) { return event.request; }", "an import comes first"},
		"a handler of two":     {"async function handler(event, context) { return event.request; }", "no function handler(event)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := startFunctions(t, map[string]string{"f": c.src}, testStore)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want an error with %q", err, c.want)
			}
		})
	}
	fns := startTestFunctions(t, map[string]string{
		"fs":          "function handler(event) { return require('fs'); }",
		"querystring": "function handler(event) { return require('querystring'); }",
		"process":     "function handler(event) { return { env: process.env }; }",
		"import":      "async function handler(event) { return await import('fs'); }",
		// What is there is the function's own, not node's.
		"realm": `function handler(event) {
  var escape = function (f) { try { return f.constructor('return typeof process')(); } catch (e) { return 'threw'; } };
  var c = require('crypto');
  var caught;
  try { require('fs'); } catch (e) { caught = e; }
  return {
    require: [typeof require, require.resolve === undefined, escape(require)],
    buffer: [typeof Buffer, Buffer.poolSize === undefined, escape(Buffer), escape(Buffer.from)],
    crypto: [escape(c.createHmac), escape(c.createHmac('sha1', 'k').update), escape(caught.constructor)],
    console: escape(console.log),
    globals: [typeof process, typeof module, typeof setTimeout, typeof queueMicrotask, typeof TextEncoder],
  };
}`,
	}, nil)
	for name, want := range map[string]string{
		"fs":          "Cannot find module 'fs'",
		"querystring": "querystring",
		"process":     "process is not defined",
		"import":      "",
	} {
		if _, err := runJSON(t, fns, name, map[string]any{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", name, err, want)
		}
	}
	got, err := runJSON(t, fns, "realm", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"require": []any{"function", true, "undefined"},
		"buffer":  []any{"function", true, "undefined", "undefined"},
		"crypto":  []any{"undefined", "undefined", "undefined"},
		"console": "undefined",
		"globals": []any{"undefined", "undefined", "undefined", "undefined", "undefined"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// tokenViewerRequest lets a request through when its token is the HMAC of
// its URI with the store's secret.
const tokenViewerRequest = `import cf from 'cloudfront';
const kvsHandle = cf.kvs();
const crypto = require('crypto');

async function handler(event) {
  const req = event.request;
  let secret;
  try {
    secret = await kvsHandle.get('secret');
  } catch (e) {
    return { statusCode: 500, statusDescription: 'No Secret' };
  }
  const token = req.querystring.token ? req.querystring.token.value : '';
  if (token !== crypto.createHmac('sha256', secret).update(req.uri).digest('base64url')) {
    return { statusCode: 403, statusDescription: 'Forbidden' };
  }
  req.uri = '/site' + req.uri + '.json';
  return req;
}
`

func TestEdgeKeyValueStore(t *testing.T) {
	token := func(secret, uri string) string {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(uri))
		return url.QueryEscape(base64.RawURLEncoding.EncodeToString(mac.Sum(nil)))
	}
	edges := map[string]*Edge{}
	for name, store := range map[string]map[string]string{"k1": {"secret": "k1"}, "empty": {}} {
		edges[name], _ = newTestEdge(t, func(cfg *Config) {
			cfg.ViewerRequest = []byte(tokenViewerRequest)
			cfg.KeyValueStore = store
		})
	}
	for _, c := range []struct {
		name, store, target string
		status              int
	}{
		{"good token", "k1", "/doc?token=" + token("k1", "/doc"), 200},
		{"another secret's token", "k1", "/doc?token=" + token("k2", "/doc"), 403},
		{"no token", "k1", "/doc", 403},
		{"no secret", "empty", "/doc?token=" + token("k1", "/doc"), 500},
	} {
		w := httptest.NewRecorder()
		edges[c.store].ServeHTTP(w, httptest.NewRequest("GET", c.target, nil))
		if w.Code != c.status {
			t.Errorf("%s: %d %q, want %d", c.name, w.Code, w.Body.String(), c.status)
		}
		if c.status == 200 && w.Body.String() != `{"a":1}` {
			t.Errorf("%s: body %q", c.name, w.Body.String())
		}
	}
	for name, e := range edges {
		if p := e.Problems(); len(p) > 0 {
			t.Errorf("%s: problems %q", name, p)
		}
	}
	// Without a store, the function does not load.
	d, err := LoadTemplate(templatePath, "site")
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(t.Context(), Config{Distribution: d, ViewerRequest: []byte(tokenViewerRequest), ViewerResponse: []byte(testViewerResponse), Origin: &fakeOrigin{}, Bucket: "b"})
	if err == nil || errors.Is(err, ErrNoNode) || !strings.Contains(err.Error(), "No key value store") {
		t.Errorf("New without a store: %v", err)
	}
}
