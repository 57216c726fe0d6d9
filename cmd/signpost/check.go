package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/terminal"
)

// checkOptions are the IO, argument and flags of signpost check.
type checkOptions struct {
	io       cmdutil.Streams
	url      string
	tenants  []string
	format   string
	verbose  bool
	keysFile string
	// resolve holds --resolve's HOST:PORT:ADDRESS entries, read into
	// crawl.Resolve when the command runs.
	resolve []string
	crawl   check.Options
	// live is set by --live: the argument is a catalog folder, and its MCP
	// servers are compared with what their endpoints answer now
	// (runCheckLive); drift holds what that comparison reads of the flags.
	live  bool
	drift driftOptions
}

// newCheckCmd is signpost check; runF, runCheck when nil, runs it with the
// options the command line gives.
func newCheckCmd(runF func(*checkOptions) error) *cobra.Command {
	if runF == nil {
		runF = runCheck
	}
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check URL | check --live [DIR]",
		Short: "Check a published site against the discovery specs, or a catalog's servers against what they answer now",
		Long: `Check crawls the site at URL as a discovery client would and reports, rule by
rule, every requirement of the specs it meets or misses: both catalogs
(/.well-known/mcp/catalog.json and /.well-known/ai-catalog.json), every server
card they point at, /tools, every /tools/{toolId}, both compact endpoints, a
toolId and a view that cannot exist. Every request is made once without and
once with an Origin header (CORS that only answers requests with Origin is a
classic mistake), and every document once more with If-None-Match.

The MCP registry (/v0.1/servers) is checked by sending what its clients send
and saying what each would see: VS Code's probe, list (following nextCursor),
search and the latest version of each listed server (its name's '/' as %2F),
Copilot CLI's lookup without Authorization, of those servers and of a name no
registry lists (which must be 404: a 401 or 403 refuses every server), and
the preflight of VS Code's renderer (Origin: vscode-file://vscode-app); then
each server's versions and exact version ('+' as %2B). A host that answers a
search with the whole list, as a static host must, gets a warning. A site
whose /v0.1/servers?limit=1 answers 404 has no registry: its rules are
skipped.

It works on any origin, whoever built the site. URL is the site's origin; a
path after it is a prefix of every route. Cards on another host are checked
as clients check them (status, media type, name), not against this site's
CORS and caching headers. Entries of unknown media types are reported as
skipped and not fetched. Every request is a GET but the registry's
preflights (OPTIONS). Each https origin
read from is also offered a TLS 1.0 and a TLS 1.1 handshake, which it must
refuse: the specs want TLS 1.2 or later.

With tenants served at their own sites, put {tenant} in URL and name the
tenants with --tenant: each tenant's site is checked in turn, and the check
fails when any of them does.

A gated site (a tenant declared with gate: token) is checked with a token:
--token, or $SIGNPOST_TOKEN, is sent to URL's origin, and only there; with
--token-keys and --tenant, check mints a short-lived token for each tenant
from the keys file. Then access.gate asks the gated routes once more without
it: they must refuse, with the CORS headers, and never answer the document.

Each finding says what was seen (a header, a status, a JSON pointer and its
value). A failed MUST rule fails the check; a failed SHOULD rule is a warning.

The text report gives each rule one line, and where it did not pass, the
first place it did not, with their count; -v lists every finding. When the
origin answers none of the first requests, check prints the cause
(connection refused, DNS, TLS, no answer in time) in one line, and no
report.

A site built for its production origin names that origin in its catalogs:
--resolve HOST:PORT:ADDRESS, as curl's, checks it where it runs now (a
staging server, a local one), whatever DNS says.

Exit status: 0 when every MUST rule is met, 1 when one is not (the report is
printed first), 2 on bad usage or when the origin does not answer.

With --live, check reads no site: it compares each MCP server the catalog in
DIR (default: the current folder) declares with a streamable-http remote with
what that endpoint answers now. It initializes, reads every page of
tools/list through the official MCP Go SDK's client, and compares the
server's tools, by MCP name, with the catalog's tools of that server (source
mcp), reporting per server:

  added          a tool the catalog does not declare
  removed        a declared tool the server no longer has (breaking)
  renamed        a removed tool back under another name, with the same
                 description and schemas (breaking)
  input-schema   an inputSchema changed: breaking when it refuses an input
                 the declared one accepted (the rule signpost diff uses)
  output-schema  an outputSchema changed: breaking when it may return what
                 the declared one did not
  description    a description changed
  annotations    the server's annotations changed, for a tool of an mcp:
                 import, whose recording keeps them (a tool written out by
                 hand has none to compare)

A remote of type sse, or with {variables} in its URL, is skipped, saying
why. Each server is read within --deadline (default 30s); one that cannot be
read (refused, unauthorized, no answer in time) is reported unreachable, with
the cause. The endpoints come from the catalog, which a pull request may
change: a loopback, private or link-local address needs --allow-private, and
a redirect is never followed. Headers (a token) come from --header-file or
--header-env, never the command line, and go to one server only: name it
with --server. No header value is printed, even when a server echoes it.
--format github prints a workflow command per change (an error when it
breaks callers, else a warning) and per server unreachable, for a scheduled
job's summary.

Exit status with --live: 0 when no server drifted (skipped servers
included), 1 when one did, 2 on bad usage or a catalog that does not load,
3 when no server drifted but one could not be read.

Rules:
` + checkRulesHelp(),
		Example: `  signpost check https://example.com
  signpost check http://127.0.0.1:8080 --same-origin
  signpost check http://127.0.0.1:8080 --format json | jq '.findings[] | select(.result == "fail")'
  signpost check https://discovery.example.com/acme --timeout 30s --concurrency 8
  signpost check https://example.com --resolve example.com:443:203.0.113.7
  signpost check 'https://{tenant}.tools.example.com' --tenant acme --tenant globex --token-keys keys.json
  signpost check --live catalogs/example
  signpost check --live --server com.example/weather --header-env Authorization=WEATHER_TOKEN
  signpost check --live --format github --deadline 1m`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.io = cmdutil.StreamsOf(cmd)
			if opts.live {
				if err := liveCheckArgs(cmd, opts, args); err != nil {
					return err
				}
				return runF(opts)
			}
			if len(args) != 1 {
				return cmdutil.UsageError{Err: errors.New("check needs the URL of a site, or --live and a catalog folder")}
			}
			for _, name := range liveOnlyFlags {
				if cmd.Flags().Changed(name) {
					return cmdutil.UsageError{Err: fmt.Errorf("--%s is for --live, which compares a catalog's servers with their endpoints", name)}
				}
			}
			if opts.format == build.FormatGitHub {
				return cmdutil.UsageError{Err: errors.New("--format github is for --live; a site's report is text or json")}
			}
			opts.url = args[0]
			return runF(opts)
		},
	}
	f := cmd.Flags()
	cmdutil.EnumVar(f, &opts.format, "format", build.FormatText, diagnosticFormats(), "output format: text or json (and github with --live)")
	f.BoolVar(&opts.live, "live", false, "compare the MCP servers of the catalog in DIR with what their endpoints answer now, instead of checking a site")
	f.StringArrayVar(&opts.drift.opts.Servers, "server", nil, "with --live, compare only this server (repeatable)")
	f.StringVar(&opts.drift.headerFile, "header-file", "", `with --live, send the headers of this file ("Name: value" lines) to the server; never put a token on the command line`)
	f.StringArrayVar(&opts.drift.headerEnv, "header-env", nil, "with --live, NAME=VAR: send header NAME with the value of the environment variable VAR (repeatable)")
	f.IntVar(&opts.drift.opts.Live.MaxPages, "max-pages", 0, "with --live, most pages of tools/list read from a server (default 100)")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "list passing findings too, not only problems")
	f.StringSliceVar(&opts.tenants, "tenant", nil, "tenant whose site to check, replacing {tenant} in URL (repeatable)")
	f.DurationVar(&opts.crawl.Timeout, "timeout", 0, "time limit of each request, body included (default 10s)")
	f.BoolVar(&opts.crawl.SameOrigin, "same-origin", false, "stay on URL's origin: cards a catalog names on other hosts are not fetched, and their rules are skipped")
	f.BoolVar(&opts.crawl.AllowPrivate, "allow-private", false, "fetch from loopback, private, link-local and multicast addresses even when URL's host is not one (with --live: connect to them at all)")
	f.DurationVar(&opts.crawl.Deadline, "deadline", 0, "time limit of the whole check of each site; what is not fetched by then is not checked (default 5m; with --live, of each server's read, default 30s)")
	f.IntVar(&opts.crawl.Concurrency, "concurrency", 0, "documents fetched at once (default 4)")
	f.IntVar(&opts.crawl.MaxDocuments, "max-documents", 0, "most documents fetched; more is a warning (default 5000)")
	f.Int64Var(&opts.crawl.MaxBodyBytes, "max-body-bytes", 0, "largest body read; a larger one is a failure (default 8 MiB)")
	f.StringVar(&opts.crawl.Token, "token", "", "bearer token of a gated site, sent to URL's origin only (default $SIGNPOST_TOKEN)")
	f.StringVar(&opts.keysFile, "token-keys", "", "keys file to mint each --tenant's token from (see signpost token)")
	f.StringArrayVar(&opts.resolve, "resolve", nil, "HOST:PORT:ADDRESS: connect to ADDRESS for HOST:PORT, as curl does, keeping the URLs, Host and TLS name (repeatable)")
	return cmd
}

