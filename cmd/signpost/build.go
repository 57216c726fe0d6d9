package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
)

func newBuildCmd() *cobra.Command {
	format := formatFlag(build.FormatText)
	out := "site"
	var target string
	cmd := &cobra.Command{
		Use:   "build [DIR]",
		Short: "Validate a catalog and compile it into a static site",
		Long: `Build validates the catalog in DIR (default: the current folder) and, when it is
valid, writes the site to --out: one folder per tenant (or public/ without
tenants) of JSON documents, and routes.json, the route table with every route's
object key, Content-Type, Cache-Control and ETag.

The output is replaced atomically: an invalid catalog or a failed build leaves
the previous output as it was. --out must be a new folder, an empty one, or an
earlier build.`,
		Example: `  signpost build catalogs/example
  signpost build catalogs/example --out /tmp/site
  signpost build --format github   # in CI: annotate problems on the pull request`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := catalogDir(args)
			cat, diags := build.Load(cmd.Context(), dir)
			if len(diags) > 0 || format == build.FormatJSON {
				if err := diags.Write(cmd.OutOrStdout(), string(format)); err != nil {
					return err
				}
			}
			if diags.HasErrors() {
				if format == build.FormatText {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d %s; nothing written\n", dir, diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
				}
				return reportedError{exitInvalid}
			}
			b, err := build.Compile(cmd.Context(), cat)
			if err != nil {
				return fmt.Errorf("build %s: %w", dir, err)
			}
			var t build.Target
			if target != "" {
				var ok bool
				if t, ok = cat.Config.Targets[target]; !ok {
					return usageError{fmt.Errorf("no target %q in %s: it declares %s", target, build.ConfigFile, targetNames(cat.Config.Targets))}
				}
				if t.S3 != nil {
					if err := b.AddCloudFront(t.S3, cat.Config.CompactView); err != nil {
						return fmt.Errorf("build %s: %w", dir, err)
					}
				}
			}
			if t.GitHubPages {
				gaps, err := b.WritePages(cmd.Context(), out)
				if err != nil {
					return err
				}
				if format != build.FormatJSON {
					if err := build.WritePagesReport(cmd.OutOrStdout(), b.Sites, gaps); err != nil {
						return err
					}
				}
			} else if err := b.Write(cmd.Context(), out); err != nil {
				return err
			}
			if format == build.FormatJSON {
				return nil
			}
			return printSummary(cmd.OutOrStdout(), out, b)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", out, "output folder")
	cmd.Flags().StringVar(&target, "target", "", "publish target of signpost.yaml to build for: an S3 target adds its CloudFront Functions, a GitHub Pages target lays the site out for Pages and reports what Pages cannot serve")
	cmd.Flags().Var(&format, "format", "diagnostics format: text, json or github")
	return cmd
}

// targetNames lists the declared targets for a message.
func targetNames(targets map[string]build.Target) string {
	if len(targets) == 0 {
		return "none"
	}
	names := make([]string, 0, len(targets))
	for n := range targets {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func printSummary(w io.Writer, out string, b *build.Build) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SITE\tTOOLS\tDOCUMENTS\t/tools\t/tools?view=compact\tFOLDER")
	for _, s := range b.Sites {
		name := s.Tenant
		if name == "" {
			name = "(all)"
		}
		std, compact := s.Bytes("/tools", spec.ViewStandard), s.Bytes("/tools", spec.ViewCompact)
		compactCol := "off"
		switch {
		case compact > 0 && s.Tools == 0:
			// Both lists are a few bytes of framing: a ratio says nothing.
			compactCol = fmt.Sprintf("%s, ~%d tokens", size(compact), build.EstimateTokens(compact))
		case compact > 0:
			compactCol = fmt.Sprintf("%s, ~%d tokens (%d%%)", size(compact), build.EstimateTokens(compact), compact*100/max(std, 1))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s, ~%d tokens\t%s\t%s\n", name, s.Tools, len(s.Documents),
			size(std), build.EstimateTokens(std), compactCol, filepath.ToSlash(filepath.Join(out, s.Dir)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "route table: %s\n", filepath.ToSlash(filepath.Join(out, build.RouteTableFile)))
	return err
}

// size formats a byte count for people.
func size(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
