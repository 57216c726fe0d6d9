package main

import (
	"fmt"

	"github.com/signpost-dev/signpost/internal/version"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the signpost version",
		Example: "  signpost version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "signpost %s\n", version.String())
			return err
		},
	}
}
