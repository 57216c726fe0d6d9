package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/schemas"
)

func newSchemaCmd() *cobra.Command {
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
			if len(args) == 0 {
				for _, n := range schemas.Names() {
					fmt.Fprintln(cmd.OutOrStdout(), n)
				}
				return nil
			}
			src, ok := schemas.Source(args[0])
			if !ok {
				return usageError{fmt.Errorf("no schema named %q; the schemas are: %s", args[0], strings.Join(schemas.Names(), ", "))}
			}
			_, err := cmd.OutOrStdout().Write(src)
			return err
		},
	}
}
