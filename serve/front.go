package serve

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/signpost-dev/signpost/build/spec"
)

// Nearly every request a discovery site gets is a GET of a document that
// is there, on a kept-alive connection: front answers those itself, with
// the bytes net/http would write, and hands every other request to
// net/http, with the rest of its connection. A test holds the two to the
// same bytes (TestFrontAsNetHTTP). net/http's cost per request was most of
// what serving a small document cost (two thirds of nginx's rate); front
// parses no more than the request line and the headers the handler reads,
// and allocates nothing per request.

// front serves the connections of a listener: the usual requests itself,
// the rest through the listener it hands connections to (slow).
type front struct {
	live *Live
	slow *handoff

	date atomic.Pointer[httpDate]

	mu      sync.Mutex
	conns   map[net.Conn]bool // the connections front is serving
	closing atomic.Bool       // set under mu
	wg      sync.WaitGroup
}

// httpDate is the Date header's value for one second.
type httpDate struct {
	unix int64
	text []byte
}

// maxFrontRequest is the most of a request front reads before it gives
// the connection to net/http, which refuses what is too large.
const maxFrontRequest = maxHeaderBytes

func newFront(live *Live, addr net.Addr) *front {
	return &front{live: live, slow: newHandoff(addr), conns: map[net.Conn]bool{}}
}

// serve accepts connections from ln until it is closed. An error that
// passes (a timeout, the process or the system out of file descriptors
// while connections are open, a connection aborted before it was
// accepted) is waited out, 5 ms at first, then twice as long each time up
// to a second, as net/http waits: a client that opens connections until
// none is left must not stop the server.
func (f *front) serve(ln net.Listener) error {
	var wait time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if !acceptPasses(err) {
				return err
			}
			wait = min(max(2*wait, 5*time.Millisecond), time.Second)
			time.Sleep(wait)
			continue
		}
		wait = 0
		if !f.track(c) {
			c.Close()
			continue
		}
		go f.serveConn(c)
	}
}

// acceptPasses reports whether an error of Accept is one to wait out.
func acceptPasses(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var errno syscall.Errno
	return errors.As(err, &errno) && (errno.Temporary() || errno == syscall.ENOBUFS || errno == syscall.ENOMEM)
}

// track records a connection front serves; false once it is closing.
func (f *front) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing.Load() {
		return false
	}
	f.conns[c] = true
	f.wg.Add(1)
	return true
}

func (f *front) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	f.wg.Done()
}

// close stops the connections front serves: a connection waiting for a
// request closes at once, one answering closes once its answer is
// written. It waits for them until deadline, then closes them.
func (f *front) close(deadline time.Time) {
	f.mu.Lock()
	f.closing.Store(true)
	for c := range f.conns {
		_ = c.SetReadDeadline(time.Now()) // wakes a connection waiting for a request
	}
	f.mu.Unlock()
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
		f.mu.Lock()
		for c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	}
}

// serveConn answers the requests of one connection while they are usual,
// then hands it to net/http.
func (f *front) serveConn(c net.Conn) {
	handed := false
	defer func() {
		if !handed {
			c.Close()
		}
		f.untrack(c)
	}()
	in := make([]byte, 0, 4096)
	var out []byte
	// started is when the first byte of the request being read came.
	var started time.Time
	for {
		// Answer every whole request buffered (a client may send several
		// at once), then write the answers together.
		for {
			req, n := parseRequest(in)
			if n == 0 {
				break
			}
			var body []byte
			var ok bool
			if out, body, ok = f.answer(out, req); !ok {
				// Not a usual request: the answers before it are written,
				// and net/http takes over from it on.
				if f.flush(c, &out) != nil {
					return
				}
				handed = f.slow.give(c, in)
				return
			}
			if body != nil || len(out) >= 64<<10 {
				// A large body is written from the document itself.
				if f.flush(c, &out) != nil || body != nil && f.write(c, body) != nil {
					return
				}
			}
			in = in[:copy(in, in[n:])]
			started = time.Time{}
		}
		if f.flush(c, &out) != nil || f.closing.Load() {
			return
		}
		if len(in) >= maxFrontRequest || bareLF(in) {
			// Too large for front, or lines net/http reads and front
			// does not: net/http answers.
			handed = f.slow.give(c, in)
			return
		}
		// The wait for a request's first byte is bounded by the idle
		// timeout; the whole rest of it, from that first byte, by the
		// header timeout, so that a client dripping a byte at a time
		// cannot hold the connection (as net/http's ReadHeaderTimeout).
		deadline := time.Now().Add(idleTimeout)
		if len(in) == 0 {
			started = time.Time{}
		} else {
			if started.IsZero() {
				started = time.Now()
			}
			deadline = started.Add(readHeaderTimeout)
		}
		// Read again after the deadline is set: close sets closing, then
		// the deadlines, so a connection either sees it here or has its
		// wait cut short.
		if c.SetReadDeadline(deadline) != nil || f.closing.Load() {
			return
		}
		if cap(in)-len(in) < 1024 {
			in = slices.Grow(in, 4096)
		}
		m, err := c.Read(in[len(in):cap(in)])
		in = in[:len(in)+m]
		if err != nil && (m == 0 || f.closing.Load()) {
			return
		}
	}
}

