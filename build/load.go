package build

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/recorded"
	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/size"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/internal/suggest"
	"github.com/signpost-dev/signpost/schemas"
)

// ConfigFile is the name of the site settings file at a catalog's root.
const ConfigFile = "signpost.yaml"

// Load reads, parses and validates the catalog folder dir. It reports every
// problem it finds, in all files at once; the Catalog is complete only when
// the diagnostics hold no error. Paths in diagnostics are dir joined with the
// file's path inside it.
func Load(ctx context.Context, dir string) (*Catalog, Diagnostics) {
	l := &loader{ctx: ctx, dir: dir, sources: map[string]*source.File{}, bad: map[*source.File][]string{}}
	cat := l.load()
	// A canceled load may leave parses running (see load): what they
	// report from now on is dropped.
	l.mu.Lock()
	diags := l.diags
	l.diags, l.closed = nil, true
	l.mu.Unlock()
	return cat, diags.Sort()
}

// LoadConfig reads and checks the catalog's signpost.yaml alone, as Load
// does, so that a command can act on its targets and tenants (list a
// bucket) while Load reads the declarations. Load reports the same
// problems again.
func LoadConfig(ctx context.Context, dir string) (*Config, Diagnostics) {
	l := &loader{ctx: ctx, dir: dir, sources: map[string]*source.File{}, bad: map[*source.File][]string{}}
	c := &Config{}
	if !l.open() {
		return c, l.diags
	}
	defer l.root.Close()
	data, err := l.readFile(ConfigFile)
	if err != nil {
		l.fileError(l.display(ConfigFile), "read", "%v", err)
		return c, l.diags
	}
	src, ps := source.ParseYAML(l.display(ConfigFile), ConfigFile, data)
	l.problems(src, ps)
	if recoverable(ps) {
		l.loadConfig(src, c)
	}
	return c, l.diags.Sort()
}

type loader struct {
	ctx   context.Context
	dir   string
	root  *os.Root
	valid *schemas.Validator

	mu      sync.Mutex
	diags   Diagnostics
	closed  bool                      // Load has returned
	sources map[string]*source.File   // JSON files by rel path, read once
	limits  Limits                    // from signpost.yaml
	sizes   size.Meter                // sizes of schemas, measured once
	bad     map[*source.File][]string // pointers of the values that failed a schema
}

// ref is a value in a source file: where a diagnostic about it points.
type ref struct {
	src *source.File
	ptr string
}

func (r ref) at(segs ...string) ref { return ref{r.src, source.JoinPointer(r.ptr, segs...)} }

func (l *loader) report(sev Severity, at ref, rule, format string, args ...any) {
	// A message may quote the value it is about: never a credential in it.
	d := Diagnostic{Pos: at.src.Pos(at.ptr), Severity: sev, Rule: rule, Message: secrets.Redact(fmt.Sprintf(format, args...))}
	l.mu.Lock()
	// What a check finds in a value that failed its schema, the schema said.
	if !l.closed && (rule == "schema" || !source.Covered(at.src.Value, l.bad[at.src], at.ptr)) {
		l.diags = append(l.diags, d)
	}
	l.mu.Unlock()
}

func (l *loader) errorf(at ref, rule, format string, args ...any) {
	l.report(Error, at, rule, format, args...)
}

// fileError reports a problem with a file or folder as a whole.
func (l *loader) fileError(file, rule, format string, args ...any) {
	l.mu.Lock()
	l.diags = append(l.diags, Diagnostic{Pos: source.Pos{File: file}, Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...)})
	l.mu.Unlock()
}

func (l *loader) problems(src *source.File, ps []source.Problem) {
	for _, p := range ps {
		d := Diagnostic{Pos: source.Pos{File: src.Path, Line: p.Line, Col: p.Col}, Severity: Error, Rule: p.Rule, Message: p.Msg}
		if p.Line == 0 {
			d.Pos = src.Pos(p.Pointer)
		}
		l.mu.Lock()
		l.diags = append(l.diags, d)
		l.mu.Unlock()
	}
}

func (l *loader) display(rel string) string {
	return filepath.ToSlash(filepath.Join(l.dir, filepath.FromSlash(rel)))
}

