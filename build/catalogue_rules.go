package build

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/reserved"
	"github.com/signpost-dev/signpost/build/size"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tool"
	"github.com/signpost-dev/signpost/build/toolid"
)

// Limits of a response schema: the catalogue repeats it for every tool, so
// discovery stays small only if each one is.
const (
	MaxResponseSchemaBytes = 64 << 10
	MaxResponseSchemaDepth = 32
)

// catalogueRules applies the tool catalogue's rules to one tool: its
// reserved arguments, and its response schema.
func (pr *preparer) catalogueRules(p *pendingTool, sizes *size.Meter) {
	t := p.tool
	if t.Irreversible && t.SafetyTier != spec.TierWrite && t.SafetyTier != spec.TierExec {
		pr.sink.errorf(p.from("irreversible"), "irreversible", "irreversible is for tools that change state (safetyTier write or exec); this one is %s: remove irreversible, or raise its tier", t.SafetyTier)
	}
	if p.keyArgument != "" && t.ReplayPolicy != spec.ReplayKeyed {
		pr.sink.errorf(p.from("idempotencyKey"), "idempotency-key", "idempotencyKey names the key of a keyed tool, and this one is replayPolicy %s: remove it, or make the tool keyed", t.ReplayPolicy)
	}
	pr.reserveArguments(p)
	pr.checkResponse(p, sizes)
}

// reserveArguments adds the reserved arguments a tool needs to its input
// schema (see package reserved): the idempotency key of a keyed tool that
// names none, the confirmation of an irreversible one. A reserved name
// taken by one of the tool's own arguments gets leading underscores until
// it is free.
func (pr *preparer) reserveArguments(p *pendingTool) {
	t := p.tool
	root, _ := p.input.(map[string]any)
	props, _ := root["properties"].(map[string]any)
	if t.ReplayPolicy == spec.ReplayKeyed {
		if p.keyArgument != "" {
			if msg := reserved.KeyProblem(root, p.keyArgument); msg != "" {
				pr.sink.errorf(p.from("idempotencyKey"), "idempotency-key", "idempotencyKey %q %s", p.keyArgument, msg)
				return
			}
			t.Reserved.IdempotencyKey, t.Reserved.KeyDeclared = p.keyArgument, true
		} else {
			t.Reserved.IdempotencyKey = reserved.Free(reserved.IdempotencyKey, props)
		}
	}
	if t.Irreversible {
		t.Reserved.Confirmation = reserved.Free(reserved.Confirmation, props)
	}
	key := t.Reserved.IdempotencyKey
	if t.Reserved.KeyDeclared {
		key = "" // the tool's own argument
	}
	// The declared schema may be a file other tools share: the published
	// one is a copy with the reserved arguments added.
	if out := reserved.Add(root, key, t.Reserved.Confirmation); out != nil {
		p.declaredInput, p.input = p.input, out
	}
}

// checkResponse holds a tool's response schema to what the catalogue can
// publish: an object schema (any other is dropped with a warning: streams
// and other responses have none), within MaxResponseSchemaBytes and
// MaxResponseSchemaDepth.
func (pr *preparer) checkResponse(p *pendingTool, sizes *size.Meter) {
	if p.output == nil {
		return
	}
	at := p.from("outputSchema")
	if m, ok := p.output.(map[string]any); !ok || m["type"] != "object" {
		pr.sink.report(Warning, at, "response-schema", `outputSchema is not a JSON-object schema ("type": "object" at its root): the tool is published without one, as for a stream or any other response`)
		p.output = nil
		return
	}
	if n, ptr, ok := sizes.Measure(p.output, MaxResponseSchemaBytes); !ok {
		pr.sink.errorf(at.at(source.SplitPointer(ptr)...), "response-schema", "outputSchema is more than %d KiB (%d bytes so far): a response schema is repeated in every list of the catalogue; describe the fields callers use, or leave outputSchema out", MaxResponseSchemaBytes>>10, n)
		return
	}
	if ptr, deep := deeperThan(p.output, MaxResponseSchemaDepth, nil); deep {
		pr.sink.errorf(at.at(ptr...), "response-schema", "outputSchema nests more than %d levels deep here: flatten it, or describe less of the response", MaxResponseSchemaDepth)
	}
}

// deeperThan reports whether v nests more than depth objects and arrays,
// and where, in key order.
func deeperThan(v any, depth int, path []string) ([]string, bool) {
	if depth < 0 {
		return path, true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p, deep := deeperThan(x[k], depth-1, append(path, k)); deep {
				return p, true
			}
		}
	case []any:
		for i, e := range x {
			if p, deep := deeperThan(e, depth-1, append(path, fmt.Sprint(i))); deep {
				return p, true
			}
		}
	}
	return nil, false
}

// groupName is the name of a tool's group when it declares none: its
// server's name after the "/", or its source.
func groupName(t *tool.Tool) string {
	if t.Group != "" {
		return t.Group
	}
	if _, name, ok := strings.Cut(t.Server, "/"); ok && name != "" {
		return name
	}
	return t.Source
}

// assignGroupKeys names every tool's group and gives it a key: the name in
// snake case, by the rule toolIds are derived with, so that two names
// sharing a key get stable digests.
func assignGroupKeys(ps []*pendingTool) {
	names := map[string]bool{}
	for _, p := range ps {
		p.tool.Group = groupName(p.tool)
		names[p.tool.Group] = true
	}
	sorted := slices.Sorted(maps.Keys(names))
	claims := make([]toolid.Claim, len(sorted))
	for i, n := range sorted {
		claims[i] = toolid.ClaimFor("", "", n)
	}
	keys := map[string]string{}
	for i, k := range toolid.Derive(claims, nil) {
		keys[sorted[i]] = k
	}
	for _, p := range ps {
		p.tool.GroupKey = keys[p.tool.Group]
	}
}
