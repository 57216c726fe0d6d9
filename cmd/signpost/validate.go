package main

import (
	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/english"
)

// validateOptions are the IO, argument and flags of signpost validate.
type validateOptions struct {
	io     cmdutil.Streams
	dir    string
	format string
}

// newValidateCmd is signpost validate; runF, runValidate when nil, runs
// it with the options the command line gives.
func newValidateCmd(runF func(*validateOptions) error) *cobra.Command {
	if runF == nil {
		runF = runValidate
	}
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check every declaration of a catalog folder",
		Long: `Validate reads every declaration in DIR (default: the current folder) and reports
every problem at once, as path:line:col: message. It writes nothing.

Exit status is 0 when the catalog is valid, 1 when it is not.`,
		Example: `  signpost validate catalogs/example
  signpost validate --format github    # annotations on a pull request
  signpost validate --format json | jq '.diagnostics[].message'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io, o.dir = cmdutil.StreamsOf(cmd), catalogDir(args)
			return runF(o)
		},
	}
	cmdutil.EnumVar(cmd.Flags(), &o.format, "format", build.FormatText, diagnosticFormats(), "output format: text, json or github")
	return cmd
}

// runValidate loads the catalog of o and reports its diagnostics.
func runValidate(o *validateOptions) error {
	var err error
	if o.dir, err = findCatalogDir("validate", o.dir); err != nil {
		return err
	}
	prog := newProgress(o.io.ErrOut)
	prog.Step("validate: reading and checking the catalog", 0)
	_, diags := build.Load(o.io.Ctx, o.dir)
	prog.Stop()
	if err := diags.Write(o.io.Out, o.format); err != nil {
		return err
	}
	if diags.HasErrors() {
		if o.format == build.FormatText {
			_ = cmdutil.PrintLine(o.io.ErrOut, "%s: %d %s", o.dir, diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
		}
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	if o.format == build.FormatText {
		if n := len(diags) - diags.Errors(); n > 0 {
			_ = cmdutil.PrintLine(o.io.ErrOut, "%s: valid, with %d %s", o.dir, n, english.Plural(n, "warning", "warnings"))
		} else {
			_ = cmdutil.PrintLine(o.io.ErrOut, "%s: valid", o.dir)
		}
	}
	return nil
}
