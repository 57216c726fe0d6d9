package check

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/schemas"
)

// learnTools decodes /tools.
func (c *checker) learnTools(u string) {
	doc, _ := c.decodedPage(u)
	list, ok := documents.DescriptorsOf(doc)
	if !ok {
		return
	}
	c.toolList = list
	c.toolByID = map[string]*documents.Descriptor{}
	for i := range list {
		id := list[i].ToolID.Text()
		if id == "" {
			continue
		}
		if _, dup := c.toolByID[id]; !dup {
			c.toolByID[id] = &list[i]
			c.toolIDs = append(c.toolIDs, id)
		}
	}
	slices.Sort(c.toolIDs)
}

// checkTools applies the rules of /tools and /tools/{toolId}.
func (c *checker) checkTools(u string) {
	p := c.pages[u]
	listRules := []string{"tools.list", "tools.sorted", "tools.unique-id", "tools.exec", "tools.annotations", "tools.digest", "tools.credentials"}
	if p == nil {
		return
	}
	if !c.status("tools.status", c.toolsStatusLevel, p, "the tool list") {
		c.skip(u, "the tool list is not served", listRules...)
		return
	}
	if p.tooBig {
		c.skip(u, skippedTooBig, listRules...)
		return
	}
	if c.toolList == nil {
		doc, err := jsonval.Decode(p.body)
		ev := "top level is " + schemas.KindOf(doc)
		if err != nil {
			ev = "invalid JSON: " + err.Error()
		}
		c.add("tools.list", ResultFail, u, ev, "/tools must be a JSON array of tool descriptors")
		c.skip(u, "the tool list is not a JSON array", listRules[1:]...)
		return
	}
	// Validate a copy in which what the dedicated rules check is made
	// right, so that each problem is reported once, under its own rule.
	dup, _ := jsonval.Decode(p.body)
	fixed, _ := documents.DescriptorsOf(dup)
	for _, d := range fixed {
		fix(d, true)
	}
	c.violations("tools.list", LevelMust, u, c.v.Validate("tool-list", dup), fmt.Sprintf("%d descriptors valid against tool-list", len(c.toolList)), "/tools is a valid tool list", "every descriptor must be valid against the tool-descriptor schema")
	c.sorted(u, c.toolList, "")
	var dups []string
	seen := map[string]int{}
	for i, d := range c.toolList {
		id, ok := d.ToolID.Str()
		if !ok {
			continue
		}
		if j, dup := seen[id]; dup {
			dups = append(dups, fmt.Sprintf("/%d/%s %s repeats /%d", i, d.ToolID.Name, jsonval.Show(id), j))
		}
		seen[id] = i
	}
	c.problems("tools.unique-id", u, dups, fmt.Sprintf("%d unique toolIds", len(seen)), "every toolId is unique", "toolIds must be unique")
	c.exec(u, c.toolList, "")
	c.annotations(u)
	c.digests(u)
	c.credentials("tools.credentials", u, raws(c.toolList))
	// tools.item is applied to each document as it arrives (documentRules).
}

// item checks a /tools/{toolId} document, in one finding: 200 and equal
// to its list entry, or, when the list has none, valid against schema.
// inspect, when set, is given the document as it is served, when it is
// JSON.
func (c *checker) item(rule string, level Level, p *page, entry *documents.Descriptor, schema, list string, inspect func(documents.Descriptor)) {
	ok, ev := c.statusOf(p)
	switch {
	case !ok:
		c.addAt(rule, level, ResultFail, p.url, ev, "the tool's document "+level.verb()+" answer 200")
		return
	case p.tooBig:
		c.addAt(rule, level, ResultSkip, p.url, ev, skippedTooBig)
		return
	}
	doc, err := jsonval.Decode(p.body)
	if err != nil {
		c.addAt(rule, level, ResultFail, p.url, "invalid JSON: "+err.Error(), "the tool's document "+level.verb()+" be its descriptor")
		return
	}
	// The lists are scanned for credentials; a tool's own document gets a
	// finding only when it carries some.
	if probs := secrets(doc); len(probs) > 0 {
		c.problems("tools.credentials", p.url, probs, "", "", "published documents must not carry credential material")
	}
	served := documents.DescriptorOf(doc)
	if inspect != nil {
		inspect(served)
	}
	if entry == nil {
		fix(served, schema == "tool-descriptor")
		c.violations(rule, level, p.url, c.v.Validate(schema, doc), "200, valid against "+schema, "a valid descriptor (the list has no entry to compare it with)", "the tool's document "+level.verb()+" be a valid descriptor")
		return
	}
	if d := jsonval.Diff(doc, entry.Raw, ""); d != "" {
		c.addAt(rule, level, ResultFail, p.url, d+" (there: "+list+")", "the tool's document "+level.verb()+" equal its entry in "+list)
		return
	}
	c.addAt(rule, level, ResultPass, p.url, "200, equal to its entry in "+list, "the tool's document is its list entry")
}

