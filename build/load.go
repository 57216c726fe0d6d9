package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/signpost-dev/signpost/build/catalogfile"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/diag"
	"github.com/signpost-dev/signpost/build/jsonfiles"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/schemas"
	"golang.org/x/sync/errgroup"
)

// ConfigFile is the name of the site settings file at a catalog's root.
const ConfigFile = spec.ConfigFile

// Load reads, parses and validates the catalog folder dir. It reports every
// problem it finds, in all files at once; the Catalog is complete only when
// the diagnostics hold no error. Paths in diagnostics are dir joined with the
// file's path inside it.
//
// Each declaration file is read, checked and prepared for publishing on its
// own, several at once, and its decoded values are let go as soon as its
// tools hold their encoded schemas: what a large catalog keeps in memory is
// what it publishes, not its syntax. A large file is parsed in parts (see
// source.SplitYAML); when a part cannot be, or a part breaks a schema rule,
// the catalog is loaded again with every file parsed whole, so that the
// diagnostics are always those of whole files.
func Load(ctx context.Context, dir string) (*Catalog, Diagnostics) {
	cat, diags, whole := load(ctx, dir, true)
	if whole {
		cat, diags, _ = load(ctx, dir, false)
	}
	return cat, diags
}

// partSize is the size of the parts a large declaration file is parsed in.
const partSize = 256 << 10

// load is Load, with large files parsed in parts when split is set. whole
// is set when they must be parsed whole: nothing else it returns is valid.
func load(ctx context.Context, dir string, split bool) (cat *Catalog, diags Diagnostics, whole bool) {
	l := &loader{ctx: ctx, dir: dir, split: split, sink: sink{&diag.Sink{}}}
	l.sources = &jsonfiles.Files{Read: l.readFile, Display: l.display, Sink: l.sink.Sink}
	cat = l.load()
	// A canceled load may leave parses running (see load): what they
	// report from now on is dropped.
	return cat, l.sink.Close(), l.whole.Load()
}

// LoadConfig reads and checks the catalog's signpost.yaml alone, as Load
// does, so that a command can act on its targets and tenants (list a
// bucket) while Load reads the declarations. Load reports the same
// problems again.
func LoadConfig(ctx context.Context, dir string) (*Config, Diagnostics) {
	l := &loader{ctx: ctx, dir: dir, sink: sink{&diag.Sink{}}}
	c := &Config{}
	if !l.open() {
		return c, l.sink.Close()
	}
	defer l.root.Close()
	data, err := l.readFile(ConfigFile)
	if err != nil {
		l.sink.File(l.display(ConfigFile), "read", "%v", err)
		return c, l.sink.Close()
	}
	src, ps := source.ParseYAML(l.display(ConfigFile), ConfigFile, data)
	l.sink.Problems(src, ps)
	if recoverable(ps) {
		l.loadConfig(src, c)
	}
	return c, l.sink.Close()
}

type loader struct {
	ctx   context.Context
	dir   string
	split bool // parse large files in parts
	root  *os.Root
	valid *schemas.Validator
	// whole is set when a large file must be parsed whole after all.
	whole atomic.Bool

	// sink is where every diagnostic goes, and what remembers the values
	// that failed their schema.
	sink sink

	// prep prepares the files' tools for publishing, with the limits
	// and the compact view of signpost.yaml (see step config).
	prep *preparer
	// limitsAt is where signpost.yaml sets limits.files, else its top:
	// where a build over its file limit is reported.
	limitsAt ref

	mu      sync.Mutex
	sources *jsonfiles.Files // the JSON files declarations name
	kept    []*source.File   // files whose values are kept for reports (see report)
}

// ref is a value in a source file: where a diagnostic about it points.
type ref struct {
	src *source.File
	ptr string
}

func (r ref) at(segs ...string) ref { return ref{r.src, source.JoinPointer(r.ptr, segs...)} }

// sink is the sink of a load, with a ref where a diag.Sink takes a file
// and a pointer.
type sink struct{ *diag.Sink }

// report reports a problem with the value at: what a check finds in a
// value that failed its schema, the schema said (see diag.Sink.At).
func (s sink) report(sev Severity, at ref, rule, format string, args ...any) {
	s.At(sev, at.src, at.ptr, rule, format, args...)
}

