// Package documents is the documents the checker's rules read, as typed
// views of their decoded JSON: tool descriptors and lists, the two
// discovery catalogs, server cards, the tool catalogue and its groups
// (the MCP registry's are check/registry's).
package documents

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// The documents the rules read. Each fetched document is decoded into JSON
// values (jsonval.Decode): the schemas validate those (the lists a second copy,
// which check's fix changes first), jsonval.Diff compares them and the
// credential scan reads them as they are. The rules read the members they
// judge through the types below (each member a jsonval.Member), which the functions of this
// package build from those values: with check/registry/documents.go for the
// registry's, the only code of the checker that looks into a decoded
// object by a member's name. Each name is written once, here, and a field
// renamed is a compile error wherever a rule reads it.
//
// Members are found by their exact names. encoding/json would fill a field
// tagged "toolId" from "ToolId" as well, and a checker must not read what
// the spec does not name; nor may a member of the wrong type vanish, since
// the findings show what the document holds instead.

// Descriptor is a tool descriptor: an entry of /tools or of the compact
// list, or the document of /tools/{toolId} in either view.
type Descriptor struct {
	// Raw is the descriptor as decoded, what jsonval.Diff compares; obj is raw when
	// it is a JSON object, else nil, and then every member is absent.
	Raw any
	Obj map[string]any

	ToolID, Source, SafetyTier, ReplayPolicy, Egress jsonval.Member
	Annotations                                      Hints
	// InputSchema's value is a JSON Schema: open JSON, which walkSchema
	// and jsonval.Diff read as decoded.
	InputSchema jsonval.Member
	// Definition is the digest of the tool's definition its _meta holds.
	Definition DefinitionMeta
}

// DefinitionMeta is _meta's spec.DefinitionMeta: the digest and size of a
// tool's definition, which every view of the tool may carry.
type DefinitionMeta struct {
	Meta           jsonval.Member // _meta, as the descriptor or entry has it
	jsonval.Member                // _meta's spec.DefinitionMeta

	Digest, Size jsonval.Member
}

func DefinitionMetaOf(Obj map[string]any) DefinitionMeta {
	meta := jsonval.MemberOf(Obj, spec.MetaKey)
	m, _ := jsonval.Object(meta.Value)
	def := jsonval.MemberOf(m, spec.DefinitionMeta)
	d, _ := jsonval.Object(def.Value)
	return DefinitionMeta{Meta: meta, Member: def, Digest: jsonval.MemberOf(d, "digest"), Size: jsonval.MemberOf(d, "size")}
}

// Show renders the digest and size for evidence.
func (d DefinitionMeta) Show() string {
	if !d.Present {
		return "no " + spec.MetaKey + "." + spec.DefinitionMeta
	}
	return "digest " + d.Digest.Show() + ", size " + d.Size.Show()
}

// Hints are a descriptor's annotations: the four MCP hints.
type Hints struct {
	jsonval.Member      // the annotations, as the descriptor has them
	IsObject       bool // they are a JSON object; else every hint is absent

	ReadOnly, Destructive, Idempotent, OpenWorld jsonval.Member
}

func DescriptorOf(v any) Descriptor {
	m, _ := jsonval.Object(v)
	return Descriptor{
		Raw:          v,
		Obj:          m,
		ToolID:       jsonval.MemberOf(m, "toolId"),
		Source:       jsonval.MemberOf(m, "source"),
		SafetyTier:   jsonval.MemberOf(m, "safetyTier"),
		ReplayPolicy: jsonval.MemberOf(m, "replayPolicy"),
		Egress:       jsonval.MemberOf(m, "egress"),
		Annotations:  HintsOf(jsonval.MemberOf(m, "annotations")),
		InputSchema:  jsonval.MemberOf(m, "inputSchema"),
		Definition:   DefinitionMetaOf(m),
	}
}

func HintsOf(a jsonval.Member) Hints {
	m, ok := jsonval.Object(a.Value)
	return Hints{
		Member:      a,
		IsObject:    ok,
		ReadOnly:    jsonval.MemberOf(m, "readOnlyHint"),
		Destructive: jsonval.MemberOf(m, "destructiveHint"),
		Idempotent:  jsonval.MemberOf(m, "idempotentHint"),
		OpenWorld:   jsonval.MemberOf(m, "openWorldHint"),
	}
}

// DescriptorsOf reads a list of descriptors: a JSON array, else nil and
// false. The list of an array is not nil, even when empty.
func DescriptorsOf(v any) ([]Descriptor, bool) {
	a, ok := jsonval.Array(v)
	if !ok {
		return nil, false
	}
	list := make([]Descriptor, len(a))
	for i, e := range a {
		list[i] = DescriptorOf(e)
	}
	return list, true
}

