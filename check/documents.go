package check

import (
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// The documents the rules read. Each fetched document is decoded into JSON
// values (jsonval.Decode): the schemas validate those (the lists a second copy,
// which descriptor.fix changes first), jsonval.Diff compares them and the
// credential scan reads them as they are. The rules read the members they
// judge through the types below (each member a jsonval.Member), which the functions of this file build
// from those values: the only code of the checker that looks into a decoded
// object by a member's name. Each name is written once, here, and a field
// renamed is a compile error wherever a rule reads it.
//
// Members are found by their exact names. encoding/json would fill a field
// tagged "toolId" from "ToolId" as well, and a checker must not read what
// the spec does not name; nor may a member of the wrong type vanish, since
// the findings show what the document holds instead.

// descriptor is a tool descriptor: an entry of /tools or of the compact
// list, or the document of /tools/{toolId} in either view.
type descriptor struct {
	// raw is the descriptor as decoded, what jsonval.Diff compares; obj is raw when
	// it is a JSON object, else nil, and then every member is absent.
	raw any
	obj map[string]any

	ToolID, Source, SafetyTier, ReplayPolicy, Egress jsonval.Member
	Annotations                                      hints
	// InputSchema's value is a JSON Schema: open JSON, which walkSchema
	// and jsonval.Diff read as decoded.
	InputSchema jsonval.Member
	// Definition is the digest of the tool's definition its _meta holds.
	Definition definitionMeta
}

// definitionMeta is _meta's spec.DefinitionMeta: the digest and size of a
// tool's definition, which every view of the tool may carry.
type definitionMeta struct {
	Meta           jsonval.Member // _meta, as the descriptor or entry has it
	jsonval.Member                // _meta's spec.DefinitionMeta

	Digest, Size jsonval.Member
}

func definitionMetaOf(obj map[string]any) definitionMeta {
	meta := jsonval.MemberOf(obj, spec.MetaKey)
	m, _ := jsonval.Object(meta.Value)
	def := jsonval.MemberOf(m, spec.DefinitionMeta)
	d, _ := jsonval.Object(def.Value)
	return definitionMeta{Meta: meta, Member: def, Digest: jsonval.MemberOf(d, "digest"), Size: jsonval.MemberOf(d, "size")}
}

// show renders the digest and size for evidence.
func (d definitionMeta) show() string {
	if !d.Present {
		return "no " + spec.MetaKey + "." + spec.DefinitionMeta
	}
	return "digest " + d.Digest.Show() + ", size " + d.Size.Show()
}

// hints are a descriptor's annotations: the four MCP hints.
type hints struct {
	jsonval.Member      // the annotations, as the descriptor has them
	object         bool // they are a JSON object; else every hint is absent

	ReadOnly, Destructive, Idempotent, OpenWorld jsonval.Member
}

func descriptorOf(v any) descriptor {
	m, _ := jsonval.Object(v)
	return descriptor{
		raw:          v,
		obj:          m,
		ToolID:       jsonval.MemberOf(m, "toolId"),
		Source:       jsonval.MemberOf(m, "source"),
		SafetyTier:   jsonval.MemberOf(m, "safetyTier"),
		ReplayPolicy: jsonval.MemberOf(m, "replayPolicy"),
		Egress:       jsonval.MemberOf(m, "egress"),
		Annotations:  hintsOf(jsonval.MemberOf(m, "annotations")),
		InputSchema:  jsonval.MemberOf(m, "inputSchema"),
		Definition:   definitionMetaOf(m),
	}
}

func hintsOf(a jsonval.Member) hints {
	m, ok := jsonval.Object(a.Value)
	return hints{
		Member:      a,
		object:      ok,
		ReadOnly:    jsonval.MemberOf(m, "readOnlyHint"),
		Destructive: jsonval.MemberOf(m, "destructiveHint"),
		Idempotent:  jsonval.MemberOf(m, "idempotentHint"),
		OpenWorld:   jsonval.MemberOf(m, "openWorldHint"),
	}
}

// descriptorsOf reads a list of descriptors: a JSON array, else nil and
// false. The list of an array is not nil, even when empty.
func descriptorsOf(v any) ([]descriptor, bool) {
	a, ok := jsonval.Array(v)
	if !ok {
		return nil, false
	}
	list := make([]descriptor, len(a))
	for i, e := range a {
		list[i] = descriptorOf(e)
	}
	return list, true
}

// compactList is what ?view=compact answered.
type compactList struct {
	raw any
	// isList is set when it is a JSON array (the standard view), isObject
	// when it is a JSON object (the compact view).
	isList, isObject bool

	Tools jsonval.Member
	// tools are the descriptors of Tools, nil unless it is an array.
	tools []descriptor
}

func compactListOf(v any) compactList {
	m, isObject := jsonval.Object(v)
	_, isList := jsonval.Array(v)
	l := compactList{raw: v, isList: isList, isObject: isObject, Tools: jsonval.MemberOf(m, "tools")}
	l.tools, _ = descriptorsOf(l.Tools.Value)
	return l
}

// mcpCatalog is /.well-known/mcp/catalog.json.
type mcpCatalog struct {
	raw      any
	isObject bool

	Entries jsonval.Member
	// entries are those of Entries, nil unless it is an array; listed
	// says it is one.
	entries []mcpEntry
	listed  bool
}

// mcpEntry is an entry of the MCP catalog.
type mcpEntry struct {
	raw      any
	isObject bool

	Identifier, MediaType, URL jsonval.Member
}

func mcpCatalogOf(v any) *mcpCatalog {
	m, ok := jsonval.Object(v)
	c := &mcpCatalog{raw: v, isObject: ok, Entries: jsonval.MemberOf(m, "entries")}
	a, listed := jsonval.Array(c.Entries.Value)
	c.listed = listed
	for _, e := range a {
		em, ok := jsonval.Object(e)
		c.entries = append(c.entries, mcpEntry{
			raw:        e,
			isObject:   ok,
			Identifier: jsonval.MemberOf(em, "identifier"),
			MediaType:  jsonval.MemberOf(em, "mediaType"),
			URL:        jsonval.MemberOf(em, "url"),
		})
	}
	return c
}

// aiCatalog is /.well-known/ai-catalog.json.
type aiCatalog struct {
	raw      any
	isObject bool

	SpecVersion jsonval.Member
	// Domain is the host's domain: host.identifier (its domain when it is
	// did:web:DOMAIN), or host.domain as builds before AI Catalog 1.0's
	// Host Info wrote it.
	Domain  jsonval.Member
	Entries jsonval.Member
	// entries are those of Entries, nil unless it is an array; listed
	// says it is one.
	entries []aiEntry
	listed  bool
}

// aiEntry is an entry of the AI catalog.
type aiEntry struct {
	raw      any
	isObject bool

	Identifier, Type, URL jsonval.Member
	// Digest is the digest of the entry's document: algorithm:hex.
	Digest jsonval.Member
	// Data is the entry's inline data: open JSON, whose meaning depends on
	// Type (a card, or the tool catalog's advertisement).
	Data jsonval.Member
	// toolCatalog is data.toolCatalog when the entry advertises a tool
	// catalog (type application/json, and data an object with a
	// toolCatalog object), else nil.
	toolCatalog *toolCatalogAd
}

// toolCatalogAd is the tool catalog's advertisement in the AI catalog.
type toolCatalogAd struct {
	jsonval.Member // data.toolCatalog, as the entry has it

	URL, CompactView, Catalogue jsonval.Member
}

func aiCatalogOf(v any) *aiCatalog {
	m, ok := jsonval.Object(v)
	host, _ := jsonval.Object(jsonval.MemberOf(m, "host").Value)
	c := &aiCatalog{
		raw:         v,
		isObject:    ok,
		SpecVersion: jsonval.MemberOf(m, "specVersion"),
		Domain:      hostDomain(host),
		Entries:     jsonval.MemberOf(m, "entries"),
	}
	a, listed := jsonval.Array(c.Entries.Value)
	c.listed = listed
	for _, e := range a {
		c.entries = append(c.entries, aiEntryOf(e))
	}
	return c
}

func aiEntryOf(v any) aiEntry {
	m, ok := jsonval.Object(v)
	e := aiEntry{
		raw:        v,
		isObject:   ok,
		Identifier: jsonval.MemberOf(m, "identifier"),
		Type:       jsonval.MemberOf(m, "type"),
		URL:        jsonval.MemberOf(m, "url"),
		Digest:     jsonval.MemberOf(m, "digest"),
		Data:       jsonval.MemberOf(m, "data"),
	}
	data, _ := jsonval.Object(e.Data.Value)
	tc := jsonval.MemberOf(data, "toolCatalog")
	if tm, ok := jsonval.Object(tc.Value); ok && e.Type.Is(spec.ContentTypeJSON) {
		e.toolCatalog = &toolCatalogAd{
			Member:      tc,
			URL:         jsonval.MemberOf(tm, "url"),
			CompactView: jsonval.MemberOf(tm, "compactView"),
			Catalogue:   jsonval.MemberOf(tm, "catalogue"),
		}
	}
	return e
}

// card is a server card, draft or v1, fetched or given inline.
type card struct {
	Schema, Name, Version, Description jsonval.Member
	// Remotes are the items of remotes that are objects.
	Remotes []cardRemote
}

// cardRemote is an item of a card's remotes: its transport and URL.
type cardRemote struct {
	Type, URL jsonval.Member
}

func cardOf(v any) card {
	m, _ := jsonval.Object(v)
	c := card{
		Schema:      jsonval.MemberOf(m, "$schema"),
		Name:        jsonval.MemberOf(m, "name"),
		Version:     jsonval.MemberOf(m, "version"),
		Description: jsonval.MemberOf(m, "description"),
	}
	remotes, _ := jsonval.Array(jsonval.MemberOf(m, "remotes").Value)
	for _, r := range remotes {
		if o, ok := jsonval.Object(r); ok {
			c.Remotes = append(c.Remotes, cardRemote{Type: jsonval.MemberOf(o, "type"), URL: jsonval.MemberOf(o, "url")})
		}
	}
	return c
}

// toolCatalogue is the tool catalogue, /tool-catalogue.json.
type toolCatalogue struct {
	raw any

	CatalogVersion jsonval.Member
	tools          []catalogueTool // nil unless its tools are an array
	groups         []catalogueGroup
}

// catalogueTool is a tool of the tool catalogue or of a group document.
type catalogueTool struct {
	raw any // the entry as decoded, what jsonval.Diff compares

	Name jsonval.Member
	// Arguments' value is a JSON Schema: open JSON, which jsonval.Diff reads as
	// decoded.
	Arguments                                jsonval.Member
	SafetyTier, ReplayPolicy, Egress, Source jsonval.Member
	Definition                               definitionMeta
}

// catalogueGroup is a group of the tool catalogue.
type catalogueGroup struct {
	raw any // the group as decoded, what jsonval.Diff compares

	Key jsonval.Member
	// toolNames are the values of its tools, nil unless they are an array.
	toolNames []any
}

// toolCatalogueOf reads the tool catalogue: nil unless v is a JSON
// object.
func toolCatalogueOf(v any) *toolCatalogue {
	m, ok := jsonval.Object(v)
	if !ok {
		return nil
	}
	c := &toolCatalogue{raw: v, CatalogVersion: jsonval.MemberOf(m, "catalogVersion")}
	c.tools, _ = catalogueToolsOf(jsonval.MemberOf(m, "tools"))
	groups, _ := jsonval.Array(jsonval.MemberOf(m, "groups").Value)
	for _, g := range groups {
		gm, _ := jsonval.Object(g)
		names, _ := jsonval.Array(jsonval.MemberOf(gm, "tools").Value)
		c.groups = append(c.groups, catalogueGroup{raw: g, Key: jsonval.MemberOf(gm, "key"), toolNames: names})
	}
	return c
}

// catalogueToolsOf reads the tools of a catalogue or group document: nil
// and false unless they are an array.
func catalogueToolsOf(tools jsonval.Member) ([]catalogueTool, bool) {
	a, ok := jsonval.Array(tools.Value)
	if !ok {
		return nil, false
	}
	list := make([]catalogueTool, len(a))
	for i, t := range a {
		m, _ := jsonval.Object(t)
		list[i] = catalogueTool{
			raw:          t,
			Name:         jsonval.MemberOf(m, "name"),
			Arguments:    jsonval.MemberOf(m, "arguments"),
			SafetyTier:   jsonval.MemberOf(m, "safetyTier"),
			ReplayPolicy: jsonval.MemberOf(m, "replayPolicy"),
			Egress:       jsonval.MemberOf(m, "egress"),
			Source:       jsonval.MemberOf(m, "source"),
			Definition:   definitionMetaOf(m),
		}
	}
	return list, true
}

// groupDocument is a group document, /tool-catalogue/groups/{key}.json.
type groupDocument struct {
	raw any

	Group, Tools jsonval.Member
	tools        []catalogueTool // nil unless Tools is an array
}

// groupDocumentOf reads a group document: nil unless v is a JSON object.
func groupDocumentOf(v any) *groupDocument {
	m, ok := jsonval.Object(v)
	if !ok {
		return nil
	}
	g := &groupDocument{raw: v, Group: jsonval.MemberOf(m, "group"), Tools: jsonval.MemberOf(m, "tools")}
	g.tools, _ = catalogueToolsOf(g.Tools)
	return g
}

// hostDomain is the host's domain as its identifier or domain gives it.
func hostDomain(host map[string]any) jsonval.Member {
	id := jsonval.MemberOf(host, "identifier")
	if s, ok := id.Str(); ok {
		if d, ok := strings.CutPrefix(s, "did:web:"); ok {
			id.Value = d
		}
		return id
	}
	return jsonval.MemberOf(host, "domain")
}
