package importer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/openapi"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/importer/repair"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/schemas"
)

// OpenAPIDocument is one OpenAPI document to import.
type OpenAPIDocument struct {
	// Label names the file in messages, sources and comments (see
	// SourceLabel).
	Label string
	// Data is the file's bytes: OpenAPI 3.0 or 3.1, YAML or JSON.
	Data []byte
}

// OpenAPIOptions are the host's decisions about the imported operations.
type OpenAPIOptions struct {
	// ToolIDPrefix is prepended, with "_", to every derived toolId, as the
	// toolIdPrefix of an openapi: import is.
	ToolIDPrefix string
	// Egress is every tool's egress: none, internal or internet ("" is
	// internet).
	Egress string
	// Classify gives the safety tier (pure, read or write) of operations
	// by name (operationId, or "METHOD /path") or by a pattern of names,
	// as MCPOptions.Classify does, and with it the replayPolicy (see
	// ClassifiedReplay); it wins over the operation's x-signpost and its
	// method (see MethodSafety). A name that the document does not hold
	// is an error of the import.
	Classify map[string]string
}

// Check explains what is wrong with the options, or returns nil.
func (o OpenAPIOptions) Check() error {
	if err := (MCPOptions{ToolIDPrefix: o.ToolIDPrefix, Classify: o.Classify}).Check(); err != nil {
		return err
	}
	switch o.Egress {
	case "", spec.EgressNone, spec.EgressInternal, spec.EgressInternet:
		return nil
	}
	return fmt.Errorf("unknown egress %q: use none, internal or internet", o.Egress)
}

// SourceLabel is how an import names the file at p in what it writes: p as
// given when it is a local relative path, else its base name, so that no
// machine's folders end up in a catalog.
func SourceLabel(p string) string {
	if p == "" || p == "-" {
		return "stdin"
	}
	if filepath.IsLocal(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	return path.Base(filepath.ToSlash(p))
}

// OpenAPI reads an OpenAPI document and turns every operation into a tool
// declaration or says why it was left out. Problems of the document are in
// the result's Errors; the error is for bad options and cancellation.
func OpenAPI(ctx context.Context, in OpenAPIDocument, opts OpenAPIOptions) (*ToolImport, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	valid, err := schemas.NewValidator()
	if err != nil {
		return nil, fmt.Errorf("load embedded schemas: %w", err)
	}
	imp := &ToolImport{}
	doc, err := openapi.Parse(ctx, in.Label, in.Data)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		var oe *openapi.Error
		if !errors.As(err, &oe) {
			return nil, err
		}
		imp.Errors = append(imp.Errors, in.Label+": "+err.Error())
		return imp, nil
	}
	file := ToolFile{Label: in.Label}
	seen := map[string]bool{}
	var claims []toolid.Claim
	var claimed []int
	for _, op := range doc.Operations {
		t := importOperation(valid, in.Label, op, opts, seen)
		file.Tools++
		if t.Status == Imported {
			file.Imported++
			if t.Reason != "" {
				file.Changed++
			}
			claims = append(claims, toolid.ClaimFor(opts.ToolIDPrefix, doc.Title, t.Name))
			claimed = append(claimed, len(imp.Tools))
		} else {
			file.Left++
		}
		imp.Tools = append(imp.Tools, t)
	}
	file.Title = openAPITitle(doc)
	imp.Files = append(imp.Files, file)
	names := slices.Sorted(maps.Keys(seen))
	imp.Names = len(names)
	imp.Conflicts, imp.Unknown = classified([]classifiedField{{FieldTier, opts.Classify}}, names)
	// The toolIds are derived as the loader derives them for an openapi:
	// import with the same prefix, seeded by the API's title, so that
	// switching between the two keeps every tool's URL.
	for i, id := range toolid.Derive(claims, nil) {
		imp.Tools[claimed[i]].Declaration["toolId"] = id
	}
	return imp, nil
}

// openAPITitle names a document for the header comment.
func openAPITitle(doc *openapi.Document) string {
	return strings.TrimSpace(fmt.Sprintf("%s, OpenAPI %s", doc.Title, doc.Version))
}

