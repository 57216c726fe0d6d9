// Package importcmd is the command signpost import and its three
// subcommands, each an options struct with its IO, newImportXCmd(runF) and
// one runImportX, over the importer package: server (MCP registry
// server.json documents, import.go), mcp (recorded tools/list results, or
// a running server read through live, live.go) and openapi (openapi.go).
// Each holds what it would write to build's own rules first (verify.go),
// and takes the host's classification of tools (classify.go).
package importcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/importer"
	"github.com/signpost-dev/signpost/internal/atomicfile"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/live"
)

// NewCmd is signpost import, with its subcommands server, mcp and openapi.
func NewCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Turn documents published elsewhere into declarations",
		Long: `Import reads documents published elsewhere and writes signpost declarations
from them, to review and commit. "import server" reads MCP registry server.json
documents; "import mcp" reads recorded MCP tools/list results; "import openapi"
reads an OpenAPI document.`,
		Example: `  signpost import server server.json -o servers.yaml
  signpost import mcp github.tools-list.json --server com.example/github -o github.yaml
  signpost import openapi petstore.yaml -o petstore.yaml`,
		Args: cmdutil.NoSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newImportServerCmd(nil), newImportMCPCmd(nil), newImportOpenAPICmd(nil))
	return cmd
}

// importServerOptions are the IO, arguments and flags of signpost import
// server.
type importServerOptions struct {
	io     cmdutil.Streams
	files  []string
	out    string
	strict bool
	// quiet leaves out the line of each server imported as it is.
	quiet bool
	// writeInvalid writes the declarations even when build would refuse
	// them.
	writeInvalid bool
}

// newImportServerCmd is signpost import server; runF, runImportServer when
// nil, runs it with the options the command line gives.
func newImportServerCmd(runF func(*importServerOptions) error) *cobra.Command {
	if runF == nil {
		runF = runImportServer
	}
	o := &importServerOptions{}
	cmd := &cobra.Command{
		Use:   "server FILE...",
		Short: "Declare the servers of MCP registry server.json documents",
		Long: `Import server reads MCP registry server.json documents and writes the server
declarations (YAML) of those that describe remote endpoints, which is what a
server card publishes.

A FILE holds one server.json document, a JSON array of them, or a registry API
response: a list ({"servers": [{"server": {...}, "_meta": {...}}, ...]}, as
GET /v0/servers returns it) or a single entry. "-" reads standard input.

Every document is reported on stderr, one line each:

  FILE: NAME: imported (NOTES)
  FILE: NAME: not publishable as a card: REASON
  FILE: NAME: invalid: REASON

When nothing is written (see the exit status below), an importable document
is reported as "would be imported" instead.

A document with neither a remote nor a package a declaration can hold has
nothing to publish. An invalid one breaks the registry schema where it matters
for a card: its name, version (an exact one, not a range) or description is
missing or wrong, or a remote has no usable transport or URL. A second document with
the same name is invalid too: a catalog declares each server once.

An imported server keeps the card fields: name, version, description, title,
websiteUrl, repository, icons, remotes (headers, variables) and _meta, and
its packages. The notes say what changed: a package that does not pin what
it runs (an exact version, an image's tag, a bundle's SHA-256) is left out;
a description over 100 characters is cut at a word; an empty repository is dropped, and so are _meta
keys under a prefix MCP reserves (the registry's among them) and the value,
default or choices of a secret header or variable, since a secret is never
published; a {variable} that a URL or header value uses but does not declare
is declared.

The declarations go to stdout, or to OUT with -o, under a comment naming the
source of each server. Exit status is 0 even when some documents are not
imported; 1 when a FILE cannot be read or is not JSON of these shapes, or,
with --strict, when a document is invalid (in both cases nothing is written).` + importVerifyHelp,
		Example: `  signpost import server server.json
  signpost import server servers/*.json -o catalogs/example/servers.yaml
  curl -s 'https://registry.modelcontextprotocol.io/v0/servers?search=weather' |
    signpost import server - -o servers.yaml
  signpost import server --strict registry.json -o servers.yaml   # fail on invalid documents`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.UsageError{Err: errors.New("import server needs at least one FILE (- for standard input)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io, o.files = cmdutil.StreamsOf(cmd), args
			return runF(o)
		},
	}
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "write the declarations to this file instead of stdout")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1, writing nothing, when a document is invalid")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print only the problems and the summary, not a line for each server imported")
	writeInvalidFlag(cmd, &o.writeInvalid)
	return cmd
}

