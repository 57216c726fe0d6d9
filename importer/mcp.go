package importer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/build/recorded"
	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/importer/repair"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/schemas"
)

// LeftOut is the status of a recorded tool that was not turned into a
// declaration; Reason says why.
const LeftOut = "left-out"

// Recording is one recorded tools/list file to import.
type Recording struct {
	// Label names the file in messages, sources and the header comment:
	// as SourceLabel makes it from the path the user gave, or "stdin".
	Label string
	// Data is the file's bytes: a bare array of MCP Tool objects, a
	// tools/list result {"tools": [...], "nextCursor": ...}, a JSON-RPC
	// response carrying one, or an array of such pages.
	Data []byte
}

// MCPOptions are the host's decisions about the imported tools.
type MCPOptions struct {
	// Server names the MCP server the tools belong to (reverse-DNS/name);
	// empty leaves server out.
	Server string
	// ToolIDPrefix is prepended, with "_", to every derived toolId, as the
	// toolIdPrefix of an mcp: import is.
	ToolIDPrefix string
	// Classify gives the safety tier (pure, read or write) of tools, and
	// with it the replayPolicy unless Replay sets one (see
	// ClassifiedReplay). Replay gives the replayPolicy (deterministic,
	// idempotent, keyed or unsafe) and Egress the egress (none, internal or
	// internet) of tools. Each is keyed by MCP name or by a pattern of names
	// (see IsPattern): a name wins over the patterns that match it, and two
	// patterns that give one tool different values are a Conflict. A key
	// that names or matches no recorded tool is an UnknownName. Both stop
	// the import.
	Classify, Replay, Egress map[string]string
}

// fields are the options' rules, field by field.
func (o MCPOptions) fields() []classifiedField {
	return []classifiedField{{FieldTier, o.Classify}, {FieldReplay, o.Replay}, {FieldEgress, o.Egress}}
}

// Check explains what is wrong with the options, or returns nil.
func (o MCPOptions) Check() error {
	if o.Server != "" && !cardNamePattern.MatchString(o.Server) {
		return fmt.Errorf("server %q is not a server name: reverse-DNS namespace, one \"/\", then the name, for example com.example/github", o.Server)
	}
	if o.ToolIDPrefix != "" && (len(o.ToolIDPrefix) > maxToolIDPrefixLen || !toolid.Valid(o.ToolIDPrefix)) {
		return fmt.Errorf("tool-id prefix %q must be ASCII snake case of at most %d characters, for example gh", o.ToolIDPrefix, maxToolIDPrefixLen)
	}
	for _, f := range []struct {
		rules map[string]string
		check func(string) error
	}{{o.Classify, CheckTier}, {o.Replay, CheckReplay}, {o.Egress, CheckEgress}} {
		if err := checkRules(f.rules, f.check); err != nil {
			return err
		}
	}
	return nil
}

// ClassifiedReplay is the replayPolicy of a tool an import classifies
// tier, when nothing else says what repeating a call does: a pure tool
// gives the same result for the same input and changes nothing
// (deterministic), repeating a read has no further effect (idempotent), and
// a write is unsafe to repeat.
func ClassifiedReplay(tier string) string {
	switch tier {
	case spec.TierPure:
		return spec.ReplayDeterministic
	case spec.TierRead:
		return spec.ReplayIdempotent
	}
	return spec.ReplayUnsafe
}

// CheckTier explains why an imported MCP tool cannot be classified tier,
// or returns nil: it may be pure, read or write, never exec, which is only
// for host extensions.
func CheckTier(tier string) error {
	switch tier {
	case spec.TierPure, spec.TierRead, spec.TierWrite:
		return nil
	case spec.TierExec:
		return errors.New("exec is only for host extensions; an MCP tool is pure, read or write")
	}
	return fmt.Errorf("unknown safety tier %q: use pure, read or write", tier)
}

// maxToolIDPrefixLen is the longest toolIdPrefix the declarations schema
// accepts.
const maxToolIDPrefixLen = 16

