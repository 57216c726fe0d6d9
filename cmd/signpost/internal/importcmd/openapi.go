package importcmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/cmd/signpost/internal/cmdutil"
	"github.com/signpost-dev/signpost/importer"
	"github.com/signpost-dev/signpost/internal/english"
)

// importOpenAPIOptions are the IO, argument and flags of signpost import
// openapi.
type importOpenAPIOptions struct {
	io                  cmdutil.Streams
	file                string
	out, prefix, egress string
	classify            []string
	readGet, strict     bool
	// quiet leaves out the line of each operation imported.
	quiet bool
	// writeInvalid writes the declarations even when build would refuse
	// them.
	writeInvalid bool
	// openapi is what the flags say of the operations, once parsed.
	openapi importer.OpenAPIOptions
}

// newImportOpenAPICmd is signpost import openapi; runF, runImportOpenAPI
// when nil, runs it with the options the command line gives.
func newImportOpenAPICmd(runF func(*importOpenAPIOptions) error) *cobra.Command {
	if runF == nil {
		runF = runImportOpenAPI
	}
	o := &importOpenAPIOptions{}
	cmd := &cobra.Command{
		Use:   "openapi FILE",
		Short: "Declare the operations of an OpenAPI document as tools",
		Long: `Import openapi reads an OpenAPI document (3.0 or 3.1, YAML or JSON) and writes
tool declarations (YAML) of its operations, one tool per operation, to review
and commit. "-" reads standard input. Every $ref must be inside the document:
one to another file or a URL stops the import (bundle the document first);
nothing is fetched.

Every tool gets source: openapi and name: its operationId, or "METHOD /path"
for an operation without one; the toolId is derived from the name as an
openapi: import of a catalog derives it (snake case, with --tool-id-prefix, a
digest suffix on collisions). The summary becomes the title and the
description the description (the summary when there is no description); the
first tag becomes the group.

The summary also leads the description, so that the compact view, which
keeps a description's first sentence, keeps it.

The inputSchema has one property per path, query and header parameter
(required when the parameter is), and "body" for the request body (JSON, or
the fields of an application/x-www-form-urlencoded form). Cookie parameters
are not arguments, nor is a parameter that carries the credential of one of
the document's security schemes (an apiKey's header, query parameter or
cookie; the Authorization header; the query's access_token of a bearer
scheme), whether the operation's security names the scheme or not; the
field security records what the operation's security (its own, else the
document's) asks of a caller, for whoever connects the tool to the API. The outputSchema is the schema of the first 2xx response
with content, when it is a JSON object; an array, a scalar, a stream or a
non-JSON response gets none, with a note. Every $ref to components/schemas
is bundled into the tool's own $defs, and OpenAPI 3.0 forms (nullable,
boolean exclusive bounds, example) become JSON Schema ones.

An operation is classified by its method, as HTTP defines them: GET, HEAD
and OPTIONS are safetyTier: read and replayPolicy: idempotent, PUT write and
idempotent, every other method (DELETE, POST, PATCH, ...) write and unsafe.
The operation's extension x-signpost: {safetyTier, replayPolicy} wins over
its method (a tier alone: read is idempotent, pure deterministic, write
unsafe; an x-signpost that cannot be taken makes it write and unsafe, with a
note), and --classify wins over both. A --classify NAME may be a pattern, as
for import mcp (* does not match the "/" of "METHOD /path": write
"GET /items/*"). Every tool is egress: internet unless --egress says
otherwise.

Every operation is reported on stderr, one line each:

  FILE#POINTER: NAME: imported
  FILE#POINTER: NAME: imported (NOTES)
  FILE#POINTER: NAME: left out: REASON

An operation is left out when it is deprecated, has neither summary nor
description, has two arguments of one name, takes only a non-JSON body
(multipart, binary, text), or has a schema that cannot be published; a
webhook is not an operation a client calls, and is left out too. The header
of the declarations lists the operations left out, with their reasons.

The declarations go to stdout, or to OUT with -o (written atomically), sorted
by name. Exit status is 0 even when some operations are left out; 1, writing
nothing, when FILE cannot be read or is not a valid OpenAPI 3.0 or 3.1
document, when --classify names an operation the document does not hold (or
a pattern matches none, or two patterns give one operation different
tiers), or,
with --strict, when an operation is left out; 2 for bad usage.` + importVerifyHelp,
		Example: `  signpost import openapi petstore.yaml
  signpost import openapi api.json --tool-id-prefix pets -o catalogs/example/pets.yaml
  signpost import openapi api.yaml --classify read=searchPets --classify pure="POST /convert" --egress internal
  signpost import openapi --strict api.yaml -o api-tools.yaml   # fail when an operation is left out`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.UsageError{Err: fmt.Errorf("import openapi needs exactly one FILE (- for standard input), got %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.io, o.file = cmdutil.StreamsOf(cmd), args[0]
			o.openapi = importer.OpenAPIOptions{ToolIDPrefix: o.prefix, Egress: o.egress}
			var err error
			if o.openapi.Classify, err = parseClassify(o.classify); err != nil {
				return cmdutil.UsageError{Err: err}
			}
			if err := o.openapi.Check(); err != nil {
				return cmdutil.UsageError{Err: fmt.Errorf("%w (--tool-id-prefix, --classify)", err)}
			}
			return runF(o)
		},
	}
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "write the declarations to this file instead of stdout")
	cmd.Flags().StringVar(&o.prefix, "tool-id-prefix", "", "prepend PREFIX_ to every derived toolId (snake case, at most 16 characters)")
	cmd.Flags().StringArrayVar(&o.classify, "classify", nil, "TIER=NAME|PATTERN[,...]: the safety tier (pure, read or write) of the named operations (operationId, or \"METHOD /path\"), or of those a pattern (*, ?, [...]) matches; repeatable")
	// --read-get, which the methods made the default, is still taken, and
	// said to do nothing on stderr (cobra's deprecation notice would go to
	// stdout, with the declarations).
	cmd.Flags().BoolVar(&o.readGet, "read-get", false, "no effect: GET, HEAD and OPTIONS operations are read by their method")
	_ = cmd.Flags().MarkHidden("read-get")
	cmdutil.EnumVar(cmd.Flags(), &o.egress, "egress", spec.EgressInternet, spec.Egresses(), "where every tool may send data")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1, writing nothing, when an operation is left out")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print only the problems and the summary, not a line for each operation imported")
	writeInvalidFlag(cmd, &o.writeInvalid)
	return cmd
}

