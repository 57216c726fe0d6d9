package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

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
	h, err := readHeaders(o.headerFile, o.headerEnv)
	if err != nil {
		return err
	}
	o.endpoint.Header = h
	if err := o.endpoint.Check(); err != nil {
		return cmdutil.UsageError{Err: fmt.Errorf("%w (--url, --command, --header-file, --header-env)", err)}
	}
	return nil
}

// maxHeaderFile bounds a header file.
const maxHeaderFile = 64 << 10

// readHeaders reads the headers of --header-file and --header-env. No
// message quotes a value: a line of a header file is named by its number,
// an environment variable by its name.
func readHeaders(file string, env []string) (http.Header, error) {
	h := http.Header{}
	add := func(where, name, value string) error {
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !validHeaderName(name) {
			return cmdutil.UsageError{Err: fmt.Errorf("%s: %q is not a header name", where, name)}
		}
		if value == "" || !validHeaderValue(value) {
			return cmdutil.UsageError{Err: fmt.Errorf("%s: the value of header %s is empty or holds a character a header cannot", where, name)}
		}
		h.Add(name, value)
		return nil
	}
	if file != "" {
		data, err := os.ReadFile(file)
		switch {
		case err != nil:
			return nil, fmt.Errorf("--header-file: %w", err)
		case len(data) > maxHeaderFile:
			return nil, cmdutil.UsageError{Err: fmt.Errorf("--header-file %s: over %d bytes", file, maxHeaderFile)}
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, maxHeaderFile+1)
		for n := 1; sc.Scan(); n++ {
			l := strings.TrimSpace(sc.Text())
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			name, value, ok := strings.Cut(l, ":")
			if !ok {
				return nil, cmdutil.UsageError{Err: fmt.Errorf("--header-file %s: line %d is not \"Name: value\"", file, n)}
			}
			if err := add(fmt.Sprintf("--header-file %s, line %d", file, n), name, value); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range env {
		name, variable, ok := strings.Cut(e, "=")
		if !ok || name == "" || variable == "" {
			return nil, cmdutil.UsageError{Err: fmt.Errorf("--header-env %q: want NAME=VAR, the header's name and the environment variable that holds its value", e)}
		}
		value, set := os.LookupEnv(variable)
		if !set {
			return nil, cmdutil.UsageError{Err: fmt.Errorf("--header-env %s: the environment variable %s is not set", e, variable)}
		}
		if err := add("--header-env "+e, name, value); err != nil {
			return nil, err
		}
	}
	if len(h) == 0 {
		return nil, nil
	}
	return h, nil
}

// validHeaderName reports whether name is a token (RFC 9110, 5.1).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether value holds no control character but
// a tab (RFC 9110, 5.5).
func validHeaderValue(value string) bool {
	for _, r := range value {
		if (r < ' ' && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}
