package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/compress"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/fastpath"
	"github.com/signpost-dev/signpost/internal/gencatalog"
)

// liveSite is a Live serving site, opened with keys.
func liveSite(t *testing.T, site *output.Site, keys gate.Keys) *Live {
	t.Helper()
	h, err := NewHandler(t.Context(), site, keys)
	if err != nil {
		t.Fatal(err)
	}
	live := &Live{}
	live.Set(h)
	return live
}

// listen returns a listener on a free port of 127.0.0.1.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// firstTool is the route and ETag of the first tool document of site.
func firstTool(site *output.Site) (route, etag string) {
	for _, d := range site.Documents {
		if _, ok := spec.ToolSegment(d.Route.Route); ok {
			return d.Route.Route, d.ETag
		}
	}
	return "", ""
}

// gzipETag is the ETag serve gives the gzip of the document at route,
// which it compresses at start: that of the compressed bytes.
func gzipETag(t *testing.T, site *output.Site, route string) string {
	t.Helper()
	for _, d := range site.Documents {
		if d.Route.Route == route && d.View == spec.ViewStandard {
			gz, err := compress.Encode(t.Context(), spec.EncodingGzip, d.Body.Reader(), d.Body.Len())
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(gz)
			return spec.VariantETag(hex.EncodeToString(sum[:]), spec.EncodingGzip)
		}
	}
	t.Fatalf("no document at %s", route)
	return ""
}

// servers starts site behind net/http alone and behind front, each on a
// listener of its own on 127.0.0.1, and returns their addresses.
func servers(t *testing.T, site *output.Site, keys gate.Keys) (plain, fronted string) {
	t.Helper()
	live := liveSite(t, site, keys)
	ln1, ln2 := listen(t), listen(t)
	srv := &http.Server{Handler: live, ReadHeaderTimeout: readHeaderTimeout, MaxHeaderBytes: maxHeaderBytes}
	go srv.Serve(ln1)
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveFronted(ctx, ln2, live, true) }() // in both builds
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveFronted: %v", err)
		}
	})
	return ln1.Addr().String(), ln2.Addr().String()
}

// rawExchange sends raw to addr on one connection and reads everything the
// server answers until it closes the connection, with the Date headers
// blanked.
func rawExchange(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.WriteString(c, raw) }()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read the answers to %q: %v", raw, err)
	}
	return dateRE.ReplaceAllString(string(got), "Date: -\r\n")
}

var dateRE = regexp.MustCompile(`Date: [^\r]*\r\n`)

