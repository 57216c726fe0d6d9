package check

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/documents"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// schemaV1 is the $schema of a v1 server card.
const schemaV1 = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// cardRef is a catalog entry that points at a card.
type cardRef struct {
	url        string
	catalog    string // the catalog's URL
	identifier string
	// name is the server name an MCP catalog identifier gives
	// (urn:mcp:server:NAME); "" if it gives none.
	name string
	// ai marks an AI catalog entry; aiName is the NAME of its identifier
	// (urn:air:DOMAIN:mcp:NAME), which is not a server name; "" if it gives
	// none.
	ai        bool
	aiName    string
	mediaType string // what the entry says the card is served as
	// digest is the AI catalog entry's digest of the card's bytes, when it
	// is of a form checkDigest can verify; "" when it has none.
	digest string
}

// inlineCard checks a card given inline as an AI catalog entry's data.
func (c *checker) inlineCard(catalogURL, ptr, id string, data jsonval.Member) {
	_, seg := aiName(id)
	c.aiCardName(catalogURL+"#"+ptr+"/"+data.Name, id, seg, documents.CardOf(data.Value).Name)
}

// aiCardName applies card.name to a card an AI catalog entry lists, at
// SHOULD: the NAME of its identifier cannot be held to the card's name
// exactly, since an identifier is derived from the part of the name after
// the namespace (NAMESPACE.NAME when two servers share that part) or chosen
// by the publisher. A card whose name gives neither form is a warning; an
// identifier not of the form urn:air:DOMAIN:mcp:NAME is ai-catalog.identifier's.
func (c *checker) aiCardName(place, id, seg string, name jsonval.Member) {
	s := name.Text()
	ev := "name " + name.Show() + ", identifier " + id
	switch {
	case seg == "":
		c.addAt("card.name", LevelShould, ResultSkip, place, "identifier "+jsonval.Show(id), "the identifier names no server (see the catalog's identifier rule)")
	case slices.Contains(aiNamesOf(s), seg):
		c.addAt("card.name", LevelShould, ResultPass, place, ev, "the identifier's NAME is the card's name after its namespace")
	default:
		c.addAt("card.name", LevelShould, ResultFail, place, ev, "the identifier's NAME should be the card's name after its namespace, alone or as NAMESPACE.NAME, unless the publisher chose it")
	}
}

// checkCard applies the card rules to the card entry r, whose document p
// is. A URL listed by both catalogs is fetched once and checked for each
// entry; identical findings are merged in the report.
func (c *checker) checkCard(r cardRef, p *page) {
	if !c.status("card.status", LevelMust, p, "the card") {
		c.skip(r.url, "the card is not served", "card.content-type", "card.name")
		if r.digest != "" {
			c.skip(r.url, "the card is not served", "ai-catalog.digest")
		}
		return
	}
	// An MCP Server Card is application/mcp-server-card+json in an AI
	// catalog. A card served as application/mcp-server+json is the same
	// document under the media type the server card extension's draft gave
	// it (a card another host serves for both catalogs): it meets the
	// entry, and is held to the rules of a draft card.
	if served, _, _ := mime.ParseMediaType(p.header.Get("Content-Type")); r.ai && r.mediaType == spec.ContentTypeServerCardV1 && served == spec.ContentTypeServerCardDraft {
		r.mediaType = spec.ContentTypeServerCardDraft
	}
	c.contentType("card.content-type", p, r.mediaType)
	if p.tooBig {
		c.skip(r.url, skippedTooBig, "card.name")
		if r.digest != "" {
			c.skip(r.url, skippedTooBig, "ai-catalog.digest")
		}
		return
	}
	if r.digest != "" {
		c.checkDigest(r, p.body)
	}
	c.cardBody(r, p)
}

// checkDigest applies ai-catalog.digest to the bytes the card r points at:
// the digest its AI catalog entry gives must be theirs.
func (c *checker) checkDigest(r cardRef, body []byte) {
	algo, want, _ := strings.Cut(r.digest, ":")
	var got string
	switch algo {
	case "sha256":
		sum := sha256.Sum256(body)
		got = hex.EncodeToString(sum[:])
	case "sha384":
		sum := sha512.Sum384(body)
		got = hex.EncodeToString(sum[:])
	case "sha512":
		sum := sha512.Sum512(body)
		got = hex.EncodeToString(sum[:])
	}
	if got == want {
		c.add("ai-catalog.digest", ResultPass, r.url, r.digest, "the entry's digest is that of the bytes its url serves")
		return
	}
	c.add("ai-catalog.digest", ResultFail, r.url, fmt.Sprintf("entry %s, served bytes %s:%s", r.digest, algo, got), "the entry's digest must be that of the exact bytes its url serves")
}