func (s sink) errorf(at ref, rule, format string, args ...any) {
	s.report(Error, at, rule, format, args...)
}

func (l *loader) display(rel string) string {
	return filepath.ToSlash(filepath.Join(l.dir, filepath.FromSlash(rel)))
}

// open opens the catalog folder and the schemas the checks use, or
// reports why it cannot.
func (l *loader) open() bool {
	if !l.openRoot() {
		return false
	}
	if !l.compileSchemas() {
		l.root.Close()
		return false
	}
	return true
}

// openRoot opens the catalog folder, which every read goes through.
func (l *loader) openRoot() bool {
	root, err := os.OpenRoot(l.dir)
	if err != nil {
		l.sink.File(filepath.ToSlash(l.dir), "catalog-folder", "cannot open the catalog folder: %v", catalogfile.Cause(err))
		return false
	}
	l.root = root
	return true
}

// compileSchemas compiles the schemas of the files a catalog holds, which
// the checks of every file use.
func (l *loader) compileSchemas() bool {
	var err error
	if l.valid, err = schemas.NewValidator(); err != nil {
		l.sink.File(filepath.ToSlash(l.dir), "internal", "load embedded schemas: %v", err)
		return false
	}
	return true
}

// loadStep is one step of Load: it reads and settles what the steps
// before it left in the loadState, and reports to the loader's sink. It
// returns false when the load cannot go on (what stops it is reported).
type loadStep struct {
	name string
	run  func(*loadState) bool
}

// loadState is what Load's steps hand on to one another.
type loadState struct {
	files     []string // the declaration files, sorted, signpost.yaml apart
	hasConfig bool     // whether the folder has a signpost.yaml
	// reading waits for the reads that step "read" started; nil once
	// waited for.
	reading func() ([]fileTask, error)
	decls   []declared    // what each declaration file declares, in order
	whole   *wholeCatalog // the declarations together, as the passes settle them
	cat     *Catalog
}

// steps are the steps of Load, in the order they run, once the catalog
// folder is open.
func (l *loader) steps() []loadStep {
	return []loadStep{
		// The declaration files, listed: .yaml and .yml files outside
		// folders whose names start with ".".
		{"list", l.list},
		// Each large declaration file read and cut into parts, several
		// at once, while the two steps after this one run: neither needs
		// the files. A small one is read when it is declared.
		{"read", l.read},
		// The embedded schemas, which the checks of every file use,
		// compiled.
		{"schemas", func(*loadState) bool { return l.compileSchemas() }},
		// signpost.yaml parsed, held to its schema, decoded into Config
		// and checked: first, for the files are prepared for publishing
		// with its limits and its compact view as they are declared.
		{"config", l.config},
		// Each file, or part of a large one, on its own, several at once,
		// through the passes of a file (see filePasses): parsed, held to
		// its schema, decoded into typed declarations, its tools and
		// servers declared, its imports read, and its tools prepared for
		// publishing; then its values let go.
		{"declare", l.declareAll},
		// The rules that concern the files together, one pass after the
		// other on one goroutine (see catalogPasses).
		{"catalog", l.checkCatalog},
		// The catalog made of what the passes settled, and the values
		// kept for reports let go.
		{"assemble", l.assemble},
	}
}

func (l *loader) load() *Catalog {
	if !l.openRoot() {
		return nil
	}
	defer l.root.Close()
	st := &loadState{cat: &Catalog{}}
	// A step that fails while the files are read waits for the reads.
	defer st.wait()
	for _, step := range l.steps() {
		if !step.run(st) {
			return nil
		}
	}
	return st.cat
}

// wait waits for the reads that step "read" started, if it has not yet.
func (st *loadState) wait() ([]fileTask, error) {
	if st.reading == nil {
		return nil, nil
	}
	r := st.reading
	st.reading = nil
	return r()
}

// list lists the declaration files (see findFiles).
func (l *loader) list(st *loadState) bool {
	files, err := l.findFiles()
	switch {
	case err != nil && l.ctx.Err() != nil:
		l.sink.File(filepath.ToSlash(l.dir), "canceled", "%v", l.ctx.Err())
		return false
	case err != nil:
		l.sink.File(filepath.ToSlash(l.dir), "catalog-folder", "cannot list the catalog folder: %v", err)
		return false
	}
	if i := slices.Index(files, ConfigFile); i >= 0 {
		files, st.hasConfig = slices.Delete(files, i, i+1), true
	}
	st.files = files
	return true
}

