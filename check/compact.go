package check

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/schemas"
)

// compactMode is how the compact view is checked, decided by learnCompact
// from the AI catalog's advertisement and what ?view=compact answers.
type compactMode int

const (
	compactOff      compactMode = iota // not advertised; the standard view answers
	compactChecked                     // checked at compactLevel
	compactNotShown                    // not advertised and not served
)

// learnCompact decides how the compact view is checked and decodes its list.
func (c *checker) learnCompact(u string) {
	c.compactLevel = LevelShould
	if c.tcCompact == 1 {
		c.compactLevel = LevelMust
	}
	p := c.pages[u]
	var doc any
	if p != nil && p.err == nil && p.status == http.StatusOK && !p.tooBig {
		doc, c.compactErr = jsonval.Decode(p.body)
	}
	l := documents.CompactListOf(doc)
	switch {
	case c.tcCompact == 1 || l.IsObject:
		c.compact = compactChecked
	case l.IsList:
		c.compact = compactOff
	default:
		c.compact = compactNotShown
	}
	c.compactDoc = l
	c.compactList = l.Items
	c.compactByID = map[string]*documents.Descriptor{}
	for i := range l.Items {
		if id := l.Items[i].ToolID.Text(); id != "" {
			if _, dup := c.compactByID[id]; !dup {
				c.compactByID[id] = &l.Items[i]
			}
		}
	}
}

// checkCompact applies the compact view's rules.
func (c *checker) checkCompact(u string) {
	p := c.pages[u]
	if p == nil {
		return
	}
	switch c.compact {
	case compactOff:
		c.addAt("compact.list", LevelShould, ResultSkip, u, "a JSON array", "the compact view is not advertised, and the standard view answers, as allowed")
		c.skip(u, "the compact view is not served", "compact.item", "compact.keywords")
		return
	case compactNotShown:
		ev := "status " + strconv.Itoa(p.status)
		if p.err != nil {
			ev = "GET failed: " + dial.ErrText(p.err, c.opts.Timeout)
		} else if p.tooBig {
			ev = "body over the size limit"
		} else if p.status == http.StatusOK {
			ev = "neither a JSON array nor a JSON object"
		}
		c.addAt("compact.list", LevelShould, ResultFail, u, ev, "the compact view is not advertised, so the standard view should answer")
		c.skip(u, "the compact view is not served", "compact.item", "compact.keywords")
		return
	}
	level := c.compactLevel
	switch ok, ev := c.statusOf(p); {
	case !ok:
		c.addAt("compact.list", level, ResultFail, u, ev, "the compact list "+level.verb()+" answer 200")
		c.skip(u, "the compact list is not served", "compact.keywords")
	case p.tooBig:
		c.addAt("compact.list", level, ResultSkip, u, ev, skippedTooBig)
		c.skip(u, skippedTooBig, "compact.keywords")
	default:
		c.compactListBody(u, p, level)
	}
	// compact.item is applied to each document as it arrives (documentRules).
}

// compactItem applies compact.item and compact.keywords to ip, the compact
// view of tool id.
func (c *checker) compactItem(ip *page, id string) {
	c.item("compact.item", c.compactLevel, ip, c.compactByID[id], "compact-tool-descriptor", "/tools?view=compact", func(d documents.Descriptor) {
		c.keywords(ip.url, []jsonval.Member{d.InputSchema}, "", false)
	})
}