// open opens the catalog folder and the schemas the checks use, or
// reports why it cannot.
func (l *loader) open() bool {
	root, err := os.OpenRoot(l.dir)
	if err != nil {
		l.fileError(filepath.ToSlash(l.dir), "catalog-folder", "cannot open the catalog folder: %v", unwrapPathError(err))
		return false
	}
	l.root = root
	if l.valid, err = schemas.NewValidator(); err != nil {
		root.Close()
		l.fileError(filepath.ToSlash(l.dir), "internal", "load embedded schemas: %v", err)
		return false
	}
	return true
}

func (l *loader) load() *Catalog {
	if !l.open() {
		return nil
	}
	defer l.root.Close()

	files, err := l.findFiles()
	if err != nil {
		l.fileError(filepath.ToSlash(l.dir), "catalog-folder", "cannot list the catalog folder: %v", err)
		return nil
	}
	srcs := make([]*source.File, len(files))
	g, ctx := errgroup.WithContext(l.ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, rel := range files {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			data, err := l.readFile(rel)
			if err != nil {
				l.fileError(l.display(rel), "read", "%v", err)
				return nil
			}
			src, ps := source.ParseYAML(l.display(rel), rel, data)
			l.problems(src, ps)
			if recoverable(ps) {
				srcs[i] = src
			}
			return nil
		})
	}
	// A file's parse cannot be interrupted, and one large file takes
	// seconds: a canceled Load returns at once and leaves the parses to
	// finish on their own, bounded by the file size limit.
	parsed := make(chan error, 1)
	go func() { parsed <- g.Wait() }()
	var err2 error
	select {
	case err2 = <-parsed:
	case <-l.ctx.Done():
		err2 = l.ctx.Err()
	}
	if err2 != nil {
		l.fileError(filepath.ToSlash(l.dir), "canceled", "%v", err2)
		return nil
	}

	cat := &Catalog{}
	if !slices.Contains(files, ConfigFile) {
		l.fileError(l.display(ConfigFile), "config-missing", "no %s in %s: a catalog folder starts with one (see `signpost schema config`)", ConfigFile, filepath.ToSlash(l.dir))
	}
	var decls []*source.File
	for i, rel := range files {
		src := srcs[i]
		if src == nil {
			continue
		}
		if rel == ConfigFile {
			l.loadConfig(src, &cat.Config)
			l.limits = cat.Config.Limits
		} else if !isOpenAPIDocument(src) {
			decls = append(decls, src)
		}
	}
	tenants := map[string]bool{}
	for _, t := range cat.Config.Tenants {
		tenants[t] = true
	}

	var pending []*pendingTool
	var servers []pendingServer
	for _, src := range decls {
		if err := l.ctx.Err(); err != nil {
			l.fileError(filepath.ToSlash(l.dir), "canceled", "%v", err)
			return nil
		}
		tools, srvs := l.loadDeclarations(src)
		pending = append(pending, tools...)
		servers = append(servers, srvs...)
	}
	l.assignToolIDs(pending)
	l.checkTools(pending, tenants, &cat.Config)
	l.checkServers(cat.Config.Publisher, servers, pending)
	for _, p := range pending {
		p.tool.decl = p.at
		cat.Tools = append(cat.Tools, p.tool)
	}
	slices.SortStableFunc(cat.Tools, func(a, b *Tool) int { return strings.Compare(a.ToolID, b.ToolID) })
	for _, s := range servers {
		cat.Servers = append(cat.Servers, s.server)
	}
	slices.SortStableFunc(cat.Servers, func(a, b *Server) int { return strings.Compare(a.Name, b.Name) })
	// The files' decoded values are done with: the tools and servers hold
	// what they publish, and a position is found again from a file's
	// bytes. Dropped, the rest of each declaration (most of a large
	// catalog's memory) is garbage as soon as its tools are compiled.
	for _, src := range slices.Concat(srcs, slices.Collect(maps.Values(l.sources))) {
		if src != nil { // a file that failed to parse is nil in both
			src.Value = nil
		}
	}
	return cat
}

// pendingServer is a declared server and where it is declared.
type pendingServer struct {
	server *Server
	at     ref
}

