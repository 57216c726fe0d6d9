package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/english"
)

func newValidateCmd() *cobra.Command {
	var format string
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
			if err := checkCatalogDir("validate", catalogDir(args)); err != nil {
				return err
			}
			prog := newProgress(cmd.ErrOrStderr())
			prog.Step("validate: reading and checking the catalog", 0)
			_, diags := build.Load(cmd.Context(), catalogDir(args))
			prog.Stop()
			if err := diags.Write(cmd.OutOrStdout(), format); err != nil {
				return err
			}
			if diags.HasErrors() {
				if format == build.FormatText {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d %s\n", catalogDir(args), diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
				}
				return reportedError{exitInvalid}
			}
			if format == build.FormatText {
				if n := len(diags) - diags.Errors(); n > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: valid, with %d %s\n", catalogDir(args), n, english.Plural(n, "warning", "warnings"))
				} else {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: valid\n", catalogDir(args))
				}
			}
			return nil
		},
	}
	enumVar(cmd.Flags(), &format, "format", build.FormatText, diagnosticFormats(), "output format: text, json or github")
	return cmd
}
