package edgetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// nodeHarness runs CloudFront Functions under node, one JSON message a
// line. The first line is {"id": 0, "functions": {name: source}, "kvs":
// {key: value} or null}: each function is compiled and must define
// handler(event); kvs is the key value store associated with the functions
// (null: none). Every later line is {"id": N, "function": name, "event":
// {...}}; the answer is {"id": N, "result": ...} or {"id": N, "error":
// "..."}, with "logs" when the function logged. Messages are handled one at
// a time, in order.
//
// Each run gets a fresh vm context holding the ECMAScript built-ins, not
// those cloudfront-js-2.0 lacks, and what the runtime adds, emulated by
// runtime below: console.log, Buffer, require('crypto') and, for a
// function that imports it, the 'cloudfront' module. Nothing of node is
// reachable from a function; state never carries over from one request to
// the next, as at the edge.
//
// An import is a line of its own, on the first lines of the function:
// import cf from 'cloudfront'; (or any other name for cf, double quotes, no
// semicolon) becomes a blank line and binds cf, read-only, in the
// function's context. Any other import, or one after code, is an error when
// the functions are loaded, as the runtime has no other module. import()
// fails when it runs: node refuses it in a vm context, with an error of its
// own realm, the one thing of node a function can reach (on purpose only:
// the harness keeps tests faithful, it is no security boundary).
//
// A handler may be async, or return a promise. The context runs its
// promise jobs itself, within the run's timeout (microtaskMode
// afterEvaluate), and nothing outside a context settles its promises (the
// key value store answers at once), so a handler's promise that is still
// pending when the run ends never settles: that is an error at once.
const nodeHarness = `'use strict';
const vm = require('vm');
const readline = require('readline');
const nodeCrypto = require('crypto');

// A rejection nobody handles inside a function must not stop node.
process.on('unhandledRejection', () => {});

const absent = ['WebAssembly', 'SharedArrayBuffer', 'Atomics', 'WeakRef',
  'FinalizationRegistry', 'Intl'];
const runTimeout = 1000;
// What the load message set: the compiled functions, the key value store.
const state = { functions: {}, store: null, created: '' };

// runtime is never called here: its source is compiled in each function's
// context, so that every object, error and promise it makes belongs to the
// function's realm. bridge is the harness's side: its functions take
// primitives, return primitives and never throw, so that no object of
// node's realm (and so neither its Function nor process) reaches a
// function.
//
// Buffer is not node's: it is a Uint8Array subclass with from (a string in
// utf8, hex, base64 or base64url, an array, an ArrayBuffer, a Uint8Array),
// alloc, concat, isBuffer, byteLength and toString(encoding, start, end),
// the encodings converted by node. It is what crypto's raw digest and the
// store's bytes format give.
function runtime(bridge, hasStore, created, keyCount, bindings) {
  'use strict';
  const g = globalThis;
  const fromCharCode = String.fromCharCode;
  const encodings = ['utf8', 'hex', 'base64', 'base64url'];
  function encoding(enc) {
    if (enc === undefined) {
      return 'utf8';
    }
    const e = typeof enc === 'string' ? enc.toLowerCase() : '';
    if (e === 'utf-8') {
      return 'utf8';
    }
    if (encodings.indexOf(e) < 0) {
      throw new TypeError('Unknown encoding: ' + String(enc));
    }
    return e;
  }
  // Bytes travel to and from the bridge as latin1 strings.
  function latin1(b) {
    let s = '';
    for (let i = 0; i < b.length; i += 4096) {
      s += fromCharCode.apply(null, b.subarray(i, i + 4096));
    }
    return s;
  }
  function fromLatin1(s) {
    if (typeof s !== 'string') {
      throw new Error('edgetest: the conversion failed');
    }
    const b = new Buffer(s.length);
    for (let i = 0; i < s.length; i++) {
      b[i] = s.charCodeAt(i);
    }
    return b;
  }
  class Buffer extends Uint8Array {
    static from(value, enc) {
      if (typeof value === 'string') {
        return fromLatin1(bridge.decode(value, encoding(enc)));
      }
      if (value instanceof ArrayBuffer) {
        value = new Uint8Array(value);
      }
      if (value instanceof Uint8Array || Array.isArray(value)) {
        const b = new Buffer(value.length);
        b.set(value);
        return b;
      }
      throw new TypeError('Buffer.from: a string, an array, an ArrayBuffer or a Uint8Array is needed');
    }
    static alloc(n) { return new Buffer(n); }
    static isBuffer(v) { return v instanceof Buffer; }
    static byteLength(v, enc) { return typeof v === 'string' ? Buffer.from(v, enc).length : v.byteLength; }
    static concat(list) {
      let n = 0;
      for (const b of list) {
        n += b.length;
      }
      const out = new Buffer(n);
      let at = 0;
      for (const b of list) {
        out.set(b, at);
        at += b.length;
      }
      return out;
    }
    toString(enc, start, end) {
      const e = encoding(enc);
      const s = bridge.encode(latin1(this.subarray(start || 0, end === undefined ? this.length : end)), e);
      if (typeof s !== 'string') {
        throw new Error('edgetest: the conversion failed');
      }
      return s;
    }
  }
  function input(data, enc) {
    if (typeof data === 'string') {
      const s = bridge.decode(data, encoding(enc));
      if (typeof s !== 'string') {
        throw new Error('edgetest: the conversion failed');
      }
      return s;
    }
    if (data instanceof Uint8Array) {
      return latin1(data);
    }
    if (data instanceof ArrayBuffer) {
      return latin1(new Uint8Array(data));
    }
    if (ArrayBuffer.isView(data)) {
      return latin1(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    }
    throw new TypeError('The data must be a string, a Buffer, a TypedArray or a DataView');
  }

  // crypto: createHash and createHmac, md5, sha1 and sha256, digests in
  // hex, base64 or base64url, or a Buffer without an encoding.
  const algorithms = ['md5', 'sha1', 'sha256'];
  const digests = ['hex', 'base64', 'base64url'];
  function hasher(kind, alg, key) {
    if (algorithms.indexOf(alg) < 0) {
      throw new Error('Digest method not supported: ' + String(alg) + ' (md5, sha1 or sha256)');
    }
    const k = kind === 'hmac' ? input(key) : '';
    let data = '';
    let finished = false;
    const h = {
      update(chunk, enc) {
        if (finished) {
          throw new Error('Digest already called');
        }
        data += input(chunk, enc);
        return h;
      },
      digest(enc) {
        if (finished) {
          throw new Error('Digest already called');
        }
        if (enc !== undefined && digests.indexOf(enc) < 0) {
          throw new Error('Unsupported digest encoding: ' + String(enc) + ' (hex, base64 or base64url)');
        }
        finished = true;
        const out = bridge.digest(kind, alg, k, enc === undefined ? 'latin1' : enc, data);
        if (typeof out !== 'string') {
          throw new Error('edgetest: the digest failed');
        }
        return enc === undefined ? fromLatin1(out) : out;
      },
    };
    return h;
  }
  const crypto = Object.freeze({
    createHash: function createHash(alg) { return hasher('hash', alg); },
    createHmac: function createHmac(alg, key) { return hasher('hmac', alg, key); },
  });
  function require(name) {
    if (name === 'crypto') {
      return crypto;
    }
    if (name === 'querystring') {
      throw new Error("edgetest does not emulate cloudfront-js-2.0's querystring module");
    }
    throw new Error("Cannot find module '" + String(name) + "' (cloudfront-js-2.0 has crypto and querystring)");
  }

  // The 'cloudfront' module: kvs(), the store associated with the function.
  function key(k) {
    if (typeof k !== 'string') {
      throw new TypeError('The key must be a string');
    }
    return k;
  }
  const store = Object.freeze({
    get(k, options) {
      return new Promise((resolve) => {
        const format = options === undefined || options === null || options.format === undefined ? 'string' : options.format;
        if (format !== 'string' && format !== 'json' && format !== 'bytes') {
          throw new TypeError('Unknown format ' + String(format) + ' (string, json or bytes)');
        }
        const value = bridge.kvsGet(key(k));
        if (typeof value !== 'string') {
          throw new Error('Key ' + k + ' not found in the key value store');
        }
        resolve(format === 'json' ? JSON.parse(value) : format === 'bytes' ? Buffer.from(value) : value);
      });
    },
    exists(k) {
      return new Promise((resolve) => { resolve(bridge.kvsHas(key(k)) === true); });
    },
    meta() {
      return Promise.resolve({ creationDateTime: created, lastUpdatedDateTime: created, keyCount: keyCount });
    },
  });
  const cf = Object.freeze({
    kvs(id) {
      if (!hasStore) {
        throw new Error('No key value store is associated with the function');
      }
      if (id !== undefined && (typeof id !== 'string' || id === '')) {
        throw new TypeError('cf.kvs(id): the id must be a non-empty string');
      }
      return store;
    },
  });

  function define(name, value) {
    Object.defineProperty(g, name, { value: value, writable: true, configurable: true, enumerable: false });
  }
  define('console', Object.freeze({
    log(...args) { bridge.log(args.map((a) => String(a)).join(' ')); },
  }));
  define('require', require);
  define('Buffer', Buffer);
  for (const name of bindings.split(',')) {
    if (name !== '') {
      // An import binding cannot be assigned.
      Object.defineProperty(g, name, { value: cf, writable: false, configurable: false, enumerable: false });
    }
  }
}
const installRuntime = new vm.Script('(' + runtime.toString() + ')', { filename: 'cloudfront-runtime.js' });

// safe makes a bridge function that never throws: an error of node's realm
// must not reach a function.
function safe(f) {
  return (...args) => {
    try {
      return f(...args);
    } catch (e) {
      return undefined;
    }
  };
}

function bridgeFor(logs) {
  return Object.freeze({
    log: safe((s) => { logs.push(String(s)); }),
    decode: safe((s, enc) => Buffer.from(String(s), String(enc)).toString('latin1')),
    encode: safe((s, enc) => Buffer.from(String(s), 'latin1').toString(String(enc))),
    digest: safe((kind, alg, key, enc, data) => {
      const h = kind === 'hmac' ? nodeCrypto.createHmac(String(alg), Buffer.from(String(key), 'latin1')) : nodeCrypto.createHash(String(alg));
      return h.update(Buffer.from(String(data), 'latin1')).digest(String(enc));
    }),
    kvsGet: safe((k) => (state.store !== null && state.store.has(String(k)) ? state.store.get(String(k)) : undefined)),
    kvsHas: safe((k) => state.store !== null && state.store.has(String(k))),
  });
}

function fresh(logs, bindings) {
  const context = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  vm.runInContext(absent.map((g) => 'delete globalThis.' + g + ';').join(''), context);
  const install = installRuntime.runInContext(context);
  install(bridgeFor(logs), state.store !== null, state.created, state.store === null ? 0 : state.store.size, bindings.join(','));
  return context;
}

// imports blanks the import lines of source that come first (before any
// line but blank lines and comments), keeping the line numbers, and
// returns the names bound to the 'cloudfront' module. An import anywhere
// else is refused, as one inside a block is not JavaScript, and the
// runtime's documentation puts the import on the first lines.
// Refusal is the harness refusing a function: its message says it all.
class Refusal extends Error {}
const importLine = /^\s*import(\s|[{*'"]|$)/;
const cloudfrontImport = /^import\s+([A-Za-z_$][\w$]*)\s+from\s+(['"])cloudfront\2\s*;?\s*$/;
function imports(name, source) {
  const lines = source.split('\n');
  const bindings = [];
  let first = true;
  let comment = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    const where = name + '.js:' + (i + 1) + ': ' + line.trim() + ': ';
    const trimmed = line.trim();
    if (comment) {
      comment = !trimmed.includes('*/');
      continue;
    }
    if (first && (trimmed === '' || trimmed.startsWith('//'))) {
      continue;
    }
    if (first && trimmed.startsWith('/*')) {
      comment = !trimmed.slice(2).includes('*/');
      continue;
    }
    if (!importLine.test(line)) {
      first = false;
      continue;
    }
    if (!first) {
      throw new Refusal(where + 'an import comes first, before any code');
    }
    const m = cloudfrontImport.exec(trimmed);
    if (!m) {
      throw new Refusal(where + "cloudfront-js-2.0 imports its 'cloudfront' module only, on a line of its own: import cf from 'cloudfront';");
    }
    bindings.push(m[1]);
    lines[i] = '';
  }
  return { source: lines.join('\n'), bindings };
}

function load(functions, kvs) {
  state.store = kvs === null || kvs === undefined ? null : new Map(Object.entries(kvs));
  state.created = new Date().toISOString();
  for (const name of Object.keys(functions)) {
    const { source, bindings } = imports(name, functions[name]);
    const script = new vm.Script(source, { filename: name + '.js' });
    const context = fresh([], bindings);
    script.runInContext(context, { timeout: runTimeout });
    if (vm.runInContext('typeof handler === "function" ? handler.length : -1', context) !== 1) {
      throw new Refusal(name + ': no function handler(event) at the top level');
    }
    state.functions[name] = { script, bindings };
  }
}

// settle calls the handler inside the context and follows its result,
// promise or not, to the end of the context's promise jobs.
const settle = '(function (handler, event) {' +
  '  var s = Object.create(null);' +
  '  s.settled = false;' +
  '  Promise.resolve(handler(event)).then(function (r) {' +
  '    s.settled = true;' +
  '    try { s.out = JSON.stringify(r); } catch (e) { s.error = String(e && e.stack ? e.stack : e); }' +
  '  }, function (e) {' +
  '    s.settled = true;' +
  '    try { s.error = String(e && e.stack ? e.stack : e); } catch (f) { s.error = "the handler rejected with a value that is not a string"; }' +
  '  });' +
  '  return s;' +
  '})';

function run(name, event) {
  const logs = [];
  const fn = state.functions[name];
  if (!fn) {
    return { error: 'unknown function ' + name, logs };
  }
  try {
    const context = fresh(logs, fn.bindings);
    fn.script.runInContext(context, { timeout: runTimeout });
    // The event is parsed inside the context, so that every object the
    // handler sees and returns belongs to the function's own realm.
    const call = settle + '(handler, JSON.parse(' + JSON.stringify(JSON.stringify(event)) + '))';
    const s = vm.runInContext(call, context, { timeout: runTimeout });
    if (s.settled !== true) {
      return { error: "the handler's promise never settles: nothing outside the function can settle it", logs };
    }
    if (typeof s.error === 'string') {
      return { error: s.error, logs };
    }
    if (typeof s.out !== 'string') {
      return { error: 'handler returned nothing', logs };
    }
    return { result: JSON.parse(s.out), logs };
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
      load(msg.functions, msg.kvs);
      answer = { result: true };
    } catch (e) {
      answer = { error: e instanceof Refusal ? e.message : String(e && e.stack ? e.stack : e) };
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
// source); each must define handler(event). No key value store is
// associated with them. Without node, the error is ErrNoNode.
func StartFunctions(ctx context.Context, functions map[string][]byte) (*Functions, error) {
	return StartFunctionsWithStore(ctx, functions, nil)
}

// StartFunctionsWithStore is StartFunctions with store (key → value) as
// the key value store associated with every function, which reads it
// through cf.kvs() after import cf from 'cloudfront'. A nil store is none
// associated: cf.kvs() throws; an empty one is a store without keys.
func StartFunctionsWithStore(ctx context.Context, functions map[string][]byte, store map[string]string) (*Functions, error) {
	src := make(map[string]string, len(functions))
	for name, code := range functions {
		src[name] = string(code)
	}
	n, err := startNode(ctx, src, store)
	if err != nil {
		return nil, err
	}
	return &Functions{n}, nil
}

// checkStore checks store against what a CloudFront key value store
// holds: UTF-8 keys of 1 to maxKeyBytes bytes, UTF-8 values of at most
// maxValueBytes, maxStoreBytes in all.
func checkStore(store map[string]string) error {
	total := 0
	for k, v := range store {
		switch {
		case k == "" || len(k) > maxKeyBytes:
			return fmt.Errorf("edgetest: key value store: key %.40q: a key has 1 to %d bytes", k, maxKeyBytes)
		case len(v) > maxValueBytes:
			return fmt.Errorf("edgetest: key value store: the value of %q has more than %d bytes", k, maxValueBytes)
		case !utf8.ValidString(k) || !utf8.ValidString(v):
			return fmt.Errorf("edgetest: key value store: %q: keys and values are UTF-8", k)
		}
		total += len(k) + len(v)
	}
	if total > maxStoreBytes {
		return fmt.Errorf("edgetest: key value store: %d bytes, more than %d", total, maxStoreBytes)
	}
	return nil
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

// startNode starts node and loads functions, with store as their key
// value store (nil: none).
func startNode(ctx context.Context, functions map[string]string, store map[string]string) (*nodeRunner, error) {
	if err := checkStore(store); err != nil {
		return nil, err
	}
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
	if _, err := n.roundTrip(ctx, map[string]any{"functions": functions, "kvs": store}, startTimeout); err != nil {
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
	// exec reports a kill by the caller's context as that context's error
	// (testing.T.Context ends before a test's cleanups run), not always as
	// an *exec.ExitError.
	var ee *exec.ExitError
	if expected && (errors.As(err, &ee) && !ee.Exited() || errors.Is(err, n.ctx.Err())) {
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
