package live

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/check/dial"
)

// Endpoint is where a server runs: URL, a Streamable HTTP endpoint, or
// Command, the program (and its arguments) of a stdio server. Exactly one
// is set.
type Endpoint struct {
	URL     string
	Command []string
	// Header is sent with every HTTP request (an Authorization token);
	// never with a command. Its values are never repeated in an error.
	Header http.Header
}

// Label names the endpoint in messages and in a recording's source: the
// URL without its credentials, or "stdio:" and the command's program
// (its base name: a path names the machine, and arguments may hold a
// secret).
func (e Endpoint) Label() string {
	if len(e.Command) > 0 {
		return "stdio:" + filepath.Base(e.Command[0])
	}
	return safeURL(e.URL)
}

// safeURL is u for a message: without its user information, whatever it
// looks like, and with any credential of its query cut.
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return secrets.Redact(u)
	}
	if p.User != nil {
		p.User = url.User("…")
	}
	return secrets.RedactURL(p.String())
}

// Check explains what is wrong with the endpoint, or returns nil.
func (e Endpoint) Check() error {
	switch {
	case e.URL != "" && len(e.Command) > 0:
		return errors.New("an endpoint is a URL or a command, not both")
	case e.URL == "" && len(e.Command) == 0:
		return errors.New("no endpoint: give the server's URL or the command that runs it")
	case len(e.Command) > 0 && e.Command[0] == "":
		return errors.New("the command of a stdio server is empty")
	case len(e.Command) > 0 && len(e.Header) > 0:
		return errors.New("headers go to an HTTP endpoint; a stdio server reads its credentials from its environment")
	case len(e.Command) > 0:
		return nil
	}
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s is not an http or https URL of an MCP endpoint", safeURL(e.URL))
	}
	if u.User != nil {
		return fmt.Errorf("%s has credentials in it: send them as a header", safeURL(e.URL))
	}
	for name := range e.Header {
		if http.CanonicalHeaderKey(name) == "Host" || strings.HasPrefix(http.CanonicalHeaderKey(name), "Mcp-") {
			return fmt.Errorf("header %s is the protocol's: it cannot be set", name)
		}
	}
	return nil
}

// Options bound a read. Zero values take the defaults.
type Options struct {
	// Deadline bounds the whole read: connecting (or starting the
	// command), initializing, every page of tools/list and closing
	// (default 30s).
	Deadline time.Duration
	// MaxPages bounds the pages of tools/list read (default 100): a server
	// that offers more, or repeats a cursor, is an error.
	MaxPages int
	// MaxBodyBytes bounds each HTTP response and each server-sent event
	// (default 16 MiB); the SDK bounds each message of a stdio server to
	// as much.
	MaxBodyBytes int64
	// AllowPrivate lets an HTTP read connect to loopback, private,
	// link-local and other non-public addresses, which a catalog's URL
	// may otherwise not name (see dial.NewClient).
	AllowPrivate bool
}

// Defaults of Options.
const (
	DefaultDeadline     = 30 * time.Second
	DefaultMaxPages     = 100
	DefaultMaxBodyBytes = 16 << 20
)

func (o Options) withDefaults() Options {
	o.Deadline = cmp.Or(o.Deadline, DefaultDeadline)
	o.MaxPages = cmp.Or(o.MaxPages, DefaultMaxPages)
	o.MaxBodyBytes = cmp.Or(o.MaxBodyBytes, DefaultMaxBodyBytes)
	return o
}

// Listing is what a server answered: who it says it is, its instructions,
// and every tool of every page of tools/list, in the order served.
type Listing struct {
	// ServerInfo is the serverInfo of the initialize result (name, title,
	// version), nil when the server sent none.
	ServerInfo *mcp.Implementation
	// Instructions are the server's instructions, "" when it has none.
	Instructions string
	// Tools are the Tool objects as the SDK's client decodes them.
	Tools []*mcp.Tool
	// Pages is how many pages of tools/list were read.
	Pages int
}

// Recording is the listing as a recording: a tools/list result with
// every page's tools, beside the serverInfo and instructions of the
// initialize result. The same listing always gives the same bytes.
func (l *Listing) Recording() ([]byte, error) {
	rec := struct {
		ServerInfo   *implementation `json:"serverInfo,omitempty"`
		Instructions string          `json:"instructions,omitempty"`
		Tools        []*mcp.Tool     `json:"tools"`
	}{Instructions: l.Instructions, Tools: l.Tools}
	if si := l.ServerInfo; si != nil {
		rec.ServerInfo = &implementation{Name: si.Name, Title: si.Title, Version: si.Version}
	}
	if rec.Tools == nil {
		rec.Tools = []*mcp.Tool{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return nil, fmt.Errorf("encode the recording: %w", err)
	}
	return b.Bytes(), nil
}

// implementation is the part of serverInfo a recording keeps.
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

// clientName is the client's name in the initialize request.
const clientName = "signpost"

// List connects to the server at e, initializes, reads every page of
// tools/list and closes the session, within opts.Deadline. The error says
// what failed (connecting, initializing, a page), with the endpoint's
// Label, and never repeats a header value.
func List(ctx context.Context, e Endpoint, opts Options) (*Listing, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()
	l, err := list(ctx, e, opts)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), context.Canceled) {
			err = fmt.Errorf("%w (no answer within the deadline of %s)", err, opts.Deadline)
		}
		return nil, &Error{Endpoint: e.Label(), Err: scrub(err, e.Header)}
	}
	return l, nil
}

