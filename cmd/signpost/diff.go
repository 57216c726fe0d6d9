package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/internal/catalogdir"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/diff"
	"github.com/signpost-dev/signpost/internal/git"
	"github.com/signpost-dev/signpost/internal/terminal"
)

// diffOptions are the IO, arguments and flags of signpost diff.
type diffOptions struct {
	io     cmdutil.Streams
	sides  diff.Options
	format string
	failOn string
	// kinds are the risk kinds of --fail-on, nil without it.
	kinds []string
}

// newDiffCmd is signpost diff; runF, runDiff when nil, runs it with the
// options the command line gives.
func newDiffCmd(runF func(*diffOptions) error) *cobra.Command {
	if runF == nil {
		runF = runDiff
	}
	opts := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changes between two versions of a catalog, risks first",
		Long: `Diff compares two versions of a catalog and reports the tenants, tools,
servers and other documents (discovery catalogs, server cards) added,
removed and changed, and first of all the risks a reviewer should look at
twice. Each side is one of:

  - a catalog folder (it is validated and built in memory),
  - a built site: a folder with routes.json, as signpost build writes it,
  - a Git revision of the repository (main, HEAD~1, v1.2.0, a commit SHA):
    the catalog folder at that commit is extracted and built.

An argument that names an existing path is a path, even when a branch or
tag has the same name; write the revision differently (refs/heads/NAME) to
mean the revision. Revisions are read from the Git repository that contains
--repo (default: the current folder); the catalog is the folder --catalog
inside it, relative to the repository's top. Without --catalog it is the
other side's place in the repository when that side is a catalog folder of
the same repository, and otherwise where --repo is in the repository, so the
current folder's place. So "signpost diff HEAD~1 ." inside a catalog folder,
or "signpost diff main catalogs/example" from the top, shows what the
working copy changes. Only the files the catalog can be read from are
extracted, as the commit holds them (its .gitattributes are not applied):
*.yaml and *.yml outside folders whose names start with ".", and *.json;
links, submodules and other files are skipped. When the OLD revision has no
catalog (no such folder, or no signpost.yaml in it) at the very place where
the NEW side is a catalog, the change adds the catalog: it is compared with
an empty one, with a note. Anything else without a catalog (a typo in
--catalog, a NEW side elsewhere or without the folder) is an error.

Risks, in the order reports list them:
  tier-raised            a tool's safetyTier went up: pure < read < write < exec
  egress-widened         a tool's egress went up: none < internal < internet
  replay-loosened        a tool's replayPolicy went from stricter to looser:
                         deterministic < idempotent < keyed < unsafe
  tool-added             a new tool whose safetyTier is write or exec
  tool-removed           a toolId is gone, from every tenant or from one;
                         or a tenant's site is gone
  tool-reassigned        a toolId now names another tool: its MCP server,
                         MCP name or source changed
  access-opened          a gated tenant's site is gated no more, or its
                         discovery catalogs are now public
  tenant-widened         a tool is published to a tenant that did not see
                         it, or there is a new tenant
  compact-changed        the compact view was switched on or off, or a tool's
                         compact descriptor changed while its standard one
                         did not
  server-added           a new MCP server: a new endpoint clients send
                         their credentials to
  server-removed         an MCP server is no longer published
  server-remote-changed  a server's remote endpoints changed (one added or
                         removed, or its URL variables or headers), or the
                         card URL of a server another host serves
  registry-added         a server is now in a site's MCP registry: VS Code
                         and Copilot offer it, Copilot CLI allows it
  registry-removed       a server is no longer in a site's MCP registry:
                         Copilot CLI refuses it
  registry-renamed       a server of the registry is listed under another
                         name (same remote, or same title and description)
  version-backwards      the latest version the registry lists for a server
                         comes before the one it listed (semantic versions)
  origin-changed         the site's origin or publisher, as the discovery
                         catalogs publish them, changed
  identifier-changed     the AI catalog identifier of a server or of a
                         site's tool catalog changed (clients key on it)
  route-removed          a route other than the tools' is no longer
                         published: a discovery catalog switched off, a
                         server card moved or removed
  target-changed         where the site is published changed: a target of
                         signpost.yaml added or removed, or its bucket,
                         prefix, region, endpoint, distribution or function
                         names (not known for a built site)
  limits-raised          a limit of signpost.yaml on what a build may write
                         was raised (not known for a built site)

--format text (default) is for people, json is the whole change with stable
field names, markdown is a report for a pull-request comment or a GitHub job
summary. --fail-on KIND,... exits 1 after printing when one of those risks
is present ("any" for any risk). Exit status: 0 when done, 1 when a side is
invalid or cannot be read or a --fail-on risk is present, 2 for bad usage.`,
		Example: `  signpost diff HEAD~1 .                          # inside a catalog folder
  signpost diff main HEAD --catalog catalogs/example
  signpost diff main catalogs/example             # the working copy, from the top
  signpost diff site-old catalogs/example         # a built site against a catalog
  signpost diff main . --format markdown >> "$GITHUB_STEP_SUMMARY"
  signpost diff main . --fail-on tier-raised,egress-widened,tool-removed`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			if f.Changed("fail-on") {
				var err error
				if opts.kinds, err = diff.ParseRiskKinds(opts.failOn); err != nil {
					return cmdutil.UsageError{Err: fmt.Errorf("--fail-on: %w", err)}
				}
			}
			if f.Changed("catalog") && opts.sides.Catalog == "" {
				opts.sides.Catalog = "." // the top, not the default
			}
			opts.io, opts.sides.Old, opts.sides.New = cmdutil.StreamsOf(cmd), args[0], args[1]
			return runF(opts)
		},
	}
	f := cmd.Flags()
	cmdutil.EnumVar(f, &opts.format, "format", build.FormatText, []string{build.FormatText, build.FormatJSON, diff.FormatMarkdown}, "output format: text, json or markdown")
	f.StringVar(&opts.failOn, "fail-on", "", "exit 1 when one of these risks (comma-separated, or any) is present: "+strings.Join(diff.RiskKinds(), ", "))
	f.StringVar(&opts.sides.Repo, "repo", ".", "a folder inside the Git repository that revisions are read from")
	f.StringVar(&opts.sides.Catalog, "catalog", "", "the catalog's folder inside the repository, relative to its top, for revisions (default: the other side's place when it is a catalog folder of the repository, else the place of --repo)")
	return cmd
}