// runImportOpenAPI imports the operations of o's OpenAPI document and
// writes their declarations.
func runImportOpenAPI(o *importOpenAPIOptions) error {
	stderr, arg, opts := o.io.ErrOut, o.file, o.openapi
	var report cmdutil.Lines
	if o.readGet {
		report.Add("--read-get has no effect: GET, HEAD and OPTIONS operations are read and idempotent without it")
	}
	label, data, err := readImportFile(o.io.In, arg)
	if err != nil {
		report.Add("%s: %v", importer.SourceLabel(arg), errors.Unwrap(err))
		report.Add("nothing written")
		return reportedOr(report.Write(stderr), cmdutil.ExitInvalid)
	}
	imp, err := importer.OpenAPI(o.io.Ctx, importer.OpenAPIDocument{Label: importer.SourceLabel(label), Data: data}, opts)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	changed := 0
	for _, t := range imp.Tools {
		counts[t.Status]++
		if t.Status == importer.Imported && t.Reason != "" {
			changed++
		}
	}
	errs := len(imp.Errors) + len(imp.Unknown) + len(imp.Conflicts)
	writes := errs == 0 && !(o.strict && counts[importer.LeftOut] > 0)
	var decl []byte
	var verified verifiedImport
	if writes {
		if decl, err = importer.OpenAPIToolsYAML(imp, opts); err != nil {
			return err
		}
		if verified, err = verifyImport(o.io.Ctx, o.out, decl, o.writeInvalid); err != nil {
			return err
		}
		writes = !verified.refused
	}
	// Errors first: they are why nothing is written, and would be lost
	// after a line per operation. Every line leaves through report.
	addToolLines(&report, imp, unknownOperation, "no operations", o.quiet, writes)
	verified.add(&report)
	summary := func(read, imported string) string {
		n := len(imp.Tools)
		return fmt.Sprintf("%d %s%s: %d %s (%d with changes), %d left out",
			n, english.Plural(n, "operation", "operations"), read, counts[importer.Imported], imported, changed, counts[importer.LeftOut])
	}
	if verified.refused {
		report.Add("%s; %s", summary(" read", "could be imported"), verified.refusal())
		return reportedOr(report.Write(stderr), cmdutil.ExitInvalid)
	}
	return finishImport(o.io, &report, o.out, decl, errs, writes, summary)
}

// unknownOperation words a --classify name the document does not hold,
// with the operation names most like it.
func unknownOperation(u importer.UnknownName, names int) string {
	if u.Pattern {
		return fmt.Sprintf("--classify pattern %q matches no operation of the document%s", u.Name, likeOperations(u.Like))
	}
	switch {
	case names == 0:
		return fmt.Sprintf("--classify names %q, which the document does not hold: it has no operations", u.Name)
	case len(u.Like) == 0:
		return fmt.Sprintf("--classify names %q, which the document does not hold, and no operation is named like it: it has %s (operationId, or \"METHOD /path\" without one); run signpost import openapi without --classify to list them", u.Name, english.Count(names, "operation", "operations"))
	}
	return fmt.Sprintf("--classify names %q, which the document does not hold: did you mean %s?", u.Name, english.QuotedOr(u.Like))
}

// likeOperations offers the operation names like an unknown pattern, or
// says nothing when none is.
func likeOperations(like []string) string {
	if len(like) == 0 {
		return ""
	}
	return ": did you mean " + english.QuotedOr(like) + "?"
}