// runImportServer imports the server.json documents of o's files and
// writes their declarations.
func runImportServer(o *importServerOptions) error {
	stderr, strict := o.io.ErrOut, o.strict

	// Import every file first: a name may repeat across files.
	type fileResult struct {
		label string
		err   error
		docs  int
	}
	var files []fileResult
	var all []importer.Server
	for _, arg := range o.files {
		label, data, err := readImportFile(o.io.In, arg)
		if err == nil {
			var list []importer.Server
			list, err = importer.Servers(label, data)
			all = append(all, list...)
			files = append(files, fileResult{label: label, err: err, docs: len(list)})
			continue
		}
		files = append(files, fileResult{label: label, err: err})
	}
	all = importer.MarkDuplicates(all)

	// Whether anything is written is decided before the report, so that
	// no line says a document was imported when nothing is written.
	counts := map[string]int{}
	failed := 0
	for _, f := range files {
		if f.err != nil {
			failed++
		}
	}
	for _, s := range all {
		counts[s.Status]++
	}
	writes := failed == 0 && !(strict && counts[importer.Invalid] > 0)
	var decl []byte
	var verified verifiedImport
	if writes {
		var err error
		if decl, err = importer.ServersYAML(all); err != nil {
			return err
		}
		if verified, err = verifyImport(o.io.Ctx, o.out, decl, o.writeInvalid); err != nil {
			return err
		}
		writes = !verified.refused
	}

	// Errors first: they are why nothing is written, and would be lost
	// after a line per document. Names and reasons come from the
	// documents: every line leaves through report.
	var report cmdutil.Lines
	for _, f := range files {
		if f.err != nil {
			report.Add("%v", f.err)
		}
	}
	next := 0
	for _, f := range files {
		if f.err != nil {
			continue
		}
		if f.docs == 0 {
			report.Add("%s: no server documents", f.label)
		}
		for _, s := range all[next : next+f.docs] {
			if !o.quiet || s.Status != importer.Imported {
				report.Add("%s", importLine(s, writes))
			}
		}
		next += f.docs
	}
	verified.add(&report)

	// When nothing is written, the counts say what the documents would
	// have become, not that they were imported.
	summaryOf := func(read, imported string) string {
		return fmt.Sprintf("%d %s%s: %d %s, %d not publishable as a card, %d invalid",
			len(all), english.Plural(len(all), "document", "documents"), read,
			counts[importer.Imported], imported, counts[importer.NoRemotes], counts[importer.Invalid])
	}
	if failed > 0 {
		report.Add("%s; %d %s not imported; nothing written", summaryOf(" read", "could be imported"), failed, english.Plural(failed, "file", "files"))
		return reportedOr(report.Write(stderr), cmdutil.ExitInvalid)
	}
	if verified.refused {
		report.Add("%s; %s", summaryOf(" read", "could be imported"), verified.refusal())
		return reportedOr(report.Write(stderr), cmdutil.ExitInvalid)
	}
	if !writes {
		report.Add("%s; nothing written (--strict)", summaryOf(" read", "could be imported"))
		return reportedOr(report.Write(stderr), cmdutil.ExitInvalid)
	}
	return writeImported(o.io.Ctx, o.io.Out, stderr, &report, o.out, summaryOf("", "imported"), decl)
}

// reportedOr is err when printing the report failed, else the
// cmdutil.ReportedError of code.
func reportedOr(err error, code int) error {
	if err != nil {
		return err
	}
	return cmdutil.ReportedError{Code: code}
}

// writeImported prints the report of an import, then writes the
// declarations it made to out, or to stdout when out is empty, and ends
// the report with its summary.
func writeImported(ctx context.Context, stdout, stderr io.Writer, report *cmdutil.Lines, out, summary string, decl []byte) error {
	if out == "" {
		report.Add("%s", summary)
		if err := report.Write(stderr); err != nil {
			return err
		}
		_, err := stdout.Write(decl)
		return err
	}
	if err := report.Write(stderr); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(ctx, out, decl); err != nil {
		return err
	}
	return cmdutil.PrintLine(stderr, "%s; wrote %s", summary, out)
}

