package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/export"
	"github.com/signpost-dev/signpost/internal/atomicfile"
	"github.com/signpost-dev/signpost/internal/english"
)

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the policies that allow a site's MCP servers in Copilot and Cline",
		Long: `Export writes, from the same declarations as the site, the policy that lets an
organization's MCP clients run the servers a tenant's site publishes as its own,
and no other: GitHub Copilot's managed settings (Copilot CLI, VS Code and the
other Copilot clients) and Cline's remote configuration.

A site's own servers are its declared servers but those whose card another
host serves (cardUrl): every tenant's site publishes them all. Each export is
JSON, two-space indented with its keys sorted, the same bytes for the same
declarations: commit it, or deploy it, beside the site it belongs to.`,
		Args: cmdutil.NoSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newExportManagedSettingsCmd(nil), newExportClineCmd(nil))
	return cmd
}

// The exports, as exportOptions.kind names them.
const (
	exportManagedSettings = "managed-settings"
	exportCline           = "cline"
)

// exportOptions are the IO, argument and flags of signpost export
// managed-settings and signpost export cline.
type exportOptions struct {
	io cmdutil.Streams
	// kind is the export: exportManagedSettings or exportCline.
	kind   string
	dir    string
	tenant string
	// out is the file to write; empty (or -) writes to stdout.
	out string
}

// newExportManagedSettingsCmd is signpost export managed-settings; runF,
// runExport when nil, runs it with the options the command line gives.
func newExportManagedSettingsCmd(runF func(*exportOptions) error) *cobra.Command {
	return newExportKindCmd(runF, exportManagedSettings, &cobra.Command{
		Use:   "managed-settings [DIR]",
		Short: "Write the allowedMcpServers of GitHub Copilot's managed-settings.json",
		Long: `Managed-settings writes the fragment of GitHub Copilot's managed-settings.json
that allows the MCP servers the site of --tenant publishes, and nothing else:
{"allowedMcpServers": [...]}, each entry with exactly one matcher.

A remote server is allowed by serverUrl: the URL it declares. A URL with
{variables} becomes one URL per value when every variable has a fixed value or
choices, else a pattern with the wildcards GitHub's matching accepts: "*" for
the subdomain a variable of the host stands for, and for the rest of a path or
query from its first variable (https://{region}.mcp.example.com/billing is
https://*.mcp.example.com/billing). A server with several remotes gets an entry
for each. A server without remotes can be allowed only by serverName, which
matches the name a user gives a server in their own configuration: a note on
stderr says so, as it says where a wildcard stands for a variable.

Merge the fragment into the managed-settings.json your enterprise deploys
(stored on GitHub or installed by device management): Copilot clients then
block every MCP server that matches no entry, built-in servers aside. The
document is written to --out, replaced atomically, or to stdout; everything
else goes to stderr.`,
		Example: `  signpost export managed-settings catalogs/example --tenant acme
  signpost export managed-settings --tenant acme --out policy/managed-settings.json
  signpost export managed-settings --tenant acme | jq -s '.[0] * .[1]' base-settings.json - > managed-settings.json`,
	})
}

// newExportClineCmd is signpost export cline; runF, runExport when nil,
// runs it with the options the command line gives.
func newExportClineCmd(runF func(*exportOptions) error) *cobra.Command {
	return newExportKindCmd(runF, exportCline, &cobra.Command{
		Use:   "cline [DIR]",
		Short: "Write the MCP settings of Cline's remote configuration",
		Long: `Cline writes the MCP part of Cline's remote configuration for the site of
--tenant: allowedMCPServers, an {"id": NAME} for every server the site
publishes, so that a server a user configures runs only under one of those
names; remoteMCPServers, a {"name": NAME, "url": URL} for every server with a
remote, pushed to every user; and blockPersonalRemoteMCPServers: true, so that
users add no remote server of their own.

Cline takes one URL per server, as it is: of a server's remotes, the first
streamable-http one (else the first), its {variables} filled with their fixed
value or their default; a variable with neither is an error. Headers are left
out, for a secret one is each user's own: a note on stderr names the headers a
remote declares.

Merge the fragment into your organization's Cline remote configuration. The
document is written to --out, replaced atomically, or to stdout; everything
else goes to stderr.`,
		Example: `  signpost export cline catalogs/example --tenant acme
  signpost export cline --tenant acme --out policy/cline.json`,
	})
}

// newExportKindCmd completes cmd, the command of one kind of export, with
// its arguments, flags and run function.
func newExportKindCmd(runF func(*exportOptions) error, kind string, cmd *cobra.Command) *cobra.Command {
	if runF == nil {
		runF = runExport
	}
	o := &exportOptions{kind: kind}
	cmd.Args = cobra.MaximumNArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.io, o.dir = cmdutil.StreamsOf(cmd), catalogDir(args)
		return runF(o)
	}
	cmd.Flags().StringVar(&o.tenant, "tenant", "", "tenant whose site's servers to allow (required when the catalog has tenants)")
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "file to write, replaced atomically (default: stdout)")
	return cmd
}

// runExport loads the catalog of o and writes its export: the document to
// o.out or stdout, the notes and the summary to stderr.
func runExport(o *exportOptions) error {
	ctx, stderr := o.io.Ctx, o.io.ErrOut
	command := "export " + o.kind
	var err error
	if o.dir, err = findCatalogDir(command, o.dir); err != nil {
		return err
	}
	prog := newProgress(stderr)
	prog.Step(command+": reading and checking the catalog", 0)
	cat, diags := build.Load(ctx, o.dir)
	prog.Stop()
	// The document may go to stdout: every diagnostic goes to stderr.
	if len(diags) > 0 {
		if err := diags.Write(stderr, build.FormatText); err != nil {
			return err
		}
	}
	if diags.HasErrors() {
		_ = cmdutil.PrintLine(stderr, "%s: %d %s; nothing exported", o.dir, diags.Errors(), english.Plural(diags.Errors(), "error", "errors"))
		return cmdutil.ReportedError{Code: cmdutil.ExitInvalid}
	}
	fn := export.ManagedSettings
	if o.kind == exportCline {
		fn = export.Cline
	}
	doc, err := fn(cat, o.tenant)
	var te *output.TenantError
	if errors.As(err, &te) {
		return cmdutil.UsageError{Err: tenantHint(err)}
	}
	if err != nil {
		return err
	}
	var report cmdutil.Lines
	for _, n := range doc.Notes {
		report.Add("note: %s", n)
	}
	allowed := fmt.Sprintf("%s of %s allowed", english.Count(len(doc.Servers), "MCP server", "MCP servers"), spec.SiteName(o.tenant))
	if o.out == "" || o.out == "-" {
		report.Add("%s", allowed)
		if err := report.Write(stderr); err != nil {
			return err
		}
		_, err := o.io.Out.Write(doc.JSON)
		return err
	}
	if err := report.Write(stderr); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(ctx, o.out, doc.JSON); err != nil {
		return err
	}
	return cmdutil.PrintLine(stderr, "wrote %s: %s", o.out, allowed)
}
