package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/configfile"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/diff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// registerCompletions gives shell completion the values of the flags that
// take known ones, on every command below root: each enum flag its values,
// --fail-on the risk kinds, --target the targets of signpost.yaml in the
// catalog folder argument.
func registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			var fn cobra.CompletionFunc
			if allowed, ok := cmdutil.EnumValues(f.Value); ok {
				fn = cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp)
			} else {
				switch f.Name {
				case "fail-on":
					fn = completeList(append(diff.RiskKinds(), diff.RiskAny))
				case "target":
					fn = completeTargets
				}
			}
			if fn != nil {
				// An error means the flag has one already: keep it.
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeList completes a comma-separated list of values: the values not
// yet in the list, each after what was typed up to its last comma.
func completeList(values []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		prefix := ""
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			prefix = toComplete[:i+1]
		}
		given := strings.Split(prefix, ",")
		var out []string
		for _, v := range values {
			if !slices.Contains(given, v) {
				out = append(out, prefix+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// completeTargets completes --target with the names of the targets of
// signpost.yaml in the catalog folder argument ("." without one), sorted;
// none when the file cannot be read or parsed.
func completeTargets(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	path := filepath.Join(catalogDir(args), build.ConfigFile)
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > source.MaxFileSize {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	f, _ := source.ParseYAML(path, build.ConfigFile, data)
	return configfile.TargetNames(f.Value), cobra.ShellCompDirectiveNoFileComp
}