// read starts reading the declaration files (see startReading).
func (l *loader) read(st *loadState) bool {
	st.reading = l.startReading(st.files)
	return true
}

// config loads signpost.yaml into the catalog's Config, and takes its
// limits and compact view for the files' tools.
func (l *loader) config(st *loadState) bool {
	c := &st.cat.Config
	spill, err := content.NewSpill("")
	if err != nil {
		l.sink.File(filepath.ToSlash(l.dir), "spill", "%v", err)
		return false
	}
	st.cat.spill = spill
	l.prep = &preparer{sink: l.sink, valid: l.valid, spill: spill}
	if !st.hasConfig {
		l.sink.File(l.display(ConfigFile), "config-missing", "no %s in %s: a catalog folder starts with one (see `signpost schema config`)", ConfigFile, filepath.ToSlash(l.dir))
		return true
	}
	if src := l.parseFile(ConfigFile, nil); src != nil {
		l.loadConfig(src, c)
		l.prep.limits = c.Limits
		if c.CompactView {
			o := c.compactOptions()
			l.prep.compact = &o
		}
		src.Unload(nil)
	}
	return true
}

// declareAll declares every file, once it is read (see declare).
func (l *loader) declareAll(st *loadState) bool {
	tasks, err := st.wait()
	if err != nil {
		l.sink.File(filepath.ToSlash(l.dir), "canceled", "%v", err)
		return false
	}
	decls, ok := l.declare(tasks)
	st.decls = decls
	return ok
}

// checkCatalog runs the passes across files (see catalogPasses).
func (l *loader) checkCatalog(st *loadState) bool {
	whole := &wholeCatalog{config: &st.cat.Config, limitsAt: l.limitsAt}
	for _, d := range st.decls {
		whole.tools = append(whole.tools, d.all()...)
		whole.servers = append(whole.servers, d.servers...)
	}
	st.decls, st.whole = nil, whole
	for _, pass := range catalogPasses() {
		pass.run(l.sink, whole)
	}
	return true
}

// assemble makes the catalog of what the passes settled: its tools sorted
// by toolId, its servers by name. The values kept for reports are let go.
func (l *loader) assemble(st *loadState) bool {
	cat, whole := st.cat, st.whole
	for _, p := range whole.tools {
		p.tool.SetDeclared(p.at.src, p.at.ptr)
		cat.Tools = append(cat.Tools, p.tool)
	}
	slices.SortStableFunc(cat.Tools, func(a, b *tool.Tool) int { return strings.Compare(a.ToolID, b.ToolID) })
	for _, s := range whole.servers {
		cat.Servers = append(cat.Servers, s.server)
	}
	slices.SortStableFunc(cat.Servers, func(a, b *Server) int { return strings.Compare(a.Name, b.Name) })
	cat.size = whole.size
	// The values of the files that failed a schema rule, kept for the
	// reports (see report), and of the JSON files that declarations name
	// are done with.
	for _, src := range l.sources.Sources() {
		l.unload(src)
	}
	for _, src := range l.kept {
		l.unload(src)
	}
	return true
}

// declared is what a declaration file, or a part of one, declares: the
// tools of each of its entries, and its servers.
type declared struct {
	tools, mcp, openapi []*pendingTool
	servers             []pendingServer
}

// add appends what a later part of the same file declares.
func (d *declared) add(e declared) {
	d.tools = append(d.tools, e.tools...)
	d.mcp = append(d.mcp, e.mcp...)
	d.openapi = append(d.openapi, e.openapi...)
	d.servers = append(d.servers, e.servers...)
}

// all is the tools in the order of the file parsed whole: tools:, then
// mcp:, then openapi:.
func (d *declared) all() []*pendingTool { return slices.Concat(d.tools, d.mcp, d.openapi) }

// fileTask is a declaration file to declare, or a part of a large one.
type fileTask struct {
	rel   string
	data  []byte       // the file's bytes, when read already
	src   *source.File // a large file's, which its parts share
	part  source.Part
	left  *atomic.Int32 // its parts not yet declared
	alias *atomic.Int64 // the nodes its parts' aliases bring in
}