// Tool is the outcome of importing one recorded MCP tool.
type Tool struct {
	// Source names the tool: FILE#POINTER, the JSON pointer of the Tool
	// object in the recording.
	Source string
	// Name is the tool's MCP name, when it has one.
	Name string
	// Status is Imported or LeftOut.
	Status string
	// Reason is one line. For LeftOut it says why; for
	// Imported it lists what the import changed ("; " separated), and
	// is empty when the tool was taken as it is.
	Reason string
	// Substituted is true when the tool had no usable input schema and
	// {"type": "object"} was written in its place.
	Substituted bool
	// Annotations is the server's annotations as compact JSON, shown in a
	// comment and otherwise ignored; empty when there were none.
	Annotations string
	// Declaration is the tool declaration, in JSON types; nil unless
	// Status is Imported.
	Declaration map[string]any
}

// ToolFile counts the tools of one recording.
type ToolFile struct {
	Label string
	// Title names the document of an OpenAPI import: its title and
	// version; "" for a recording.
	Title string
	// Server is who served a recording that says so (a live import
	// saves it): its serverInfo and instructions; zero otherwise.
	Server                recorded.Server
	Tools, Imported, Left int
	Substituted, Changed  int
}

// ToolImport is the outcome of importing recordings.
type ToolImport struct {
	// Tools is every recorded tool of the files read, in file order.
	Tools []Tool
	// Files counts the tools of each file read, in argument order.
	Files []ToolFile
	// Errors are the files that are not recordings, one line each.
	Errors []string
	// Unknown are the classified names and patterns that no recorded tool
	// has or matches, by field and then sorted. Like Errors, they stop the
	// import: nothing should be written.
	Unknown []UnknownName
	// Conflicts are the tools two patterns of one field classify
	// differently, by field and then by name. They stop the import too.
	Conflicts []Conflict
	// Names counts the distinct tool names the recordings hold.
	Names int
}

// UnknownName is a classified name that no recording holds, or a pattern
// that matches no recorded name, with the recorded names most like it (at
// most three, nearest first; none when no recorded name is near).
type UnknownName struct {
	// Field is what the name classifies: FieldTier, FieldReplay or
	// FieldEgress (an OpenAPI import classifies tiers only).
	Field   string
	Name    string
	Pattern bool
	Like    []string
}

// Failed reports whether the import found problems that stop it.
func (imp *ToolImport) Failed() bool {
	return len(imp.Errors) > 0 || len(imp.Unknown) > 0 || len(imp.Conflicts) > 0
}

// MCP reads recorded tools/list results and turns every tool into a
// declaration or says why it was left out. A name recorded twice, in one
// file or across files, keeps its first recording. The error is for bad
// options and cancellation; problems of the input are in the result.
func MCP(ctx context.Context, recs []Recording, opts MCPOptions) (*ToolImport, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	valid, err := schemas.NewValidator()
	if err != nil {
		return nil, fmt.Errorf("load embedded schemas: %w", err)
	}
	imp := &ToolImport{}
	seen := map[string]string{} // MCP name to the source of its first recording
	type claimed struct {
		tool  int
		claim toolid.Claim
	}
	var claims []claimed
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		recorded, server, msg := readRecording(rec)
		if msg != "" {
			imp.Errors = append(imp.Errors, msg)
			continue
		}
		file := ToolFile{Label: rec.Label, Server: server}
		for _, rt := range recorded {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t := importRecordedTool(valid, rec.Label+"#"+rt.Pointer, rt, opts, seen)
			file.Tools++
			if t.Status == Imported {
				file.Imported++
				if t.Substituted {
					file.Substituted++
				}
				if t.Reason != "" {
					file.Changed++
				}
				c := toolid.ClaimFor(opts.ToolIDPrefix, opts.Server, t.Name)
				claims = append(claims, claimed{len(imp.Tools), c})
			} else {
				file.Left++
			}
			imp.Tools = append(imp.Tools, t)
		}
		imp.Files = append(imp.Files, file)
	}
	recorded := slices.Sorted(maps.Keys(seen))
	imp.Names = len(recorded)
	imp.Conflicts, imp.Unknown = classified(opts.fields(), recorded)
	// The toolIds are derived as the loader derives them for an mcp:
	// import with the same server and prefix, so that switching between the
	// two keeps every tool's URL.
	cs := make([]toolid.Claim, len(claims))
	for i, c := range claims {
		cs[i] = c.claim
	}
	for i, id := range toolid.Derive(cs, nil) {
		imp.Tools[claims[i].tool].Declaration["toolId"] = id
	}
	return imp, nil
}