// TestFrontAsNetHTTP holds front to net/http: every request, usual or
// not, alone or after others on the same connection, gets the same bytes
// from both, but for the time in Date. The last request of each
// conversation asks to close, so that both end it.
func TestFrontAsNetHTTP(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "catalog")
	if err := gencatalog.Write(dir, gencatalog.Options{Tools: 300, Servers: 3}); err != nil {
		t.Fatal(err)
	}
	large := buildtest.Compile(t, dir)
	for _, tc := range []struct {
		name string
		site *output.Site
	}{
		{"example", buildtest.Example(t).Sites[0]},
		{"example with ARD", buildtest.ExampleOnSite(t).Sites[0]},
		{"large lists", large.Sites[0]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, fronted := servers(t, tc.site, nil)
			tool, etag := firstTool(tc.site)
			get := func(target string, headers ...string) string {
				return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + strings.Join(headers, "") + "\r\n"
			}
			closing := get(tool, "Connection: close\r\n")
			gzipTag := gzipETag(t, tc.site, tool)
			for _, raw := range []string{
				get(tool),
				get(tool, "Accept-Encoding: gzip, deflate\r\n"),
				get(tool, "accept-encoding: gzip;q=0\r\n"),
				"HEAD " + tool + " HTTP/1.1\r\nHost: a\r\n\r\n",
				get(tool, "If-None-Match: "+etag+"\r\n"),
				get(tool, "If-None-Match: W/"+etag+"\r\n"),
				get(tool, "If-None-Match: \"other\"\r\n", "If-None-Match: "+gzipTag+"\r\n", "Accept-Encoding: gzip\r\n"),
				// Another representation's ETag: 200, as the handler answers.
				get(tool, "If-None-Match: "+gzipTag+"\r\n"),
				get(tool, "If-None-Match: "+etag+"\r\n", "Accept-Encoding: gzip\r\n"),
				get(tool, "If-None-Match: *\r\n"),
				get(tool, "If-None-Match: \"a\"\r\nIf-None-Match: \"b\"\r\nIf-None-Match: \"c\"\r\nIf-None-Match: \"d\"\r\nIf-None-Match: "+etag+"\r\n"),
				get("/tools"),
				get("/tools", "Accept-Encoding: gzip\r\n"),
				get("/tools?view=compact"),
				get("/tools?view=compact&view=standard", "Accept-Encoding: gzip\r\n"),
				get("/tools?view=%63ompact"),
				get("/tools?view=other"),
				get("/tools/"),
				get("/tools/no_such_tool"),
				get("/.well-known/ai-catalog.json"),
				get("//tools"),
				get(tool + "#x"),
				get(tool, "Content-Length: 0\r\n"),
				get(tool, "Content-Length: 3\r\n") + "abc",
				get(tool, "Transfer-Encoding: chunked\r\n") + "0\r\n\r\n",
				get(tool, "Expect: 100-continue\r\n"),
				get(tool, "Connection: keep-alive\r\n"),
				get(tool, "X-Folded: a\r\n b\r\n"),
				get(tool, "Bad Header: x\r\n"),
				"GET " + tool + " HTTP/1.1\r\n\r\n",
				"GET " + tool + " HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
				"GET " + tool + " HTTP/1.1\r\nHost: a b\r\n\r\n",
				"GET " + tool + " HTTP/1.0\r\nHost: a\r\n\r\n",
				"GET " + tool + " HTTP/1.1\nHost: a\n\n",
				"OPTIONS " + tool + " HTTP/1.1\r\nHost: a\r\n\r\n",
				"POST " + tool + " HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}",
				"get " + tool + " HTTP/1.1\r\nHost: a\r\n\r\n",
				"GET " + tool + " HTTP/1.1\r\nHost: a\r\nX-Large: " + strings.Repeat("x", 12<<10) + "\r\n\r\n",
				"NOT HTTP\r\n\r\n",
				// Several at once, usual and not.
				get(tool) + get("/tools", "Accept-Encoding: gzip\r\n") + "HEAD /tools HTTP/1.1\r\nHost: a\r\n\r\n" + get(tool, "If-None-Match: "+etag+"\r\n"),
				get(tool) + "OPTIONS /tools HTTP/1.1\r\nHost: a\r\n\r\n" + get(tool),
				get(tool) + get("/nothing") + get(tool),
			} {
				conversation := raw + closing
				want, got := rawExchange(t, plain, conversation), rawExchange(t, fronted, conversation)
				if got != want {
					t.Errorf("%q:\nnet/http answered %d bytes, front %d:\n%s", raw, len(want), len(got), firstDifference(want, got))
				}
			}
		})
	}
}

