package build

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/catalogfile"
	"github.com/signpost-dev/signpost/build/declarations"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/hygiene"
	"github.com/signpost-dev/signpost/build/recorded"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/internal/suggest"
	"github.com/signpost-dev/signpost/schemas"
)

// failedItems says which items of a declaration file failed its schema, as
// their pointers (/tools/3, /mcp), so that the others can still be checked
// and every problem shows at once. whole is true when a violation concerns
// the file itself rather than one item.
func failedItems(bad []string) (items map[string]bool, whole bool) {
	items = map[string]bool{}
	for _, p := range bad {
		segs := source.SplitPointer(p)
		switch {
		case len(segs) >= 1 && (segs[0] == "mcp" || segs[0] == "openapi"):
			items["/"+segs[0]] = true
		case len(segs) >= 2:
			items[source.Pointer(segs[:2])] = true
		default:
			return items, true
		}
	}
	return items, false
}

// pendingTool is a tool being loaded, with where each of its published
// values came from, so diagnostics can point at them.
type pendingTool struct {
	tool   *tool.Tool
	at     ref            // the declaration
	origin map[string]ref // field name to the value it came from
	// declared is set for a tool written out in a declaration file, whose
	// own fields (ownField) are found at their keys in it, without an
	// origin entry each: ten refs for each of 10,000 tools were megabytes.
	declared     bool
	explicit     bool         // toolId declared rather than derived
	claim        toolid.Claim // for derived toolIds
	checkSchemas bool         // false for a recorded tool hidden by classify
	keyArgument  string       // the declared idempotencyKey
	// input and output are the decoded schemas, until prepare encodes
	// them into the tool; declaredInput is the input schema as declared,
	// when the published one is a copy with reserved arguments added.
	input, output, declaredInput any
	// size is the least size of the tool's descriptor; when it passes the
	// value limit, sizeOK is false and sizeAt is the value that carried
	// it past (see toolSize).
	size   int64
	sizeAt ref
	sizeOK bool
	// published is what checkPublished found, reported once the catalog
	// is known to fit its limits.
	published []finding
}

// pendingServer is a declared server and where it is declared.
type pendingServer struct {
	server *Server
	at     ref
}

// finding is a problem found before it can be known whether to report it.
type finding struct {
	at        ref
	rule, msg string
	// warn makes the finding a warning, which does not stop the build.
	warn bool
}

// from is where the tool's field came from, or the declaration itself when
// the field was not written (a default).
func (p *pendingTool) from(field string) ref {
	if r, ok := p.origin[field]; ok {
		return r
	}
	if p.declared && ownField(field) {
		return p.at.at(field)
	}
	return p.at
}

// ownField reports whether a declared tool's field is reported at its own
// key, rather than at the declaration as a whole.
func ownField(field string) bool {
	switch field {
	case "toolId", "name", "title", "description", "safetyTier", "tenants", "server",
		"group", "idempotencyKey", "irreversible", "responseSensitivity", "inputSchema", "outputSchema":
		return true
	}
	return false
}

// checkDeclarations is the pass "schema": it holds the file's value, or
// the part's, to the declarations schema, and says which items failed it.
// A file that declares nothing, or fails as a whole, is passed no further.
func (l *loader) checkDeclarations(f *fileState) bool {
	top := ref{src: f.src}
	if f.value == nil {
		l.sink.errorf(top, "declarations", "file declares nothing: add tools:, mcp: or servers: (see `signpost schema declarations`)")
		return false
	}
	bad, whole := failedItems(l.validate("declarations", top, f.value))
	f.bad = bad
	return !whole
}

// declareWritten is the pass "declare": the tools and the servers the
// file writes out, in order.
func (l *loader) declareWritten(f *fileState) bool {
	top := ref{src: f.src}
	for i := range f.decl.NumTools() {
		if td, ok := f.decl.Tool(i); ok {
			f.out.tools = append(f.out.tools, l.declaredTool(top.at("tools", strconv.Itoa(f.task.part.Offset("tools")+i)), &td))
		}
	}
	for i := range f.decl.Servers {
		at := top.at("servers", strconv.Itoa(f.task.part.Offset("servers")+i))
		if f.bad[at.ptr] {
			continue
		}
		if s, ok := l.declaredServer(at, &f.decl.Servers[i]); ok {
			f.out.servers = append(f.out.servers, s)
		}
	}
	return true
}

// declaredServer declares a server: within the value limit, and held to
// the rules of package discovery. ok is false when it is over the limit.
func (l *loader) declaredServer(at ref, sd *discovery.Decl) (pendingServer, bool) {
	if !l.prep.serverFits(at, sd.Raw) {
		return pendingServer{}, false
	}
	s, problems := discovery.Declare(sd)
	for _, p := range problems {
		l.sink.errorf(at.at(source.SplitPointer(p.Pointer)...), "server", "%s", p.Message)
	}
	// The ARD manifest publishes the representative queries: text a
	// search service indexes and a model may read.
	for i, q := range sd.Queries {
		if v, ok := q.String(); ok {
			if r, bad := hygiene.Invisible(v); bad {
				l.sink.errorf(at.at("representativeQueries", strconv.Itoa(i)), "invisible-text", "representativeQueries holds %U, a character a reader cannot see or that changes what they see: published text must show what it says; remove it", r)
			}
		}
	}
	return pendingServer{server: s, at: at}, true
}