// readRecording parses one file the way the loader reads the from: of an
// mcp: import, and finds its Tool objects and who served them. The
// message, one line naming the file, says why it is not a recording.
func readRecording(rec Recording) ([]recorded.Tool, recorded.Server, string) {
	data := bytes.TrimPrefix(rec.Data, []byte("\uFEFF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, recorded.Server{}, fmt.Sprintf("%s: no JSON value: the file is empty", rec.Label)
	}
	src, ps := source.ParseJSON(rec.Label, rec.Label, data)
	if len(ps) > 0 {
		return nil, recorded.Server{}, fmt.Sprintf("%s: line %d, column %d: %s", rec.Label, ps[0].Line, ps[0].Col, ps[0].Msg)
	}
	tools, msg := recorded.Tools(src.Value)
	if msg != "" {
		return nil, recorded.Server{}, fmt.Sprintf("%s: %s", rec.Label, msg)
	}
	return tools, recorded.ServerOf(src.Value), ""
}

// importRecordedTool turns one Tool object into a declaration (without its
// toolId, which depends on the other tools) or says why it cannot be one.
func importRecordedTool(valid *schemas.Validator, source string, rt recorded.Tool, opts MCPOptions, seen map[string]string) Tool {
	obj := rt.Object
	t := Tool{Source: source, Status: LeftOut}
	if a, ok := obj["annotations"]; ok {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(a) == nil {
			t.Annotations = strings.TrimSpace(b.String())
		}
	}
	name := rt.Name
	t.Name = name
	if name == "" {
		t.Reason = "no name: every MCP tool needs a non-empty string name"
		return t
	}
	if first, dup := seen[name]; dup {
		t.Reason = "recorded twice: the first recording, " + first + ", is the one imported"
		return t
	}
	seen[name] = source
	if toolid.SnakeCase(name) == "" {
		t.Reason = "no toolId can be derived from a name without ASCII letters or digits: declare the tool by hand"
		return t
	}
	description := strings.TrimSpace(rt.Description)
	if description == "" {
		t.Reason = "no description: a catalog tool needs one; declare the tool by hand with a description"
		return t
	}
	title := strings.TrimSpace(rt.Title)
	for _, f := range []struct{ name, value string }{{"title", title}, {"description", description}} {
		if s := secrets.Find(f.value); len(s) > 0 {
			t.Reason = fmt.Sprintf("%s: %s; published documents are public", f.name, s[0].Reason)
			return t
		}
	}

	var notes []string
	in, kind := recorded.Schema(obj, "inputSchema")
	switch kind {
	case recorded.Absent:
		in, t.Substituted = map[string]any{"type": "object"}, true
		notes = append(notes, `no inputSchema: wrote {"type": "object"}`)
	case recorded.NotObject:
		t.Reason = fmt.Sprintf("inputSchema must be a JSON Schema object, got %s", schemas.KindOf(obj["inputSchema"]))
		return t
	case recorded.Untyped:
		if len(in) == 1 {
			t.Substituted = true
			notes = append(notes, `inputSchema {} replaced by {"type": "object"}`)
		} else {
			notes = append(notes, `inputSchema has no type: added "type": "object"`)
		}
	}
	fixed, problem := repair.Schema(valid, "inputSchema", in)
	if problem != "" {
		t.Reason = problem
		return t
	}
	notes = append(notes, fixed...)

	out, kind := recorded.Schema(obj, "outputSchema")
	switch kind {
	case recorded.NotObject:
		notes = append(notes, fmt.Sprintf("outputSchema left out: it must be a JSON Schema object, got %s", schemas.KindOf(obj["outputSchema"])))
	case recorded.Untyped:
		notes = append(notes, `outputSchema has no type: added "type": "object"`)
	}
	out, notes = repair.Output(valid, out, notes)

	// A conflict stops the import (see classified): the value it picks
	// here is never written.
	tier, _ := pick(opts.Classify, name)
	tier = cmp.Or(tier, spec.TierWrite)
	replay, _ := pick(opts.Replay, name)
	egress, _ := pick(opts.Egress, name)
	decl := map[string]any{
		"name":         name,
		"description":  description,
		"source":       spec.SourceMCP,
		"safetyTier":   tier,
		"replayPolicy": cmp.Or(replay, ClassifiedReplay(tier)),
		"egress":       cmp.Or(egress, spec.EgressInternet),
		"inputSchema":  in,
	}
	if title != "" {
		decl["title"] = title
	}
	if opts.Server != "" {
		decl["server"] = opts.Server
	}
	if out != nil {
		decl["outputSchema"] = out
	}
	t.Status, t.Reason, t.Declaration = Imported, strings.Join(notes, "; "), decl
	return t
}

// ToolsYAML renders the imported tools (Status Imported) as one
// declaration file, sorted by MCP name: a header comment naming the source
// files with their counts, then tools, each below a comment naming its MCP
// name and source, the import notes and the server's (ignored) annotations.
// The same import always gives the same bytes.
func ToolsYAML(imp *ToolImport) ([]byte, error) {
	header := []string{
		"# MCP tools imported by `signpost import mcp` from recorded tools/list results.",
		"# Every tool is source: mcp. The server's annotations (readOnlyHint and the",
		"# others) are ignored: they are the server's claims, not this catalog's",
		"# decision. A tool not classified with --classify is safetyTier: write and",
		"# replayPolicy: unsafe; one classified read is idempotent, one classified pure",
		"# deterministic, unless --replay classifies it. A tool --egress does not",
		"# classify is egress: internet. Review each tool's safety fields and import",
		"# notes, then edit freely.",
	}
	if len(imp.Files) == 0 {
		header = append(header, "# No recordings were imported.")
	}
	for _, f := range imp.Files {
		header = append(header, fmt.Sprintf("# %s: %d %s, %d imported (%d with changes, %d with an input schema substituted), %d left out",
			yamlCommentText(f.Label), f.Tools, english.Plural(f.Tools, "tool", "tools"), f.Imported, f.Changed, f.Substituted, f.Left))
		header = append(header, serverLines(f.Label, f.Server)...)
	}
	return toolsYAML(imp, header, "MCP tool", "server annotations, ignored: ")
}

// maxInstructions is how much of a server's instructions a header
// comment quotes; the recording keeps them whole.
const maxInstructions = 200

// serverLines are the header comments that say who served a recording:
// its serverInfo, and the start of its instructions, credentials redacted
// (a comment is published with the catalog's sources); none when the
// recording does not say.
func serverLines(label string, s recorded.Server) []string {
	var out []string
	if s.Name != "" {
		who := s.Name
		if s.Version != "" {
			who += " " + s.Version
		}
		if s.Title != "" {
			who += " (" + s.Title + ")"
		}
		out = append(out, "# "+yamlCommentText(label)+": served by "+yamlCommentText(who))
	}
	if in := strings.Join(strings.Fields(s.Instructions), " "); in != "" {
		if r := []rune(in); len(r) > maxInstructions {
			in = strings.TrimSpace(string(r[:maxInstructions])) + "…"
		}
		out = append(out, "# "+yamlCommentText(label)+": instructions: "+yamlCommentText(in))
	}
	return out
}

// toolsYAML renders the imported tools of imp, sorted by name, below
// header: each tool under a comment naming it (what, its name, its
// source), its import notes and, after annotated, its annotations.
func toolsYAML(imp *ToolImport, header []string, what, annotated string) ([]byte, error) {
	var tools []Tool
	for _, t := range imp.Tools {
		if t.Status == Imported {
			tools = append(tools, t)
		}
	}
	slices.SortStableFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, t := range tools {
		item, err := toolYAMLNode(t.Declaration)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Source, err)
		}
		item.HeadComment = "# " + what + " " + yamlCommentText(t.Name) + ", from " + yamlCommentText(t.Source)
		if t.Reason != "" {
			item.HeadComment += "\n# import notes: " + yamlCommentText(t.Reason)
		}
		if t.Annotations != "" {
			item.HeadComment += "\n# " + annotated + yamlCommentText(t.Annotations)
		}
		seq.Content = append(seq.Content, item)
	}
	if len(seq.Content) == 0 {
		seq.Style = yaml.FlowStyle
	}
	out, err := declarationFile(header, "tools", seq)
	if err != nil {
		return nil, err
	}
	if len(out) > source.MaxFileSize {
		return nil, fmt.Errorf("the declarations are %d bytes, over the %d a catalog file may hold: import the tools into several files", len(out), source.MaxFileSize)
	}
	return out, nil
}

