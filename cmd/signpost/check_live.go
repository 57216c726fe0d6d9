package main

import (
	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/drift"
)

// Exit status of check --live beyond exitOK, exitInvalid (drift) and
// exitUsage (bad usage, or a catalog that does not load): no server
// drifted, but one could not be read.
const exitUnreachable = 3

// driftOptions are what check --live reads of its argument and flags.
type driftOptions struct {
	io         streams
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
	cat, diags := build.Load(o.io.ctx, o.dir)
	if diags.HasErrors() {
		if err := diags.Write(o.io.errOut, build.FormatText); err != nil {
			return err
		}
		_ = printLine(o.io.errOut, "signpost: check --live: %s does not load: nothing compared", o.dir)
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