// declareImports is the pass "imports": the tools of an mcp: and an
// openapi: import, from the files they name.
func (l *loader) declareImports(f *fileState) bool {
	top := ref{src: f.src}
	if f.decl.MCP != nil && !f.bad["/mcp"] {
		f.out.mcp = l.importMCP(top.at("mcp"), f.decl.MCP)
	}
	if f.decl.OpenAPI != nil && !f.bad["/openapi"] {
		f.out.openapi = l.importOpenAPI(top.at("openapi"), f.decl.OpenAPI)
	}
	return true
}

// prepareTools is the pass "prepare": each tool of the file checked and
// prepared for publishing (see preparer.prepare). A part that broke a
// schema rule is not: its file is parsed whole.
func (l *loader) prepareTools(f *fileState) bool {
	if f.isPart() && l.sink.Failed(f.src) {
		f.whole = true
		return false
	}
	l.prep.prepare(f.out.all())
	return true
}

func (l *loader) declaredTool(at ref, td *declarations.Tool) *pendingTool {
	t := &tool.Tool{
		ToolID:       td.ToolID,
		Name:         td.Name,
		Title:        td.Title,
		Description:  td.Description,
		Source:       td.Source,
		Server:       td.Server,
		SafetyTier:   td.SafetyTier,
		ReplayPolicy: td.ReplayPolicy,
		Egress:       td.Egress,
		Status:       cmp.Or(td.Status, tool.StatusActive),
		Tenants:      td.Tenants,
		Group:        td.Group,
		Irreversible: td.Irreversible,
		Sensitivity:  (*tool.Sensitivity)(td.ResponseSensitivity),
	}
	p := &pendingTool{tool: t, at: at, declared: true, explicit: true, checkSchemas: true, keyArgument: td.IdempotencyKey}
	// A schema written in the declaration is at its own key; one in a
	// file has an origin of its own. (An origin map for each of 100,000
	// tools was 35 MB.)
	var from ref
	if p.input, from = l.schemaValue(at.at("inputSchema"), td.InputSchema); from != at.at("inputSchema") {
		p.origin = map[string]ref{"inputSchema": from}
	}
	if td.HasOutputSchema {
		if p.output, from = l.schemaValue(at.at("outputSchema"), td.OutputSchema); from != at.at("outputSchema") {
			if p.origin == nil {
				p.origin = map[string]ref{}
			}
			p.origin["outputSchema"] = from
		}
	}
	if p.input == nil {
		p.input = map[string]any{"type": "object"}
	}
	if t.Name != "" && t.Source == spec.SourceHostExtension {
		l.sink.errorf(at.at("name"), "tool-name", "name is the tool's name at its source, and a host-extension tool has none: remove it, or declare the source (mcp or openapi)")
	}
	return p
}

// schemaValue resolves an inputSchema or outputSchema declaration: an inline
// schema, or {file: PATH} naming a JSON file relative to the declaring file.
func (l *loader) schemaValue(at ref, v any) (any, ref) {
	schema, file, isFile := declarations.SchemaRef(v)
	if !isFile {
		return schema, at
	}
	// The value stays the file's: tools that share a schema file share
	// it, so the file's value is never let go before Load ends.
	src, _ := l.readJSON(at.at("file"), file)
	if src == nil {
		return nil, at
	}
	return src.Value, ref{src: src}
}

// readJSON reads a JSON file named by a declaration, relative to the
// declaring file (see jsonfiles.Files.Use), and reports why it cannot when
// it cannot.
func (l *loader) readJSON(at ref, name string) (src *source.File, done func()) {
	rel, msg := catalogfile.Resolve(at.src.Rel, name)
	if msg != "" {
		l.sink.errorf(at, "file", "%s", msg)
		return nil, func() {}
	}
	src, done, err := l.sources.Use(rel)
	if err != nil {
		l.sink.errorf(at, "file", "cannot read %s: %v", name, err)
	}
	return src, done
}