// checkServers applies the rules that concern servers together (unique
// names, card paths and AI catalog identifiers) and warns about tools that name a server the
// catalog does not declare.
func (l *loader) checkServers(publisher string, servers []pendingServer, tools []*pendingTool) {
	list := make([]*Server, len(servers))
	declared := map[string]bool{}
	for i, s := range servers {
		list[i] = s.server
		declared[s.server.Name] = true
	}
	for i, ps := range discovery.Check(publisher, list) {
		for _, p := range ps {
			l.errorf(servers[i].at.at(source.SplitPointer(p.Pointer)...), "server", "%s", p.Message)
		}
	}
	if len(servers) == 0 {
		return
	}
	// One warning per undeclared server, however many tools name it, at
	// the first of them.
	var order []string
	at := map[string]ref{}
	ids := map[string][]string{}
	for _, p := range tools {
		if t := p.tool; t.Server != "" && !declared[t.Server] && t.Status != StatusHidden {
			if _, seen := ids[t.Server]; !seen {
				order = append(order, t.Server)
				at[t.Server] = p.from("server")
			}
			ids[t.Server] = append(ids[t.Server], t.ToolID)
		}
	}
	for _, name := range order {
		who := "tool " + ids[name][0] + " names"
		if n := len(ids[name]); n > 1 {
			who = fmt.Sprintf("%d tools (%s) name", n, english.Some(ids[name], 3))
		}
		l.report(Warning, at[name], "server-unknown", "%s server %s, which no declaration in the catalog describes: declare it under servers: so that clients can find its card", who, name)
	}
}

// recoverable reports whether a file with these problems can still be
// checked further: a duplicate key keeps its first value, so the rest of
// the file means what it says; other problems leave holes that would only
// cause follow-on noise.
func recoverable(ps []source.Problem) bool {
	for _, p := range ps {
		if p.Rule != "duplicate-key" {
			return false
		}
	}
	return true
}

// Reads reports whether Load may read the file at name, slash-separated and
// relative to the catalog folder: a declaration (see isDeclaration), or a
// .json file anywhere, which a declaration may name (see resolvePath). Load
// reads no other file.
func Reads(name string) bool {
	return isDeclaration(name) || isJSONFile(name)
}

// isDeclaration reports whether the file at name is a declaration: a .yaml
// or .yml file outside folders whose names start with "." (such as .git).
func isDeclaration(name string) bool {
	if ext := path.Ext(name); ext != ".yaml" && ext != ".yml" {
		return false
	}
	for dir := range strings.SplitSeq(path.Dir(name), "/") {
		if strings.HasPrefix(dir, ".") && dir != "." {
			return false
		}
	}
	return true
}

// isJSONFile reports whether the file at name is one a declaration may name.
func isJSONFile(name string) bool { return path.Ext(name) == ".json" }

// findFiles lists the declarations of the catalog (see isDeclaration),
// sorted. Folders whose names start with "." are not walked.
func (l *loader) findFiles() ([]string, error) {
	var files []string
	err := fs.WalkDir(l.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if isDeclaration(p) && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// readFile reads a file of the catalog, refusing anything over the size limit
// before reading it whole.
func (l *loader) readFile(rel string) ([]byte, error) {
	name := filepath.FromSlash(rel)
	// Only regular files: opening a FIFO blocks until someone writes to it,
	// and a device may never end. The mode is checked before opening, and
	// again on the opened file, in case the name changed in between.
	fi, err := l.root.Stat(name)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi)
	}
	f, err := l.root.Open(name)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, unwrapPathError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi)
	}
	data, err := io.ReadAll(io.LimitReader(f, source.MaxFileSize+1))
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if len(data) > source.MaxFileSize {
		return nil, fmt.Errorf("file is larger than %d bytes: split it into several files", source.MaxFileSize)
	}
	return data, nil
}