// flush writes out, and empties it.
func (f *front) flush(c net.Conn, out *[]byte) error {
	if len(*out) == 0 {
		return nil
	}
	err := f.write(c, *out)
	*out = (*out)[:0]
	return err
}

func (f *front) write(c net.Conn, b []byte) error {
	if err := c.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return err
	}
	_, err := c.Write(b)
	return err
}

// bareLF reports whether in has a line ended by a line feed alone.
func bareLF(in []byte) bool {
	for i := 0; i < len(in); i++ {
		if in[i] == '\n' && (i == 0 || in[i-1] != '\r') {
			return true
		}
	}
	return false
}

// request is what front reads of a request: views into the connection's
// buffer, valid until it is answered.
type request struct {
	head       bool
	path       string
	query      string
	inm        [4]string // If-None-Match values
	ninm       int
	encodings  [4]string // Accept-Encoding values
	nencodings int
}

// requestEnd returns the length of the request head at the start of in,
// blank line included, or -1 while it is incomplete.
func requestEnd(in []byte) int {
	i := bytes.Index(in, []byte("\r\n\r\n"))
	if i < 0 {
		return -1
	}
	return i + 4
}

// parseRequest reads a whole request at the start of in. It returns the
// length of its head, 0 while the head is incomplete; req.path is empty
// when the request is not one front answers: anything but GET or HEAD of
// HTTP/1.1 with one plain Host, no body, no Connection but keep-alive, no
// line that is not a plain header, more than four values of a header the
// handler reads, or a target with an escape, a fragment or a byte that
// is not visible ASCII.
func parseRequest(in []byte) (req request, n int) {
	n = requestEnd(in)
	if n < 0 {
		return req, 0
	}
	head := in[:n-2]
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	var target []byte
	switch {
	case bytes.HasPrefix(line, []byte("GET ")):
		target = line[4:]
	case bytes.HasPrefix(line, []byte("HEAD ")):
		target, req.head = line[5:], true
	default:
		return request{}, n
	}
	target, ok := bytes.CutSuffix(target, []byte(" HTTP/1.1"))
	if !ok || len(target) < 1 || target[0] != '/' || len(target) > 1 && target[1] == '/' {
		return request{}, n
	}
	for _, c := range target {
		if c <= ' ' || c >= 0x7f || c == '%' || c == '#' {
			return request{}, n
		}
	}
	path, query, _ := bytes.Cut(target, []byte("?"))
	hosts := 0
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok || len(name) == 0 || !isToken(name) {
			return request{}, n
		}
		value = bytes.Trim(value, " \t")
		for _, c := range value {
			if c < ' ' && c != '\t' || c == 0x7f {
				return request{}, n
			}
		}
		switch {
		case equalFold(name, "Host"):
			if hosts++; hosts > 1 || !isHost(value) {
				return request{}, n
			}
		case equalFold(name, "If-None-Match"):
			if req.ninm == len(req.inm) {
				return request{}, n
			}
			req.inm[req.ninm] = view(value)
			req.ninm++
		case equalFold(name, "Accept-Encoding"):
			if req.nencodings == len(req.encodings) {
				return request{}, n
			}
			req.encodings[req.nencodings] = view(value)
			req.nencodings++
		case equalFold(name, "Connection"):
			if !equalFold(value, "keep-alive") {
				return request{}, n
			}
		case equalFold(name, "Content-Length"):
			if string(value) != "0" {
				return request{}, n
			}
		case equalFold(name, "Transfer-Encoding"), equalFold(name, "Expect"), equalFold(name, "Upgrade"):
			return request{}, n
		}
	}
	if hosts != 1 {
		return request{}, n
	}
	req.path, req.query = view(path), view(query)
	return req, n
}

// view is b as a string, without a copy: b must not change while the
// string is in use (a request's bytes stay put until it is answered).
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c, d := b[i], s[i]
		if c|0x20 != d|0x20 || c|0x20 < 'a' || c|0x20 > 'z' {
			if c != d {
				return false
			}
		}
	}
	return true
}