func (l *loader) importMCP(at ref, imp *declarations.Import) []*pendingTool {
	from := imp.From
	// The recording's value is let go once its tools are taken out of it:
	// at 100,000 recorded tools, the decoded recordings of every import
	// held until Load's end were a fifth of its peak.
	src, done := l.readJSON(at.at("from"), from)
	defer done()
	if src == nil {
		return nil
	}
	recorded, msg := recorded.Tools(src.Value)
	if msg != "" {
		l.sink.errorf(ref{src: src}, "mcp-recording", "%s", msg)
		return nil
	}
	server, prefix, tenants, defaults := imp.Server, imp.ToolIDPrefix, imp.Tenants, imp.Default

	seen := map[string]ref{}
	var out []*pendingTool
	for _, rt := range recorded {
		rat := ref{src: src, ptr: rt.Pointer}
		name := rt.Name
		if name == "" {
			l.sink.errorf(rat, "mcp-tool", "recorded tool has no name: every MCP tool needs a non-empty string name")
			continue
		}
		if first, dup := seen[name]; dup {
			l.sink.errorf(rat.at("name"), "mcp-tool", "tool %q is recorded twice (first at %s)", name, first.src.Pos(first.ptr))
			continue
		}
		seen[name] = rat.at("name")
		cls, classified := imp.Classify[name]
		cat := at.at("classify", name)
		t := &tool.Tool{Name: name, Source: spec.SourceMCP, Server: server, Tenants: tenants}
		if a, ok := rt.Object["annotations"]; ok {
			t.ServerAnnotations, _ = json.Marshal(a)
		}
		p := &pendingTool{tool: t, at: rat, origin: map[string]ref{"name": rat.at("name"), "server": at.at("server")}}
		// Safety comes from the declaration only: the server's annotations
		// are its own claims, and an unclassified tool is a write.
		t.SafetyTier, p.origin["safetyTier"] = spec.TierWrite, at
		if classified {
			if v := cls.SafetyTier; v != "" {
				t.SafetyTier, p.origin["safetyTier"] = v, cat.at("safetyTier")
			}
		}
		// The tool's classification first, then the import's defaults.
		t.ReplayPolicy = cmp.Or(cls.ReplayPolicy, defaults.ReplayPolicy, spec.ReplayUnsafe)
		t.Egress = cmp.Or(cls.Egress, defaults.Egress, spec.EgressInternet)
		t.Status = cmp.Or(cls.Status, defaults.Status, tool.StatusActive)
		if v := cls.Tenants; v != nil {
			t.Tenants = v
			p.origin["tenants"] = cat.at("tenants")
		} else if tenants != nil {
			p.origin["tenants"] = at.at("tenants")
		}
		t.Title = strings.TrimSpace(cmp.Or(cls.Title, rt.Title))
		p.origin["title"] = rat.at("title")
		if cls.Title != "" {
			p.origin["title"] = cat.at("title")
		}
		t.Description = strings.TrimSpace(cmp.Or(cls.Description, rt.Description))
		p.origin["description"] = rat.at("description")
		if cls.Description != "" {
			p.origin["description"] = cat.at("description")
		}
		if id := cls.ToolID; id != "" {
			t.ToolID, p.explicit = id, true
			p.origin["toolId"] = cat.at("toolId")
		} else {
			p.claim = toolid.ClaimFor(prefix, server, name)
			p.origin["toolId"] = rat.at("name")
		}
		// A hidden recorded tool is left out before its schemas are
		// checked: hiding is how a catalog leaves out a broken upstream tool.
		p.checkSchemas = t.Status != tool.StatusHidden
		if p.checkSchemas && t.Description == "" {
			l.sink.errorf(rat, "mcp-tool", "MCP tool %q has no description: add one under classify.%s.description, or hide it with status: hidden", name, name)
		}
		if p.checkSchemas {
			p.input, p.origin["inputSchema"] = recordedSchema(l.sink, rat, rt.Object, "inputSchema", name, true)
			p.output, p.origin["outputSchema"] = recordedSchema(l.sink, rat, rt.Object, "outputSchema", name, false)
		}
		out = append(out, p)
	}
	for _, name := range sortedKeys(imp.Classify) {
		if _, ok := seen[name]; !ok {
			l.sink.errorf(at.at("classify", name), "mcp-classify", "classify names %q, which %s does not record: %s", name, from, suggest.Instead(name, sortedKeys(seen), "known tools"))
		}
	}
	return out
}

// recordedSchema takes an MCP tool's input or output schema as recorded.
// A schema without a type gets "type": "object" (MCP arguments and
// structured results are always objects), with a warning.
func recordedSchema(s sink, rat ref, obj map[string]any, field, name string, required bool) (any, ref) {
	at := rat.at(field)
	m, kind := recorded.Schema(obj, field)
	switch kind {
	case recorded.Absent:
		if required {
			s.report(Warning, rat, "mcp-schema", "MCP tool %q has no %s; published as {\"type\": \"object\"}", name, field)
			return map[string]any{"type": "object"}, at
		}
		return nil, at
	case recorded.NotObject:
		s.errorf(at, "mcp-schema", "%s of MCP tool %q must be a JSON Schema object, got %s", field, name, schemas.KindOf(obj[field]))
		return nil, at
	case recorded.Untyped:
		s.report(Warning, at, "mcp-schema", "%s of MCP tool %q has no type; published with \"type\": \"object\"", field, name)
	}
	return m, at
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
