package cmdutil

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/signpost-dev/signpost/internal/english"
)

// enumFlag is a string flag that takes one of a fixed list of values: --help
// lists them as its type, and any other value is a usage error that lists
// them again.
type enumFlag struct {
	p       *string
	allowed []string
}

// EnumVar defines the flag name on fs, storing into p, which starts as def,
// one of allowed.
func EnumVar(fs *pflag.FlagSet, p *string, name, def string, allowed []string, usage string) {
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

// EnumValues are the values the flag value v takes when it is an enum
// flag's (EnumVar), for shell completion; false for any other flag's.
func EnumValues(v pflag.Value) ([]string, bool) {
	e, ok := v.(*enumFlag)
	if !ok {
		return nil, false
	}
	return e.allowed, true
}