// cardBody applies the rules of a card's body to the card r points at.
func (c *checker) cardBody(r cardRef, p *page) {
	doc, err := jsonval.Decode(p.body)
	if err != nil {
		c.add("card.name", ResultFail, r.url, "invalid JSON: "+err.Error(), "a card must be a JSON object")
		return
	}
	c.credentials("discovery.credentials", r.url, doc)
	cd := documents.CardOf(doc)
	name := cd.Name.Text()
	switch {
	case r.ai:
		c.aiCardName(r.url, r.identifier, r.aiName, cd.Name)
	case r.name == "":
		c.add("card.name", ResultSkip, r.url, "identifier "+jsonval.Show(r.identifier), "the identifier names no server (see the catalog's identifier rule)")
	case name == r.name:
		c.add("card.name", ResultPass, r.url, "name "+jsonval.Show(name)+", identifier "+r.identifier, "the name is the identifier's")
	default:
		c.add("card.name", ResultFail, r.url, "name "+cd.Name.Show()+", identifier "+r.identifier, "the card's name must be the server name of its identifier")
	}
	if r.mediaType != spec.ContentTypeServerCardV1 {
		return
	}
	c.learnEndpoints(r, cd, p.body)
	var probs []string
	if !cd.Schema.Is(schemaV1) {
		probs = append(probs, "/"+cd.Schema.Name+": "+cd.Schema.Show()+", want "+schemaV1)
	}
	for _, f := range []jsonval.Member{cd.Name, cd.Version, cd.Description} {
		if s, ok := f.Str(); !ok || s == "" {
			probs = append(probs, "/"+f.Name+": "+f.Show()+", want a non-empty string")
		}
	}
	if s, ok := cd.Description.Str(); ok && utf8.RuneCountInString(s) > 100 {
		probs = append(probs, fmt.Sprintf("/%s: %d characters, want at most 100", cd.Description.Name, utf8.RuneCountInString(s)))
	}
	c.problems("card.v1-schema", r.url, probs, "$schema v1, name, version and description present", "the v1 card has its required fields", "a v1 card must have the v1 $schema, a name, a version and a description of at most 100 characters")
}

// endpointCard is a card found at a catalog's URL whose Streamable HTTP
// endpoint is on the checked origin.
type endpointCard struct {
	card string // the URL the catalog gives
	sum  [32]byte
}

// learnEndpoints notes, for card.mcp-url, where the v1 card r (decoded as
// cd, served as body) should also be answered: beside each of its
// Streamable HTTP endpoints with a literal URL on the checked origin.
func (c *checker) learnEndpoints(r cardRef, cd documents.Card, body []byte) {
	for _, rm := range cd.Remotes {
		u, ok := rm.URL.Str()
		if !rm.Type.Is("streamable-http") || !ok || strings.ContainsAny(u, "{}?#") {
			continue
		}
		parsed, err := url.Parse(u)
		if err != nil || originOf(parsed) != c.origin {
			continue
		}
		at := strings.TrimSuffix(u, "/") + "/" + spec.ServerCardSegment
		if c.endpointCards == nil {
			c.endpointCards = map[string]endpointCard{}
		}
		if _, seen := c.endpointCards[at]; !seen {
			c.endpointCards[at] = endpointCard{card: r.url, sum: sha256.Sum256(body)}
		}
	}
}

// fetchEndpointCards fetches, as a third stage, each card's URL beside its
// endpoint on the checked origin, and applies card.mcp-url; the transport
// rules then hold them as every other response of the origin.
func (c *checker) fetchEndpointCards(ctx context.Context) {
	if len(c.endpointCards) == 0 {
		return
	}
	urls := slices.Sorted(maps.Keys(c.endpointCards))
	var pages []*page
	for _, u := range urls {
		if _, done := c.pages[u]; !done {
			pages = append(pages, &page{url: u, role: roleCard, local: true, accept: spec.ContentTypeServerCardV1, keep: true})
		}
	}
	c.fetch(ctx, pages, nil)
	for _, u := range urls {
		want := c.endpointCards[u]
		p := c.pages[u]
		if p == nil {
			continue // over the budget: limits.documents says so
		}
		served, _, _ := mime.ParseMediaType(p.header.Get("Content-Type"))
		switch {
		case p.err != nil:
			c.add("card.mcp-url", ResultFail, u, p.err.Error(), "the card of a server whose endpoint is on this origin should be answered beside it")
		case p.status != http.StatusOK:
			c.add("card.mcp-url", ResultFail, u, fmt.Sprintf("status %d", p.status), "the card of a server whose endpoint is on this origin should be answered beside it, at <endpoint>/server-card")
		case served != spec.ContentTypeServerCardV1:
			c.add("card.mcp-url", ResultFail, u, "Content-Type: "+p.header.Get("Content-Type"), "the card beside its endpoint should be served as "+spec.ContentTypeServerCardV1)
		case p.tooBig:
			c.skip(u, skippedTooBig, "card.mcp-url")
		case sha256.Sum256(p.body) != want.sum:
			c.add("card.mcp-url", ResultFail, u, "other bytes than "+want.card, "the card beside its endpoint should be the card its catalog points at")
		default:
			c.add("card.mcp-url", ResultPass, u, "the card of "+want.card, "the card is answered beside its endpoint")
		}
	}
}