// compactListBody checks the body of the compact list, which learnCompact
// decoded.
func (c *checker) compactListBody(u string, p *page, level Level) {
	if err := c.compactErr; err != nil {
		c.addAt("compact.list", level, ResultFail, u, "invalid JSON: "+err.Error(), level.verb()+` be {"tools": [...]}`)
		c.skip(u, "the compact list is not JSON", "compact.keywords")
		return
	}
	l := c.compactDoc
	tools := "/" + l.Tools.Name // the pointer of the list
	if c.compactList == nil {
		ev := "top level is " + schemas.KindOf(l.Raw)
		if l.IsObject {
			ev = tools + ": " + schemas.KindOf(l.Tools.Value)
		}
		c.addAt("compact.list", level, ResultFail, u, ev, level.verb()+` be {"tools": [...]} of compact descriptors`)
		c.skip(u, "the compact list has no tools array", "compact.keywords")
		return
	}
	fixed, _ := jsonval.Decode(p.body)
	for _, d := range documents.CompactListOf(fixed).Items {
		fix(d, false)
	}
	var probs []string
	for _, v := range c.v.Validate("compact-tool-list", fixed) {
		probs = append(probs, jsonval.ShowPointer(v.Pointer)+": "+v.Message)
	}
	if c.toolList != nil {
		seen := map[string]bool{}
		for i, d := range c.compactList {
			id, ok := d.ToolID.Str()
			if !ok {
				continue
			}
			ptr := tools + "/" + strconv.Itoa(i)
			std := c.toolByID[id]
			switch {
			case seen[id]:
				probs = append(probs, ptr+"/"+d.ToolID.Name+": "+jsonval.Show(id)+" repeats")
			case std == nil:
				probs = append(probs, ptr+"/"+d.ToolID.Name+": "+jsonval.Show(id)+" is not in /tools")
			default:
				for _, f := range [][2]jsonval.Member{{d.Source, std.Source}, {d.SafetyTier, std.SafetyTier}, {d.ReplayPolicy, std.ReplayPolicy}, {d.Egress, std.Egress}} {
					if !f[0].Same(f[1]) {
						probs = append(probs, fmt.Sprintf("%s/%s: %s, /tools says %s", ptr, f[0].Name, f[0].Show(), f[1].Show()))
					}
				}
			}
			seen[id] = true
		}
		for _, id := range c.toolIDs {
			if !seen[id] {
				probs = append(probs, tools+": no "+jsonval.Show(id)+", which /tools lists")
			}
		}
	}
	c.problemsAt("compact.list", level, u, probs, fmt.Sprintf(`{"tools": [...]} of %d compact descriptors, the toolIds of /tools`, len(c.compactList)), "the compact view of the tools of /tools", level.verb()+" be the compact descriptors of exactly the tools of /tools")
	c.sorted(u, c.compactList, tools)
	c.exec(u, c.compactList, tools)
	c.credentials("tools.credentials", u, raws(c.compactList))
	var inputs []jsonval.Member
	for _, d := range c.compactList {
		inputs = append(inputs, d.InputSchema)
	}
	c.keywords(u, inputs, tools, true)
}

// keywords applies compact.keywords to input schemas, the inputSchema
// members of descriptors: in a list, schema i is at ptr/i/inputSchema,
// else at ptr/inputSchema.
func (c *checker) keywords(u string, inputs []jsonval.Member, ptr string, list bool) {
	var probs []string
	for i, s := range inputs {
		at := ptr + "/" + s.Name
		if list {
			at = ptr + "/" + strconv.Itoa(i) + "/" + s.Name
		}
		walkSchema(s.Value, at, func(m map[string]any, p string) {
			for _, k := range spec.CompactForbidden() {
				if _, ok := m[k]; ok {
					probs = append(probs, p+"/"+jsonval.Escape(k)+" is used")
				}
			}
		})
	}
	c.problems("compact.keywords", u, probs, "no $ref, oneOf, allOf, anyOf, not, patternProperties or dependentSchemas", "compact input schemas use no forbidden keyword", "a compact inputSchema must not use $ref, oneOf, allOf, anyOf, not, patternProperties or dependentSchemas")
}

// walkSchema calls visit for s and every subschema of s (JSON objects
// in schema positions), depth first, keys in order. visit may delete keys
// of the object it is given: their subschemas are then not visited. A
// JSON Schema is open JSON: it is walked as decoded, keyword by keyword.
func walkSchema(s any, ptr string, visit func(m map[string]any, ptr string)) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	visit(m, ptr)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		at := ptr + "/" + jsonval.Escape(k)
		switch k {
		case "additionalProperties", "additionalItems", "contains", "propertyNames", "if", "then", "else", "not",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema", "items":
			if arr, ok := v.([]any); ok && k == "items" {
				for i, x := range arr {
					walkSchema(x, at+"/"+strconv.Itoa(i), visit)
				}
				continue
			}
			walkSchema(v, at, visit)
		case "prefixItems", "allOf", "anyOf", "oneOf":
			arr, _ := v.([]any)
			for i, x := range arr {
				walkSchema(x, at+"/"+strconv.Itoa(i), visit)
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			sub, _ := v.(map[string]any)
			names := make([]string, 0, len(sub))
			for n := range sub {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				walkSchema(sub[n], at+"/"+jsonval.Escape(n), visit)
			}
		}
	}
}
