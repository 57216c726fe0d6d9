package importcmd

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/live"
)

// liveFlags adds the flags of a command that reads running MCP servers:
// where their headers come from, and the bounds of a read.
func liveFlags(f *pflag.FlagSet, headerFile *string, headerEnv *[]string, opts *live.Options) {
	f.StringVar(headerFile, "header-file", "", `send the headers of this file ("Name: value" lines) to the server; never put a token on the command line`)
	f.StringArrayVar(headerEnv, "header-env", nil, "NAME=VAR: send header NAME with the value of the environment variable VAR (repeatable)")
	f.BoolVar(&opts.AllowPrivate, "allow-private", false, "connect to loopback, private, link-local and other non-public addresses")
	f.DurationVar(&opts.Deadline, "deadline", 0, "time limit of each server's read: connect, initialize, every page of tools/list (default 30s)")
	f.IntVar(&opts.MaxPages, "max-pages", 0, "most pages of tools/list read from a server (default 100)")
}

// liveArgs checks the arguments of import mcp: FILEs, or with --url none,
// or with --command the command after --, and sets o.endpoint for a live
// read (its headers are read when the command runs).
func liveArgs(o *importMCPOptions, dash int, args []string) error {
	switch {
	case o.url != "" && o.command:
		return cmdutil.UsageError{Err: errors.New("--url and --command each name a server: give one")}
	case o.url != "" && len(args) > 0:
		return cmdutil.UsageError{Err: errors.New("--url reads the server's tools: give no FILE")}
	case o.url != "":
		o.endpoint = &live.Endpoint{URL: o.url}
	case o.command && (dash != 0 || len(args) == 0):
		return cmdutil.UsageError{Err: errors.New("--command runs the command after --, as in --command -- npx -y @modelcontextprotocol/server-everything")}
	case o.command:
		o.endpoint = &live.Endpoint{Command: args}
	case o.save != "":
		return cmdutil.UsageError{Err: errors.New("--save writes what a server answered: give --url or --command")}
	case len(args) == 0:
		return cmdutil.UsageError{Err: errors.New("import mcp needs at least one FILE (- for standard input), --url URL or --command -- CMD")}
	}
	if o.endpoint == nil && (o.headerFile != "" || len(o.headerEnv) > 0) {
		return cmdutil.UsageError{Err: errors.New("--header-file and --header-env go to a server: give --url")}
	}
	return nil
}

// readEndpoint reads the headers of o's endpoint and checks it.
func (o *importMCPOptions) readEndpoint() error {
	if o.endpoint == nil {
		return nil
	}
	h, err := cmdutil.ReadHeaders(o.headerFile, o.headerEnv)
	if err != nil {
		return err
	}
	o.endpoint.Header = h
	if err := o.endpoint.Check(); err != nil {
		return cmdutil.UsageError{Err: fmt.Errorf("%w (--url, --command, --header-file, --header-env)", err)}
	}
	return nil
}