// notRegular is the error of a catalog file that is not a regular file.
func notRegular(fi fs.FileInfo) error {
	kind := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		kind = "a folder"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("is %s: a catalog reads regular files only", kind)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// validate checks a value against an embedded schema and reports violations
// at their positions. It returns the pointers of the values that failed.
func (l *loader) validate(name string, at ref, v any) []string {
	return l.validateExcept(name, at, v, nil)
}

// validateExcept is validate, but leaves out the violations at the
// pointers where other reports, given the value there, says it reports
// the problem itself, in better words.
func (l *loader) validateExcept(name string, at ref, v any, other func(ptr string, v any) bool) []string {
	vs := l.valid.Validate(name, v)
	var bad []string
	for _, x := range vs {
		if other != nil && other(x.Pointer, source.ValueAt(v, x.Pointer)) {
			continue
		}
		xat := at.at(source.SplitPointer(x.Pointer)...)
		l.mu.Lock()
		l.bad[xat.src] = append(l.bad[xat.src], xat.ptr)
		l.mu.Unlock()
		l.errorf(xat, "schema", "%s", x.Message)
		bad = append(bad, x.Pointer)
	}
	return bad
}

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
	tool   *Tool
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
	// declaredInput is the input schema as declared, when the published
	// one is a copy with reserved arguments added.
	declaredInput any
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
		"group", "idempotencyKey", "irreversible", "responseSensitivity":
		return true
	}
	return false
}

func (l *loader) loadDeclarations(src *source.File) ([]*pendingTool, []pendingServer) {
	top := ref{src: src}
	if src.Value == nil {
		l.errorf(top, "declarations", "file declares nothing: add tools:, mcp: or servers: (see `signpost schema declarations`)")
		return nil, nil
	}
	failed, whole := failedItems(l.validate("declarations", top, src.Value))
	if whole {
		return nil, nil
	}
	m := src.Value.(map[string]any)
	var tools []*pendingTool
	// A tool that failed is checked all the same, where the schema had
	// nothing against it (see report).
	for i, v := range arr(m, "tools") {
		if tm, ok := v.(map[string]any); ok {
			tools = append(tools, l.declaredTool(top.at("tools", fmt.Sprint(i)), tm))
		}
	}
	if imp, ok := m["mcp"].(map[string]any); ok && !failed["/mcp"] {
		tools = append(tools, l.importMCP(top.at("mcp"), imp)...)
	}
	if imp, ok := m["openapi"].(map[string]any); ok && !failed["/openapi"] {
		tools = append(tools, l.importOpenAPI(top.at("openapi"), imp)...)
	}
	var servers []pendingServer
	for i, v := range arr(m, "servers") {
		at := top.at("servers", fmt.Sprint(i))
		if failed[at.ptr] || !l.serverFits(at, v) {
			continue
		}
		s, problems := discovery.Decode(v.(map[string]any))
		for _, p := range problems {
			l.errorf(at.at(source.SplitPointer(p.Pointer)...), "server", "%s", p.Message)
		}
		servers = append(servers, pendingServer{server: s, at: at})
	}
	return tools, servers
}

func (l *loader) declaredTool(at ref, m map[string]any) *pendingTool {
	t := &Tool{
		ToolID:       str(m, "toolId"),
		Name:         str(m, "name"),
		Title:        strings.TrimSpace(str(m, "title")),
		Description:  strings.TrimSpace(str(m, "description")),
		Source:       str(m, "source"),
		Server:       str(m, "server"),
		SafetyTier:   str(m, "safetyTier"),
		ReplayPolicy: str(m, "replayPolicy"),
		Egress:       str(m, "egress"),
		Status:       cmp.Or(str(m, "status"), StatusActive),
		Tenants:      strs(m, "tenants"),
	}
	p := &pendingTool{tool: t, at: at, declared: true, explicit: true, checkSchemas: true, origin: map[string]ref{}}
	t.InputSchema, p.origin["inputSchema"] = l.schemaValue(at.at("inputSchema"), m["inputSchema"])
	if v, ok := m["outputSchema"]; ok {
		t.OutputSchema, p.origin["outputSchema"] = l.schemaValue(at.at("outputSchema"), v)
	}
	if t.InputSchema == nil {
		t.InputSchema = map[string]any{"type": "object"}
	}
	l.catalogueFields(p, m)
	if t.Name != "" && t.Source == spec.SourceHostExtension {
		l.errorf(at.at("name"), "tool-name", "name is the tool's name at its source, and a host-extension tool has none: remove it, or declare the source (mcp or openapi)")
	}
	return p
}

// schemaValue resolves an inputSchema or outputSchema declaration: an inline
// schema, or {file: PATH} naming a JSON file relative to the declaring file.
func (l *loader) schemaValue(at ref, v any) (any, ref) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, at
	}
	file, isFile := m["file"].(string)
	if !isFile || len(m) != 1 {
		return m, at
	}
	src := l.readJSON(at.at("file"), file)
	if src == nil {
		return nil, at
	}
	return src.Value, ref{src: src}
}

