package check

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/spec"
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
}

// inlineCard checks a card given inline as an AI catalog entry's data.
func (c *checker) inlineCard(catalogURL, ptr, id string, data member) {
	_, seg := aiName(id)
	c.aiCardName(catalogURL+"#"+ptr+"/"+data.name, id, seg, cardOf(data.value).Name)
}

// aiCardName applies card.name to a card an AI catalog entry lists, at
// SHOULD: the NAME of its identifier cannot be held to the card's name
// exactly, since an identifier is derived from the part of the name after
// the namespace (NAMESPACE.NAME when two servers share that part) or chosen
// by the publisher. A card whose name gives neither form is a warning; an
// identifier not of the form urn:air:DOMAIN:mcp:NAME is ai-catalog.identifier's.
func (c *checker) aiCardName(place, id, seg string, name member) {
	s := name.text()
	ev := "name " + name.show() + ", identifier " + id
	switch {
	case seg == "":
		c.addAt("card.name", LevelShould, ResultSkip, place, "identifier "+show(id), "the identifier names no server (see the catalog's identifier rule)")
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
		return
	}
	c.contentType("card.content-type", p, r.mediaType)
	if p.tooBig {
		c.skip(r.url, skippedTooBig, "card.name")
		return
	}
	c.cardBody(r, p)
}

// cardBody applies the rules of a card's body to the card r points at.
func (c *checker) cardBody(r cardRef, p *page) {
	doc, err := decode(p.body)
	if err != nil {
		c.add("card.name", ResultFail, r.url, "invalid JSON: "+err.Error(), "a card must be a JSON object")
		return
	}
	c.credentials("discovery.credentials", r.url, doc)
	cd := cardOf(doc)
	name := cd.Name.text()
	switch {
	case r.ai:
		c.aiCardName(r.url, r.identifier, r.aiName, cd.Name)
	case r.name == "":
		c.add("card.name", ResultSkip, r.url, "identifier "+show(r.identifier), "the identifier names no server (see the catalog's identifier rule)")
	case name == r.name:
		c.add("card.name", ResultPass, r.url, "name "+show(name)+", identifier "+r.identifier, "the name is the identifier's")
	default:
		c.add("card.name", ResultFail, r.url, "name "+cd.Name.show()+", identifier "+r.identifier, "the card's name must be the server name of its identifier")
	}
	if r.mediaType != spec.ContentTypeServerCardV1 {
		return
	}
	var probs []string
	if !cd.Schema.is(schemaV1) {
		probs = append(probs, "/"+cd.Schema.name+": "+cd.Schema.show()+", want "+schemaV1)
	}
	for _, f := range []member{cd.Name, cd.Version, cd.Description} {
		if s, ok := f.str(); !ok || s == "" {
			probs = append(probs, "/"+f.name+": "+f.show()+", want a non-empty string")
		}
	}
	if s, ok := cd.Description.str(); ok && utf8.RuneCountInString(s) > 100 {
		probs = append(probs, fmt.Sprintf("/%s: %d characters, want at most 100", cd.Description.name, utf8.RuneCountInString(s)))
	}
	c.problems("card.v1-schema", r.url, probs, "$schema v1, name, version and description present", "the v1 card has its required fields", "a v1 card must have the v1 $schema, a name, a version and a description of at most 100 characters")
}