// firstDifference shows where two answers part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-200, 0)
	return fmt.Sprintf("net/http: %q\nfront:    %q", a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

// TestFrontGated: front answers nothing a gate stands before; net/http's
// handler checks the token, as before.
func TestFrontGated(t *testing.T) {
	site := buildtest.Example(t).Sites[0]
	site.Access = gate.Access{Token: true, PublicDiscovery: true}
	keys := gate.Keys{site.Tenant + "/k1": gate.NewSecret()}
	tok, err := gate.Mint(keys, site.Tenant, "k1", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	plain, fronted := servers(t, site, keys)
	for _, raw := range []string{
		"GET /tools HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer " + tok + "\r\nConnection: close\r\n\r\n",
		"GET /tools HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		"GET /.well-known/ai-catalog.json HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		"GET /.well-known/ai-catalog.json HTTP/1.1\r\nHost: a\r\n\r\nGET /tools HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	} {
		if want, got := rawExchange(t, plain, raw), rawExchange(t, fronted, raw); got != want {
			t.Errorf("%q:\n%s", raw, firstDifference(want, got))
		}
	}
}

// dialSend connects to addr and sends raw; the connection is closed when
// the test ends.
func dialSend(t *testing.T, addr, raw string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFrontShutdown: a connection waiting for its next request, or for the
// rest of one, does not hold the server's shutdown. Without fast paths
// (package fastpath), net/http alone waits for the rest of a request until
// its header timeout.
func TestFrontShutdown(t *testing.T) {
	bound := 2 * time.Second
	if !fastpath.Enabled {
		bound += readHeaderTimeout
	}
	live, ln := liveSite(t, buildtest.Example(t).Sites[0], nil), listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveListener(ctx, ln, live) }()
	idle := dialSend(t, ln.Addr().String(), "GET /tools HTTP/1.1\r\nHost: a\r\n\r\n")
	buf := make([]byte, 1<<20)
	if n, err := idle.Read(buf); err != nil || !bytes.HasPrefix(buf[:n], []byte("HTTP/1.1 200 OK")) {
		t.Fatalf("first answer: %q, %v", buf[:min(n, 40)], err)
	}
	// A request half sent when the server stops.
	dialSend(t, ln.Addr().String(), "GET /tools HTTP/1.1\r\n")
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(shutdownTimeout + 5*time.Second):
		t.Fatal("serveListener did not return")
	}
	if d := time.Since(start); d > bound {
		t.Errorf("shutdown took %v with an idle connection open", d)
	}
	_ = idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle.Read(buf); err == nil {
		t.Error("the idle connection is still open after shutdown")
	}
}

// TestShutdownSlowClient: a client that asks for a large document and
// reads none of it holds the server's shutdown for shutdownTimeout at
// most, with front and with net/http alone.
func TestShutdownSlowClient(t *testing.T) {
	big := bytes.Repeat([]byte(`{"toolId":"a"},`), 4<<20) // 60 MiB: more than the sockets hold
	site := &output.Site{Dir: "public", Documents: []output.Document{
		buildtest.Document(t, spec.RouteTools, spec.ViewStandard, spec.ContentTypeJSON, big),
	}}
	live := liveSite(t, site, nil)
	for _, fronted := range []bool{true, false} {
		ln := listen(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- serveFronted(ctx, ln, live, fronted) }()
		c := dialSend(t, ln.Addr().String(), "GET /tools HTTP/1.1\r\nHost: a\r\n\r\n")
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4 << 10)
		}
		head := make([]byte, 15)
		if _, err := io.ReadFull(c, head); err != nil || string(head) != "HTTP/1.1 200 OK" {
			t.Fatalf("fronted %v: the answer starts %q, %v", fronted, head, err)
		}
		time.Sleep(200 * time.Millisecond) // the server's write now waits on the client
		start := time.Now()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("fronted %v: %v", fronted, err)
			}
		case <-time.After(shutdownTimeout + 10*time.Second):
			t.Fatalf("fronted %v: serveFronted did not return", fronted)
		}
		// serve must end within a second of its signal; twice that here,
		// on a machine other tests share.
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("fronted %v: shutdown took %v with a slow client, want at most 2s", fronted, d)
		}
	}
}

// TestNewHandlerStops: preparing a site whose context is done returns the
// context's error.
func TestNewHandlerStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewHandler(ctx, buildtest.Example(t).Sites[0], nil); !errors.Is(err, context.Canceled) {
		t.Errorf("NewHandler with a done context: %v", err)
	}
}

