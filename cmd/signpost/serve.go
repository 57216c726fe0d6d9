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
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/publish/serve"
)

// watchInterval is how often serve --watch looks for changed declarations.
const watchInterval = 500 * time.Millisecond

func newServeCmd() *cobra.Command {
	addr := "127.0.0.1:8080"
	var tenant, origin string
	var watch bool
	cmd := &cobra.Command{
		Use:   "serve [DIR]",
		Short: "Serve a catalog or a built site over HTTP, exactly as the specs require",
		Long: `Serve answers HTTP for a catalog folder (built in memory) or a built site
folder (one holding routes.json), following the HTTP contract: every route and
view, exact Content-Types, CORS headers on every response, Cache-Control,
strong ETags and 304s, HEAD, OPTIONS preflight, 404 with a JSON error for
unknown tools and paths, 405 for other methods, and gzip when asked.

A catalog folder is built with its origin set to the served address, so that
the discovery catalogs point at this server; --origin sets another. With
tenants, --tenant chooses the site to serve. --watch rebuilds a catalog folder
when a declaration changes; while the new version is invalid, its diagnostics
are printed and the last good build stays served.

SIGINT or SIGTERM stops the server gracefully.`,
		Example: `  signpost serve catalogs/example --tenant acme
  signpost serve catalogs/example --tenant acme --watch --addr 127.0.0.1:9000
  signpost build catalogs/example && signpost serve site --tenant globex`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			dir := catalogDir(args)
			stderr := cmd.ErrOrStderr()
			isBuild := build.IsOutput(dir)
			if isBuild && (watch || origin != "") {
				return usageError{fmt.Errorf("%s is a built site: --watch and --origin need a catalog folder", dir)}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			defer ln.Close()
			if origin == "" {
				origin = "http://" + ln.Addr().String()
			}

			live := &serve.Live{}
			if isBuild {
				o, err := build.Open(ctx, dir)
				if err != nil {
					return err
				}
				site, err := o.Build().Site(tenant)
				if err != nil {
					return usageError{tenantHint(err)}
				}
				h, err := serve.NewHandler(site.Documents)
				if err != nil {
					return err
				}
				live.Set(h)
			} else {
				h, diags, err := compileHandler(ctx, dir, tenant, origin)
				if err != nil {
					return err
				}
				if diags.HasErrors() {
					_ = diags.Write(cmd.OutOrStdout(), build.FormatText)
					fmt.Fprintf(stderr, "%s: %d %s; nothing served\n", dir, diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
					return reportedError{exitInvalid}
				}
				live.Set(h)
			}
			site := "the site"
			if tenant != "" {
				site = "tenant " + tenant
			}
			fmt.Fprintf(stderr, "serving %s of %s on http://%s\n", site, dir, ln.Addr())

			if watch {
				go func() {
					_ = serve.Watch(ctx, dir, watchInterval, func(ctx context.Context) {
						rebuild(ctx, stderr, live, dir, tenant, origin)
					})
				}()
			}
			return serve.Serve(ctx, ln, live)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", addr, "address to listen on")
	cmd.Flags().StringVar(&tenant, "tenant", "", "tenant whose site to serve")
	cmd.Flags().BoolVar(&watch, "watch", false, "rebuild when a declaration changes")
	cmd.Flags().StringVar(&origin, "origin", "", "origin the discovery catalogs name (default: the served address)")
	return cmd
}

// compileHandler builds a catalog folder in memory and prepares the site of
// tenant for serving. An invalid catalog gives its diagnostics and no
// handler; err is for a wrong --tenant.
func compileHandler(ctx context.Context, dir, tenant, origin string) (*serve.Handler, build.Diagnostics, error) {
	cat, diags := build.Load(ctx, dir)
	if diags.HasErrors() {
		return nil, diags, nil
	}
	cat.Config.Origin = origin
	b, err := build.Compile(ctx, cat)
	if err != nil {
		return nil, diags, err
	}
	site, err := b.Site(tenant)
	if err != nil {
		return nil, diags, usageError{tenantHint(err)}
	}
	h, err := serve.NewHandler(site.Documents)
	return h, diags, err
}

// rebuild is one --watch rebuild: a valid catalog replaces the served site;
// an invalid one is reported and the last good build stays.
func rebuild(ctx context.Context, stderr io.Writer, live *serve.Live, dir, tenant, origin string) {
	h, diags, err := compileHandler(ctx, dir, tenant, origin)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "rebuild: %v; still serving the last good build\n", err)
	case diags.HasErrors():
		_ = diags.Write(stderr, build.FormatText)
		fmt.Fprintf(stderr, "rebuild: %d %s; still serving the last good build\n", diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
	default:
		live.Set(h)
		fmt.Fprintf(stderr, "rebuilt %s at %s\n", dir, time.Now().Format(time.TimeOnly))
	}
}

// tenantHint adds to a *build.TenantError what to do with --tenant.
func tenantHint(err error) error {
	var te *build.TenantError
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
