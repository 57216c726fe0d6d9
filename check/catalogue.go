package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// The tool catalogue (/tool-catalogue.json) and its group documents
// (/tool-catalogue/groups/{key}.json): what the first stage learns of the
// catalogue, the rules of each group document as it arrives, and the rules
// of the catalogue after the crawl.

// catalogueState is what the checker knows of the tool catalogue.
type catalogueState struct {
	// advertised is set when the AI catalog's tool-catalog entry names the
	// catalogue: its rules are then MUSTs.
	advertised bool
	doc        *documents.ToolCatalogue            // nil unless it is a JSON object
	entries    map[string]*documents.CatalogueTool // tool entries by name
	// groups maps the URL of each group document the catalogue names to
	// the group's entry in the catalogue.
	groups map[string]*documents.CatalogueGroup
}

// level is the level of the catalogue's rules.
func (s *catalogueState) level() Level {
	if s.advertised {
		return LevelMust
	}
	return LevelShould
}

// learnCatalogue reads the catalogue fetched in the first stage, for the
// group documents the second stage fetches.
func (c *checker) learnCatalogue(u string) {
	doc, _ := c.decodedPage(u)
	cat := documents.ToolCatalogueOf(doc)
	if cat == nil {
		return
	}
	c.catalogue.doc = cat
	c.catalogue.entries = map[string]*documents.CatalogueTool{}
	for i, e := range cat.Items {
		if name := e.Name.Text(); name != "" {
			c.catalogue.entries[name] = &cat.Items[i]
		}
	}
	c.catalogue.groups = map[string]*documents.CatalogueGroup{}
	for i, g := range cat.Groups {
		key := g.Key.Text()
		if key == "" || !safeSegment(key) {
			continue
		}
		c.catalogue.groups[c.at(spec.GroupRoute(key))] = &cat.Groups[i]
	}
}

// safeSegment reports whether key can be put into a route as it is.
func safeSegment(key string) bool {
	return !strings.ContainsAny(key, "/?#%\\") && key != "." && key != ".."
}

// groupPages are the group documents to fetch in the second stage, in
// URL order.
func (c *checker) groupPages() []*page {
	var pages []*page
	for _, u := range slices.Sorted(maps.Keys(c.catalogue.groups)) {
		pages = append(pages, &page{url: u, role: roleTools, local: true})
	}
	return pages
}

