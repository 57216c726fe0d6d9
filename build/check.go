package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/signpost-dev/signpost/build/compact"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/hygiene"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/size"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/schemas"
)

// preparer prepares the tools of the files for publishing as each file is
// declared (see prepare), several files at once: one serves a whole load.
type preparer struct {
	sink    sink
	valid   *schemas.Validator
	limits  Limits           // from signpost.yaml
	compact *compact.Options // the compact view's, when signpost.yaml turns it on
	scratch sync.Pool        // of *[]byte, for encodeSchema
	// spill holds the tools' encoded schemas from the moment they are
	// encoded until Compile reads them (tool.Tool.HoldSchemas); a tool
	// it could not hold keeps its own, and the first such failure is
	// reported, once (a full disk fails every tool after it).
	spill       *content.Spill
	spillFailed atomic.Bool
	// encoded counts twice the bytes of the published tools encoded so
	// far, the least the sites will hold (see prepare).
	encoded atomic.Int64
}

// prepare applies the rules that concern each tool alone, and encodes the
// schemas of each that fits the catalog's limits into it: the decoded
// schemas are let go, and the tool holds what it publishes. What
// checkPublished finds waits in the tool for the pass that reports it
// unless the catalog is too large (see reportPublished).
func (pr *preparer) prepare(ps []*pendingTool) {
	limit := pr.limits.ValueLimit()
	// The sizes of the schemas of these tools, each measured once: they
	// are alive together, the file's and the schema files it names.
	sizes := &size.Meter{}
	for _, p := range ps {
		t := p.tool
		pr.catalogueRules(p, sizes)
		p.size, p.sizeAt, p.sizeOK = pr.toolSize(p, limit, sizes)
		// The sites hold each published tool at least twice, as a
		// document and in a list: once that is over the build limit,
		// checkSizes refuses the catalog, and nothing more is checked
		// or encoded.
		fits := p.sizeOK && !(t.Published() && pr.encoded.Add(2*p.size) > pr.limits.BuildLimit())
		if fits {
			p.published = pr.checkPublished(p)
			t.InputSchema = pr.encodeSchema(p.input)
			t.OutputSchema = pr.encodeSchema(p.output)
			if pr.compact != nil && p.input != nil {
				t.SetCompactInput(pr.encode(func(b []byte) []byte { return pr.compact.AppendSchema(b, p.input) }), *pr.compact)
			}
			pr.hold(p)
		}
		p.input, p.output, p.declaredInput = nil, nil, nil
	}
}

// hold moves the tool's encoded schemas to the spill file, when the
// preparer has one.
func (pr *preparer) hold(p *pendingTool) {
	if pr.spill == nil {
		return
	}
	if err := p.tool.HoldSchemas(pr.spill); err != nil && pr.spillFailed.CompareAndSwap(false, true) {
		pr.sink.errorf(p.at, "spill", "tool %s: %v", p.tool.ToolID, err)
	}
}

// encodeSchema encodes a decoded schema as the descriptors publish it; nil
// stays nil. The encoding grows in a reused buffer and is copied once into
// a slice of its size: appending to a new slice made the larger part of
// Load's garbage.
func (pr *preparer) encodeSchema(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	return pr.encode(func(b []byte) []byte { return jsonenc.Append(b, v) })
}

// encode returns what appendTo appends to an empty slice, in a slice of
// its own size.
func (pr *preparer) encode(appendTo func([]byte) []byte) []byte {
	buf, _ := pr.scratch.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	*buf = appendTo((*buf)[:0])
	out := bytes.Clone(*buf)
	pr.scratch.Put(buf)
	return out
}

// checkPublished checks the values a tool publishes: its schemas are valid,
// self-contained JSON Schemas, and nothing carries credential material.
func (pr *preparer) checkPublished(p *pendingTool) []finding {
	var found []finding
	t := p.tool
	for _, f := range []struct{ name, value string }{{"name", t.Name}, {"title", t.Title}, {"description", t.Description}, {"server", t.Server}, {"group", t.Group}} {
		for _, s := range secrets.Find(f.value) {
			found = append(found, finding{at: p.from(f.name), rule: "credential", msg: s.Reason + ": remove it; published documents are public"})
		}
		if r, ok := hygiene.Invisible(f.value); ok {
			found = append(found, finding{at: p.from(f.name), rule: "invisible-text", msg: fmt.Sprintf("%s holds %U, a character a reader cannot see or that changes what they see: published text must show what it says; remove it", f.name, r)})
		}
		if mp := hygiene.MachinePath(f.value); mp != "" {
			// Not a credential, and one path in prose must not stop a
			// catalog: a warning, so that it is fixed before it ships.
			found = append(found, finding{p.from(f.name), "machine-path", fmt.Sprintf("%s holds the machine path %s: published documents should say nothing of anybody's machine; write the path a user would see, such as ~/", f.name, mp), true})
		}
	}
	if !p.checkSchemas {
		return found
	}
	for _, f := range []struct {
		name   string
		schema any
	}{{"inputSchema", p.input}, {"outputSchema", p.output}} {
		if f.schema == nil {
			continue
		}
		at := p.from(f.name)
		if r, ptr, ok := hygiene.InvisibleIn(f.schema, nil); ok {
			found = append(found, finding{at: at.at(ptr...), rule: "invisible-text", msg: fmt.Sprintf("%s holds %U, a character a reader cannot see or that changes what they see: published text must show what it says; remove it", f.name, r)})
		}
		for _, sp := range SchemaProblems(pr.valid, f.name, f.schema) {
			found = append(found, finding{at: at.at(source.SplitPointer(sp.Pointer)...), rule: sp.Rule, msg: sp.Message})
		}
	}
	return found
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
