// Package cmdtest tests a command's flags without its side effects: the
// command runs with a run function that only keeps the options the flags
// parse to, so nothing is read, written or sent.
package cmdtest

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
)

// Parsed runs the command newCmd makes on args with a run function that
// only keeps the options it is given: what the flags parse to, and nothing
// done (no file read or written, no network).
func Parsed[O any](t testing.TB, newCmd func(func(*O) error) *cobra.Command, args ...string) *O {
	t.Helper()
	var got *O
	cmd := newCmd(func(o *O) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%s %q: %v", cmd.Name(), args, err)
	}
	if got == nil {
		t.Fatalf("%s %q: the run function was not called", cmd.Name(), args)
	}
	return got
}

// Refused reports the error of the command newCmd makes on args, and fails
// the test when it calls its run function.
func Refused[O any](t testing.TB, newCmd func(func(*O) error) *cobra.Command, args ...string) error {
	t.Helper()
	cmd := newCmd(func(*O) error { t.Errorf("%q: the run function was called", args); return nil })
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.ExecuteContext(context.Background())
}

// HasIO reports whether s holds the context and the output of a command.
func HasIO(s cmdutil.Streams) bool {
	return s.Ctx != nil && s.In != nil && s.Out != nil && s.ErrOut != nil
}
