package build

import (
	"fmt"
	"strconv"

	"github.com/signpost-dev/signpost/build/configfile"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/size"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/english"
)

// Limits bound what a build may produce, so that a small catalog cannot
// expand into a huge site: a YAML alias used three hundred times, or one
// schema file shared by thousands of tools, counts each time it is used.
// signpost.yaml sets them under limits:; a zero field takes its default.
//
// Load refuses a catalog that is sure to exceed one, before anything is
// encoded, with a diagnostic at the declaration that causes it; Compile
// holds the documents it encodes to the same limits exactly, and
// output.Build.Write every file it writes, a host's included.
type Limits struct {
	// Value bounds one declared tool or server as it is published: its
	// descriptor or card with the schemas it uses, aliases expanded.
	Value int64
	// Document bounds any one published document, the lists included.
	Document int64
	// Build bounds the bytes of all files a build writes together: the
	// documents of all sites with their lines of the route table, which
	// Load estimates and Compile counts, and the rest of the route table
	// and a host's layout's own files, which output.Build.Write counts.
	Build int64
	// Files bounds the number of files a build writes: the documents of
	// all sites and the route table, and a host's layout's own files
	// (output.Build.Write).
	Files int64
}

// The default limits fit the largest real catalogs many times over: the
// tools of a large MCP server take a few KiB each, and a catalog of 10,000
// of them builds about 100 MiB and 20,000 files per site (a descriptor and
// a compact one for each tool). The file limit also bounds what a build
// removes when it is stopped half-way, or when it replaces the one before:
// removing 100,000 files takes about 0.6 s of a 2-core machine's CPU time,
// and longer on a disk other jobs share.
const (
	DefaultValueLimit    = 4 << 20
	DefaultDocumentLimit = 64 << 20
	DefaultBuildLimit    = 1 << 30
	DefaultFileLimit     = 100_000
)

// LimitError reports a document, or a build, that Compile found larger
// than one of the catalog's Limits, or that a host's layout of a build
// would take past them (output.Build.Write). Nothing is written.
type LimitError = output.LimitError

// ValueLimit returns the limit on one tool or server.
func (l Limits) ValueLimit() int64 { return cmpOr(l.Value, DefaultValueLimit) }

// DocumentLimit returns the limit on one document.
func (l Limits) DocumentLimit() int64 { return cmpOr(l.Document, DefaultDocumentLimit) }

// BuildLimit returns the limit on a whole build.
func (l Limits) BuildLimit() int64 { return cmpOr(l.Build, DefaultBuildLimit) }

// FileLimit returns the limit on the number of files of a build.
func (l Limits) FileLimit() int64 { return cmpOr(l.Files, DefaultFileLimit) }

func cmpOr(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}

// loadLimits reads the limits: member of signpost.yaml, already valid
// against the config schema.
func loadLimits(s sink, top ref, limits configfile.Limits, c *Limits) {
	for _, f := range []struct {
		name string
		v    any
		dst  *int64
	}{{"value", limits.Value, &c.Value}, {"document", limits.Document, &c.Document}, {"build", limits.Build, &c.Build}} {
		if f.v == nil {
			continue
		}
		n, err := size.Parse(f.v)
		if err != nil {
			s.errorf(top.at("limits", f.name), "limits", "limits.%s: %v", f.name, err)
			continue
		}
		*f.dst = n
	}
	if n, ok := limits.Files.(fmt.Stringer); ok { // json.Number
		// An integer of at least 1, as the schema holds it.
		if n, err := strconv.ParseInt(n.String(), 10, 64); err == nil && n > 0 {
			c.Files = n
		}
	}
}

// limitMessage is output.LimitMessage: what is larger than the limit
// called name, of the size limit, and how to fix it.
func limitMessage(what, name, limit, detail string) string {
	return output.LimitMessage(what, name, limit, detail)
}

// filesMessage is output.FilesMessage: what is more files than the file
// limit, max, and how to fix it.
func filesMessage(what string, max int64) string { return output.FilesMessage(what, max) }

// toolSize estimates the size of the tool's descriptor, its schemas
// measured with sizes. When it passes limit, ok is false and at is where
// the value that carried it past is.
func (pr *preparer) toolSize(p *pendingTool, limit int64, sizes *size.Meter) (n int64, at ref, ok bool) {
	t := p.tool
	n = 200 // the members' names and the safety fields
	for _, f := range []struct{ name, value string }{{"toolId", t.ToolID}, {"name", t.Name}, {"title", t.Title}, {"description", t.Description}, {"server", t.Server}} {
		if n += int64(len(f.value)); n > limit {
			return n, p.from(f.name), false
		}
	}
	for _, f := range []struct {
		name   string
		schema any
	}{{"inputSchema", declaredInput(p)}, {"outputSchema", p.output}} {
		if f.schema == nil {
			continue
		}
		// A schema with reserved arguments added is measured as declared,
		// so that a file many tools share is still measured once.
		s, ptr, ok := sizes.Measure(f.schema, limit-n)
		if n += s; !ok {
			return n, p.from(f.name).at(source.SplitPointer(ptr)...), false
		}
	}
	return n, ref{}, true
}

// serverFits holds a server's declaration to the value limit, and reports
// it when it passes.
func (pr *preparer) serverFits(at ref, v any) bool {
	limit := pr.limits.ValueLimit()
	if _, ptr, ok := new(size.Meter).Measure(v, limit); !ok {
		pr.sink.errorf(at.at(source.SplitPointer(ptr)...), "limits", "%s", limitMessage("the server's declaration is", "value", english.Bytes(limit), ""))
		return false
	}
	return true
}

// declaredInput is the tool's input schema as declared.
func declaredInput(p *pendingTool) any {
	if p.declaredInput != nil {
		return p.declaredInput
	}
	return p.input
}