// Error is a read that failed: the endpoint's label and why.
type Error struct {
	Endpoint string
	Err      error
}

func (e *Error) Error() string { return e.Endpoint + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func list(ctx context.Context, e Endpoint, opts Options) (*Listing, error) {
	transport, stderr := transportFor(ctx, e, opts)
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1"}, &mcp.ClientOptions{
		// No roots, no sampling, no elicitation: the client only lists.
		Capabilities: &mcp.ClientCapabilities{},
	})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, withStderr(fmt.Errorf("initialize: %w", err), stderr)
	}
	l := &Listing{}
	closeErr := func() error {
		done := make(chan error, 1)
		go func() { done <- session.Close() }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if init := session.InitializeResult(); init != nil {
		l.ServerInfo, l.Instructions = init.ServerInfo, init.Instructions
	}
	seen := map[string]bool{}
	cursor := ""
	for {
		if l.Pages == opts.MaxPages {
			_ = closeErr()
			return nil, fmt.Errorf("tools/list: more than %d pages (the limit)", opts.MaxPages)
		}
		res, err := session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			_ = closeErr()
			return nil, withStderr(fmt.Errorf("tools/list (page %d): %w", l.Pages+1, err), stderr)
		}
		l.Pages++
		for _, t := range res.Tools {
			if t != nil {
				l.Tools = append(l.Tools, t)
			}
		}
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			_ = closeErr()
			return nil, fmt.Errorf("tools/list: page %d repeats the cursor of an earlier page", l.Pages)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	if err := closeErr(); err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("close the session: %w", err)
	}
	return l, nil
}

// transportFor is the SDK's transport of e, and for a command the buffer
// that keeps the end of what it writes to stderr.
func transportFor(ctx context.Context, e Endpoint, opts Options) (mcp.Transport, *tailBuffer) {
	if len(e.Command) > 0 {
		cmd := exec.CommandContext(ctx, e.Command[0], e.Command[1:]...)
		stderr := &tailBuffer{max: 2048}
		cmd.Stderr = stderr
		// After the deadline, the process has a second to go.
		cmd.WaitDelay = time.Second
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, stderr
	}
	client := dial.NewClient(opts.AllowPrivate)
	client.Transport = &bounded{next: client.Transport, header: e.Header, max: opts.MaxBodyBytes}
	client.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		return fmt.Errorf("refused to follow a redirect to %s: an MCP endpoint is read where it is declared", safeURL(req.URL.String()))
	}
	return &mcp.StreamableClientTransport{
		Endpoint:             e.URL,
		HTTPClient:           client,
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
		MaxEventSize:         int(opts.MaxBodyBytes),
	}, nil
}

// bounded adds the endpoint's headers to each request and bounds each
// response body.
type bounded struct {
	next   http.RoundTripper
	header http.Header
	max    int64
}

func (b *bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(b.header) > 0 {
		req = req.Clone(req.Context())
		for k, vs := range b.header {
			req.Header[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
		}
	}
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{r: resp.Body, left: b.max}
	return resp, nil
}

// limitedBody fails a read past its limit, rather than cutting the body
// short: a cut JSON-RPC message would read as another error.
type limitedBody struct {
	r    io.ReadCloser
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errors.New("response body over the size limit")
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.r.Close() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.b), "\uFFFD")
}

// withStderr adds to err the last line a stdio server wrote to stderr,
// which usually says why it stopped.
func withStderr(err error, stderr *tailBuffer) error {
	if stderr == nil {
		return err
	}
	var last string
	for l := range strings.Lines(stderr.String()) {
		if l = strings.TrimSpace(l); l != "" {
			last = l
		}
	}
	if last == "" {
		return err
	}
	return fmt.Errorf("%w (the server's last line on stderr: %s)", err, last)
}

// scrub replaces every header value in err's message: a server may echo a
// token back in an error, and the SDK quotes what it answered.
func scrub(err error, h http.Header) error {
	msg := err.Error()
	var values []string
	for _, vs := range h {
		for _, v := range vs {
			values = append(values, v)
			// A bearer token is often quoted without its scheme.
			if _, tok, ok := strings.Cut(v, " "); ok {
				values = append(values, strings.TrimSpace(tok))
			}
		}
	}
	// Longest first, so that a value is replaced whole before a part of it.
	slices.SortFunc(values, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	changed := false
	for _, v := range values {
		if len(v) >= 4 && strings.Contains(msg, v) {
			msg, changed = strings.ReplaceAll(msg, v, "[header value]"), true
		}
	}
	if !changed {
		return err
	}
	return &scrubbed{msg: msg}
}

// scrubbed is an error whose message had a header value taken out. It
// wraps nothing: what it replaced must not be reachable through it.
type scrubbed struct{ msg string }

func (s *scrubbed) Error() string { return s.msg }
