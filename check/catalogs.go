package check

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/schemas"
)

// learnMCPCatalog decodes the MCP catalog and collects its card entries.
func (c *checker) learnMCPCatalog(u string) {
	doc, ok := c.decodedPage(u)
	if !ok {
		return
	}
	c.mcpCatalog = doc
	obj, _ := doc.(map[string]any)
	entries, _ := obj["entries"].([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		mt, _ := m["mediaType"].(string)
		cardURL, _ := m["url"].(string)
		id, _ := m["identifier"].(string)
		if mt != spec.ContentTypeServerCardDraft || !absURL(cardURL) {
			continue
		}
		name, _ := strings.CutPrefix(id, "urn:mcp:server:")
		if name == id {
			name = ""
		}
		c.cards = append(c.cards, cardRef{url: cardURL, catalog: u, identifier: id, name: name, mediaType: mt})
	}
}

// learnAICatalog decodes the AI catalog, collects its card entries and
// reads its tool catalog advertisement.
func (c *checker) learnAICatalog(u string) {
	c.toolsStatusLevel = LevelShould
	doc, ok := c.decodedPage(u)
	if !ok {
		return
	}
	c.aiCatalog = doc
	obj, _ := doc.(map[string]any)
	entries, _ := obj["entries"].([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		id, _ := m["identifier"].(string)
		switch {
		case typ == spec.ContentTypeServerCardDraft || typ == spec.ContentTypeServerCardV1:
			cardURL, _ := m["url"].(string)
			if _, inline := m["data"]; inline || !absURL(cardURL) {
				continue
			}
			_, seg := aiName(id)
			c.cards = append(c.cards, cardRef{url: cardURL, catalog: u, identifier: id, ai: true, aiName: seg, mediaType: typ})
		case toolCatalogEntry(m) != nil && !c.tcAdvertised:
			c.tcAdvertised = true
			c.toolsStatusLevel = LevelMust
			_, c.catalogue.advertised = toolCatalogEntry(m)["catalogue"].(string)
			switch toolCatalogEntry(m)["compactView"] {
			case true:
				c.tcCompact = 1
			case false:
				c.tcCompact = 0
			}
		}
	}
	slices.SortFunc(c.cards, func(a, b cardRef) int {
		return cmp.Or(strings.Compare(a.url, b.url), strings.Compare(a.catalog, b.catalog), strings.Compare(a.identifier, b.identifier))
	})
}

// toolCatalogEntry returns the toolCatalog object of an AI catalog
// entry that advertises a tool catalog, nil for other entries.
func toolCatalogEntry(m map[string]any) map[string]any {
	if typ, _ := m["type"].(string); typ != spec.ContentTypeJSON {
		return nil
	}
	data, _ := m["data"].(map[string]any)
	tc, _ := data["toolCatalog"].(map[string]any)
	return tc
}

// The AI Catalog's identifiers: urn:air:DOMAIN, then one or more segments,
// each after a colon; no '/' anywhere. An MCP server's is
// urn:air:DOMAIN:mcp:NAME, NAME one segment.
var (
	aiIdentifierRe    = regexp.MustCompile(`^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$`)
	aiMCPIdentifierRe = regexp.MustCompile(`^urn:air:([a-zA-Z0-9.-]+):mcp:([a-zA-Z0-9._-]+)$`)
	aiSegmentRe       = regexp.MustCompile(`[^a-zA-Z0-9._-]`)
)

// aiName splits an AI catalog MCP identifier, urn:air:DOMAIN:mcp:NAME; both
// are "" when id is not of that form. NAME is not the server's name (which
// has a '/'), only a segment derived from it or chosen by the publisher.
func aiName(id string) (domain, name string) {
	m := aiMCPIdentifierRe.FindStringSubmatch(id)
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

// aiNamesOf are the NAMEs an AI catalog identifier would have for a card
// named NAMESPACE/NAME, in the form signpost and the MCP server card
// extension derive: NAME, or NAMESPACE.NAME when another server has NAME,
// each with what a segment cannot hold made '-'.
func aiNamesOf(cardName string) []string {
	ns, name, ok := strings.Cut(cardName, "/")
	if !ok || name == "" {
		return nil
	}
	return []string{aiSegmentRe.ReplaceAllString(name, "-"), aiSegmentRe.ReplaceAllString(ns+"."+name, "-")}
}

// absURL reports whether s is an absolute http or https URL, as a catalog
// entry's url must be.
func absURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// checkMCPCatalog applies the mcp-catalog rules (but CORS and caching,
// which checkHeaders applies) to the MCP catalog at u.
func (c *checker) checkMCPCatalog(u string) {
	p := c.pages[u]
	if p == nil {
		return
	}
	if !c.status("mcp-catalog.status", LevelShould, p, "the MCP catalog") {
		c.skip(u, "the MCP catalog is not served", "mcp-catalog.content-type", "mcp-catalog.entries", "mcp-catalog.identifier", "mcp-catalog.media-type", "mcp-catalog.cache", "mcp-catalog.cors")
		return
	}
	c.contentType("mcp-catalog.content-type", p, spec.ContentTypeJSON)
	if p.tooBig {
		c.skip(u, skippedTooBig, "mcp-catalog.entries", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	if c.mcpCatalog == nil {
		_, err := decode(p.body)
		c.add("mcp-catalog.entries", ResultFail, u, "invalid JSON: "+err.Error(), "the MCP catalog must be a JSON object")
		c.skip(u, "the MCP catalog is not JSON", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	c.credentials("discovery.credentials", u, c.mcpCatalog)
	obj, ok := c.mcpCatalog.(map[string]any)
	entries, isArray := obj["entries"].([]any)
	if !ok || !isArray {
		ev := "top level is " + schemas.KindOf(c.mcpCatalog)
		if ok {
			ev = "/entries: " + schemas.KindOf(obj["entries"])
		}
		c.add("mcp-catalog.entries", ResultFail, u, ev, "the MCP catalog must be a JSON object with an entries array")
		c.skip(u, "the MCP catalog has no entries array", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	var shape, ids []string
	for i, e := range entries {
		ptr := "/entries/" + strconv.Itoa(i)
		m, ok := e.(map[string]any)
		if !ok {
			shape = append(shape, ptr+": "+schemas.KindOf(e)+", want an object")
			continue
		}
		for _, k := range []string{"identifier", "mediaType", "url"} {
			if s, ok := m[k].(string); !ok || s == "" {
				shape = append(shape, ptr+"/"+k+": "+show(m[k])+", want a string")
			}
		}
		if s, ok := m["url"].(string); ok && s != "" && !absURL(s) {
			shape = append(shape, ptr+"/url: "+show(s)+", want an absolute http or https URL")
		}
		id, _ := m["identifier"].(string)
		if name, ok := strings.CutPrefix(id, "urn:mcp:server:"); !ok || name == "" {
			ids = append(ids, ptr+"/identifier: "+show(m["identifier"]))
		}
		place := u + "#" + ptr
		if s, ok := m["url"].(string); ok && s != "" {
			place = s
		}
		if mt, _ := m["mediaType"].(string); mt == spec.ContentTypeServerCardDraft {
			c.add("mcp-catalog.media-type", ResultPass, place, "mediaType "+mt, "a server card entry: its card is fetched")
		} else {
			c.add("mcp-catalog.media-type", ResultSkip, place, "mediaType "+show(m["mediaType"]), "not "+spec.ContentTypeServerCardDraft+": ignored, as clients must, and not fetched")
		}
	}
	c.problems("mcp-catalog.entries", u, shape, fmt.Sprintf("%d entries, each with identifier, mediaType and url", len(entries)), "every entry is well formed", "every entry must have a string identifier, mediaType and url")
	c.problems("mcp-catalog.identifier", u, ids, fmt.Sprintf("%d identifiers, each urn:mcp:server:NAME", len(entries)), "every identifier names a server", "every identifier must be urn:mcp:server: followed by the server name")
	if len(entries) == 0 {
		c.add("mcp-catalog.media-type", ResultSkip, u, "no entries", "the catalog lists no servers")
	}
}

// checkAICatalog applies the ai-catalog rules to the AI catalog at u, and
// the card rules to the cards it gives inline.
func (c *checker) checkAICatalog(u string) {
	p := c.pages[u]
	if p == nil {
		return
	}
	if !c.status("ai-catalog.status", LevelShould, p, "the AI catalog") {
		c.skip(u, "the AI catalog is not served", "ai-catalog.content-type", "ai-catalog.spec-version", "ai-catalog.entries", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	c.contentType("ai-catalog.content-type", p, spec.ContentTypeAICatalog)
	if p.tooBig {
		c.skip(u, skippedTooBig, "ai-catalog.spec-version", "ai-catalog.entries", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	if c.aiCatalog == nil {
		_, err := decode(p.body)
		c.add("ai-catalog.entries", ResultFail, u, "invalid JSON: "+err.Error(), "the AI catalog must be a JSON object")
		c.skip(u, "the AI catalog is not JSON", "ai-catalog.spec-version", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	c.credentials("discovery.credentials", u, c.aiCatalog)
	obj, ok := c.aiCatalog.(map[string]any)
	if sv, _ := obj["specVersion"].(string); sv == "1.0" {
		c.add("ai-catalog.spec-version", ResultPass, u, `specVersion "1.0"`, "the AI Catalog version is 1.0")
	} else {
		c.add("ai-catalog.spec-version", ResultFail, u, "specVersion "+show(obj["specVersion"]), `specVersion must be "1.0"`)
	}
	entries, isArray := obj["entries"].([]any)
	if !ok || !isArray {
		ev := "top level is " + schemas.KindOf(c.aiCatalog)
		if ok {
			ev = "/entries: " + schemas.KindOf(obj["entries"])
		}
		c.add("ai-catalog.entries", ResultFail, u, ev, "the AI catalog must be a JSON object with an entries array")
		c.skip(u, "the AI catalog has no entries array", "ai-catalog.identifier", "ai-catalog.media-type")
		return
	}
	host, _ := obj["host"].(map[string]any)
	domain, _ := host["domain"].(string)
	var shape, ids []string
	seen := map[string]string{}
	for i, e := range entries {
		ptr := "/entries/" + strconv.Itoa(i)
		m, ok := e.(map[string]any)
		if !ok {
			shape = append(shape, ptr+": "+schemas.KindOf(e)+", want an object")
			continue
		}
		for _, k := range []string{"identifier", "type"} {
			if s, ok := m[k].(string); !ok || s == "" {
				shape = append(shape, ptr+"/"+k+": "+show(m[k])+", want a string")
			}
		}
		_, hasURL := m["url"]
		_, hasData := m["data"]
		if hasURL == hasData {
			shape = append(shape, ptr+": has "+map[bool]string{true: "both url and data", false: "neither url nor data"}[hasURL]+", want exactly one")
		}
		if s, ok := m["url"].(string); hasURL && (!ok || !absURL(s)) {
			shape = append(shape, ptr+"/url: "+show(m["url"])+", want an absolute http or https URL")
		}
		typ, _ := m["type"].(string)
		id, _ := m["identifier"].(string)
		if id != "" {
			if first, dup := seen[id]; dup {
				ids = append(ids, ptr+"/identifier: "+show(id)+" repeats "+first)
			}
			seen[id] = ptr
			if !aiIdentifierRe.MatchString(id) {
				ids = append(ids, ptr+"/identifier: "+show(id)+", want urn:air:DOMAIN followed by :SEGMENTs of letters, digits, '.', '_' and '-' (no '/')")
			}
		}
		place := u + "#" + ptr
		if s, ok := m["url"].(string); ok && s != "" {
			place = s
		}
		switch {
		case typ == spec.ContentTypeServerCardDraft || typ == spec.ContentTypeServerCardV1:
			if d, name := aiName(id); name == "" {
				if aiIdentifierRe.MatchString(id) || id == "" {
					ids = append(ids, ptr+"/identifier: "+show(m["identifier"])+", want urn:air:DOMAIN:mcp:NAME")
				}
			} else if domain != "" && d != domain {
				ids = append(ids, ptr+"/identifier: "+show(id)+", DOMAIN is not the host's domain "+domain)
			}
			if hasData {
				c.add("ai-catalog.media-type", ResultPass, place, "type "+typ+", inline data", "a server card entry, inline")
				c.inlineCard(u, ptr, id, m["data"])
			} else {
				c.add("ai-catalog.media-type", ResultPass, place, "type "+typ, "a server card entry: its card is fetched")
			}
		case toolCatalogEntry(m) != nil:
			tc := toolCatalogEntry(m)
			if s, ok := tc["url"].(string); !ok || !absURL(s) {
				shape = append(shape, ptr+"/data/toolCatalog/url: "+show(tc["url"])+", want an absolute http or https URL")
			}
			if _, ok := tc["compactView"].(bool); !ok {
				shape = append(shape, ptr+"/data/toolCatalog/compactView: "+show(tc["compactView"])+", want a boolean")
			}
			c.add("ai-catalog.media-type", ResultPass, place, "type "+typ+", data.toolCatalog", "the tool catalog's advertisement")
		default:
			c.add("ai-catalog.media-type", ResultSkip, place, "type "+show(m["type"]), "a type this check does not know: ignored, as clients must, and not fetched")
		}
	}
	c.problems("ai-catalog.entries", u, shape, fmt.Sprintf("%d entries, each with identifier, type and one of url or data", len(entries)), "every entry is well formed", "every entry must have an identifier, a type and exactly one of url or data")
	c.problems("ai-catalog.identifier", u, ids, fmt.Sprintf("%d unique identifiers", len(entries)), "identifiers are unique and well formed", "identifiers must be unique and of the form urn:air:DOMAIN:SEGMENT..., without '/', and an MCP server's must be urn:air:DOMAIN:mcp:NAME")
	if len(entries) == 0 {
		c.add("ai-catalog.media-type", ResultSkip, u, "no entries", "the catalog lists nothing")
	}
}
