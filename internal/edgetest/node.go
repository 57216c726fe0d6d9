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
)

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
