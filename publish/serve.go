package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/signpost-dev/signpost/build"
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

// Serve answers HTTP on ln with h until ctx is done, then shuts down
// gracefully: in-flight requests get shutdownTimeout to finish.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
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
		w.Header().Set("Access-Control-Allow-Origin", "*")
		writeError(w, r, http.StatusServiceUnavailable, "the site is not built yet")
		return
	}
	h.ServeHTTP(w, r)
}

// SelectSite picks the site of tenant among a build's sites: the only one
// when tenant is empty and there is one, or the tenant's.
func SelectSite(tenants []string, tenant string) (int, error) {
	if tenant == "" {
		if len(tenants) == 1 {
			return 0, nil
		}
		return 0, fmt.Errorf("the build has one site per tenant (%s): choose one with --tenant", strings.Join(tenants, ", "))
	}
	for i, t := range tenants {
		if t == tenant {
			return i, nil
		}
	}
	if len(tenants) == 1 && tenants[0] == "" {
		return 0, fmt.Errorf("the build has no tenants: leave out --tenant")
	}
	return 0, fmt.Errorf("no tenant %q in the build: it has %s", tenant, strings.Join(tenants, ", "))
}

// Documents returns the documents of one site of the opened build.
func (s *Site) Documents(tenant string) ([]build.Document, error) {
	var names []string
	for _, sr := range s.Routes.Sites {
		names = append(names, sr.Tenant)
	}
	i, err := SelectSite(names, tenant)
	if err != nil {
		return nil, err
	}
	sr := s.Routes.Sites[i]
	docs := make([]build.Document, 0, len(sr.Routes))
	for _, r := range sr.Routes {
		docs = append(docs, build.Document{Route: r, Body: s.bodies[siteKey(sr.Dir, r.Key)]})
	}
	return docs, nil
}

// Watch calls rebuild whenever a file under dir changes (folders whose
// names start with "." aside), checking every interval until ctx is done.
// It compares a fingerprint of names, sizes and modification times, which
// needs no platform file notification and costs one directory walk.
func Watch(ctx context.Context, dir string, interval time.Duration, rebuild func(context.Context)) error {
	last, err := fingerprint(dir)
	if err != nil {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		fp, err := fingerprint(dir)
		if err != nil || fp == last {
			continue
		}
		last = fp
		rebuild(ctx)
	}
}

func fingerprint(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("watch %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// IsBuild reports whether dir is a build output folder (it holds a route
// table) rather than a catalog folder.
func IsBuild(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, build.RouteTableFile))
	return err == nil
}