// fix makes right, in the decoded document d was read from, what
// tools.annotations, tools.exec, tools.digest and compact.keywords check:
// derived annotations (standard view), the source of exec tools, the
// digest of the definition (left out) and the compact schema keywords
// (compact view).
func fix(d documents.Descriptor, standard bool) {
	if d.Obj == nil {
		return
	}
	if meta, ok := jsonval.Object(d.Definition.Meta.Value); ok && d.Definition.Present {
		delete(meta, d.Definition.Name)
		if len(meta) == 0 {
			delete(d.Obj, d.Definition.Meta.Name)
		}
	}
	if d.SafetyTier.Is(spec.TierExec) {
		if s, ok := d.Source.Str(); ok && (s == spec.SourceMCP || s == spec.SourceOpenAPI) {
			d.Obj[d.Source.Name] = spec.SourceHostExtension
		}
	}
	if standard {
		if h := d.Annotations; h.Present || !d.SafetyTier.Null() {
			a := spec.Derive(d.SafetyTier.Text(), d.ReplayPolicy.Text(), d.Egress.Text())
			d.Obj[h.Name] = map[string]any{h.ReadOnly.Name: a.ReadOnlyHint, h.Destructive.Name: a.DestructiveHint, h.Idempotent.Name: a.IdempotentHint, h.OpenWorld.Name: a.OpenWorldHint}
		}
		return
	}
	walkSchema(d.InputSchema.Value, "", func(s map[string]any, _ string) {
		for _, k := range spec.CompactForbidden() {
			delete(s, k)
		}
	})
}

// raws are the descriptors of a list as decoded.
func raws(list []documents.Descriptor) []any {
	out := make([]any, len(list))
	for i, d := range list {
		out[i] = d.Raw
	}
	return out
}

// sorted applies tools.sorted to a list (ptr is the list's pointer).
func (c *checker) sorted(u string, list []documents.Descriptor, ptr string) {
	prev, prevAt := "", -1
	for i, d := range list {
		id, ok := d.ToolID.Str()
		if !ok {
			continue
		}
		if prevAt >= 0 && id < prev {
			c.add("tools.sorted", ResultFail, u, fmt.Sprintf("%s/%d/%s %s after %s", ptr, i, d.ToolID.Name, jsonval.Show(id), jsonval.Show(prev)), "the list should be sorted by toolId")
			return
		}
		prev, prevAt = id, i
	}
	c.add("tools.sorted", ResultPass, u, fmt.Sprintf("%d tools in toolId order", len(list)), "sorted by toolId")
}

// exec applies tools.exec to a list.
func (c *checker) exec(u string, list []documents.Descriptor, ptr string) {
	var probs []string
	n := 0
	for i, d := range list {
		if !d.SafetyTier.Is(spec.TierExec) {
			continue
		}
		n++
		if !d.Source.Is(spec.SourceHostExtension) {
			probs = append(probs, fmt.Sprintf("%s/%d: safetyTier exec, source %s", ptr, i, d.Source.Show()))
		}
	}
	c.problems("tools.exec", u, probs, fmt.Sprintf("%d exec tools, all host-extension", n), "exec only with source host-extension", `a tool with safetyTier "exec" must have source "host-extension"`)
}