// readJSON reads a JSON file named by a declaration, relative to the
// declaring file, and reports why it cannot when it cannot.
func (l *loader) readJSON(at ref, name string) *source.File {
	rel, msg := l.resolvePath(at.src.Rel, name)
	if msg != "" {
		l.errorf(at, "file", "%s", msg)
		return nil
	}
	l.mu.Lock()
	src, seen := l.sources[rel]
	l.mu.Unlock()
	if seen {
		return src
	}
	data, err := l.readFile(rel)
	if err != nil {
		l.errorf(at, "file", "cannot read %s: %v", name, err)
		return nil
	}
	src, ps := source.ParseJSON(l.display(rel), rel, data)
	l.problems(src, ps)
	if len(ps) > 0 {
		src = nil
	}
	l.mu.Lock()
	l.sources[rel] = src
	l.mu.Unlock()
	return src
}

// resolvePath turns a path written in the file from into a path inside the
// catalog folder, or explains why it cannot be used.
func (l *loader) resolvePath(from, name string) (string, string) {
	rel, msg := resolveInside(from, name)
	if msg == "" && !isJSONFile(rel) {
		return "", fmt.Sprintf("file %q is not a .json file", name)
	}
	return rel, msg
}

// resolveInside turns a path written in the file from into a path inside
// the catalog folder, or explains why it cannot be used.
func resolveInside(from, name string) (string, string) {
	if name == "" {
		return "", "file path is empty"
	}
	if path.IsAbs(name) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Sprintf("file %q is an absolute path: name it relative to %s", name, path.Base(from))
	}
	rel := path.Join(path.Dir(from), filepath.ToSlash(name))
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Sprintf("file %q is outside the catalog folder: keep schemas and recordings inside it", name)
	}
	return rel, ""
}

func (l *loader) importMCP(at ref, m map[string]any) []*pendingTool {
	from := str(m, "from")
	src := l.readJSON(at.at("from"), from)
	if src == nil {
		return nil
	}
	recorded, msg := recorded.Tools(src.Value)
	if msg != "" {
		l.errorf(ref{src: src}, "mcp-recording", "%s", msg)
		return nil
	}
	server := str(m, "server")
	prefix := str(m, "toolIdPrefix")
	tenants := strs(m, "tenants")
	defaults, _ := m["default"].(map[string]any)
	classify, _ := m["classify"].(map[string]any)

	seen := map[string]ref{}
	var out []*pendingTool
	for _, rt := range recorded {
		rat := ref{src: src, ptr: rt.Pointer}
		name, _ := rt.Object["name"].(string)
		if name == "" {
			l.errorf(rat, "mcp-tool", "recorded tool has no name: every MCP tool needs a non-empty string name")
			continue
		}
		if first, dup := seen[name]; dup {
			l.errorf(rat.at("name"), "mcp-tool", "tool %q is recorded twice (first at %s)", name, first.src.Pos(first.ptr))
			continue
		}
		seen[name] = rat.at("name")
		cls, classified := classify[name].(map[string]any)
		cat := at.at("classify", name)
		// pick takes a field from the tool's classification, else from the
		// import's defaults, else the fallback.
		pick := func(field, fallback string) string {
			return cmp.Or(str(cls, field), str(defaults, field), fallback)
		}
		t := &Tool{Name: name, Source: spec.SourceMCP, Server: server, Tenants: tenants}
		p := &pendingTool{tool: t, at: rat, origin: map[string]ref{"name": rat.at("name"), "server": at.at("server")}}
		// Safety comes from the declaration only: the server's annotations
		// are its own claims, and an unclassified tool is a write.
		t.SafetyTier, p.origin["safetyTier"] = spec.TierWrite, at
		if classified {
			if v := str(cls, "safetyTier"); v != "" {
				t.SafetyTier, p.origin["safetyTier"] = v, cat.at("safetyTier")
			}
		}
		t.ReplayPolicy = pick("replayPolicy", spec.ReplayUnsafe)
		t.Egress = pick("egress", spec.EgressInternet)
		t.Status = pick("status", StatusActive)
		if v := strs(cls, "tenants"); v != nil {
			t.Tenants = v
			p.origin["tenants"] = cat.at("tenants")
		} else if tenants != nil {
			p.origin["tenants"] = at.at("tenants")
		}
		t.Title = strings.TrimSpace(cmp.Or(str(cls, "title"), str(rt.Object, "title")))
		p.origin["title"] = rat.at("title")
		if str(cls, "title") != "" {
			p.origin["title"] = cat.at("title")
		}
		t.Description = strings.TrimSpace(cmp.Or(str(cls, "description"), str(rt.Object, "description")))
		p.origin["description"] = rat.at("description")
		if str(cls, "description") != "" {
			p.origin["description"] = cat.at("description")
		}
		if id := str(cls, "toolId"); id != "" {
			t.ToolID, p.explicit = id, true
			p.origin["toolId"] = cat.at("toolId")
		} else {
			p.claim = toolid.ClaimFor(prefix, server, name)
			p.origin["toolId"] = rat.at("name")
		}
		// A hidden recorded tool is left out before its schemas are
		// checked: hiding is how a catalog leaves out a broken upstream tool.
		p.checkSchemas = t.Status != StatusHidden
		if p.checkSchemas && t.Description == "" {
			l.errorf(rat, "mcp-tool", "MCP tool %q has no description: add one under classify.%s.description, or hide it with status: hidden", name, name)
		}
		if p.checkSchemas {
			t.InputSchema, p.origin["inputSchema"] = l.recordedSchema(rat, rt.Object, "inputSchema", name, true)
			t.OutputSchema, p.origin["outputSchema"] = l.recordedSchema(rat, rt.Object, "outputSchema", name, false)
		}
		out = append(out, p)
	}
	for _, name := range sortedKeys(classify) {
		if _, ok := seen[name]; !ok {
			l.errorf(at.at("classify", name), "mcp-classify", "classify names %q, which %s does not record: %s", name, from, suggest.Instead(name, sortedKeys(seen), "known tools"))
		}
	}
	return out
}