// importLine is the report line of one document: names and reasons come
// from the document, and the line leaves through lines, which redacts it
// and prints it safe for a terminal. written says whether the run writes
// the declarations: when it does not, a document that is fine would be
// imported, and is not.
func importLine(s importer.Server, written bool) string {
	prefix := s.Source + ": "
	if s.Name != "" {
		prefix += s.Name + ": "
	}
	switch s.Status {
	case importer.Imported:
		return prefix + importedWord(written) + notes(s.Reason)
	case importer.NoRemotes:
		return prefix + "not publishable as a card: " + s.Reason
	}
	return prefix + "invalid: " + s.Reason
}

// readImportFile reads a FILE argument ("-" is standard input) and returns
// the label its documents are reported under.
func readImportFile(stdin io.Reader, arg string) (string, []byte, error) {
	if arg == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return "stdin", nil, fmt.Errorf("stdin: cannot read: %w", err)
		}
		return "stdin", data, nil
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return arg, nil, fmt.Errorf("%s: cannot read: %w", arg, err)
	}
	return arg, data, nil
}

// importMCPOptions are the IO, arguments and flags of signpost import mcp.
type importMCPOptions struct {
	io                       cmdutil.Streams
	files                    []string
	out, server, prefix      string
	classify, replay, egress []string
	strict                   bool
	// quiet leaves out the line of each tool imported.
	quiet bool
	// writeInvalid writes the declarations even when build would refuse
	// them.
	writeInvalid bool
	// mcp is what the flags say of the tools, once parsed.
	mcp importer.MCPOptions
	// endpoint is the server to read live (--url, or --command and the
	// arguments after --); nil when FILEs are read. headerFile and
	// headerEnv say where its headers come from.
	url, save  string
	command    bool
	headerFile string
	headerEnv  []string
	endpoint   *live.Endpoint
	live       live.Options
}

