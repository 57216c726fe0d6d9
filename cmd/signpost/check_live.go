package main

import (
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/drift"
)

// Exit status of check --live beyond cmdutil.ExitOK, cmdutil.ExitInvalid (drift) and
// cmdutil.ExitUsage (bad usage, or a catalog that does not load): no server
// drifted, but one could not be read.
const exitUnreachable = 3

// driftOptions are what check --live reads of its argument and flags.
type driftOptions struct {
	io         cmdutil.Streams
	dir        string
	format     string
	headerFile string
	headerEnv  []string
	opts       drift.Options
}

// runCheckLive loads the catalog of o, compares its servers with their
// endpoints and prints the report.
func runCheckLive(o *driftOptions) error {
	var err error
	if o.dir, err = findCatalogDir("check --live", o.dir); err != nil {
		return err
	}
	cat, diags := build.Load(o.io.Ctx, o.dir)
	if diags.HasErrors() {
		if err := diags.Write(o.io.ErrOut, build.FormatText); err != nil {
			return err
		}
		_ = cmdutil.PrintLine(o.io.ErrOut, "signpost: check --live: %s does not load: nothing compared", o.dir)
		return cmdutil.ReportedError{Code: cmdutil.ExitUsage}
	}
	r, err := drift.Run(o.io.Ctx, cat, o.opts)
	if err != nil {
		if ctxErr := o.io.Ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return cmdutil.UsageError{Err: err}
	}
	switch o.format {
	case build.FormatJSON:
		err = r.WriteJSON(o.io.Out)
	case build.FormatGitHub:
		err = r.WriteGitHub(o.io.Out)
	default:
		err = r.WriteText(o.io.Out)
	}
	switch {
	case err != nil:
		return err
	case r.Drifted():
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	case r.Unreachable():
		return cmdutil.ReportedError{Code: exitUnreachable}
	}
	return nil
}
