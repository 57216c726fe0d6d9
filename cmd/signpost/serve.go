package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/serve"
)

// serveOptions are the IO, argument and flags of signpost serve.
type serveOptions struct {
	io       cmdutil.Streams
	serve    serve.Options
	keysFile string
}

// newServeCmd is signpost serve; runF, runServe when nil, runs it with the
// options the command line gives.
func newServeCmd(runF func(*serveOptions) error) *cobra.Command {
	if runF == nil {
		runF = runServe
	}
	o := &serveOptions{}
	opts := &o.serve
	cmd := &cobra.Command{
		Use:   "serve [DIR]",
		Short: "Serve a catalog or a built site over HTTP, exactly as the specs require",
		Long: `Serve answers HTTP for a catalog folder (built in memory) or a built site
folder (one holding routes.json), following the HTTP contract: every route and
view, exact Content-Types, CORS headers on every response, Cache-Control,
strong ETags and 304s, HEAD, OPTIONS preflight, 404 with a JSON error for
unknown tools and paths, 405 for other methods, and a document's precompressed
variant (brotli or gzip, in a build for S3 or Cloudflare) when the request
accepts it; a document of 512 bytes or more without one is compressed in gzip
at start.

A catalog folder is built with its origin set to the served address, so that
the discovery catalogs point at this server; --origin sets another. With
tenants, --tenant chooses the site to serve. --watch rebuilds a catalog folder
when a declaration changes; while the new version is invalid, its diagnostics
are printed and the last good build stays served.

A tenant declared with gate: token is served as its edge serves it: only to
requests with a valid token for the tenant, signed with a key of the
--token-keys file (see signpost token); the others get 401 or 403.

SIGINT or SIGTERM stops the server within a second, in whatever phase it is:
the requests being answered get half a second to finish.`,
		Example: `  signpost serve catalogs/example --tenant acme
  signpost serve catalogs/example --tenant acme --watch --addr 127.0.0.1:9000
  signpost build catalogs/example && signpost serve site --tenant globex
  signpost serve site --tenant acme --token-keys keys.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io, opts.Dir = cmdutil.StreamsOf(cmd), catalogDir(args)
			return runF(o)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().StringVar(&opts.Tenant, "tenant", "", "tenant whose site to serve")
	cmd.Flags().BoolVar(&opts.Watch, "watch", false, "rebuild when a declaration changes")
	cmd.Flags().StringVar(&opts.Origin, "origin", "", "origin the discovery catalogs name (default: the served address)")
	cmd.Flags().StringVar(&o.keysFile, "token-keys", "", "keys file that opens a gated tenant's site (see signpost token)")
	return cmd
}

// runServe serves the catalog or built site of o until its context ends.
func runServe(o *serveOptions) error {
	opts := o.serve
	if !output.IsBuild(o.io.Ctx, opts.Dir) {
		var err error
		if opts.Dir, err = findCatalogDir("serve", opts.Dir); err != nil {
			return err
		}
	}
	if o.keysFile != "" {
		var err error
		if opts.Keys, err = readTokenKeys(o.keysFile); err != nil {
			return err
		}
	}
	stderr := o.io.ErrOut
	opts.Serving = func(addr net.Addr) {
		fmt.Fprintf(stderr, "serving %s of %s on http://%s\n", spec.SiteName(opts.Tenant), opts.Dir, addr)
	}
	opts.Rebuilt = func(r serve.Rebuild) { reportRebuild(stderr, opts.Dir, r) }
	dir := opts.Dir
	opts.Signer = func(ctx context.Context, cfg *build.Config) (signing.Signer, error) { return openSigner(ctx, dir, cfg) }
	return serveError(o.io.Out, stderr, opts.Dir, serve.Run(o.io.Ctx, opts))
}

// serveError words an error of serve.Run for the command line: with the
// flags that set what went wrong, and the diagnostics of an invalid catalog
// on stdout.
func serveError(stdout, stderr io.Writer, dir string, err error) error {
	var te *output.TenantError
	var invalid *serve.InvalidError
	var origin *serve.OriginError
	switch {
	case errors.As(err, &origin):
		return cmdutil.UsageError{Err: fmt.Errorf("--origin: %w", origin.Err)}
	case errors.Is(err, serve.ErrNoKeys):
		return cmdutil.UsageError{Err: fmt.Errorf("%w (--token-keys; see signpost token key)", err)}
	case errors.Is(err, serve.ErrBuiltSite):
		return cmdutil.UsageError{Err: fmt.Errorf("%s is a built site: --watch and --origin need a catalog folder", dir)}
	case errors.As(err, &te):
		return cmdutil.UsageError{Err: tenantHint(err)}
	case errors.As(err, &invalid):
		_ = invalid.Diagnostics.Write(stdout, build.FormatText)
		_ = cmdutil.PrintLine(stderr, "%v; nothing served", invalid)
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	return err
}

// reportRebuild tells of one --watch rebuild: a valid catalog replaced the
// served site; an invalid one did not, and the last good build stays. An
// error is printed as cmdutil.PrintLine prints it, redacted.
func reportRebuild(stderr io.Writer, dir string, r serve.Rebuild) {
	switch {
	case r.Err != nil:
		_ = cmdutil.PrintLine(stderr, "rebuild: %v; still serving the last good build", tenantHint(r.Err))
	case r.Diagnostics.HasErrors():
		_ = r.Diagnostics.Write(stderr, build.FormatText)
		_ = cmdutil.PrintLine(stderr, "rebuild: %d %s; still serving the last good build", r.Diagnostics.Errors(), english.Plural(r.Diagnostics.Errors(), "error", "errors"))
	default:
		fmt.Fprintf(stderr, "rebuilt %s at %s\n", dir, time.Now().Format(time.TimeOnly))
	}
}

// tenantHint adds to a *output.TenantError what to do with --tenant.
func tenantHint(err error) error {
	var te *output.TenantError
	switch {
	case !errors.As(err, &te):
		return err
	case te.Tenant == "":
		return fmt.Errorf("%w with --tenant", err)
	case len(te.Tenants) == 1 && te.Tenants[0] == "":
		return fmt.Errorf("%w: leave out --tenant", err)
	}
	return err
}
