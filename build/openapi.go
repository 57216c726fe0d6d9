package build

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/signpost-dev/signpost/build/catalogfile"
	"github.com/signpost-dev/signpost/build/declarations"
	"github.com/signpost-dev/signpost/build/openapi"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/build/toolid"
	"github.com/signpost-dev/signpost/internal/suggest"
)

// isOpenAPIDocument reports whether a YAML file of the catalog is an
// OpenAPI document, which an openapi: import reads, rather than a
// declaration file.
func isOpenAPIDocument(src *source.File) bool { return openapi.IsDocument(src.Value) }

// isOpenAPIFile reports whether rel may be an OpenAPI document.
func isOpenAPIFile(rel string) bool {
	switch path.Ext(rel) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// readOpenAPI reads the OpenAPI document an openapi: import names, and
// reports why it cannot when it cannot.
func (l *loader) readOpenAPI(at ref, name string) (*source.File, *openapi.Document) {
	rel, msg := catalogfile.ResolveInside(at.src.Rel, name)
	if msg == "" && !isOpenAPIFile(rel) {
		msg = fmt.Sprintf("file %q is not an OpenAPI document: name a .json, .yaml or .yml file", name)
	}
	if msg != "" {
		l.sink.errorf(at, "file", "%s", msg)
		return nil, nil
	}
	data, err := l.readFile(rel)
	if err != nil {
		l.sink.errorf(at, "file", "cannot read %s: %v", name, err)
		return nil, nil
	}
	var src *source.File
	var ps []source.Problem
	if path.Ext(rel) == ".json" {
		src, ps = source.ParseJSON(l.display(rel), rel, data)
	} else {
		src, ps = source.ParseYAML(l.display(rel), rel, data)
	}
	if len(ps) > 0 {
		l.sink.Problems(src, ps)
		return nil, nil
	}
	// The operations' schemas, each component counted where it is used,
	// are bounded before they are built: no site's list can hold more.
	doc, err := openapi.Options{MaxSchemas: l.prep.limits.DocumentLimit()}.Read(l.ctx, src.Value)
	if err != nil {
		where := ref{src: src}
		if oe, ok := errors.AsType[*openapi.Error](err); ok && oe.Pointer != "" {
			where.ptr = oe.Pointer
		}
		l.sink.errorf(where, "openapi-document", "%v", err)
		return nil, nil
	}
	return src, doc
}

// importOpenAPI turns the operations of an OpenAPI document into tools, as
// an mcp: import turns recorded tools: classified by the declaration, never
// by the document. An operation that cannot be a tool is a warning, unless
// classify hides it.
func (l *loader) importOpenAPI(at ref, imp *declarations.Import) []*pendingTool {
	src, doc := l.readOpenAPI(at.at("from"), imp.From)
	if doc == nil {
		return nil
	}
	prefix, tenants, readGet, defaults := imp.ToolIDPrefix, imp.Tenants, imp.ReadGet, imp.Default

	seen := map[string]ref{}
	var out []*pendingTool
	for _, op := range doc.Operations {
		if strings.HasPrefix(op.Pointer, "/webhooks/") {
			continue // a request the API sends: nothing to call
		}
		oat := ref{src: src, ptr: op.Pointer}
		if first, dup := seen[op.Name]; dup {
			l.sink.errorf(oat, "openapi-operation", "operation %q is defined twice (first at %s)", op.Name, first.src.Pos(first.ptr))
			continue
		}
		seen[op.Name] = oat
		cls, classified := imp.Classify[op.Name]
		cat := at.at("classify", op.Name)
		status := cmp.Or(cls.Status, defaults.Status, tool.StatusActive)
		if op.LeftOut != "" || op.Tool.Description == "" && cls.Description == "" {
			if status != tool.StatusHidden {
				reason := op.LeftOut
				if reason == "" {
					reason = fmt.Sprintf("it has no summary or description: add one under classify.%s.description", op.Name)
				}
				l.sink.report(Warning, oat, "openapi-operation", "operation %q is not published: %s; hide it with status: hidden under classify.%s to silence this", op.Name, reason, op.Name)
			}
			continue
		}
		ot := op.Tool
		t := &tool.Tool{Name: op.Name, Source: spec.SourceOpenAPI, Group: ot.Group, Tenants: tenants}
		p := &pendingTool{tool: t, at: oat, origin: map[string]ref{"name": oat}}
		t.SafetyTier, p.origin["safetyTier"] = spec.TierWrite, at
		replay := ""
		if readGet && ot.Read {
			t.SafetyTier, replay = spec.TierRead, spec.ReplayIdempotent
			p.origin["safetyTier"] = at.at("readGet")
		}
		if classified {
			if v := cls.SafetyTier; v != "" {
				t.SafetyTier, p.origin["safetyTier"] = v, cat.at("safetyTier")
				if v == spec.TierWrite {
					replay = ""
				}
			}
		}
		t.ReplayPolicy = cmp.Or(cls.ReplayPolicy, replay, defaults.ReplayPolicy, spec.ReplayUnsafe)
		t.Egress = cmp.Or(cls.Egress, defaults.Egress, spec.EgressInternet)
		t.Status = status
		if v := cls.Tenants; v != nil {
			t.Tenants = v
			p.origin["tenants"] = cat.at("tenants")
		} else if tenants != nil {
			p.origin["tenants"] = at.at("tenants")
		}
		t.Title, p.origin["title"] = ot.Title, oat.at("summary")
		if v := strings.TrimSpace(cls.Title); v != "" {
			t.Title, p.origin["title"] = v, cat.at("title")
		}
		t.Description, p.origin["description"] = ot.Description, oat.at("description")
		if v := strings.TrimSpace(cls.Description); v != "" {
			t.Description, p.origin["description"] = v, cat.at("description")
		}
		if id := cls.ToolID; id != "" {
			t.ToolID, p.explicit = id, true
			p.origin["toolId"] = cat.at("toolId")
		} else {
			// Seeded by the API's title, as signpost import openapi seeds
			// it, so that switching between the two keeps every URL.
			p.claim = toolid.ClaimFor(prefix, doc.Title, op.Name)
			p.origin["toolId"] = oat
		}
		p.checkSchemas = t.Status != tool.StatusHidden
		p.input, p.origin["inputSchema"] = ot.InputSchema, oat
		if ot.OutputSchema != nil {
			p.output, p.origin["outputSchema"] = ot.OutputSchema, oat.at("responses")
		}
		out = append(out, p)
	}
	for _, name := range sortedKeys(imp.Classify) {
		if _, ok := seen[name]; !ok {
			l.sink.errorf(at.at("classify", name), "openapi-classify", "classify names %q, which %s does not hold: name an operation by its operationId, or METHOD /path without one; %s", name, imp.From, suggest.Instead(name, sortedKeys(seen), "operations"))
		}
	}
	return out
}
