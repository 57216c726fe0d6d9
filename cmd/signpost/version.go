package main

import (
	"encoding/json"
	"fmt"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/version"
	"github.com/spf13/cobra"
)

// versionInfo is what signpost knows about its own build; tests replace it.
var versionInfo = version.Get

// versionOptions are the IO and flags of signpost version.
type versionOptions struct {
	io     cmdutil.Streams
	format string
	// info says what signpost knows of its own build.
	info func() version.Info
}

// newVersionCmd is signpost version; runF, runVersion when nil, runs it
// with the options the command line gives.
func newVersionCmd(runF func(*versionOptions) error) *cobra.Command {
	if runF == nil {
		runF = runVersion
	}
	o := &versionOptions{info: versionInfo}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the signpost version, commit, date and Go version",
		Long: `Print the version of this signpost, the commit it was built from, that
commit's date and the version of Go that built it. A release has all of
them; a build from a Git checkout has its commit and date and the version
dev; go install ...@vX.Y.Z records the version only. What is not known is
printed as "unknown" (text) or "" (json).`,
		Example: "  signpost version\n  signpost version --format json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.io = cmdutil.StreamsOf(cmd)
			return runF(o)
		},
	}
	cmdutil.EnumVar(cmd.Flags(), &o.format, "format", build.FormatText, reportFormats(), "output format")
	return cmd
}

// runVersion prints what o.info says, as text or JSON.
func runVersion(o *versionOptions) error {
	in := o.info()
	if o.format == build.FormatJSON {
		data, err := json.MarshalIndent(in, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.io.Out, "%s\n", data)
		return err
	}
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	_, err := fmt.Fprintf(o.io.Out, "signpost %s\ncommit: %s\ndate: %s\ngo: %s\n",
		in.Version, unknown(in.Commit), unknown(in.Date), in.Go)
	return err
}