// CompactList is what ?view=compact answered.
type CompactList struct {
	Raw any
	// IsList is set when it is a JSON array (the standard view), isObject
	// when it is a JSON object (the compact view).
	IsList, IsObject bool

	Tools jsonval.Member
	// Items are the descriptors of Tools, nil unless it is an array.
	Items []Descriptor
}

func CompactListOf(v any) CompactList {
	m, isObject := jsonval.Object(v)
	_, isList := jsonval.Array(v)
	l := CompactList{Raw: v, IsList: isList, IsObject: isObject, Tools: jsonval.MemberOf(m, "tools")}
	l.Items, _ = DescriptorsOf(l.Tools.Value)
	return l
}

// MCPCatalog is /.well-known/mcp/catalog.json.
type MCPCatalog struct {
	Raw      any
	IsObject bool

	Entries jsonval.Member
	// Items are those of Entries, nil unless it is an array; listed
	// says it is one.
	Items  []MCPEntry
	Listed bool
}

// MCPEntry is an entry of the MCP catalog.
type MCPEntry struct {
	Raw      any
	IsObject bool

	Identifier, MediaType, URL jsonval.Member
}

func MCPCatalogOf(v any) *MCPCatalog {
	m, ok := jsonval.Object(v)
	c := &MCPCatalog{Raw: v, IsObject: ok, Entries: jsonval.MemberOf(m, "entries")}
	a, listed := jsonval.Array(c.Entries.Value)
	c.Listed = listed
	for _, e := range a {
		em, ok := jsonval.Object(e)
		c.Items = append(c.Items, MCPEntry{
			Raw:        e,
			IsObject:   ok,
			Identifier: jsonval.MemberOf(em, "identifier"),
			MediaType:  jsonval.MemberOf(em, "mediaType"),
			URL:        jsonval.MemberOf(em, "url"),
		})
	}
	return c
}

// AICatalog is /.well-known/ai-catalog.json.
type AICatalog struct {
	Raw      any
	IsObject bool

	SpecVersion jsonval.Member
	// Domain is the host's domain: host.identifier (its domain when it is
	// did:web:DOMAIN), or host.domain as builds before AI Catalog 1.0's
	// Host Info wrote it.
	Domain  jsonval.Member
	Entries jsonval.Member
	// Items are those of Entries, nil unless it is an array; listed
	// says it is one.
	Items  []AIEntry
	Listed bool
}

// AIEntry is an entry of the AI catalog.
type AIEntry struct {
	Raw      any
	IsObject bool

	Identifier, Type, URL jsonval.Member
	// Digest is the digest of the entry's document: algorithm:hex.
	Digest jsonval.Member
	// Data is the entry's inline data: open JSON, whose meaning depends on
	// Type (a card, or the tool catalog's advertisement).
	Data jsonval.Member
	// ToolCatalog is data.toolCatalog when the entry advertises a tool
	// catalog (type application/json, and data an object with a
	// toolCatalog object), else nil.
	ToolCatalog *ToolCatalogAd
}

// ToolCatalogAd is the tool catalog's advertisement in the AI catalog.
type ToolCatalogAd struct {
	jsonval.Member // data.toolCatalog, as the entry has it

	URL, CompactView, Catalogue jsonval.Member
}

func AICatalogOf(v any) *AICatalog {
	m, ok := jsonval.Object(v)
	host, _ := jsonval.Object(jsonval.MemberOf(m, "host").Value)
	c := &AICatalog{
		Raw:         v,
		IsObject:    ok,
		SpecVersion: jsonval.MemberOf(m, "specVersion"),
		Domain:      hostDomain(host),
		Entries:     jsonval.MemberOf(m, "entries"),
	}
	a, listed := jsonval.Array(c.Entries.Value)
	c.Listed = listed
	for _, e := range a {
		c.Items = append(c.Items, AIEntryOf(e))
	}
	return c
}

func AIEntryOf(v any) AIEntry {
	m, ok := jsonval.Object(v)
	e := AIEntry{
		Raw:        v,
		IsObject:   ok,
		Identifier: jsonval.MemberOf(m, "identifier"),
		Type:       jsonval.MemberOf(m, "type"),
		URL:        jsonval.MemberOf(m, "url"),
		Digest:     jsonval.MemberOf(m, "digest"),
		Data:       jsonval.MemberOf(m, "data"),
	}
	data, _ := jsonval.Object(e.Data.Value)
	tc := jsonval.MemberOf(data, "toolCatalog")
	if tm, ok := jsonval.Object(tc.Value); ok && e.Type.Is(spec.ContentTypeJSON) {
		e.ToolCatalog = &ToolCatalogAd{
			Member:      tc,
			URL:         jsonval.MemberOf(tm, "url"),
			CompactView: jsonval.MemberOf(tm, "compactView"),
			Catalogue:   jsonval.MemberOf(tm, "catalogue"),
		}
	}
	return e
}

