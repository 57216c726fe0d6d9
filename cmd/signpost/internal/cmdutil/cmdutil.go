// Package cmdutil is what every command of signpost shares: its context
// and streams (Streams), the errors that choose its exit code (UsageError,
// ReportedError, HintedError), the lines it prints about its input, which
// leave redacted through a records.Log (Lines), its enum flags (EnumVar),
// and the Args of a command with subcommands (NoSubcommand). The root
// command turns an error into its exit code and message; each command, in
// package main or below cmd/signpost/internal, builds on these.
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/suggest"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitInvalid = 1
	ExitUsage   = 2
)

// UsageError marks a mistake in the command line itself.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ReportedError means the command already printed what went wrong (for
// example the diagnostics of an invalid catalog) and only the exit code is
// left to give.
type ReportedError struct{ Code int }

func (e ReportedError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// HintedError is Err with Msg as its message: the message rephrased, or
// with what to do added, such as the flag that answers it.
type HintedError struct {
	Msg string
	Err error
}

func (e HintedError) Error() string { return e.Msg }
func (e HintedError) Unwrap() error { return e.Err }

// Streams are a command's context, input and output, as its options hold
// them.
type Streams struct {
	Ctx    context.Context
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// StreamsOf returns the context, input and output of cmd.
func StreamsOf(cmd *cobra.Command) Streams {
	return Streams{Ctx: cmd.Context(), In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), ErrOut: cmd.ErrOrStderr()}
}

// MaxSuggestions is how many commands or flags a mistyped one is offered.
const MaxSuggestions = 3

// NoSubcommand is the Args of a command with subcommands: any argument is
// a command it does not have, and the usage error offers the ones most like
// it.
func NoSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if cmd.HasParent() {
		msg += fmt.Sprintf(" for %q", cmd.CommandPath())
	}
	if like := suggest.Nearest(args[0], names, MaxSuggestions); len(like) > 0 {
		msg += ": did you mean " + english.Or(like) + "?"
	}
	return UsageError{errors.New(msg)}
}
