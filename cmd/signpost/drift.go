package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/drift"
)

// Exit statuses of signpost drift beyond exitOK, exitInvalid (drift) and
// exitUsage (bad usage, or a catalog that does not load).
const exitUnreachable = 3

// driftOptions are the IO, argument and flags of signpost drift.
type driftOptions struct {
	io         streams
	dir        string
	format     string
	headerFile string
	headerEnv  []string
	opts       drift.Options
}

// newDriftCmd is signpost drift; runF, runDrift when nil, runs it with the
// options the command line gives.
func newDriftCmd(runF func(*driftOptions) error) *cobra.Command {
	if runF == nil {
		runF = runDrift
	}
	o := &driftOptions{}
	cmd := &cobra.Command{
		Use:   "drift [DIR]",
		Short: "Compare the catalog's MCP servers with what their endpoints answer now",
		Long: `Drift compares each MCP server the catalog in DIR (default: the current folder)
declares with a streamable-http remote with what that endpoint answers now:
it initializes, reads every page of tools/list through the official MCP Go
SDK's client, and compares the server's tools, by MCP name, with the
catalog's tools of that server (source mcp). It reports, per server:

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
why. Each server is read within --deadline; one that cannot be read
(refused, unauthorized, no answer in time) is reported unreachable, with the
cause. The endpoints come from the catalog, which a pull request may
change: a loopback, private or link-local address needs --allow-private, and
a redirect is never followed. Headers (a token) come from --header-file or
--header-env, never the command line, and go to one server only: name it
with --server. No header value is printed, even when a server echoes it.

--format github prints a workflow command per change (an error when it
breaks callers, else a warning) and per server unreachable, for a scheduled
job's summary.

Exit status: 0 when no server drifted (skipped servers included), 1 when
one did, 2 on bad usage or a catalog that does not load, 3 when no server
drifted but one could not be read.`,
		Example: `  signpost drift catalogs/example
  signpost drift --server com.example/weather --header-env Authorization=WEATHER_TOKEN
  signpost drift --format json | jq '.servers[] | select(.status != "ok")'
  signpost drift --format github --deadline 1m`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io, o.dir = streamsOf(cmd), catalogDir(args)
			h, err := readHeaders(o.headerFile, o.headerEnv)
			if err != nil {
				return err
			}
			if len(h) > 0 && len(o.opts.Servers) != 1 {
				return usageError{fmt.Errorf("--header-file and --header-env go to one server: name it with --server")}
			}
			o.opts.Header = h
			return runF(o)
		},
	}
	f := cmd.Flags()
	enumVar(f, &o.format, "format", build.FormatText, diagnosticFormats(), "output format: text, json or github")
	f.StringArrayVar(&o.opts.Servers, "server", nil, "compare only this server (repeatable)")
	liveFlags(f, &o.headerFile, &o.headerEnv, &o.opts.Live)
	return cmd
}

// runDrift loads the catalog of o, compares its servers with their
// endpoints and prints the report.
func runDrift(o *driftOptions) error {
	var err error
	if o.dir, err = findCatalogDir("drift", o.dir); err != nil {
		return err
	}
	cat, diags := build.Load(o.io.ctx, o.dir)
	if diags.HasErrors() {
		if err := diags.Write(o.io.errOut, build.FormatText); err != nil {
			return err
		}
		_ = printLine(o.io.errOut, "signpost: drift: %s does not load: nothing compared", o.dir)
		return reportedError{exitUsage}
	}
	r, err := drift.Run(o.io.ctx, cat, o.opts)
	if err != nil {
		if ctxErr := o.io.ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return usageError{err}
	}
	switch o.format {
	case build.FormatJSON:
		err = r.WriteJSON(o.io.out)
	case build.FormatGitHub:
		err = r.WriteGitHub(o.io.out)
	default:
		err = r.WriteText(o.io.out)
	}
	switch {
	case err != nil:
		return err
	case r.Drifted():
		return reportedError{exitInvalid}
	case r.Unreachable():
		return reportedError{exitUnreachable}
	}
	return nil
}
