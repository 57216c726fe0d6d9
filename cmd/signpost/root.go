package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/importcmd"
	"github.com/signpost-dev/signpost/internal/catalogdir"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/suggest"
	"github.com/signpost-dev/signpost/internal/terminal"
	"github.com/signpost-dev/signpost/internal/version"
)

// exitCodeFor prints err, if any, and returns the exit code it means. A
// usage error points to the help of command, the command path it is about.
// Every error a command returns is printed here, redacted and safe for a
// terminal (see cmdutil.PrintError).
func exitCodeFor(err error, stderr io.Writer, command string) int {
	if err == nil {
		return cmdutil.ExitOK
	}
	var rep cmdutil.ReportedError
	if errors.As(err, &rep) {
		return rep.Code
	}
	_ = cmdutil.PrintError(stderr, err)
	var use cmdutil.UsageError
	if errors.As(err, &use) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", command)
		return cmdutil.ExitUsage
	}
	return cmdutil.ExitInvalid
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "signpost",
		Short: "Publish agent-discovery documents from YAML declarations",
		Long: `signpost validates YAML declarations of MCP servers and tools and compiles them
into a static site of JSON documents: the tool catalog at /tools and
/tools/{toolId} with its compact view, MCP server cards, and the discovery
catalogs /.well-known/mcp/catalog.json and /.well-known/ai-catalog.json. The
route table beside the site says how each document must be served; serve,
check and publish follow it. init starts a catalog repository with a
workflow that checks pull requests, and diff shows a reviewer what a change
does, risks first.`,
		Example: `  signpost init my-catalog --publish pages
  signpost validate catalogs/example
  signpost build catalogs/example --out site
  signpost serve catalogs/example --tenant acme
  signpost check http://127.0.0.1:8080
  signpost diff main HEAD --catalog catalogs/example --format markdown
  signpost publish catalogs/example --target production --dry-run`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		Version:           version.String(),
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return cmdutil.UsageError{Err: unknownFlagHint(c, err)} })
	root.AddCommand(
		newInitCmd(nil),
		newValidateCmd(nil),
		newBuildCmd(nil),
		importcmd.NewCmd(),
		newServeCmd(nil),
		newCheckCmd(nil),
		newPublishCmd(nil),
		newDiffCmd(nil),
		newConformanceCmd(nil),
		newExportCmd(),
		newSchemaCmd(nil),
		newTokenCmd(),
		newKeygenCmd(nil),
		newVersionCmd(nil),
	)
	registerCompletions(root)
	// Unknown subcommands and wrong argument counts are usage errors too.
	for _, c := range root.Commands() {
		wrapArgs(c)
	}
	root.Args = cmdutil.NoSubcommand
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	return root
}

func wrapArgs(c *cobra.Command) {
	if c.Args == nil {
		return
	}
	check := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return cmdutil.UsageError{Err: err}
		}
		return nil
	}
}

// unknownFlagHint is err, a flag parsing error of cmd, with the flags most
// like an unknown one offered.
func unknownFlagHint(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedShortnames() != "" {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	like := suggest.Nearest(ne.GetSpecifiedName(), names, cmdutil.MaxSuggestions)
	if len(like) == 0 {
		return err
	}
	for i, n := range like {
		like[i] = "--" + n
	}
	return cmdutil.HintedError{Msg: fmt.Sprintf("%v (did you mean %s?)", err, english.Or(like)), Err: err}
}

// catalogDir is the catalog folder argument, "." when absent.
func catalogDir(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return args[0]
}

// findCatalogDir returns the catalog folder signpost COMMAND works on when
// given dir: dir itself, or the catalog that holds it, found upward as git
// finds a repository (see catalogdir.Up). It returns an error, worded for
// the command, when dir is no catalog folder but folders below it are (a
// repository's top with the catalog in a folder of its own): loading it
// would report its catalogs' files as declarations.
func findCatalogDir(command, dir string) (string, error) {
	err := catalogdir.Find(dir)
	var below *catalogdir.BelowError
	if errors.As(err, &below) {
		return dir, cmdutil.HintedError{Msg: terminal.Safe(catalogBelowMessage(command, below)), Err: err}
	}
	if err != nil {
		return dir, err
	}
	up, _ := catalogdir.Up(dir)
	return up, nil
}

// catalogBelowMessage words e with the command to run instead.
func catalogBelowMessage(command string, e *catalogdir.BelowError) string {
	if e.Total == 1 {
		return fmt.Sprintf("%s: run signpost %s %s", e.Error(), command, e.Found[0])
	}
	return fmt.Sprintf("%s: run signpost %s with one of them", e.Error(), command)
}