// annotations applies tools.annotations to /tools.
func (c *checker) annotations(u string) {
	var probs []string
	for i, t := range c.toolList {
		if t.Obj == nil {
			continue
		}
		a := t.Annotations
		ptr := "/" + strconv.Itoa(i) + "/" + a.Name
		if !a.IsObject {
			probs = append(probs, ptr+": "+a.Show()+", want an object with all four hints")
			continue
		}
		tier, replay, egress := t.SafetyTier.Text(), t.ReplayPolicy.Text(), t.Egress.Text()
		// The hints as the build derives them; a hint is judged only when
		// the field that decides it holds a known value.
		d := spec.Derive(tier, replay, egress)
		knownTier := slices.Contains(spec.Tiers(), tier)
		want := []struct {
			hint  jsonval.Member
			field jsonval.Member // the field that decides it
			known bool
			is    bool
		}{
			{a.ReadOnly, t.SafetyTier, knownTier, d.ReadOnlyHint},
			{a.Destructive, t.SafetyTier, knownTier, d.DestructiveHint},
			{a.Idempotent, t.ReplayPolicy, slices.Contains(spec.ReplayPolicies(), replay), d.IdempotentHint},
			{a.OpenWorld, t.Egress, slices.Contains(spec.Egresses(), egress), d.OpenWorldHint},
		}
		for _, w := range want {
			got, ok := w.hint.Boolean()
			switch {
			case !ok:
				probs = append(probs, ptr+"/"+w.hint.Name+": "+w.hint.Show()+", want a boolean")
			case w.known && got != w.is:
				probs = append(probs, fmt.Sprintf("%s/%s: %t, but %s %s makes it %t", ptr, w.hint.Name, got, w.field.Name, w.field.Text(), w.is))
			}
		}
	}
	c.problems("tools.annotations", u, probs, fmt.Sprintf("%d descriptors, hints derived from the safety fields", len(c.toolList)), "all four hints, derived from the safety fields", "annotations must carry all four hints, derived from safetyTier, replayPolicy and egress")
}

// checkUnknown applies tools.unknown-id and view.unknown.
func (c *checker) checkUnknown(toolsURL string, ids []string) {
	for _, view := range []string{"", spec.ViewCompact} {
		p := c.pages[c.toolURL(unknownID, view)]
		switch {
		case p == nil:
		case p.err != nil:
			c.add("tools.unknown-id", ResultFail, p.url, "GET failed: "+dial.ErrText(p.err, c.opts.Timeout), "an unknown toolId must answer 404")
		case p.status == http.StatusNotFound:
			c.add("tools.unknown-id", ResultPass, p.url, "status 404", "an unknown toolId answers 404")
		default:
			c.add("tools.unknown-id", ResultFail, p.url, "status "+strconv.Itoa(p.status), "an unknown toolId must answer 404")
		}
	}

	// The standard view's documents to compare with, and the probes.
	pairs := [][2]string{{toolsURL, toolsURL + "?view=" + unknownView}}
	if len(ids) > 0 {
		pairs = append(pairs, [2]string{c.toolURL(ids[0], ""), c.toolURL(ids[0], unknownView)})
	}
	for _, pair := range pairs {
		std, probe := c.pages[pair[0]], c.pages[pair[1]]
		switch {
		case probe == nil:
		case probe.err != nil:
			c.add("view.unknown", ResultFail, probe.url, "GET failed: "+dial.ErrText(probe.err, c.opts.Timeout), "an unknown view must answer the standard view")
		case probe.status != http.StatusOK:
			c.add("view.unknown", ResultFail, probe.url, "status "+strconv.Itoa(probe.status), "an unknown view must answer the standard view")
		case std == nil || std.err != nil || std.status != http.StatusOK || std.tooBig || probe.tooBig:
			c.add("view.unknown", ResultSkip, probe.url, "status 200", "the standard view is not there to compare with")
		default:
			a, errA := jsonval.Decode(probe.body)
			b, errB := jsonval.Decode(std.body)
			switch {
			case errB != nil:
				c.add("view.unknown", ResultSkip, probe.url, "status 200", "the standard view is not JSON")
			case errA != nil:
				c.add("view.unknown", ResultFail, probe.url, "invalid JSON: "+errA.Error(), "an unknown view must answer the standard view")
			default:
				if d := jsonval.Diff(a, b, ""); d != "" {
					c.add("view.unknown", ResultFail, probe.url, d, "an unknown view must answer the standard view")
				} else {
					c.add("view.unknown", ResultPass, probe.url, "200, equal to the standard view", "an unknown view answers the standard view")
				}
			}
		}
	}
}