// liveOnlyFlags are the flags of check --live alone, and siteOnlyFlags
// those of the check of a site alone.
var (
	liveOnlyFlags = []string{"server", "header-file", "header-env", "max-pages"}
	siteOnlyFlags = []string{"tenant", "timeout", "same-origin", "concurrency", "max-documents", "max-body-bytes", "token", "token-keys", "resolve", "verbose"}
)

// liveCheckArgs reads the argument and flags of check --live into
// opts.drift: the catalog folder, the flags the site's check shares with
// it, and the headers of --header-file and --header-env.
func liveCheckArgs(cmd *cobra.Command, opts *checkOptions, args []string) error {
	for _, name := range siteOnlyFlags {
		if cmd.Flags().Changed(name) {
			return cmdutil.UsageError{Err: fmt.Errorf("--%s is for the check of a site, not --live", name)}
		}
	}
	d := &opts.drift
	d.io, d.dir, d.format = opts.io, catalogDir(args), opts.format
	d.opts.Live.AllowPrivate, d.opts.Live.Deadline = opts.crawl.AllowPrivate, opts.crawl.Deadline
	h, err := cmdutil.ReadHeaders(d.headerFile, d.headerEnv)
	if err != nil {
		return err
	}
	if len(h) > 0 && len(d.opts.Servers) != 1 {
		return cmdutil.UsageError{Err: errors.New("--header-file and --header-env go to one server: name it with --server")}
	}
	d.opts.Header = h
	return nil
}