// toolFieldOrder is the order of a tool declaration's fields.
var toolFieldOrder = []string{"toolId", "name", "title", "description", "group", "server", "source", "safetyTier", "replayPolicy", "egress", "security", "inputSchema", "outputSchema"}

// schemaFirstKeys lead a schema object, in this order; other keywords
// follow, sorted.
var schemaFirstKeys = []string{"$schema", "$id", "$anchor", "title", "description", "type"}

func toolYAMLNode(decl map[string]any) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range toolFieldOrder {
		v, ok := decl[k]
		if !ok {
			continue
		}
		role := roleData
		switch k {
		case "inputSchema", "outputSchema":
			role = roleSchema
		case "security":
			role = roleSecurity
		}
		val, err := schemaYAMLNode(v, role)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		n.Content = append(n.Content, yamlStringNode(k), val)
	}
	return n, nil
}

// What a value in a schema document is, which fixes its key order.
const (
	roleData       = iota // instance data or an unknown keyword's value: keys sorted
	roleSchema            // a schema object: schemaFirstKeys, then sorted
	roleSchemaMap         // properties, $defs, ...: sorted names, schema values
	roleSchemaList        // allOf, prefixItems, ...: schema elements
	roleItems             // a schema, or an array of them
	roleSecurity          // a tool's security: requirements of schemes by name
	roleScheme            // a security scheme: schemeKeys first
)