// The fast path allocates nothing per request: not to read it, not to
// answer it.
func TestFrontAllocatesNothing(t *testing.T) {
	if !fastpath.Enabled {
		t.Skip("built with signpost_reference: net/http answers every request, and the view is read with url.ParseQuery; both allocate")
	}
	site := buildtest.Example(t).Sites[0]
	f := newFront(liveSite(t, site, nil), nil)
	tool, etag := firstTool(site)
	out := make([]byte, 0, 1<<20)
	for _, raw := range []string{
		"GET " + tool + " HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\n\r\n",
		"GET /tools?view=compact HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip, br\r\n\r\n",
		"GET " + tool + " HTTP/1.1\r\nHost: a\r\nIf-None-Match: " + etag + "\r\n\r\n",
	} {
		in := []byte(raw)
		f.now() // the Date of this second
		allocs := testing.AllocsPerRun(1000, func() {
			req, n := parseRequest(in)
			if n != len(in) {
				t.Fatalf("%q: read %d bytes", raw, n)
			}
			var ok bool
			if out, _, ok = f.answer(out[:0], req); !ok {
				t.Fatalf("%q: not answered", raw)
			}
		})
		if allocs > 0 {
			t.Errorf("%q: %.1f allocations per request", raw, allocs)
		}
	}
}

// TestSlowClients: a client that drips its request header a byte at a time
// is cut off once the header timeout has passed since its first byte, and
// an idle connection once the idle timeout has, whoever answers
// (front, and net/http alone).
func TestSlowClients(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the header and idle timeouts")
	}
	for _, fronted := range []bool{true, false} {
		live, ln := liveSite(t, buildtest.Example(t).Sites[0], nil), listen(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- serveFronted(ctx, ln, live, fronted) }()

		drip := dialSend(t, ln.Addr().String(), "G")
		start := time.Now()
		closed := make(chan time.Duration, 1)
		go func() {
			buf := make([]byte, 4096)
			for {
				if _, err := drip.Read(buf); err != nil {
					closed <- time.Since(start)
					return
				}
			}
		}()
		req := "ET /tools HTTP/1.1\r\nHost: a\r\nX-Slow: " + strings.Repeat("a", 100)
	dripping:
		for i := 0; i < len(req); i++ {
			select {
			case d := <-closed:
				closed <- d
				break dripping
			case <-time.After(500 * time.Millisecond):
			}
			if _, err := drip.Write([]byte{req[i]}); err != nil {
				break
			}
		}
		select {
		case d := <-closed:
			if d > readHeaderTimeout+2*time.Second {
				t.Errorf("fronted %v: a dripping client was held %v, more than the header timeout %v", fronted, d, readHeaderTimeout)
			}
		case <-time.After(readHeaderTimeout + 10*time.Second):
			t.Errorf("fronted %v: a dripping client is still connected", fronted)
		}

		idle := dialSend(t, ln.Addr().String(), "GET /tools HTTP/1.1\r\nHost: a\r\n\r\n")
		buf := make([]byte, 1<<20)
		if _, err := idle.Read(buf); err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		_ = idle.SetReadDeadline(time.Now().Add(idleTimeout + 10*time.Second))
		for {
			if _, err := idle.Read(buf); err != nil {
				break
			}
		}
		if d := time.Since(start); d > idleTimeout+2*time.Second {
			t.Errorf("fronted %v: an idle connection was held %v, more than the idle timeout %v", fronted, d, idleTimeout)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// descriptorsGone is a listener whose first Accepts fail as they do when
// the process has no file descriptor left.
type descriptorsGone struct {
	net.Listener
	fails atomic.Int32
}

func (l *descriptorsGone) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestFrontOutOfDescriptors: a client that opens connections until the
// process has no file descriptor left makes Accept fail for a while; the
// server waits it out and answers the next request, as net/http does,
// instead of stopping.
func TestFrontOutOfDescriptors(t *testing.T) {
	live := liveSite(t, buildtest.Example(t).Sites[0], nil)
	ln := &descriptorsGone{Listener: listen(t)}
	ln.fails.Store(5)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveFronted(ctx, ln, live, true) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveFronted: %v", err)
		}
	}()
	c := dialSend(t, ln.Addr().String(), "GET /tools HTTP/1.1\r\nHost: a\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 64)
	if n, err := io.ReadAtLeast(c, buf, 15); err != nil || !bytes.HasPrefix(buf[:n], []byte("HTTP/1.1 200 OK")) {
		t.Fatalf("after Accept failed for want of descriptors: %q, %v", buf[:n], err)
	}
}