// runCheck checks the site at opts.url, or each tenant's in turn, and
// prints each report. It fails when a site misses a MUST rule; a URL the
// checker cannot use is bad usage. With --live, it compares the catalog's
// servers with their endpoints instead (runCheckLive).
func runCheck(opts *checkOptions) error {
	if opts.live {
		return runCheckLive(&opts.drift)
	}
	ctx, w := opts.io.Ctx, opts.io.Out
	bases, err := tenantURLs(opts.url, opts.tenants)
	if err != nil && opts.keysFile != "" && len(opts.tenants) == 1 && !strings.Contains(opts.url, "{tenant}") {
		// One site, and the tenant whose token to mint for it.
		bases, err = []string{opts.url}, nil
	}
	if err != nil {
		return cmdutil.UsageError{Err: err}
	}
	if opts.crawl.Resolve, err = dial.ParseResolve(opts.resolve); err != nil {
		return cmdutil.UsageError{Err: fmt.Errorf("--%w", err)}
	}
	if opts.crawl.Token == "" {
		// Not the flag's default: --help would print it.
		opts.crawl.Token = os.Getenv("SIGNPOST_TOKEN")
	}
	var keys gate.Keys
	if opts.keysFile != "" {
		if len(opts.tenants) == 0 {
			return cmdutil.UsageError{Err: errors.New("--token-keys mints a token for each --tenant: name the tenants")}
		}
		if keys, err = readTokenKeys(opts.keysFile); err != nil {
			return err
		}
	}
	failed := false
	for i, base := range bases {
		crawl := opts.crawl
		if keys != nil {
			tenant := opts.tenants[i]
			kid, ok := keys.Latest(tenant)
			if !ok {
				return cmdutil.UsageError{Err: fmt.Errorf("--token-keys %s has no key for %s", opts.keysFile, tenant)}
			}
			if crawl.Token, err = gate.Mint(keys, tenant, kid, time.Now(), checkTokenLifetime); err != nil {
				return err
			}
		}
		r, err := check.Run(ctx, base, crawl)
		var unreachable *check.UnreachableError
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return err
		case errors.As(err, &unreachable):
			// One line with the cause, no report, and the status of a
			// check that could not run.
			_ = cmdutil.PrintLine(opts.io.ErrOut, "signpost: check %v", err)
			return cmdutil.ReportedError{Code: cmdutil.ExitUsage}
		default:
			return cmdutil.UsageError{Err: err}
		}
		if err := writeCheckReport(w, r, opts); err != nil {
			return err
		}
		failed = failed || r.Failed()
	}
	if failed {
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	return nil
}