// isToken reports whether b is an HTTP token: a header name.
func isToken(b []byte) bool {
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0:
		default:
			return false
		}
	}
	return true
}

// isHost reports whether b is a plain host and port: letters, digits, dots,
// hyphens, colons and the brackets of an IPv6 address.
func isHost(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// largeBody is the size from which a body is written from the document
// rather than copied after its headers.
const largeBody = 32 << 10

// answer appends the response to req to out, as net/http would write what
// the handler answers; a body of largeBody or more is not appended but
// returned, to be written after out. ok is false when the handler must
// answer: not a usual request, no document at its path, a gated route, no
// site yet.
func (f *front) answer(out []byte, req request) (_, body []byte, ok bool) {
	if req.path == "" {
		return out, nil, false
	}
	h := f.live.h.Load()
	if h == nil || !h.access.IsPublic(req.path) {
		return out, nil, false
	}
	var doc *servedDoc
	if spec.IsRegistryRoute(req.path) {
		// The path has no escape (see parseRequest): as sent. A search is
		// the handler's.
		doc, _ = h.registryLookup(req.path, req.query, false)
	} else {
		doc = h.lookup(req.path, req.query)
	}
	if doc == nil {
		return out, nil, false
	}
	body, etag, length := doc.body, doc.route.ETag, doc.lengthText
	v := doc.pick(req.encodings[:req.nencodings])
	if v != nil {
		body, etag, length = v.body, v.etagText, v.lengthText
	}
	status := "HTTP/1.1 200 OK\r\n"
	notModified := req.ninm > 0 && etagMatches(req.inm[:req.ninm], etag) // as the handler does
	if notModified {
		status = "HTTP/1.1 304 Not Modified\r\n"
	}
	// The handler's headers in net/http's order (sorted), then its Date.
	out = append(out, status...)
	out = append(out, doc.cors.block...)
	out = append(append(append(out, "Cache-Control: "...), doc.route.CacheControl...), "\r\n"...)
	if !notModified { // net/http drops these from a 304
		if v != nil {
			out = append(out, v.header...)
		}
		out = append(append(append(out, "Content-Length: "...), length...), "\r\n"...)
		out = append(append(append(out, "Content-Type: "...), doc.route.ContentType...), "\r\n"...)
	}
	out = append(append(append(out, "Etag: "...), etag...), "\r\n"...)
	if h.link != nil {
		out = append(append(append(out, "Link: "...), h.link[0]...), "\r\n"...)
	}
	out = append(out, "Vary: Accept-Encoding\r\nDate: "...)
	out = append(append(out, f.now()...), "\r\n\r\n"...)
	switch {
	case notModified || req.head:
		return out, nil, true
	case len(body) >= largeBody:
		return out, body, true
	}
	return append(out, body...), nil, true
}

// now is the Date header's value, made once a second.
func (f *front) now() []byte {
	t := time.Now()
	if d := f.date.Load(); d != nil && d.unix == t.Unix() {
		return d.text
	}
	d := &httpDate{unix: t.Unix(), text: t.UTC().AppendFormat(nil, http.TimeFormat)}
	f.date.Store(d)
	return d.text
}

// handoff is a net.Listener of the connections front gives to net/http,
// with the bytes front read of them and did not answer.
type handoff struct {
	addr   net.Addr
	conns  chan net.Conn
	done   chan struct{}
	closer sync.Once
}

func newHandoff(addr net.Addr) *handoff {
	return &handoff{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// give hands c to net/http, read already holding the start of its next
// request; false when the listener is closed.
func (l *handoff) give(c net.Conn, read []byte) bool {
	select {
	case l.conns <- &readConn{Conn: c, read: bytes.Clone(read)}:
		return true
	case <-l.done:
		return false
	}
}

func (l *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoff) Close() error {
	l.closer.Do(func() { close(l.done) })
	return nil
}

func (l *handoff) Addr() net.Addr { return l.addr }

// readConn is a connection whose first bytes were read already.
type readConn struct {
	net.Conn
	read []byte
}

func (c *readConn) Read(b []byte) (int, error) {
	if len(c.read) > 0 {
		n := copy(b, c.read)
		c.read = c.read[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

// corsHeaders are the lines of a set of CORS headers, sorted by name as
// net/http writes them.
func corsHeaders(cors [4]header) []byte {
	hdr := http.Header{}
	for _, c := range cors {
		hdr[c.name] = c.value
	}
	var b bytes.Buffer
	_ = hdr.Write(&b)
	return b.Bytes()
}
