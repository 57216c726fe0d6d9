package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Limits of the HTTP server: a slow or hostile client cannot hold a
// connection or memory for long.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 16 << 10
	shutdownTimeout   = 10 * time.Second
)

// serveListener answers HTTP on ln with h until ctx is done, then shuts down
// gracefully: in-flight requests get shutdownTimeout to finish.
func serveListener(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
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