// startReading starts reading the large declaration files and cutting them
// into parts (when l.split is set), several at once, and returns the
// function that waits for them: it returns the tasks of declare, in the
// files' order, each file's parts in theirs, or the error of a canceled
// Load.
func (l *loader) startReading(files []string) func() ([]fileTask, error) {
	byFile := make([][]fileTask, len(files))
	done := make(chan error, 1)
	go func() {
		var g errgroup.Group
		g.SetLimit(runtime.GOMAXPROCS(0))
		for i, rel := range files {
			if !l.split {
				byFile[i] = []fileTask{{rel: rel}}
				continue
			}
			g.Go(func() error {
				if err := l.ctx.Err(); err != nil {
					return err
				}
				// A file too small to cut is read when it is declared:
				// read now, a catalog of many files would hold them all
				// until the first is declared.
				if fi, err := l.root.Stat(filepath.FromSlash(rel)); err == nil && fi.Size() <= partSize {
					byFile[i] = []fileTask{{rel: rel}}
					return nil
				}
				data, err := l.readFile(rel)
				if err != nil {
					data = nil // read again, and reported, by the task
				}
				// The top-level keys of a declaration file.
				keys := []string{"tools", "servers", "mcp", "openapi"}
				src, parts := source.SplitYAML(l.display(rel), rel, data, partSize, keys)
				if parts == nil {
					byFile[i] = []fileTask{{rel: rel, data: data}}
					return nil
				}
				left, alias := &atomic.Int32{}, &atomic.Int64{}
				left.Store(int32(len(parts)))
				for _, p := range parts {
					byFile[i] = append(byFile[i], fileTask{rel: rel, src: src, part: p, left: left, alias: alias})
				}
				return nil
			})
		}
		done <- g.Wait()
	}()
	return func() ([]fileTask, error) {
		if err := <-done; err != nil {
			return nil, err
		}
		// In the files' order, each file's parts in theirs.
		tasks := slices.Concat(byFile...)
		byFile = nil // the tasks hold the files' bytes now, and let go of each once declared
		slices.SortStableFunc(tasks, func(a, b fileTask) int { return strings.Compare(a.rel, b.rel) })
		return tasks, nil
	}
}

// declare runs the passes of each file and part of tasks (filePasses),
// several at once. It returns what each file declares, in the
// files' order; ok is false when Load is canceled, or when a large file
// must be parsed whole (l.whole).
func (l *loader) declare(tasks []fileTask) (_ []declared, ok bool) {
	var err error
	out := make([]declared, len(tasks))
	g, ctx := errgroup.WithContext(l.ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, t := range tasks {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			// A declared file's bytes are garbage: a large catalog's
			// files would otherwise all stay in memory until the last
			// is declared.
			tasks[i].data, tasks[i].src = nil, nil
			if t.src == nil {
				out[i] = l.declareFile(t)
				return nil
			}
			d, ok := l.declarePart(t)
			if !ok {
				l.whole.Store(true)
				return errParseWhole
			}
			out[i] = d
			return nil
		})
	}
	// A file's parse cannot be interrupted, and one large file takes
	// seconds: a canceled Load returns at once and leaves the parses to
	// finish on their own, bounded by the file size limit.
	done := make(chan error, 1)
	go func() { done <- g.Wait() }()
	select {
	case err = <-done:
	case <-l.ctx.Done():
		err = l.ctx.Err()
	}
	switch {
	case l.whole.Load():
		return nil, false
	case err != nil:
		l.sink.File(filepath.ToSlash(l.dir), "canceled", "%v", err)
		return nil, false
	}
	var byFile []declared
	for i, d := range out {
		if i > 0 && tasks[i].rel == tasks[i-1].rel {
			byFile[len(byFile)-1].add(d)
		} else {
			byFile = append(byFile, d)
		}
	}
	return byFile, true
}

// errParseWhole stops the parts of a load whose large file must be parsed
// whole.
var errParseWhole = errors.New("a file must be parsed whole")