// checkCatalogue applies the catalogue's rules after the crawl.
func (c *checker) checkCatalogue(u string) {
	p := c.pages[u]
	level := c.catalogue.level()
	rules := []string{"catalogue.schema", "catalogue.tools"}
	if p == nil {
		return
	}
	if !c.status("catalogue.status", level, p, "the tool catalogue") {
		c.skip(u, "the tool catalogue is not served", rules...)
		return
	}
	if p.tooBig {
		c.skip(u, skippedTooBig, rules...)
		return
	}
	if c.catalogue.doc == nil {
		c.addAt("catalogue.schema", level, ResultFail, u, "not a JSON object", "the tool catalogue "+level.verb()+" be valid against tool-catalogue")
		c.skip(u, "the tool catalogue is not a JSON object", "catalogue.tools")
		return
	}
	c.violations("catalogue.schema", level, u, c.v.Validate("tool-catalogue", c.catalogue.doc.Raw),
		fmt.Sprintf("catalogVersion %v, %d tools, %d groups", c.catalogue.doc.CatalogVersion.Value, len(c.catalogue.entries), len(c.catalogue.groups)),
		"valid against tool-catalogue", "the tool catalogue "+level.verb()+" be valid against tool-catalogue")
	if c.toolList == nil {
		c.skip(u, "no tool list to compare the catalogue with", "catalogue.tools")
		return
	}
	var probs []string
	for _, id := range c.toolIDs {
		e := c.catalogue.entries[id]
		if e == nil {
			probs = append(probs, fmt.Sprintf("tool %s of /tools is not in the catalogue", id))
			continue
		}
		desc := c.toolByID[id]
		if d := jsonval.Diff(e.Arguments.Value, desc.InputSchema.Value, "/"+e.Arguments.Name); d != "" {
			probs = append(probs, fmt.Sprintf("tool %s: %s (against the inputSchema of /tools)", id, d))
		}
		for _, f := range [][2]jsonval.Member{{e.SafetyTier, desc.SafetyTier}, {e.ReplayPolicy, desc.ReplayPolicy}, {e.Egress, desc.Egress}, {e.Source, desc.Source}} {
			if !f[0].Same(f[1]) {
				probs = append(probs, fmt.Sprintf("tool %s: %s %v, /tools says %v", id, f[0].Name, f[0].Value, f[1].Value))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.catalogue.entries)) {
		if _, ok := c.toolByID[name]; !ok {
			probs = append(probs, fmt.Sprintf("tool %s of the catalogue is not in /tools", name))
		}
	}
	c.problemsAt("catalogue.tools", level, u, probs, fmt.Sprintf("%d tools, as /tools has them", len(c.toolIDs)),
		"the catalogue's tools are those of /tools, with the same arguments and safety fields",
		"the catalogue "+level.verb()+" hold exactly the tools of /tools, with their arguments and safety fields")
	tools := c.catalogue.doc.Items
	ids, defs := make([]string, len(tools)), make([]documents.DefinitionMeta, len(tools))
	for i, e := range tools {
		ids[i], defs[i] = e.Name.Text(), e.Definition
	}
	c.sameDigests(u, "the tool catalogue", "/tools", ids, defs)
}

// checkGroup applies catalogue.groups to a group document as it arrives:
// 200, valid, its group the catalogue's entry, and its tools exactly the
// group's, each equal to its catalogue entry.
func (c *checker) checkGroup(p *page, entry *documents.CatalogueGroup) {
	level := c.catalogue.level()
	ok, ev := c.statusOf(p)
	switch {
	case !ok:
		c.addAt("catalogue.groups", level, ResultFail, p.url, ev, "a group document the catalogue names "+level.verb()+" answer 200")
		return
	case p.tooBig:
		c.addAt("catalogue.groups", level, ResultSkip, p.url, ev, skippedTooBig)
		return
	}
	doc, err := jsonval.Decode(p.body)
	g := documents.GroupDocumentOf(doc)
	if err != nil || g == nil {
		c.addAt("catalogue.groups", level, ResultFail, p.url, "not a JSON object", "a group document "+level.verb()+" be valid against tool-catalogue")
		return
	}
	var probs []string
	for _, v := range c.v.Validate("tool-catalogue", g.Raw) {
		probs = append(probs, jsonval.ShowPointer(v.Pointer)+": "+v.Message)
	}
	if d := jsonval.Diff(g.Group.Value, entry.Raw, "/"+g.Group.Name); d != "" {
		probs = append(probs, d+" (against the catalogue's groups)")
	}
	want := entry.ToolNames
	var names []any
	for _, t := range g.Items {
		names = append(names, t.Name.Value)
		var there any
		if e := c.catalogue.entries[t.Name.Text()]; e != nil {
			there = e.Raw
		}
		if d := jsonval.Diff(t.Raw, there, "/"+g.Tools.Name+"/"+t.Name.Text()); d != "" {
			probs = append(probs, d+" (against the catalogue's entry)")
		}
	}
	if !slices.EqualFunc(names, want, func(a, b any) bool { return jsonval.Diff(a, b, "") == "" }) {
		probs = append(probs, fmt.Sprintf("tools %v, the catalogue's group names %v", names, want))
	}
	c.problemsAt("catalogue.groups", level, p.url, probs, fmt.Sprintf("%d tools, as the catalogue has them", len(g.Items)),
		"the group document holds its group and exactly its tools, as the catalogue does",
		"a group document "+level.verb()+" hold its group and exactly its tools, as the catalogue does")
}
