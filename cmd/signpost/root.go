package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/terminal"
	"github.com/signpost-dev/signpost/internal/version"
	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
)

// usageError marks a mistake in the command line itself.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// reportedError means the command already printed what went wrong (for
// example the diagnostics of an invalid catalog) and only the exit code is
// left to give.
type reportedError struct{ code int }

func (e reportedError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// hintedError is err with msg as its message: the message rephrased, or
// with what to do added, such as the flag that answers it.
type hintedError struct {
	msg string
	err error
}

func (e hintedError) Error() string { return e.msg }
func (e hintedError) Unwrap() error { return e.err }

// exitCodeFor prints err, if any, and returns the exit code it means. A
// usage error points to the help of command, the command path it is about.
func exitCodeFor(err error, stderr io.Writer, command string) int {
	if err == nil {
		return exitOK
	}
	var rep reportedError
	if errors.As(err, &rep) {
		return rep.code
	}
	fmt.Fprintln(stderr, "signpost:", err)
	var use usageError
	if errors.As(err, &use) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", command)
		return exitUsage
	}
	return exitInvalid
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newInitCmd(),
		newValidateCmd(),
		newBuildCmd(),
		newImportCmd(),
		newServeCmd(),
		newCheckCmd(),
		newPublishCmd(),
		newDiffCmd(),
		newConformanceCmd(),
		newSchemaCmd(),
		newTokenCmd(),
		newVersionCmd(),
	)
	// Unknown subcommands and wrong argument counts are usage errors too.
	for _, c := range root.Commands() {
		wrapArgs(c)
	}
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageError{fmt.Errorf("unknown command %q", args[0])}
		}
		return nil
	}
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
			return usageError{err}
		}
		return nil
	}
}

// catalogDir is the catalog folder argument, "." when absent.
func catalogDir(args []string) string {
	if len(args) == 0 {
		return "."
	}
	return args[0]
}

// checkCatalogDir returns an error, worded for signpost COMMAND, when dir
// is no catalog folder but folders below it are (a repository's top with
// the catalog in a folder of its own): loading it would report its
// catalogs' files as declarations.
func checkCatalogDir(command, dir string) error {
	err := build.FindCatalogBelow(dir)
	var below *build.CatalogBelowError
	if !errors.As(err, &below) {
		return err
	}
	return hintedError{terminal.Safe(catalogBelowMessage(command, below)), err}
}

// catalogBelowMessage words e with the command to run instead.
func catalogBelowMessage(command string, e *build.CatalogBelowError) string {
	if e.Total == 1 {
		return fmt.Sprintf("%s: run signpost %s %s", e.Error(), command, e.Found[0])
	}
	return fmt.Sprintf("%s: run signpost %s with one of them", e.Error(), command)
}