// parseFile parses a YAML file of the catalog, reading it unless data
// holds it, and reports its problems. It returns nil when the file cannot
// be checked further.
func (l *loader) parseFile(rel string, data []byte) *source.File {
	if data == nil {
		var err error
		if data, err = l.readFile(rel); err != nil {
			l.sink.File(l.display(rel), "read", "%v", err)
			return nil
		}
	}
	src, ps := source.ParseYAML(l.display(rel), rel, data)
	l.sink.Problems(src, ps)
	if !recoverable(ps) {
		return nil
	}
	return src
}

// declareFile runs the passes of one declaration file (filePasses),
// parsed whole, read unless t holds its bytes. The file's values are let
// go then, unless they failed a schema rule: the reports need them until
// the end (see kept).
func (l *loader) declareFile(t fileTask) declared {
	f := &fileState{task: t}
	l.runFilePasses(f)
	switch {
	case f.src == nil:
	case !l.sink.Failed(f.src):
		l.unload(f.src)
	default:
		l.mu.Lock()
		l.kept = append(l.kept, f.src)
		l.mu.Unlock()
	}
	return f.out
}

// declarePart runs the passes of one part of a large file (filePasses);
// the last of the file's parts lets go of its values. ok is false when the
// file must be parsed whole: the part does not parse on its own, or it
// breaks a schema rule, whose reports need the whole file's values (see
// report).
func (l *loader) declarePart(t fileTask) (d declared, ok bool) {
	f := &fileState{task: t}
	l.runFilePasses(f)
	if f.whole {
		return d, false
	}
	if t.left.Add(-1) == 0 {
		l.unload(t.src)
	}
	return f.out, true
}

// runFilePasses runs the passes of a file, or of a part of one, in order,
// until one finds nothing more to pass over.
func (l *loader) runFilePasses(f *fileState) {
	for _, pass := range filePasses() {
		if !pass.run(l, f) {
			return
		}
	}
}

// parseDeclarations is the pass "parse": it parses the file (parseFile),
// or the part on its own. A part that does not parse on its own, or an
// OpenAPI document cut into parts, is parsed whole.
func (l *loader) parseDeclarations(f *fileState) bool {
	if f.isPart() {
		v, ok := f.task.src.ParsePart(f.task.part, f.task.alias)
		if !ok || isOpenAPIDocument(&source.File{Value: v}) {
			f.whole = true
			return false
		}
		f.src, f.value = f.task.src, v
		return true
	}
	if f.src = l.parseFile(f.task.rel, f.task.data); f.src == nil || isOpenAPIDocument(f.src) {
		return false
	}
	f.value = f.src.Value
	return true
}

// unload lets go of a file's value and bytes; a position a later report
// needs reads the file again.
func (l *loader) unload(src *source.File) {
	dir, rel := l.dir, src.Rel
	src.Unload(func() ([]byte, error) { return catalogfile.Reread(dir, rel) })
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
// relative to the catalog folder (catalogfile.Reads). Load reads no other
// file.
func Reads(name string) bool { return catalogfile.Reads(name) }

// findFiles lists the declarations of the catalog (catalogfile.IsDeclaration),
// sorted, in time linear in the folder's entries and stopping when the load
// is cancelled (catalogfile.List). Folders whose names start with "." are
// not walked. A declaration's name on something that is not a regular file
// (a link, a FIFO, a device, a socket) is not read, and said.
func (l *loader) findFiles() ([]string, error) {
	var odd []string
	files, err := catalogfile.List(l.ctx, l.root, func(rel string, typ fs.FileMode) bool {
		if !catalogfile.IsDeclaration(rel) {
			return false
		}
		if !typ.IsRegular() {
			odd = append(odd, rel)
			return false
		}
		return true
	})
	for _, rel := range odd {
		l.sink.Add(Diagnostic{Pos: source.Pos{File: l.display(rel)}, Severity: Warning, Rule: "not-regular",
			Message: fmt.Sprintf("%s is not a regular file (a link, a pipe, a device or a socket): it is not read; make it a file to declare what it holds", rel)})
	}
	return files, err
}

// readFile reads a file of the catalog, refusing anything over the size limit
// before reading it whole.
func (l *loader) readFile(rel string) ([]byte, error) {
	return catalogfile.Read(l.root, rel)
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
		l.sink.SchemaError(xat.src, xat.ptr, x.Message)
		bad = append(bad, x.Pointer)
	}
	return bad
}