// newImportMCPCmd is signpost import mcp; runF, runImportMCP when nil, runs
// it with the options the command line gives.
func newImportMCPCmd(runF func(*importMCPOptions) error) *cobra.Command {
	if runF == nil {
		runF = runImportMCP
	}
	o := &importMCPOptions{}
	cmd := &cobra.Command{
		Use:   "mcp FILE... | --url URL | --command -- CMD [ARGS...]",
		Short: "Declare the tools of recorded MCP tools/list results, or of a running server",
		Long: `Import mcp reads recorded MCP tools/list results, or asks a running MCP server,
and writes tool declarations (YAML) of their tools, to review and commit.

With --url, it connects to the server's Streamable HTTP endpoint; with
--command, it runs the command after -- as a stdio server. Either way it
initializes, reads every page of tools/list (at most --max-pages, all within
--deadline) through the official MCP Go SDK's client, and imports the result
exactly as it would import the recording --save writes: the server's
serverInfo and instructions beside every tool. The declarations name the
recording (--save FILE) as their source, so that importing FILE later gives
the same bytes; without --save they name the endpoint (the URL without its
credentials, or stdio: and the command's program).

Headers for an HTTP endpoint (an Authorization token) never come from the
command line: --header-file FILE holds "Name: value" lines (# starts a
comment), and --header-env NAME=VAR sends header NAME with the value of the
environment variable VAR. No header value is written to the declarations,
the recording or any message, even when the server echoes it back. --url
connects to public addresses only: a loopback, private or link-local one
(127.0.0.1, 10.0.0.0/8, 169.254.169.254, ...) needs --allow-private, and a
redirect is never followed.

A FILE holds what an mcp: import of a catalog reads: a bare array of MCP Tool
objects, a tools/list result ({"tools": [...], "nextCursor": ...}), a JSON-RPC
response carrying one, or an array of such pages (a paginated listing). "-"
reads standard input.

Every tool gets source: mcp. The server's annotations (readOnlyHint and the
others) are ignored: they are the server's claims, not the host's decision;
they are shown in a comment beside the tool, for the reviewer. Three flags
classify tools, each VALUE=NAME[,NAME...] and repeatable:

  --classify TIER     safetyTier: pure, read or write (default write)
  --replay POLICY     replayPolicy: deterministic, idempotent, keyed or unsafe
                      (default: deterministic for pure, idempotent for read,
                      else unsafe)
  --egress EGRESS     egress: none, internal or internet (default internet)

A NAME is an MCP name or a pattern of names: * matches any run of
characters, ? one character, [...] one of a set (quote it from the shell:
--classify 'read=get_*,list_*'). A name wins over the patterns that match
it; two patterns of one flag that give one tool different values are an
error, as is a NAME or pattern that no recorded tool has or matches. Any
combination of the three is a valid declaration (a keyed tool is published
with a reserved idempotency-key argument added to its input).

A toolId is derived from the MCP name as an mcp: import derives it (snake
case, with --tool-id-prefix, a digest suffix on collisions). The MCP name is
kept in the comment above the tool.

Every tool is reported on stderr, one line each:

  FILE#POINTER: NAME: imported
  FILE#POINTER: NAME: imported (NOTES)
  FILE#POINTER: NAME: left out: REASON

When nothing is written (see the exit status below), an importable tool is
reported as "would be imported" instead.

Each declaration written passes the checks "signpost validate" makes of a
tool (its toolId may still collide with another tool of the catalog: give
each server its own --tool-id-prefix). The notes say what was changed to get
there:

  - an absent or empty inputSchema is written as {"type": "object"}, and one
    without a type gets "type": "object" (MCP tool arguments are objects);
  - draft-04 forms are converted: a boolean exclusiveMinimum or
    exclusiveMaximum becomes the bound itself, and a draft-04 schema's "id"
    becomes "$id" and its $schema draft-07;
  - a credential-looking value in a default, examples or example of a schema
    is removed (they only annotate: what the schema accepts is unchanged);
  - an outputSchema that cannot be published, for any of the reasons below
    that leave a tool out, is left out, and the tool kept.

A tool is left out when it has no name, repeats a name already recorded (in
any FILE or page: the first is kept), has no description, has credential
material in its title or description, or has an inputSchema that cannot be
repaired: not an object or not of type object, an invalid or external $ref,
a schema that is invalid, or credential material anywhere but a default,
examples or example: in a const, an enum, a title, a description, a pattern
or a property's name.

The declarations go to stdout, or to OUT with -o (written atomically), sorted
by MCP name, under a comment naming the FILEs. Exit status is 0 even when some
tools are left out; 1, writing nothing, when a FILE cannot be read or is not
a recording, when --classify, --replay or --egress names a tool no FILE
records or has a pattern that matches none (the closest recorded names are
offered) or two patterns that disagree about a tool, or, with --strict, when
a tool is left out (the summary then says how many tools could be
imported); 2 for bad usage: no FILE, or a malformed --classify, --replay,
--egress, --server or --tool-id-prefix.` + importVerifyHelp,
		Example: `  signpost import mcp github.tools-list.json
  signpost import mcp --url https://mcp.example.com/mcp --header-env Authorization=MCP_AUTH \
    --server com.example/weather --save weather.tools-list.json -o weather.yaml
  signpost import mcp --command --server com.example/everything -- npx -y @modelcontextprotocol/server-everything
  signpost import mcp page1.json page2.json --server com.example/github --tool-id-prefix gh \
    --classify read=get_issue,list_issues --classify pure=get_me -o catalogs/example/github.yaml
  signpost import mcp github.tools-list.json --classify 'read=get_*,list_*,search_*' \
    --replay 'keyed=create_*' --egress 'internal=*' -o github.yaml
  signpost import mcp --strict weather.json -o weather.yaml   # fail when a tool is left out`,
		Args: func(cmd *cobra.Command, args []string) error {
			return liveArgs(o, cmd.ArgsLenAtDash(), args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io = cmdutil.StreamsOf(cmd)
			if o.endpoint == nil {
				o.files = args
			}
			o.mcp = importer.MCPOptions{Server: o.server, ToolIDPrefix: o.prefix}
			if err := o.readEndpoint(); err != nil {
				return err
			}
			var err error
			if o.mcp.Classify, err = parseClassify(o.classify); err != nil {
				return cmdutil.UsageError{Err: err}
			}
			if o.mcp.Replay, err = parseRules(importer.FieldReplay, o.replay); err != nil {
				return cmdutil.UsageError{Err: err}
			}
			if o.mcp.Egress, err = parseRules(importer.FieldEgress, o.egress); err != nil {
				return cmdutil.UsageError{Err: err}
			}
			if err := o.mcp.Check(); err != nil {
				return cmdutil.UsageError{Err: fmt.Errorf("%w (--server, --tool-id-prefix, --classify, --replay, --egress)", err)}
			}
			return runF(o)
		},
	}
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "write the declarations to this file instead of stdout")
	cmd.Flags().StringVar(&o.server, "server", "", "the MCP server the tools belong to, as reverse-DNS/name (com.example/github)")
	cmd.Flags().StringVar(&o.prefix, "tool-id-prefix", "", "prepend PREFIX_ to every derived toolId (snake case, at most 16 characters)")
	cmd.Flags().StringArrayVar(&o.classify, "classify", nil, "TIER=NAME|PATTERN[,...]: the safety tier (pure, read or write) of the named MCP tools, or of those a pattern (*, ?, [...]) matches; repeatable")
	cmd.Flags().StringArrayVar(&o.replay, "replay", nil, "POLICY=NAME|PATTERN[,...]: the replayPolicy (deterministic, idempotent, keyed or unsafe) of the named or matched MCP tools; repeatable")
	cmd.Flags().StringArrayVar(&o.egress, "egress", nil, "EGRESS=NAME|PATTERN[,...]: the egress (none, internal or internet) of the named or matched MCP tools; repeatable")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1, writing nothing, when a tool is left out")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print only the problems and the summary, not a line for each tool imported")
	liveFlags(cmd.Flags(), &o.headerFile, &o.headerEnv, &o.live)
	cmd.Flags().StringVar(&o.url, "url", "", "read the tools of the running server at this Streamable HTTP endpoint")
	cmd.Flags().BoolVar(&o.command, "command", false, "read the tools of the stdio server the command after -- runs")
	cmd.Flags().StringVar(&o.save, "save", "", "with --url or --command, write the recording of what the server answered to this file, and name it as the declarations' source")
	writeInvalidFlag(cmd, &o.writeInvalid)
	return cmd
}

