// Command signpost publishes an organization's agent-discovery documents
// (the tool catalog, MCP server cards and discovery catalogs) from YAML
// declarations kept in Git.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the process exit code:
// 0 success, 1 invalid input or failed work, 2 bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	// A usage error points to the help of the command it is about.
	path := "signpost"
	if sub, _, ferr := cmd.Find(args); ferr == nil && sub != nil {
		path = sub.CommandPath()
	}
	return exitCodeFor(err, stderr, path)
}