// checkTokenLifetime is how long a token check mints lives: long enough
// for any crawl's deadline.
const checkTokenLifetime = 30 * time.Minute

// writeCheckReport prints r in the format of --format.
func writeCheckReport(w io.Writer, r *check.Report, opts *checkOptions) error {
	if opts.format == build.FormatJSON {
		return r.WriteJSON(w)
	}
	// Evidence and URLs come from the origin checked: a terminal shows
	// them, never acts on them.
	var b strings.Builder
	if err := r.WriteText(&b, opts.verbose); err != nil {
		return err
	}
	for line := range strings.Lines(b.String()) {
		if _, err := fmt.Fprintln(w, terminal.Safe(strings.TrimSuffix(line, "\n"))); err != nil {
			return err
		}
	}
	return nil
}

// checkRulesHelp lists the rules for --help: name and level, then the rule
// wrapped below it.
func checkRulesHelp() string {
	var b strings.Builder
	for _, r := range check.Rules() {
		fmt.Fprintf(&b, "  %s (%s)\n", r.Name, strings.ToUpper(string(r.Level)))
		line := "     "
		for _, w := range strings.Fields(r.Text) {
			if len(line)+1+len(w) > 80 && line != "     " {
				b.WriteString(line + "\n")
				line = "     "
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// tenantURLs expands the {tenant} placeholder of a check URL, once per
// tenant named; without tenants the URL must not have one.
func tenantURLs(url string, tenants []string) ([]string, error) {
	const placeholder = "{tenant}"
	has := strings.Contains(url, placeholder)
	switch {
	case len(tenants) == 0 && has:
		return nil, fmt.Errorf("URL has %s: name the tenants to check with --tenant", placeholder)
	case len(tenants) > 0 && !has:
		return nil, fmt.Errorf("--tenant needs %s in URL where the tenant's name goes, as in https://{tenant}.example.com", placeholder)
	case len(tenants) == 0:
		return []string{url}, nil
	}
	urls := make([]string, len(tenants))
	for i, t := range tenants {
		urls[i] = strings.ReplaceAll(url, placeholder, t)
	}
	return urls, nil
}