// runImportMCP imports the tools of o's recordings, or of the server of
// o.endpoint, and writes their declarations.
func runImportMCP(o *importMCPOptions) error {
	var recs []importer.Recording
	var unread []error
	var recording []byte
	if o.endpoint != nil {
		listing, err := live.List(o.io.Ctx, *o.endpoint, o.live)
		if err != nil {
			if ctxErr := o.io.Ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return err
		}
		if recording, err = listing.Recording(); err != nil {
			return err
		}
		label := o.endpoint.Label()
		if o.save != "" {
			label = importer.SourceLabel(o.save)
		}
		recs = append(recs, importer.Recording{Label: label, Data: recording})
	}
	for _, arg := range o.files {
		label, data, err := readImportFile(o.io.In, arg)
		if err != nil {
			unread = append(unread, err)
			continue
		}
		// Named as importer.SourceLabel says: no machine path reaches the
		// declarations written, not even their comments.
		recs = append(recs, importer.Recording{Label: importer.SourceLabel(label), Data: data})
	}
	imp, err := importer.MCP(o.io.Ctx, recs, o.mcp)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	changed, substituted := 0, 0
	for _, t := range imp.Tools {
		counts[t.Status]++
		if t.Status == importer.Imported && t.Reason != "" {
			changed++
		}
		if t.Substituted {
			substituted++
		}
	}
	// Whether anything is written is decided before the report, so that
	// no line says a tool was imported when nothing is written.
	errs := len(unread) + len(imp.Errors) + len(imp.Unknown) + len(imp.Conflicts)
	writes := errs == 0 && !(o.strict && counts[importer.LeftOut] > 0)
	var decl []byte
	var verified verifiedImport
	if writes {
		if decl, err = importer.ToolsYAML(imp); err != nil {
			return err
		}
		if verified, err = verifyImport(o.io.Ctx, o.out, decl, o.writeInvalid); err != nil {
			return err
		}
		writes = !verified.refused
	}

	// Errors first: they are why nothing is written, and would be lost
	// after a line per tool. An error may quote the recordings
	// (--classify lists the names recorded): every line leaves through
	// report.
	var report cmdutil.Lines
	for _, e := range unread {
		report.Add("%v", e)
	}
	addToolLines(&report, imp, unknownClassified, "no tools recorded", o.quiet, writes)
	verified.add(&report)

	// When nothing is written, the counts say what the tools would have
	// become, not that they were imported.
	summary := func(read, imported string) string {
		return fmt.Sprintf("%d %s%s: %d %s (%d with changes, %d with an input schema substituted), %d left out",
			len(imp.Tools), english.Plural(len(imp.Tools), "tool", "tools"), read, counts[importer.Imported], imported,
			changed, substituted, counts[importer.LeftOut])
	}
	if verified.refused {
		report.Add("%s; %s", summary(" read", "could be imported"), verified.refusal())
		return reportedOr(report.Write(o.io.ErrOut), cmdutil.ExitInvalid)
	}
	if writes && o.save != "" {
		// The recording before the declarations that name it.
		if err := atomicfile.WriteFile(o.io.Ctx, o.save, recording); err != nil {
			return err
		}
		report.Add("saved the recording of %s to %s", o.endpoint.Label(), o.save)
	}
	return finishImport(o.io, &report, o.out, decl, errs, writes, summary)
}