// recordedSchema takes an MCP tool's input or output schema as recorded.
// A schema without a type gets "type": "object" (MCP arguments and
// structured results are always objects), with a warning.
func (l *loader) recordedSchema(rat ref, obj map[string]any, field, name string, required bool) (any, ref) {
	at := rat.at(field)
	m, kind := recorded.Schema(obj, field)
	switch kind {
	case recorded.Absent:
		if required {
			l.report(Warning, rat, "mcp-schema", "MCP tool %q has no %s; published as {\"type\": \"object\"}", name, field)
			return map[string]any{"type": "object"}, at
		}
		return nil, at
	case recorded.NotObject:
		l.errorf(at, "mcp-schema", "%s of MCP tool %q must be a JSON Schema object, got %s", field, name, schemas.KindOf(obj[field]))
		return nil, at
	case recorded.Untyped:
		l.report(Warning, at, "mcp-schema", "%s of MCP tool %q has no type; published with \"type\": \"object\"", field, name)
	}
	return m, at
}

// assignToolIDs gives derived toolIds to the tools recorded from MCP
// servers; declared ones keep theirs.
func (l *loader) assignToolIDs(ps []*pendingTool) {
	explicit := map[string]bool{}
	var claims []toolid.Claim
	var derived []*pendingTool
	for _, p := range ps {
		if p.explicit {
			explicit[p.tool.ToolID] = true
		} else {
			claims = append(claims, p.claim)
			derived = append(derived, p)
		}
	}
	for i, id := range toolid.Derive(claims, explicit) {
		derived[i].tool.ToolID = id
	}
}

