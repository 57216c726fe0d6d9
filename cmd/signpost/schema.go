package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/schemas"
)

// schemaOptions are the IO and argument of signpost schema.
type schemaOptions struct {
	io cmdutil.Streams
	// name is the schema to print; empty, the names are listed.
	name string
}

// newSchemaCmd is signpost schema; runF, runSchema when nil, runs it with
// the options the command line gives.
func newSchemaCmd(runF func(*schemaOptions) error) *cobra.Command {
	if runF == nil {
		runF = runSchema
	}
	o := &schemaOptions{}
	return &cobra.Command{
		Use:   "schema [NAME]",
		Short: "Print an embedded JSON Schema",
		Long: `Schema prints one of the JSON Schemas signpost validates with: those of the
declaration files and those of every published document. Without NAME it lists
them.`,
		Example: `  signpost schema
  signpost schema tool-descriptor
  signpost schema declarations > declarations.schema.json`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: schemas.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io = cmdutil.StreamsOf(cmd)
			if len(args) > 0 {
				o.name = args[0]
			}
			return runF(o)
		},
	}
}

// runSchema prints the schema o names, or the names of every schema.
func runSchema(o *schemaOptions) error {
	if o.name == "" {
		for _, n := range schemas.Names() {
			fmt.Fprintln(o.io.Out, n)
		}
		return nil
	}
	src, ok := schemas.Source(o.name)
	if !ok {
		return cmdutil.UsageError{Err: fmt.Errorf("no schema named %q; the schemas are: %s", o.name, strings.Join(schemas.Names(), ", "))}
	}
	_, err := o.io.Out.Write(src)
	return err
}