// mcpImportLine is the report line of one recorded tool or operation:
// names and reasons come from the recording, and the line leaves through
// lines, as importLine's. written says whether the run writes the
// declarations, as for importLine.
func mcpImportLine(t importer.Tool, written bool) string {
	prefix := t.Source + ": "
	if t.Name != "" {
		prefix += t.Name + ": "
	}
	if t.Status == importer.LeftOut {
		return prefix + "left out: " + t.Reason
	}
	return prefix + importedWord(written) + notes(t.Reason)
}

// importedWord says what became of an item an import could declare:
// imported when the run writes the declarations, else would be imported.
func importedWord(written bool) string {
	if written {
		return "imported"
	}
	return "would be imported"
}

// notes puts an item's import notes in parentheses, after a space; ""
// when there are none.
func notes(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}

// finishImport ends an import of tools, whose report holds its lines so
// far: with errors or under --strict with changes (writes false), it says
// why nothing is written, summary naming what was read; otherwise it
// writes the declarations.
func finishImport(s cmdutil.Streams, report *cmdutil.Lines, out string, decl []byte, errs int, writes bool, summary func(read, verb string) string) error {
	stderr := s.ErrOut
	if errs > 0 {
		report.Add("%s; %d %s; nothing written", summary(" read", "could be imported"), errs, english.Plural(errs, "error", "errors"))
		return reportedOr(report.Write(stderr), cmdutil.ExitInvalid)
	}
	if !writes {
		report.Add("%s; nothing written (--strict)", summary(" read", "could be imported"))
		return reportedOr(report.Write(stderr), cmdutil.ExitInvalid)
	}
	return writeImported(s.Ctx, s.Out, stderr, report, out, summary("", "imported"), decl)
}

// addToolLines adds to report the lines of a tool import, errors first:
// its errors, the names --classify gives that match nothing (each said by
// unknown), its conflicts, each file that held no tool (with empty), then
// a line per tool, or per tool not imported as it was when quiet.
func addToolLines(report *cmdutil.Lines, imp *importer.ToolImport, unknown func(importer.UnknownName, int) string, empty string, quiet, writes bool) {
	for _, e := range imp.Errors {
		report.Add("%s", e)
	}
	for _, u := range imp.Unknown {
		report.Add("%s", unknown(u, imp.Names))
	}
	for _, c := range imp.Conflicts {
		report.Add("%s", conflictLine(c))
	}
	for _, f := range imp.Files {
		if f.Tools == 0 {
			report.Add("%s: %s", f.Label, empty)
		}
	}
	for _, t := range imp.Tools {
		if !quiet || t.Status != importer.Imported {
			report.Add("%s", mcpImportLine(t, writes))
		}
	}
}
