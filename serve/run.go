package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
)

// watchInterval is how often Run looks for changed declarations when
// watching.
const watchInterval = 500 * time.Millisecond

// ErrBuiltSite is the error of Run, wrapped with the folder, when Watch or
// Origin is set for a built site: both need a catalog folder.
var ErrBuiltSite = errors.New("watching and another origin need a catalog folder")

// Options say what Run serves, and where.
type Options struct {
	// Dir is a catalog folder, built in memory, or a built site (a folder
	// holding routes.json).
	Dir string
	// Signer, when set, opens the key that signs the AI catalog of a
	// catalog folder whose signpost.yaml has signing:; nil serves it
	// unsigned.
	Signer func(ctx context.Context, cfg *build.Config) (signing.Signer, error)
	// Addr is the TCP address to listen on, host:port; port 0 picks a free
	// port.
	Addr string
	// Tenant chooses the site of a catalog or build with tenants; "" is the
	// only site of one without.
	Tenant string
	// Origin is the origin the discovery catalogs of a catalog folder name;
	// "" is the served address, so that they point at this server.
	Origin string
	// Keys open a gated site (see package gate): a request for it is
	// answered only with a valid token for its tenant signed with one of
	// them. Without them, a gated site refuses every request it gates.
	Keys gate.Keys
	// Watch rebuilds a catalog folder when a file under it changes. While
	// the new version is invalid, the last good build stays served.
	Watch bool
	// Serving, when set, is called once the site is ready, with the address
	// it is served on.
	Serving func(addr net.Addr)
	// Rebuilt, when set, is called after each rebuild of Watch.
	Rebuilt func(Rebuild)
}

// Rebuild is the outcome of one rebuild of Options.Watch: the site was
// replaced unless Err is set or Diagnostics has errors, in which case the
// last good build stays served.
type Rebuild struct {
	// Err is why the catalog did not build; a *output.TenantError when the
	// tenant no longer names one of its sites.
	Err error
	// Diagnostics are those of the catalog's declarations.
	Diagnostics build.Diagnostics
}

// InvalidError is the error of Run for a catalog folder whose declarations
// have errors: nothing is served.
type InvalidError struct {
	Dir         string
	Diagnostics build.Diagnostics
}

func (e *InvalidError) Error() string {
	n := e.Diagnostics.Errors()
	return fmt.Sprintf("%s: %d %s", e.Dir, n, english.Plural(n, "error", "errors"))
}

// Run serves the site of opts.Tenant from opts.Dir on opts.Addr until ctx is
// done, then shuts down gracefully. Besides errors of listening, reading and
// building, it returns an error wrapping ErrBuiltSite, a *output.TenantError
// when the tenant names no single site, or an *InvalidError.
func Run(ctx context.Context, opts Options) error {
	isBuild := output.IsBuild(ctx, opts.Dir)
	if isBuild && (opts.Watch || opts.Origin != "") {
		return fmt.Errorf("%s is a built site: %w", opts.Dir, ErrBuiltSite)
	}
	if opts.Origin != "" {
		if _, err := spec.ParseOrigin(opts.Origin); err != nil {
			return &OriginError{Err: err}
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer ln.Close()
	origin := cmp.Or(opts.Origin, listenOrigin(ln.Addr()))

	var h *Handler
	if isBuild {
		h, err = openHandler(ctx, opts.Dir, opts.Tenant, opts.Keys)
	} else {
		var diags build.Diagnostics
		h, diags, err = compileHandler(ctx, opts, origin)
		if err == nil && diags.HasErrors() {
			err = &InvalidError{Dir: opts.Dir, Diagnostics: diags}
		}
	}
	if err != nil {
		return err
	}
	live := &Live{}
	live.Set(h)
	if opts.Serving != nil {
		opts.Serving(ln.Addr())
	}

	ctx, stop := context.WithCancel(ctx)
	var watching sync.WaitGroup
	if opts.Watch {
		watching.Go(func() {
			_ = Watch(ctx, opts.Dir, watchInterval, func(ctx context.Context) {
				rebuild(ctx, opts, origin, live)
			})
		})
	}
	err = serveListener(ctx, ln, live)
	stop()
	watching.Wait()
	return err
}

// openHandler prepares the site of tenant in the built site dir.
func openHandler(ctx context.Context, dir, tenant string, keys gate.Keys) (*Handler, error) {
	o, err := output.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	site, err := o.Site(tenant)
	if err != nil {
		return nil, err
	}
	return NewHandler(ctx, site, keys)
}

// OriginError is the error of Run when Options.Origin is not an origin a
// catalog may name (see spec.ParseOrigin).
type OriginError struct{ Err error }

func (e *OriginError) Error() string { return e.Err.Error() }
func (e *OriginError) Unwrap() error { return e.Err }

// listenOrigin is the origin the catalogs name when none is given: the
// address served on, with 127.0.0.1 for one that listens on every interface
// (such as :8080), since the unspecified address is no place a client can
// fetch from.
func listenOrigin(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// compileHandler builds the catalog folder of opts in memory and prepares
// the site of its tenant for serving, at origin. An invalid catalog gives
// its diagnostics and no handler; err is for a build that failed or a
// tenant that names no site.
func compileHandler(ctx context.Context, opts Options, origin string) (*Handler, build.Diagnostics, error) {
	dir, tenant := opts.Dir, opts.Tenant
	cat, diags := build.Load(ctx, dir)
	if diags.HasErrors() {
		return nil, diags, nil
	}
	// The registry's versions and dates, as a build of the folder has them.
	history, err := build.ReadHistory(ctx, dir)
	if err != nil {
		return nil, diags, err
	}
	cat.History = history
	if opts.Signer != nil {
		if cat.Signer, err = opts.Signer(ctx, &cat.Config); err != nil {
			return nil, diags, err
		}
	}
	// Every site is served here, whatever origin it has when published.
	cat.Config.SetOrigin(origin)
	b, err := build.Compile(ctx, cat)
	if err != nil {
		return nil, diags, err
	}
	site, err := b.Site(tenant)
	if err != nil {
		return nil, diags, err
	}
	h, err := NewHandler(ctx, site, opts.Keys)
	return h, diags, err
}

// rebuild is one rebuild of Watch: a valid catalog replaces the served site;
// an invalid one is reported and the last good build stays.
func rebuild(ctx context.Context, opts Options, origin string, live *Live) {
	h, diags, err := compileHandler(ctx, opts, origin)
	if err == nil && !diags.HasErrors() {
		live.Set(h)
	}
	if opts.Rebuilt != nil {
		opts.Rebuilt(Rebuild{Err: err, Diagnostics: diags})
	}
}
