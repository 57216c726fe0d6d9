package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/conformance"
)

// conformanceOptions are the IO, arguments and flags of signpost
// conformance.
type conformanceOptions struct {
	io            cmdutil.Streams
	first, second string
	format        string
}

// newConformanceCmd is signpost conformance; runF, runConformance when nil,
// runs it with the options the command line gives.
func newConformanceCmd(runF func(*conformanceOptions) error) *cobra.Command {
	if runF == nil {
		runF = runConformance
	}
	o := &conformanceOptions{}
	cmd := &cobra.Command{
		Use:   "conformance FIRST SECOND",
		Short: "Check that two independent builds of a catalog are the same, safe site",
		Long: `Conformance takes two build output folders (each with routes.json, as
signpost build or another emitter writes them) that were produced
independently from the same catalog, and reports every way they fail to be
the same trustworthy site:

  unsupported-version   a tool catalogue whose catalogVersion signpost does
                        not read
  schema-ref            a $ref in a tool's arguments or response (in the
                        catalogue) or inputSchema or outputSchema (in a
                        descriptor) that is external or does not resolve
  invalid-document      a document, or routes.json, not valid against its
                        schema, or not JSON
  safety-inconsistent   annotations that safetyTier, replayPolicy and egress
                        do not determine; exec outside host extensions; a
                        descriptor kind that is not the tool's source
  identity-reassigned   a catalogue tool name whose descriptor reference
                        (kind and id) differs between the builds, or between
                        two documents of one build
  unsafe-path           a dir or key of routes.json that is absolute, holds
                        "..", ".", empty segments, backslashes, colons, NUL
                        or other control characters
  duplicate-path        two routes on one file (exactly, or differing only in
                        case), a file that is another's folder, a route
                        mapped twice
  object-unreadable     an object routes.json names that is missing or
                        larger than recorded (an unsafe one is never read)
  object-changed        an object whose size or SHA-256 is not the recorded one
  route-table-differs   sites, routes, keys or headers only in one build
  route-order-differs   the same routes or sites in another order
  bytes-differ          a document, or routes.json, that differs, with the
                        first differing byte offset

Only the two route tables and the objects they name are read: nothing else
in the folders, no network, no clock, no environment. --format text (default)
is for people, json is the report with stable field names. Exit status: 0
when the builds conform, 1 with findings or when a folder cannot be read, 2
for bad usage.`,
		Example: `  signpost build catalogs/example --out site-a
  signpost build catalogs/example --out site-b
  signpost conformance site-a site-b
  signpost conformance site emitter-site --format json   # another emitter's build`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io, o.first, o.second = cmdutil.StreamsOf(cmd), args[0], args[1]
			return runF(o)
		},
	}
	cmdutil.EnumVar(cmd.Flags(), &o.format, "format", conformance.FormatText, []string{conformance.FormatText, conformance.FormatJSON}, "output format: text or json")
	return cmd
}

// runConformance reads and compares the two builds and prints the report;
// it exits 1 with findings.
func runConformance(o *conformanceOptions) error {
	ctx, first, second := o.io.Ctx, o.first, o.second
	a, err := conformance.Read(ctx, first, first)
	if err != nil {
		return safeError{err}
	}
	b, err := conformance.Read(ctx, second, second)
	if err != nil {
		return safeError{err}
	}
	return reportConformance(o.io.Out, a, b, o.format)
}

// reportConformance compares and prints; it exits 1 with findings.
func reportConformance(stdout io.Writer, a, b *conformance.Build, format string) error {
	report, err := conformance.Compare(a, b)
	if err != nil {
		return err
	}
	if err := report.Write(stdout, format); err != nil {
		return err
	}
	if !report.Conformant {
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	return nil
}
