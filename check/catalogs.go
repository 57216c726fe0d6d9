package check

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/schemas"
)

// learnMCPCatalog decodes the MCP catalog and collects its card entries.
func (c *checker) learnMCPCatalog(u string) {
	doc, ok := c.decodedPage(u)
	if !ok {
		return
	}
	c.mcpCatalog = documents.MCPCatalogOf(doc)
	for _, e := range c.mcpCatalog.Items {
		mt, cardURL, id := e.MediaType.Text(), e.URL.Text(), e.Identifier.Text()
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
	c.aiCatalog = documents.AICatalogOf(doc)
	for _, e := range c.aiCatalog.Items {
		typ, id := e.Type.Text(), e.Identifier.Text()
		switch {
		case typ == spec.ContentTypeServerCardDraft || typ == spec.ContentTypeServerCardV1:
			cardURL := e.URL.Text()
			if e.Data.Present || !absURL(cardURL) {
				continue
			}
			_, seg := aiName(id)
			digest := e.Digest.Text()
			if digestProblem(digest) != "" {
				digest = ""
			}
			c.cards = append(c.cards, cardRef{url: cardURL, catalog: u, identifier: id, ai: true, aiName: seg, mediaType: typ, digest: digest})
		case e.ToolCatalog != nil && !c.tcAdvertised:
			c.tcAdvertised = true
			c.toolsStatusLevel = LevelMust
			_, c.catalogue.advertised = e.ToolCatalog.Catalogue.Str()
			if compact, ok := e.ToolCatalog.CompactView.Boolean(); ok {
				c.tcCompact = 0
				if compact {
					c.tcCompact = 1
				}
			}
		}
	}
	slices.SortFunc(c.cards, func(a, b cardRef) int {
		return cmp.Or(strings.Compare(a.url, b.url), strings.Compare(a.catalog, b.catalog), strings.Compare(a.identifier, b.identifier))
	})
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
		c.skip(u, "the MCP catalog is not served", "mcp-catalog.legacy", "mcp-catalog.content-type", "mcp-catalog.entries", "mcp-catalog.identifier", "mcp-catalog.media-type", "mcp-catalog.cache", "mcp-catalog.cors")
		return
	}
	c.contentType("mcp-catalog.content-type", p, spec.ContentTypeJSON)
	if ai := c.pages[c.at(spec.RouteAICatalog)]; ai != nil && ai.err == nil && ai.status == http.StatusOK {
		c.add("mcp-catalog.legacy", ResultPass, u, "legacy draft, beside "+spec.RouteAICatalog, "the legacy MCP catalog is served beside the AI catalog, which current clients read")
	} else {
		c.add("mcp-catalog.legacy", ResultFail, u, "legacy draft, without "+spec.RouteAICatalog, "the MCP catalog is the legacy draft, removed from the Server Card extension on 2026-07-20: publish the AI catalog, which current clients read")
	}
	if p.tooBig {
		c.skip(u, skippedTooBig, "mcp-catalog.entries", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	if c.mcpCatalog == nil {
		_, err := jsonval.Decode(p.body)
		c.add("mcp-catalog.entries", ResultFail, u, "invalid JSON: "+err.Error(), "the MCP catalog must be a JSON object")
		c.skip(u, "the MCP catalog is not JSON", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	cat := c.mcpCatalog
	c.credentials("discovery.credentials", u, cat.Raw)
	if !cat.IsObject || !cat.Listed {
		ev := "top level is " + schemas.KindOf(cat.Raw)
		if cat.IsObject {
			ev = "/" + cat.Entries.Name + ": " + schemas.KindOf(cat.Entries.Value)
		}
		c.add("mcp-catalog.entries", ResultFail, u, ev, "the MCP catalog must be a JSON object with an entries array")
		c.skip(u, "the MCP catalog has no entries array", "mcp-catalog.identifier", "mcp-catalog.media-type")
		return
	}
	var shape, ids []string
	for i, e := range cat.Items {
		ptr := "/" + cat.Entries.Name + "/" + strconv.Itoa(i)
		if !e.IsObject {
			shape = append(shape, ptr+": "+schemas.KindOf(e.Raw)+", want an object")
			continue
		}
		for _, f := range []jsonval.Member{e.Identifier, e.MediaType, e.URL} {
			if s, ok := f.Str(); !ok || s == "" {
				shape = append(shape, ptr+"/"+f.Name+": "+f.Show()+", want a string")
			}
		}
		if s := e.URL.Text(); s != "" && !absURL(s) {
			shape = append(shape, ptr+"/"+e.URL.Name+": "+jsonval.Show(s)+", want an absolute http or https URL")
		}
		if name, ok := strings.CutPrefix(e.Identifier.Text(), "urn:mcp:server:"); !ok || name == "" {
			ids = append(ids, ptr+"/"+e.Identifier.Name+": "+e.Identifier.Show())
		}
		place := u + "#" + ptr
		if s := e.URL.Text(); s != "" {
			place = s
		}
		if mt := e.MediaType.Text(); mt == spec.ContentTypeServerCardDraft {
			c.add("mcp-catalog.media-type", ResultPass, place, "mediaType "+mt, "a server card entry: its card is fetched")
		} else {
			c.add("mcp-catalog.media-type", ResultSkip, place, "mediaType "+e.MediaType.Show(), "not "+spec.ContentTypeServerCardDraft+": ignored, as clients must, and not fetched")
		}
	}
	c.problems("mcp-catalog.entries", u, shape, fmt.Sprintf("%d entries, each with identifier, mediaType and url", len(cat.Items)), "every entry is well formed", "every entry must have a string identifier, mediaType and url")
	c.problems("mcp-catalog.identifier", u, ids, fmt.Sprintf("%d identifiers, each urn:mcp:server:NAME", len(cat.Items)), "every identifier names a server", "every identifier must be urn:mcp:server: followed by the server name")
	if len(cat.Items) == 0 {
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
		c.skip(u, "the AI catalog is not served", "ai-catalog.content-type", "ai-catalog.spec-version", "ai-catalog.entries", "ai-catalog.identifier", "ai-catalog.media-type", "ai-catalog.jcs", "ai-catalog.digest")
		return
	}
	c.contentType("ai-catalog.content-type", p, spec.ContentTypeAICatalog)
	if p.tooBig {
		c.skip(u, skippedTooBig, "ai-catalog.spec-version", "ai-catalog.entries", "ai-catalog.identifier", "ai-catalog.media-type", "ai-catalog.jcs", "ai-catalog.digest")
		return
	}
	if c.aiCatalog == nil {
		_, err := jsonval.Decode(p.body)
		c.add("ai-catalog.entries", ResultFail, u, "invalid JSON: "+err.Error(), "the AI catalog must be a JSON object")
		c.skip(u, "the AI catalog is not JSON", "ai-catalog.spec-version", "ai-catalog.identifier", "ai-catalog.media-type", "ai-catalog.jcs", "ai-catalog.digest")
		return
	}
	cat := c.aiCatalog
	c.credentials("discovery.credentials", u, cat.Raw)
	if why := jsonval.NotJCSInput(p.body); why != "" {
		c.add("ai-catalog.jcs", ResultFail, u, why, "the AI catalog must be valid input to JSON canonicalization (RFC 8785): I-JSON, each member name once in its object, integers within ±(2^53-1)")
	} else {
		c.add("ai-catalog.jcs", ResultPass, u, fmt.Sprintf("%d bytes of I-JSON", len(p.body)), "valid input to JSON canonicalization (RFC 8785)")
	}
	if cat.SpecVersion.Is("1.0") {
		c.add("ai-catalog.spec-version", ResultPass, u, `specVersion "1.0"`, "the AI Catalog version is 1.0")
	} else {
		c.add("ai-catalog.spec-version", ResultFail, u, "specVersion "+cat.SpecVersion.Show(), `specVersion must be "1.0"`)
	}
	if !cat.IsObject || !cat.Listed {
		ev := "top level is " + schemas.KindOf(cat.Raw)
		if cat.IsObject {
			ev = "/" + cat.Entries.Name + ": " + schemas.KindOf(cat.Entries.Value)
		}
		c.add("ai-catalog.entries", ResultFail, u, ev, "the AI catalog must be a JSON object with an entries array")
		c.skip(u, "the AI catalog has no entries array", "ai-catalog.identifier", "ai-catalog.media-type", "ai-catalog.digest")
		return
	}
	domain := cat.Domain.Text()
	digests := 0
	var shape, ids []string
	seen := map[string]string{}
	for i, e := range cat.Items {
		ptr := "/" + cat.Entries.Name + "/" + strconv.Itoa(i)
		if !e.IsObject {
			shape = append(shape, ptr+": "+schemas.KindOf(e.Raw)+", want an object")
			continue
		}
		for _, f := range []jsonval.Member{e.Identifier, e.Type} {
			if s, ok := f.Str(); !ok || s == "" {
				shape = append(shape, ptr+"/"+f.Name+": "+f.Show()+", want a string")
			}
		}
		hasURL, hasData := e.URL.Present, e.Data.Present
		if hasURL == hasData {
			shape = append(shape, ptr+": has "+map[bool]string{true: "both url and data", false: "neither url nor data"}[hasURL]+", want exactly one")
		}
		if s, ok := e.URL.Str(); hasURL && (!ok || !absURL(s)) {
			shape = append(shape, ptr+"/"+e.URL.Name+": "+e.URL.Show()+", want an absolute http or https URL")
		}
		typ, id := e.Type.Text(), e.Identifier.Text()
		at := ptr + "/" + e.Identifier.Name // the identifier's pointer
		if id != "" {
			if first, dup := seen[id]; dup {
				ids = append(ids, at+": "+jsonval.Show(id)+" repeats "+first)
			}
			seen[id] = ptr
			if !aiIdentifierRe.MatchString(id) {
				ids = append(ids, at+": "+jsonval.Show(id)+", want urn:air:DOMAIN followed by :SEGMENTs of letters, digits, '.', '_' and '-' (no '/')")
			}
		}
		place := u + "#" + ptr
		if s := e.URL.Text(); s != "" {
			place = s
		}
		card := typ == spec.ContentTypeServerCardDraft || typ == spec.ContentTypeServerCardV1
		if e.Digest.Present {
			digests++
			d, _ := e.Digest.Str()
			switch why := digestProblem(d); {
			case !e.Digest.Is(d) || why != "":
				c.add("ai-catalog.digest", ResultFail, place, "digest "+e.Digest.Show(), "a digest must be ALGORITHM:HEX, lower-case, of SHA-256 or stronger: "+cmp.Or(why, "not a string"))
			case hasData:
				c.add("ai-catalog.digest", ResultSkip, place, "digest "+d+", inline data", "the digest of inline data is over its canonical form, which this check does not compute")
			case !card:
				c.add("ai-catalog.digest", ResultSkip, place, "digest "+d+", type "+e.Type.Show(), "the entry's document is not fetched")
			}
		}
		switch {
		case typ == spec.ContentTypeServerCardDraft:
			c.add("ai-catalog.media-type", ResultFail, place, "type "+typ, "an MCP Server Card is "+spec.ContentTypeServerCardV1+" in an AI catalog: "+spec.ContentTypeServerCardDraft+" must not appear")
		case typ == spec.ContentTypeServerCardV1:
			if d, name := aiName(id); name == "" {
				if aiIdentifierRe.MatchString(id) || id == "" {
					ids = append(ids, at+": "+e.Identifier.Show()+", want urn:air:DOMAIN:mcp:NAME")
				}
			} else if domain != "" && d != domain {
				ids = append(ids, at+": "+jsonval.Show(id)+", DOMAIN is not the host's domain "+domain)
			}
			if hasData {
				c.add("ai-catalog.media-type", ResultPass, place, "type "+typ+", inline data", "a server card entry, inline")
				c.inlineCard(u, ptr, id, e.Data)
			} else {
				c.add("ai-catalog.media-type", ResultPass, place, "type "+typ, "a server card entry: its card is fetched")
			}
		case e.ToolCatalog != nil:
			tc := e.ToolCatalog
			at := ptr + "/" + e.Data.Name + "/" + tc.Name // the advertisement's pointer
			if s, ok := tc.URL.Str(); !ok || !absURL(s) {
				shape = append(shape, at+"/"+tc.URL.Name+": "+tc.URL.Show()+", want an absolute http or https URL")
			}
			if _, ok := tc.CompactView.Boolean(); !ok {
				shape = append(shape, at+"/"+tc.CompactView.Name+": "+tc.CompactView.Show()+", want a boolean")
			}
			c.add("ai-catalog.media-type", ResultPass, place, "type "+typ+", data.toolCatalog", "the tool catalog's advertisement")
		default:
			c.add("ai-catalog.media-type", ResultSkip, place, "type "+e.Type.Show(), "a type this check does not know: ignored, as clients must, and not fetched")
		}
	}
	if digests == 0 {
		c.add("ai-catalog.digest", ResultSkip, u, "no digest", "no entry gives the digest of its document")
	}
	c.problems("ai-catalog.entries", u, shape, fmt.Sprintf("%d entries, each with identifier, type and one of url or data", len(cat.Items)), "every entry is well formed", "every entry must have an identifier, a type and exactly one of url or data")
	c.problems("ai-catalog.identifier", u, ids, fmt.Sprintf("%d unique identifiers", len(cat.Items)), "identifiers are unique and well formed", "identifiers must be unique and of the form urn:air:DOMAIN:SEGMENT..., without '/', and an MCP server's must be urn:air:DOMAIN:mcp:NAME")
	if len(cat.Items) == 0 {
		c.add("ai-catalog.media-type", ResultSkip, u, "no entries", "the catalog lists nothing")
	}
	c.checkSignatures(u)
}

// digestProblem says why d is not a digest of AI Catalog 1.0's Digest
// Format that this check can verify (ALGORITHM:HEX, the hex lower-case,
// the algorithm SHA-256 or stronger: sha256, sha384 or sha512); "" when it
// is one.
func digestProblem(d string) string {
	algo, hexed, ok := strings.Cut(d, ":")
	size := map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}[algo]
	switch {
	case !ok:
		return "no ALGORITHM: prefix"
	case algo == "md5" || algo == "sha1" || algo == "sha224":
		return algo + " is weaker than SHA-256, which consumers must reject"
	case size == 0:
		return "the algorithm " + strconv.Quote(algo) + " is not one of sha256, sha384 and sha512"
	case len(hexed) != size || strings.Trim(hexed, "0123456789abcdef") != "":
		return fmt.Sprintf("%s wants %d lower-case hex digits", algo, size)
	}
	return ""
}