// Card is a server card, draft or v1, fetched or given inline.
type Card struct {
	Schema, Name, Version, Description jsonval.Member
	// Remotes are the items of remotes that are objects.
	Remotes []CardRemote
}

// CardRemote is an item of a card's remotes: its transport and URL.
type CardRemote struct {
	Type, URL jsonval.Member
}

func CardOf(v any) Card {
	m, _ := jsonval.Object(v)
	c := Card{
		Schema:      jsonval.MemberOf(m, "$schema"),
		Name:        jsonval.MemberOf(m, "name"),
		Version:     jsonval.MemberOf(m, "version"),
		Description: jsonval.MemberOf(m, "description"),
	}
	remotes, _ := jsonval.Array(jsonval.MemberOf(m, "remotes").Value)
	for _, r := range remotes {
		if o, ok := jsonval.Object(r); ok {
			c.Remotes = append(c.Remotes, CardRemote{Type: jsonval.MemberOf(o, "type"), URL: jsonval.MemberOf(o, "url")})
		}
	}
	return c
}

// ToolCatalogue is the tool catalogue, /tool-catalogue.json.
type ToolCatalogue struct {
	Raw any

	CatalogVersion jsonval.Member
	Items          []CatalogueTool // nil unless its tools are an array
	Groups         []CatalogueGroup
}

// CatalogueTool is a tool of the tool catalogue or of a group document.
type CatalogueTool struct {
	Raw any // the entry as decoded, what jsonval.Diff compares

	Name jsonval.Member
	// Arguments' value is a JSON Schema: open JSON, which jsonval.Diff reads as
	// decoded.
	Arguments                                jsonval.Member
	SafetyTier, ReplayPolicy, Egress, Source jsonval.Member
	Definition                               DefinitionMeta
}

// CatalogueGroup is a group of the tool catalogue.
type CatalogueGroup struct {
	Raw any // the group as decoded, what jsonval.Diff compares

	Key jsonval.Member
	// ToolNames are the values of its tools, nil unless they are an array.
	ToolNames []any
}

// ToolCatalogueOf reads the tool catalogue: nil unless v is a JSON
// object.
func ToolCatalogueOf(v any) *ToolCatalogue {
	m, ok := jsonval.Object(v)
	if !ok {
		return nil
	}
	c := &ToolCatalogue{Raw: v, CatalogVersion: jsonval.MemberOf(m, "catalogVersion")}
	c.Items, _ = CatalogueToolsOf(jsonval.MemberOf(m, "tools"))
	Groups, _ := jsonval.Array(jsonval.MemberOf(m, "groups").Value)
	for _, g := range Groups {
		gm, _ := jsonval.Object(g)
		names, _ := jsonval.Array(jsonval.MemberOf(gm, "tools").Value)
		c.Groups = append(c.Groups, CatalogueGroup{Raw: g, Key: jsonval.MemberOf(gm, "key"), ToolNames: names})
	}
	return c
}

// CatalogueToolsOf reads the tools of a catalogue or group document: nil
// and false unless they are an array.
func CatalogueToolsOf(tools jsonval.Member) ([]CatalogueTool, bool) {
	a, ok := jsonval.Array(tools.Value)
	if !ok {
		return nil, false
	}
	list := make([]CatalogueTool, len(a))
	for i, t := range a {
		m, _ := jsonval.Object(t)
		list[i] = CatalogueTool{
			Raw:          t,
			Name:         jsonval.MemberOf(m, "name"),
			Arguments:    jsonval.MemberOf(m, "arguments"),
			SafetyTier:   jsonval.MemberOf(m, "safetyTier"),
			ReplayPolicy: jsonval.MemberOf(m, "replayPolicy"),
			Egress:       jsonval.MemberOf(m, "egress"),
			Source:       jsonval.MemberOf(m, "source"),
			Definition:   DefinitionMetaOf(m),
		}
	}
	return list, true
}

// GroupDocument is a group document, /tool-catalogue/groups/{key}.json.
type GroupDocument struct {
	Raw any

	Group, Tools jsonval.Member
	Items        []CatalogueTool // nil unless Tools is an array
}

// GroupDocumentOf reads a group document: nil unless v is a JSON object.
func GroupDocumentOf(v any) *GroupDocument {
	m, ok := jsonval.Object(v)
	if !ok {
		return nil
	}
	g := &GroupDocument{Raw: v, Group: jsonval.MemberOf(m, "group"), Tools: jsonval.MemberOf(m, "tools")}
	g.Items, _ = CatalogueToolsOf(g.Tools)
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

// Carried is the digest and size a view carries, when it carries both as
// a string and an integer.
func (d DefinitionMeta) Carried() (digest string, size int, ok bool) {
	digest, ok = d.Digest.Str()
	if !ok {
		return "", 0, false
	}
	n, ok := d.Size.Value.(json.Number)
	if !ok {
		return "", 0, false
	}
	size, err := strconv.Atoi(n.String())
	return digest, size, err == nil
}
