// Command signpost publishes an organization's agent-discovery documents
// (the tool catalog, MCP server cards and discovery catalogs) from YAML
// declarations kept in Git.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
)

func main() {
	os.Exit(runWithSignals(os.Args[1:], os.Stdout, os.Stderr))
}

// runWithSignals runs the command line as run does, stopping its work when
// SIGINT or SIGTERM arrives: the context is cancelled, so every long loop
// returns and nothing is left half-written, and the exit code is then
// 128 plus the signal's number (130, 143), as shells report it. A second
// signal stops the process at once.
func runWithSignals(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	got := make(chan syscall.Signal, 1)
	go func() {
		var s os.Signal
		select {
		case s = <-sigs:
		case <-ctx.Done():
			return
		}
		num, _ := s.(syscall.Signal)
		got <- num
		cancel()
		<-sigs
		os.Exit(128 + int(num))
	}()
	code := run(ctx, args, stdout, stderr)
	select {
	case num := <-got:
		return 128 + int(num)
	default:
		return code
	}
}

// run executes the command line args and returns the process exit code:
// 0 success, 1 invalid input or failed work, 2 bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil {
		// Stopped by a signal: the work returned at its next check of
		// ctx, and whatever it writes is written whole or not at all.
		fmt.Fprintln(stderr, "signpost: interrupted")
		return cmdutil.ExitInvalid
	}
	// A usage error points to the help of the command it is about.
	path := "signpost"
	if sub, _, ferr := cmd.Find(args); ferr == nil && sub != nil {
		path = sub.CommandPath()
	}
	return exitCodeFor(err, stderr, path)
}
