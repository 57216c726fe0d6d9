package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

// Limits of the HTTP server: a slow or hostile client cannot hold a
// connection or memory for long.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 10 * time.Second
	maxHeaderBytes    = 16 << 10
	// shutdownTimeout is how long the requests being answered when the
	// server stops get to finish; their connections are closed then.
	// Short, so that serve ends within a second of its signal: a request
	// on a fast connection is answered well within it, and a document
	// that a slow client has not taken by then would hold the server for
	// up to writeTimeout.
	shutdownTimeout = 500 * time.Millisecond
)

// serveListener answers HTTP on ln with the site of live until ctx is
// done, then shuts down: requests in flight get shutdownTimeout to finish,
// then every connection is closed. The usual requests are answered by
// front, every other by net/http, the same way; in a build without fast
// paths (package fastpath), net/http answers every request.
func serveListener(ctx context.Context, ln net.Listener, live *Live) error {
	return serveFronted(ctx, ln, live, fastpath.Enabled)
}

// serveFronted is serveListener, with front answering the usual requests
// when fronted is true, and net/http every request when it is false.
func serveFronted(ctx context.Context, ln net.Listener, live *Live, fronted bool) error {
	f := newFront(live, ln.Addr())
	srv := &http.Server{
		Handler:           live,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 2)
	if fronted {
		go func() { errc <- srv.Serve(f.slow) }()
		go func() { errc <- f.serve(ln) }()
	} else {
		go func() { errc <- srv.Serve(ln) }()
	}
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	ln.Close()
	// front and net/http wind down at the same time, to one deadline; a
	// connection still open at the deadline is closed, which is what
	// stopping the server means, not an error of it.
	deadline := time.Now().Add(shutdownTimeout)
	sctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()
	var frontDone sync.WaitGroup
	frontDone.Go(func() { f.close(deadline) })
	serr := srv.Shutdown(sctx)
	_ = srv.Close()
	frontDone.Wait()
	if serr != nil && !errors.Is(serr, context.DeadlineExceeded) {
		return fmt.Errorf("shut down: %w", serr)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// Live serves whichever Handler was set last. Swapping is atomic: a request
// is answered wholly by the old site or wholly by the new one.
type Live struct {
	h atomic.Pointer[Handler]
}

// Set makes h the served site.
func (l *Live) Set(h *Handler) { l.h.Store(h) }

// ServeHTTP answers with the current site, or 503 before one is set.
func (l *Live) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := l.h.Load()
	if h == nil {
		setCORS(w.Header())
		writeError(w, r, http.StatusServiceUnavailable, "the site is not built yet")
		return
	}
	h.ServeHTTP(w, r)
}
