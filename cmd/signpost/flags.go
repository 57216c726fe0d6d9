package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/english"
)

// enumFlag is a string flag that takes one of a fixed list of values: --help
// lists them as its type, and any other value is a usage error that lists
// them again.
type enumFlag struct {
	p       *string
	allowed []string
}

// enumVar defines the flag name on fs, storing into p, which starts as def,
// one of allowed.
func enumVar(fs *pflag.FlagSet, p *string, name, def string, allowed []string, usage string) {
	*p = def
	fs.Var(&enumFlag{p: p, allowed: allowed}, name, usage)
}

func (f *enumFlag) String() string { return *f.p }
func (f *enumFlag) Type() string   { return strings.Join(f.allowed, "|") }
func (f *enumFlag) Set(s string) error {
	if !slices.Contains(f.allowed, s) {
		return fmt.Errorf("must be %s", english.Or(f.allowed))
	}
	*f.p = s
	return nil
}

// diagnosticFormats are the --format values of the commands that print
// diagnostics.
func diagnosticFormats() []string {
	return []string{build.FormatText, build.FormatJSON, build.FormatGitHub}
}

// reportFormats are the --format values of the commands that print a
// report.
func reportFormats() []string { return []string{build.FormatText, build.FormatJSON} }