// schemeKeys lead a security scheme, in this order.
var schemeKeys = []string{"type", "in", "name", "scheme", "scopes"}

func childRole(key string) int {
	switch refs.KeywordKind(key) {
	case refs.Schema:
		return roleSchema
	case refs.SchemaMap, refs.Dependencies:
		return roleSchemaMap
	case refs.SchemaList:
		return roleSchemaList
	case refs.Items:
		return roleItems
	}
	return roleData
}

// schemaYAMLNode builds the YAML node of a JSON value of a tool
// declaration. Lists of scalars (required, enum, type) go on one line.
func schemaYAMLNode(v any, role int) (*yaml.Node, error) {
	switch t := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		keys := slices.Sorted(maps.Keys(t))
		first := schemaFirstKeys
		if role == roleScheme {
			first = schemeKeys
		}
		if role == roleSchema || role == roleItems || role == roleScheme {
			slices.SortStableFunc(keys, func(a, b string) int {
				ia, ib := slices.Index(first, a), slices.Index(first, b)
				if ia < 0 {
					ia = len(first)
				}
				if ib < 0 {
					ib = len(first)
				}
				return ia - ib
			})
		}
		for _, k := range keys {
			r := roleData
			switch role {
			case roleSchema, roleItems:
				r = childRole(k)
			case roleSchemaMap:
				r = roleSchema
			case roleSecurity:
				r = roleScheme
			}
			val, err := schemaYAMLNode(t[k], r)
			if err != nil {
				return nil, err
			}
			key := yamlStringNode(k)
			if k == "<<" {
				// Plain, it would read back as a merge key.
				key.Style = yaml.DoubleQuotedStyle
			}
			n.Content = append(n.Content, key, val)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		r := roleData
		switch role {
		case roleSchemaList, roleItems, roleSchemaMap:
			r = roleSchema
		case roleSecurity:
			r = roleSecurity // each requirement: schemes by name
		}
		scalars := true
		for _, e := range t {
			val, err := schemaYAMLNode(e, r)
			if err != nil {
				return nil, err
			}
			scalars = scalars && val.Kind == yaml.ScalarNode && !strings.ContainsAny(val.Value, "\n\r")
			n.Content = append(n.Content, val)
		}
		if scalars {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	}
	return cardYAMLNode(v, cardAny)
}

// maxSuggestions is how many recorded names an unknown --classify name is
// offered.
const maxSuggestions = 3