// importOperation turns one operation into a declaration (without its
// toolId) or says why it cannot be one.
func importOperation(valid *schemas.Validator, label string, op openapi.Operation, opts OpenAPIOptions, seen map[string]bool) Tool {
	t := Tool{Source: label + "#" + op.Pointer, Name: op.Name, Status: LeftOut}
	if strings.HasPrefix(op.Pointer, "/webhooks/") {
		// Not an operation a client calls: not a name --classify can use.
		t.Reason = op.LeftOut
		return t
	}
	if seen[op.Name] {
		t.Reason = "a second operation named " + op.Name + ": the first is the one imported"
		return t
	}
	seen[op.Name] = true
	if op.LeftOut != "" {
		t.Reason = op.LeftOut
		return t
	}
	ot := op.Tool
	if ot.Description == "" {
		t.Reason = "no summary or description: a catalog tool needs a description; declare the tool by hand with one"
		return t
	}
	for _, f := range []struct{ name, value string }{{"title", ot.Title}, {"description", ot.Description}, {"group", ot.Group}} {
		if s := secrets.Find(f.value); len(s) > 0 {
			t.Reason = fmt.Sprintf("%s: %s; published documents are public", f.name, s[0].Reason)
			return t
		}
	}
	notes := slices.Clone(op.Notes)
	in := ot.InputSchema
	fixed, problem := repair.Schema(valid, "inputSchema", in)
	if problem != "" {
		t.Reason = problem
		return t
	}
	notes = append(notes, fixed...)
	out, notes := repair.Output(valid, ot.OutputSchema, notes)
	tier, replay := MethodSafety(op.Method)
	switch d := ot.Declared; {
	case d.Problem != "":
		tier, replay = spec.TierWrite, spec.ReplayUnsafe
		notes = append(notes, d.Problem+": the operation is write and unsafe")
	default:
		if d.SafetyTier != "" {
			tier, replay = d.SafetyTier, ClassifiedReplay(d.SafetyTier)
		}
		if d.ReplayPolicy != "" {
			replay = d.ReplayPolicy
		}
	}
	if c, _ := pick(opts.Classify, op.Name); c != "" {
		tier, replay = c, ClassifiedReplay(c)
	}
	decl := map[string]any{
		"name":         op.Name,
		"description":  ot.Description,
		"source":       spec.SourceOpenAPI,
		"safetyTier":   tier,
		"replayPolicy": replay,
		"egress":       cmpOr(opts.Egress, spec.EgressInternet),
		"inputSchema":  in,
	}
	if ot.Title != "" {
		decl["title"] = ot.Title
	}
	if ot.Group != "" {
		decl["group"] = ot.Group
	}
	if out != nil {
		decl["outputSchema"] = out
	}
	if ot.Security != nil {
		sec := securityDecl(ot.Security)
		if s := secrets.Find(sec); len(s) > 0 {
			notes = append(notes, fmt.Sprintf("no security: %s", s[0].Reason))
		} else {
			decl["security"] = sec
		}
	}
	t.Status, t.Reason, t.Declaration = Imported, strings.Join(notes, "; "), decl
	return t
}

// MethodSafety is the safetyTier and replayPolicy of an operation by its
// HTTP method, as HTTP defines the methods: GET, HEAD and OPTIONS are safe
// (read, idempotent), PUT replaces what it names (write, idempotent), and
// every other method is write and unsafe, DELETE included, which HTTP
// calls idempotent but which deletes again whatever was put back since.
func MethodSafety(method string) (tier, replay string) {
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return spec.TierRead, spec.ReplayIdempotent
	case "PUT":
		return spec.TierWrite, spec.ReplayIdempotent
	}
	return spec.TierWrite, spec.ReplayUnsafe
}

// securityDecl is the security field of a declaration: each requirement
// a map of its schemes, each with the members it has.
func securityDecl(reqs []openapi.Requirement) []any {
	out := make([]any, 0, len(reqs))
	for _, req := range reqs {
		r := make(map[string]any, len(req))
		for name, sc := range req {
			m := map[string]any{}
			for k, v := range map[string]string{"type": sc.Type, "in": sc.In, "name": sc.Name, "scheme": sc.Scheme} {
				if v != "" {
					m[k] = v
				}
			}
			if len(sc.Scopes) > 0 {
				scopes := make([]any, len(sc.Scopes))
				for i, s := range sc.Scopes {
					scopes[i] = s
				}
				m["scopes"] = scopes
			}
			r[name] = m
		}
		out = append(out, r)
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// OpenAPIToolsYAML renders the imported operations (Status Imported) as
// one declaration file, sorted by name: a header comment naming the
// document with its counts, the defaults that applied and every operation
// left out with its reason; then tools, each below a comment naming its
// operation and source, and its import notes. The same import always gives
// the same bytes.
func OpenAPIToolsYAML(imp *ToolImport, opts OpenAPIOptions) ([]byte, error) {
	egress := cmpOr(opts.Egress, spec.EgressInternet)
	header := []string{
		"# Tools imported by `signpost import openapi` from an OpenAPI document, one",
		"# per operation. Every tool is source: openapi and egress: " + egress + ". An operation",
		"# is classified by --classify, else by its x-signpost extension, else by its",
		"# method: GET, HEAD and OPTIONS are safetyTier: read and replayPolicy:",
		"# idempotent, PUT write and idempotent, every other method write and unsafe.",
		"# A tier alone makes read idempotent, pure deterministic and write unsafe.",
		"# A parameter that carries a credential of the API's security schemes is",
		"# not an argument; security: says what the API asks of a caller. Review each",
		"# tool's safety fields and import notes, then edit freely.",
	}
	for _, f := range imp.Files {
		header = append(header, fmt.Sprintf("# %s (%s): %d %s, %d imported (%d with changes), %d left out",
			yamlCommentText(f.Label), yamlCommentText(f.Title), f.Tools, english.Plural(f.Tools, "operation", "operations"), f.Imported, f.Changed, f.Left))
	}
	for _, t := range imp.Tools {
		if t.Status == LeftOut {
			header = append(header, "# left out: "+yamlCommentText(t.Name)+": "+yamlCommentText(t.Reason))
		}
	}
	return toolsYAML(imp, header, "operation", "")
}