// checkTools applies the rules that concern each tool and the catalog as a
// whole. The per-tool work (schemas, credential scans) runs in parallel.
func (l *loader) checkTools(ps []*pendingTool, tenants map[string]bool, c *Config) {
	first := map[string]*pendingTool{}
	for _, p := range ps {
		t := p.tool
		if found := secrets.Find(t.ToolID); len(found) > 0 {
			// Not the format's message, whose example would spell it out.
			l.errorf(p.from("toolId"), "credential", "toolId %s: remove it; published documents are public", found[0].Reason)
		} else if msg := toolid.Check(t.ToolID); msg != "" {
			l.errorf(p.from("toolId"), "toolid-format", "%s", msg)
		} else if q, dup := first[t.ToolID]; dup {
			l.errorf(p.from("toolId"), "toolid-unique", "toolId %q is already used by the tool at %s: toolIds must be unique", t.ToolID, q.at.src.Pos(q.at.ptr))
		} else {
			first[t.ToolID] = p
		}
		if t.SafetyTier == spec.TierExec && t.Source != spec.SourceHostExtension {
			l.errorf(p.from("safetyTier"), "exec-source", "safetyTier exec is only for source: host-extension (this tool's source is %s): use write, or declare the tool as a host extension", t.Source)
		}
		for i, tn := range t.Tenants {
			switch {
			case len(tenants) == 0:
				l.errorf(p.from("tenants").at(fmt.Sprint(i)), "tenant", "tool is scoped to tenant %q but %s declares no tenants: add tenants: [%s] there, or drop the scope", tn, ConfigFile, tn)
			case !tenants[tn]:
				l.errorf(p.from("tenants").at(fmt.Sprint(i)), "tenant", "unknown tenant %q: %s declares %s", tn, ConfigFile, english.Some(sortedKeys(tenants), 8))
			}
		}
	}
	l.checkCatalogue(ps)
	tooLarge := l.checkSizes(ps, c)
	g, ctx := errgroup.WithContext(l.ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, p := range ps {
		if tooLarge[p] {
			continue
		}
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			l.checkPublished(p)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		l.fileError(filepath.ToSlash(l.dir), "canceled", "%v", err)
	}
}

// checkPublished checks the values a tool publishes: its schemas are valid,
// self-contained JSON Schemas, and nothing carries credential material.
func (l *loader) checkPublished(p *pendingTool) {
	t := p.tool
	for _, f := range []struct{ name, value string }{{"name", t.Name}, {"title", t.Title}, {"description", t.Description}, {"server", t.Server}} {
		for _, s := range secrets.Find(f.value) {
			l.errorf(p.from(f.name), "credential", "%s: remove it; published documents are public", s.Reason)
		}
		if mp := machinePath(f.value); mp != "" {
			l.errorf(p.from(f.name), "machine-path", "%s holds the machine path %s: published documents say nothing of anybody's machine; write the path a user would see, such as ~/", f.name, mp)
		}
	}
	if !p.checkSchemas {
		return
	}
	for _, f := range []struct {
		name   string
		schema any
	}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
		if f.schema == nil {
			continue
		}
		at := p.from(f.name)
		for _, pr := range SchemaProblems(l.valid, f.name, f.schema) {
			l.errorf(at.at(source.SplitPointer(pr.Pointer)...), pr.Rule, "%s", pr.Message)
		}
	}
}

// SchemaProblem is one reason a tool's schema cannot be published.
type SchemaProblem struct {
	Pointer string // where in the schema, "" for the root
	Rule    string // the diagnostic's rule
	Message string
}

// SchemaProblems checks the inputSchema or outputSchema (field)
// of a tool to publish: an object schema, valid for its dialect, whose
// $refs resolve, and that holds no credential material. The loader and
// signpost import mcp both use it, so that what one accepts the other does.
func SchemaProblems(valid *schemas.Validator, field string, schema any) []SchemaProblem {
	var out []SchemaProblem
	if m, ok := schema.(map[string]any); !ok || m["type"] != "object" {
		out = append(out, SchemaProblem{"", "schema-root", field + ` must be a JSON Schema with "type": "object" at its root (tool arguments and results are objects)`})
	}
	for _, v := range valid.CheckSchema(schema) {
		out = append(out, SchemaProblem{v.Pointer, "json-schema", field + ": " + v.Message})
	}
	for _, pr := range refs.Check(schema) {
		out = append(out, SchemaProblem{pr.Pointer, "schema-ref", pr.Message})
	}
	// One problem per value: a schema finding (a default on a password
	// property) says more than a pattern match on the same value.
	found := map[string]bool{}
	for _, s := range append(secrets.FindInSchema(schema), secrets.Find(schema)...) {
		if !found[s.Pointer] {
			found[s.Pointer] = true
			out = append(out, SchemaProblem{s.Pointer, "credential", s.Reason + ": remove it; published documents are public"})
		}
	}
	return out
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func arr(m map[string]any, k string) []any {
	a, _ := m[k].([]any)
	return a
}

func strs(m map[string]any, k string) []string {
	a, ok := m[k].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, v := range a {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
