package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/hosts/cloudflare"
	"github.com/signpost-dev/signpost/hosts/cloudfront"
	"github.com/signpost-dev/signpost/hosts/netlify"
	"github.com/signpost-dev/signpost/hosts/pages"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/spf13/cobra"
)

// buildOptions are the IO, argument and flags of signpost build.
type buildOptions struct {
	io     cmdutil.Streams
	Dir    string
	Out    string
	Target string
	Format string
	// Origin, when set, is the origin every site names instead of
	// signpost.yaml's.
	Origin string
	// Verify builds twice more in child processes and compares before
	// writing.
	Verify bool
	// HistoryFrom, when set, is the folder whose Git history dates the
	// registry instead of Dir's: the original catalog of a verification
	// build's copy (hidden).
	HistoryFrom string
}

// newBuildCmd is signpost build; runF, runBuild when nil, runs it with the
// options the command line gives.
func newBuildCmd(runF func(*buildOptions) error) *cobra.Command {
	if runF == nil {
		runF = runBuild
	}
	opts := &buildOptions{Out: "site"}
	cmd := &cobra.Command{
		Use:   "build [DIR]",
		Short: "Validate a catalog and compile it into a static site",
		Long: `Build validates the catalog in DIR (default: the current folder) and, when it is
valid, writes the site to --out: one folder per tenant (or public/ without
tenants) of JSON documents, and routes.json, the route table with every route's
object key, Content-Type, Cache-Control and ETag.

The output is replaced atomically: an invalid catalog or a failed build leaves
the previous output as it was. --out must be a new folder, an empty one, or an
earlier build.

--verify holds the build to two more, before anything is written: each is a
child process of this signpost, building its own copy of the catalog (its
files written in opposite orders) in its own temporary folder, from another
working directory, with TZ UTC or Pacific/Kiritimati and the locale C or
de_DE.UTF-8. The three outputs must conform (see signpost conformance):
the same route table and every document the same, byte for byte. When they
do not, the findings are printed, nothing is written to --out and the exit
status is 1. The temporary folders are removed either way.

--origin builds every site to name another origin than signpost.yaml gives
it and its tenants, such as http://127.0.0.1:8787 for wrangler dev or
netlify dev, so that a local check of the built site stays on the machine.
Publish the build of the real origin, not that one.

--format json prints one object: the diagnostics as validate prints them,
and for a site that was written, everything the text says besides: each
site's tools, documents and list sizes, the route table, the host's report
and whether --verify held (signpost schema build-report).`,
		Example: `  signpost build catalogs/example
  signpost build catalogs/example --out /tmp/site
  signpost build --format github   # in CI: annotate problems on the pull request
  signpost build catalogs/example --verify   # fail unless two more builds are the same
  signpost build catalogs/example --target netlify --origin http://127.0.0.1:8888`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.io, opts.Dir = cmdutil.StreamsOf(cmd), catalogDir(args)
			return runF(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "o", opts.Out, "output folder")
	cmd.Flags().StringVar(&opts.Target, "target", "", "publish target of signpost.yaml to build for: an S3 target adds its CloudFront Functions, a GitHub Pages, Cloudflare or Netlify target lays the site out for that host and reports what it cannot serve")
	cmd.Flags().StringVar(&opts.Origin, "origin", "", "origin every site names instead of signpost.yaml's, to serve and check the build elsewhere (a local server)")
	cmd.Flags().BoolVar(&opts.Verify, "verify", false, "build twice more in child processes with other folders, file orders, TZ and locale, and write nothing unless all three are the same, byte for byte")
	cmdutil.EnumVar(cmd.Flags(), &opts.Format, "format", build.FormatText, diagnosticFormats(), "diagnostics format: text, json or github")
	cmd.Flags().StringVar(&opts.HistoryFrom, historyFromFlag, "", "folder whose Git history dates the registry (for --verify's builds)")
	_ = cmd.Flags().MarkHidden(historyFromFlag)
	return cmd
}

// historyFromFlag is the hidden flag with which --verify's builds of a
// copy of the catalog read the Git history of the catalog itself.
const historyFromFlag = "history-from"

// runBuild loads and compiles the catalog, lays it out for the target, and
// writes it: diagnostics, then the host's report and the summary, on stdout.
func runBuild(o *buildOptions) error {
	ctx, opts, stdout, stderr := o.io.Ctx, *o, o.io.Out, o.io.ErrOut
	var err error
	if opts.Dir, err = findCatalogDir("build", opts.Dir); err != nil {
		return err
	}
	if opts.Origin != "" {
		if _, err := spec.ParseOrigin(opts.Origin); err != nil {
			return cmdutil.UsageError{Err: fmt.Errorf("--origin: %w", err)}
		}
	}
	jsonOut := opts.Format == build.FormatJSON
	prog := newProgress(stderr)
	defer prog.Stop()
	prog.Step("build: reading and checking the catalog", 0)
	cat, diags := build.Load(ctx, opts.Dir)
	prog.Clear()
	// A valid build's JSON carries its diagnostics with the rest, at the
	// end.
	if len(diags) > 0 && !jsonOut || jsonOut && diags.HasErrors() {
		if err := diags.Write(stdout, opts.Format); err != nil {
			return err
		}
	}
	if diags.HasErrors() {
		if opts.Format == build.FormatText {
			_ = cmdutil.PrintLine(stderr, "%s: %d %s; nothing written", opts.Dir, diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
		}
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	prog.Step(fmt.Sprintf("build: compiling %s", english.Count(len(cat.Tools), "tool", "tools")), 0)
	// Only the configuration is needed after Compile: the loaded tools,
	// their schemas and the declarations' text, the larger part of a big
	// catalog's memory, are garbage once the site is compiled.
	if opts.Origin != "" {
		cat.Config.SetOrigin(opts.Origin)
	}
	// The registry's versions and dates, from the catalog's Git history.
	if cat.History, err = build.ReadHistory(ctx, cmp.Or(opts.HistoryFrom, opts.Dir)); err != nil {
		return fmt.Errorf("build %s: %w", opts.Dir, err)
	}
	// The key signing: names, when the AI catalog is signed.
	if cat.Signer, err = openSigner(ctx, opts.Dir, &cat.Config); err != nil {
		return fmt.Errorf("build %s: %w", opts.Dir, err)
	}
	cfg := cat.Config
	elsewhere := cat.ElsewhereCards()
	defer limitCompileMemory(cat)()
	b, err := build.Compile(ctx, cat)
	prog.Clear()
	if err != nil {
		return fmt.Errorf("build %s: %w", opts.Dir, err)
	}
	var t target.Target
	if opts.Target != "" {
		var ok bool
		if t, ok = cfg.Targets[opts.Target]; !ok {
			return cmdutil.UsageError{Err: fmt.Errorf("no target %q in %s: it declares %s", opts.Target, build.ConfigFile, targetNames(cfg.Targets))}
		}
	}
	host := hostFor(t, cfg.CompactView)
	if hosts.ServesVariants(host) {
		prog.Step("build: compressing the large documents", 0)
		roomToPrecompress()
		err := b.Precompress(ctx)
		prog.Clear()
		if err != nil {
			return fmt.Errorf("build %s: %w", opts.Dir, err)
		}
	}
	if opts.Verify {
		if err := verifyBuild(ctx, opts, b, host, stdout, stderr); err != nil {
			return err
		}
	}
	prog.Step("build: writing the site", 0)
	report, err := host.Write(ctx, b, opts.Out)
	prog.Stop()
	if err != nil {
		return outHint(err)
	}
	if jsonOut {
		return writeBuildJSON(stdout, diags, opts, b, report)
	}
	if report != nil {
		if err := report.WriteText(stdout); err != nil {
			return err
		}
	}
	if err := printSummary(stdout, opts.Out, b); err != nil {
		return err
	}
	if err := printElsewhere(stdout, elsewhere); err != nil {
		return err
	}
	if opts.Verify {
		_, err := fmt.Fprintln(stdout, "verified: two more builds, from other folders, file orders, TZ and locale, are the same, byte for byte")
		return err
	}
	return nil
}

// hostFor is the layout of the host a target publishes to; a build for no
// target has the plain layout.
func hostFor(t target.Target, compactView bool) hosts.Host {
	switch {
	case t.S3 != nil:
		return cloudfront.Host{Target: t.S3, CompactView: compactView}
	case t.GitHubPages:
		return pages.Host{}
	case t.Cloudflare != nil:
		return cloudflare.Host{Name: t.Cloudflare.Name}
	case t.Netlify:
		return netlify.Host{}
	}
	return hosts.Plain{}
}

// outHint adds to a *output.NotReplaceableError what to give --out instead.
func outHint(err error) error {
	var nr *output.NotReplaceableError
	switch {
	case !errors.As(err, &nr):
		return err
	case nr.File:
		return fmt.Errorf("%w: choose another --out", err)
	}
	return fmt.Errorf("%w: choose an empty or new folder for --out", err)
}

// targetNames lists the declared targets for a message.
func targetNames(targets map[string]target.Target) string {
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

// buildReport is what build --format json prints of a site it wrote: the
// diagnostics as validate prints them, and all the text says besides (the
// schema build-report describes it).
type buildReport struct {
	Valid       bool              `json:"valid"`
	Errors      int               `json:"errors"`
	Warnings    int               `json:"warnings"`
	Diagnostics build.Diagnostics `json:"diagnostics"`
	// Out is the output folder, RouteTable the route table in it.
	Out        string        `json:"out"`
	RouteTable string        `json:"routeTable"`
	Sites      []siteSummary `json:"sites"`
	// Target is the target built for; Host, the report of a host that
	// cannot serve all of the contract.
	Target   string       `json:"target,omitempty"`
	Host     *hostSummary `json:"host,omitempty"`
	Verified bool         `json:"verified"`
}

// siteSummary is a line of the text's summary table.
type siteSummary struct {
	Tenant    string `json:"tenant"`
	Folder    string `json:"folder"`
	Tools     int    `json:"tools"`
	Documents int    `json:"documents"`
	// List is /tools; Compact, /tools?view=compact, null when the
	// compact view is off.
	List    listSize  `json:"list"`
	Compact *listSize `json:"compact"`
}

type listSize struct {
	Bytes  int64 `json:"bytes"`
	Tokens int   `json:"tokens"`
}

// hostSummary is a host's report as the text prints it.
type hostSummary struct {
	Host      string     `json:"host"`
	Limits    []string   `json:"limits"`
	Sites     []hostSite `json:"sites"`
	Deploying []string   `json:"deploying"`
}

type hostSite struct {
	hosts.SiteReport
	// Lines are the text's lines of the site's gaps.
	Lines []string `json:"lines"`
	// URLRight counts the routes, beyond the exact ones, whose URL and
	// Content-Type are right.
	URLRight int `json:"urlRight"`
}

// writeBuildJSON prints the buildReport of b, written to opts.Out.
func writeBuildJSON(w io.Writer, diags build.Diagnostics, opts buildOptions, b *output.Build, report *hosts.Report) error {
	r := buildReport{
		Valid: !diags.HasErrors(), Errors: diags.Errors(), Warnings: len(diags) - diags.Errors(), Diagnostics: diags,
		Out: filepath.ToSlash(opts.Out), RouteTable: filepath.ToSlash(filepath.Join(opts.Out, output.RouteTableFile)),
		Sites: []siteSummary{}, Target: opts.Target, Verified: opts.Verify,
	}
	if r.Diagnostics == nil {
		r.Diagnostics = build.Diagnostics{}
	}
	for _, s := range b.Sites {
		sum := siteSummary{Tenant: s.Tenant, Folder: filepath.ToSlash(filepath.Join(opts.Out, s.Dir)), Tools: s.Tools, Documents: len(s.Documents),
			List: listSize{s.Bytes("/tools", spec.ViewStandard), s.Tokens.Standard}}
		if compact := s.Bytes("/tools", spec.ViewCompact); compact > 0 {
			sum.Compact = &listSize{compact, s.Tokens.Compact}
		}
		r.Sites = append(r.Sites, sum)
	}
	if report != nil {
		h := &hostSummary{Host: report.Host, Limits: report.Limits, Deploying: report.Deploying, Sites: []hostSite{}}
		if h.Limits == nil {
			h.Limits = []string{}
		}
		for _, s := range report.Sites {
			if s.Gaps == nil {
				s.Gaps = []hosts.Gap{}
			}
			lines := s.Lines
			if lines == nil {
				lines = []string{}
			}
			h.Sites = append(h.Sites, hostSite{SiteReport: s, Lines: lines, URLRight: s.URLRight})
		}
		r.Host = h
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// elsewhereShown is how many servers printElsewhere names one line each.
const elsewhereShown = 10

// printElsewhere prints the lines of build.Catalog.ElsewhereCards: the
// first elsewhereShown, then how many more there are, so that a catalog of
// thousands of servers hosted elsewhere does not bury its summary.
func printElsewhere(w io.Writer, lines []string) error {
	for i, line := range lines {
		if i == elsewhereShown {
			_, err := fmt.Fprintf(w, "and %d more %s with an endpoint on another origin: the MCP server there must serve its own card at <endpoint>/server-card\n", len(lines)-i, english.Plural(len(lines)-i, "server", "servers"))
			return err
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

func printSummary(w io.Writer, out string, b *output.Build) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SITE\tTOOLS\tDOCUMENTS\t/tools\t/tools?view=compact\tFOLDER")
	for _, s := range b.Sites {
		name := s.Tenant
		if name == "" {
			name = "(all)"
		}
		std, compact := s.Bytes("/tools", spec.ViewStandard), s.Bytes("/tools", spec.ViewCompact)
		tok := s.Tokens
		compactCol := "off"
		switch {
		case compact > 0 && s.Tools == 0:
			// Both lists are a few bytes of framing: a ratio says nothing.
			compactCol = fmt.Sprintf("%s, %d tokens", english.Bytes(compact), tok.Compact)
		case compact > 0:
			compactCol = fmt.Sprintf("%s, %d tokens (%d%%)", english.Bytes(compact), tok.Compact, tok.Compact*100/max(tok.Standard, 1))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s, %d tokens\t%s\t%s\n", name, s.Tools, len(s.Documents),
			english.Bytes(std), tok.Standard, compactCol, filepath.ToSlash(filepath.Join(out, s.Dir)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "route table: %s\n", filepath.ToSlash(filepath.Join(out, output.RouteTableFile)))
	return err
}