// runDiff compares the two sides and prints the change, then fails when it
// carries a risk that --fail-on names. The notes of the sides are printed
// once both are read, before the change or the error.
func runDiff(opts *diffOptions) error {
	ctx, stdout, stderr := opts.io.Ctx, opts.io.Out, opts.io.ErrOut
	var notes cmdutil.Lines
	opts.sides.Note = func(msg string) { notes.Add("signpost: %s", msg) }
	change, err := diff.Run(ctx, opts.sides)
	if werr := notes.Write(stderr); werr != nil {
		return werr
	}
	if err != nil {
		return diffError(stderr, err)
	}
	if err := change.Write(stdout, opts.format); err != nil {
		return err
	}
	if found := foundRisks(change, opts.kinds); len(found) > 0 {
		_ = cmdutil.PrintLine(stderr, "signpost: the change carries %s, which --fail-on %s names", strings.Join(found, ", "), opts.failOn)
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	return nil
}

// foundRisks returns the kinds of the change's risks that kinds names, each
// once, in report order.
func foundRisks(c *diff.Change, kinds []string) []string {
	var found []string
	for _, r := range c.Risks {
		if (slices.Contains(kinds, diff.RiskAny) || slices.Contains(kinds, r.Kind)) && !slices.Contains(found, r.Kind) {
			found = append(found, r.Kind)
		}
	}
	return found
}

// safeError prints its error as terminal.Safe does: diff's messages name
// files and folders of the repository, which a change may name with
// control characters.
type safeError struct{ err error }

func (e safeError) Error() string { return terminal.Safe(e.err.Error()) }
func (e safeError) Unwrap() error { return e.err }

// diffError words an error of diff.Run for the command line, made
// terminal-safe: the diagnostics of an invalid catalog first, and what to
// do next, with the flags that say it. The errors of internal/git and diff
// that call for a hint end the message they are in, so it goes at its end.
func diffError(stderr io.Writer, err error) error {
	var (
		malformed  *diff.MalformedError
		invalid    *diff.InvalidError
		notRepo    *git.NotRepoError
		noFolder   *git.NoFolderError
		notCatalog *diff.NotCatalogError
		limit      *git.LimitError
		outside    *git.OutsideError
		below      *catalogdir.BelowError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &malformed):
		return err // as Compare words it
	case errors.As(err, &invalid):
		// Diagnostics name the catalog's files: terminal-safe, as notes.
		for _, d := range invalid.Diagnostics {
			if d.Severity == build.Error {
				fmt.Fprintln(stderr, terminal.Safe(d.String()))
			}
		}
		return safeError{err}
	case errors.As(err, &outside):
		// The path is the flag's value: the flag goes before it.
		msg = strings.TrimSuffix(msg, outside.Error()) + "--catalog " + outside.Error()
	case errors.As(err, &notRepo):
		msg += ": run signpost diff in the repository, name it with --repo, or compare catalog folders and built sites instead"
	case errors.Is(err, git.ErrNotInstalled):
		msg += ": install it to compare revisions, or compare catalog folders and built sites instead"
	case errors.As(err, &noFolder), errors.As(err, &notCatalog):
		msg += ": name the catalog's folder, relative to the repository's top, with --catalog"
	case errors.As(err, &below) && below.Total == 1:
		msg += ": compare " + below.Found[0] + " instead"
	case errors.As(err, &below):
		msg += ": compare one of them instead"
	case errors.As(err, &limit):
		msg += ": name the catalog's own folder with --catalog"
	default:
		return safeError{err}
	}
	return safeError{cmdutil.HintedError{Msg: msg, Err: err}}
}
