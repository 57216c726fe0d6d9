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
// judge through the types below, which the functions of this file build
// from those values: the only code of the checker that looks into a decoded
// object by a member's name. Each name is written once, here, and a field
// renamed is a compile error wherever a rule reads it.
//
// Members are found by their exact names. encoding/json would fill a field
// tagged "toolId" from "ToolId" as well, and a checker must not read what
// the spec does not name; nor may a member of the wrong type vanish, since
// the findings show what the document holds instead.

// member is one member of a decoded JSON object: its name, whether the
// object has it (null included), and its value as jsonval.Decode gives it, nil
// for null or when absent.
type member struct {
	name    string
	value   any
	present bool
}

// memberOf is the member name of obj (a nil obj has none).
func memberOf(obj map[string]any, name string) member {
	v, ok := obj[name]
	return member{name: name, value: v, present: ok}
}

// str is the member's value when it is a string.
func (m member) str() (string, bool) {
	s, ok := m.value.(string)
	return s, ok
}

// text is the member's value when it is a string, else "".
func (m member) text() string {
	s, _ := m.str()
	return s
}

// is reports whether the member's value is the string s.
func (m member) is(s string) bool {
	got, ok := m.str()
	return ok && got == s
}

// boolean is the member's value when it is true or false.
func (m member) boolean() (bool, bool) {
	b, ok := m.value.(bool)
	return b, ok
}

// null reports whether the member is absent or null.
func (m member) null() bool { return m.value == nil }

// show renders the member's value for evidence.
func (m member) show() string { return jsonval.Show(m.value) }

// same reports whether m and o hold the same JSON value (absent and null
// alike), compared deeply.
func (m member) same(o member) bool { return jsonval.Diff(m.value, o.value, "") == "" }

// descriptor is a tool descriptor: an entry of /tools or of the compact
// list, or the document of /tools/{toolId} in either view.
type descriptor struct {
	// raw is the descriptor as decoded, what jsonval.Diff compares; obj is raw when
	// it is a JSON object, else nil, and then every member is absent.
	raw any
	obj map[string]any

	ToolID, Source, SafetyTier, ReplayPolicy, Egress member
	Annotations                                      hints
	// InputSchema's value is a JSON Schema: open JSON, which walkSchema
	// and jsonval.Diff read as decoded.
	InputSchema member
	// Definition is the digest of the tool's definition its _meta holds.
	Definition definitionMeta
}

// definitionMeta is _meta's spec.DefinitionMeta: the digest and size of a
// tool's definition, which every view of the tool may carry.
type definitionMeta struct {
	Meta   member // _meta, as the descriptor or entry has it
	member        // _meta's spec.DefinitionMeta

	Digest, Size member
}

func definitionMetaOf(obj map[string]any) definitionMeta {
	meta := memberOf(obj, spec.MetaKey)
	m, _ := jsonval.Object(meta.value)
	def := memberOf(m, spec.DefinitionMeta)
	d, _ := jsonval.Object(def.value)
	return definitionMeta{Meta: meta, member: def, Digest: memberOf(d, "digest"), Size: memberOf(d, "size")}
}

// show renders the digest and size for evidence.
func (d definitionMeta) show() string {
	if !d.present {
		return "no " + spec.MetaKey + "." + spec.DefinitionMeta
	}
	return "digest " + d.Digest.show() + ", size " + d.Size.show()
}

// hints are a descriptor's annotations: the four MCP hints.
type hints struct {
	member      // the annotations, as the descriptor has them
	object bool // they are a JSON object; else every hint is absent

	ReadOnly, Destructive, Idempotent, OpenWorld member
}

func descriptorOf(v any) descriptor {
	m, _ := jsonval.Object(v)
	return descriptor{
		raw:          v,
		obj:          m,
		ToolID:       memberOf(m, "toolId"),
		Source:       memberOf(m, "source"),
		SafetyTier:   memberOf(m, "safetyTier"),
		ReplayPolicy: memberOf(m, "replayPolicy"),
		Egress:       memberOf(m, "egress"),
		Annotations:  hintsOf(memberOf(m, "annotations")),
		InputSchema:  memberOf(m, "inputSchema"),
		Definition:   definitionMetaOf(m),
	}
}

func hintsOf(a member) hints {
	m, ok := jsonval.Object(a.value)
	return hints{
		member:      a,
		object:      ok,
		ReadOnly:    memberOf(m, "readOnlyHint"),
		Destructive: memberOf(m, "destructiveHint"),
		Idempotent:  memberOf(m, "idempotentHint"),
		OpenWorld:   memberOf(m, "openWorldHint"),
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

	Tools member
	// tools are the descriptors of Tools, nil unless it is an array.
	tools []descriptor
}

func compactListOf(v any) compactList {
	m, isObject := jsonval.Object(v)
	_, isList := jsonval.Array(v)
	l := compactList{raw: v, isList: isList, isObject: isObject, Tools: memberOf(m, "tools")}
	l.tools, _ = descriptorsOf(l.Tools.value)
	return l
}

// mcpCatalog is /.well-known/mcp/catalog.json.
type mcpCatalog struct {
	raw      any
	isObject bool

	Entries member
	// entries are those of Entries, nil unless it is an array; listed
	// says it is one.
	entries []mcpEntry
	listed  bool
}

// mcpEntry is an entry of the MCP catalog.
type mcpEntry struct {
	raw      any
	isObject bool

	Identifier, MediaType, URL member
}

func mcpCatalogOf(v any) *mcpCatalog {
	m, ok := jsonval.Object(v)
	c := &mcpCatalog{raw: v, isObject: ok, Entries: memberOf(m, "entries")}
	a, listed := jsonval.Array(c.Entries.value)
	c.listed = listed
	for _, e := range a {
		em, ok := jsonval.Object(e)
		c.entries = append(c.entries, mcpEntry{
			raw:        e,
			isObject:   ok,
			Identifier: memberOf(em, "identifier"),
			MediaType:  memberOf(em, "mediaType"),
			URL:        memberOf(em, "url"),
		})
	}
	return c
}

// aiCatalog is /.well-known/ai-catalog.json.
type aiCatalog struct {
	raw      any
	isObject bool

	SpecVersion member
	// Domain is the host's domain: host.identifier (its domain when it is
	// did:web:DOMAIN), or host.domain as builds before AI Catalog 1.0's
	// Host Info wrote it.
	Domain  member
	Entries member
	// entries are those of Entries, nil unless it is an array; listed
	// says it is one.
	entries []aiEntry
	listed  bool
}

// aiEntry is an entry of the AI catalog.
type aiEntry struct {
	raw      any
	isObject bool

	Identifier, Type, URL member
	// Digest is the digest of the entry's document: algorithm:hex.
	Digest member
	// Data is the entry's inline data: open JSON, whose meaning depends on
	// Type (a card, or the tool catalog's advertisement).
	Data member
	// toolCatalog is data.toolCatalog when the entry advertises a tool
	// catalog (type application/json, and data an object with a
	// toolCatalog object), else nil.
	toolCatalog *toolCatalogAd
}

// toolCatalogAd is the tool catalog's advertisement in the AI catalog.
type toolCatalogAd struct {
	member // data.toolCatalog, as the entry has it

	URL, CompactView, Catalogue member
}

func aiCatalogOf(v any) *aiCatalog {
	m, ok := jsonval.Object(v)
	host, _ := jsonval.Object(memberOf(m, "host").value)
	c := &aiCatalog{
		raw:         v,
		isObject:    ok,
		SpecVersion: memberOf(m, "specVersion"),
		Domain:      hostDomain(host),
		Entries:     memberOf(m, "entries"),
	}
	a, listed := jsonval.Array(c.Entries.value)
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
		Identifier: memberOf(m, "identifier"),
		Type:       memberOf(m, "type"),
		URL:        memberOf(m, "url"),
		Digest:     memberOf(m, "digest"),
		Data:       memberOf(m, "data"),
	}
	data, _ := jsonval.Object(e.Data.value)
	tc := memberOf(data, "toolCatalog")
	if tm, ok := jsonval.Object(tc.value); ok && e.Type.is(spec.ContentTypeJSON) {
		e.toolCatalog = &toolCatalogAd{
			member:      tc,
			URL:         memberOf(tm, "url"),
			CompactView: memberOf(tm, "compactView"),
			Catalogue:   memberOf(tm, "catalogue"),
		}
	}
	return e
}

// card is a server card, draft or v1, fetched or given inline.
type card struct {
	Schema, Name, Version, Description member
	// Remotes are the items of remotes that are objects.
	Remotes []cardRemote
}

// cardRemote is an item of a card's remotes: its transport and URL.
type cardRemote struct {
	Type, URL member
}

func cardOf(v any) card {
	m, _ := jsonval.Object(v)
	c := card{
		Schema:      memberOf(m, "$schema"),
		Name:        memberOf(m, "name"),
		Version:     memberOf(m, "version"),
		Description: memberOf(m, "description"),
	}
	remotes, _ := jsonval.Array(memberOf(m, "remotes").value)
	for _, r := range remotes {
		if o, ok := jsonval.Object(r); ok {
			c.Remotes = append(c.Remotes, cardRemote{Type: memberOf(o, "type"), URL: memberOf(o, "url")})
		}
	}
	return c
}

// toolCatalogue is the tool catalogue, /tool-catalogue.json.
type toolCatalogue struct {
	raw any

	CatalogVersion member
	tools          []catalogueTool // nil unless its tools are an array
	groups         []catalogueGroup
}

// catalogueTool is a tool of the tool catalogue or of a group document.
type catalogueTool struct {
	raw any // the entry as decoded, what jsonval.Diff compares

	Name member
	// Arguments' value is a JSON Schema: open JSON, which jsonval.Diff reads as
	// decoded.
	Arguments                                member
	SafetyTier, ReplayPolicy, Egress, Source member
	Definition                               definitionMeta
}

// catalogueGroup is a group of the tool catalogue.
type catalogueGroup struct {
	raw any // the group as decoded, what jsonval.Diff compares

	Key member
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
	c := &toolCatalogue{raw: v, CatalogVersion: memberOf(m, "catalogVersion")}
	c.tools, _ = catalogueToolsOf(memberOf(m, "tools"))
	groups, _ := jsonval.Array(memberOf(m, "groups").value)
	for _, g := range groups {
		gm, _ := jsonval.Object(g)
		names, _ := jsonval.Array(memberOf(gm, "tools").value)
		c.groups = append(c.groups, catalogueGroup{raw: g, Key: memberOf(gm, "key"), toolNames: names})
	}
	return c
}

// catalogueToolsOf reads the tools of a catalogue or group document: nil
// and false unless they are an array.
func catalogueToolsOf(tools member) ([]catalogueTool, bool) {
	a, ok := jsonval.Array(tools.value)
	if !ok {
		return nil, false
	}
	list := make([]catalogueTool, len(a))
	for i, t := range a {
		m, _ := jsonval.Object(t)
		list[i] = catalogueTool{
			raw:          t,
			Name:         memberOf(m, "name"),
			Arguments:    memberOf(m, "arguments"),
			SafetyTier:   memberOf(m, "safetyTier"),
			ReplayPolicy: memberOf(m, "replayPolicy"),
			Egress:       memberOf(m, "egress"),
			Source:       memberOf(m, "source"),
			Definition:   definitionMetaOf(m),
		}
	}
	return list, true
}

// groupDocument is a group document, /tool-catalogue/groups/{key}.json.
type groupDocument struct {
	raw any

	Group, Tools member
	tools        []catalogueTool // nil unless Tools is an array
}

// groupDocumentOf reads a group document: nil unless v is a JSON object.
func groupDocumentOf(v any) *groupDocument {
	m, ok := jsonval.Object(v)
	if !ok {
		return nil
	}
	g := &groupDocument{raw: v, Group: memberOf(m, "group"), Tools: memberOf(m, "tools")}
	g.tools, _ = catalogueToolsOf(g.Tools)
	return g
}

// registryList is a ServerList of the MCP registry: a page of
// /v0.1/servers, a search's answer, or the versions of one server.
type registryList struct {
	raw      any
	isObject bool

	Servers member
	// servers are those of Servers, nil unless it is an array; listed
	// says it is one.
	servers []registryResponse
	listed  bool
	// NextCursor is metadata.nextCursor: the cursor of the next page, which
	// a registry that pages gives and a static one never does.
	NextCursor member
}

func registryListOf(v any) registryList {
	m, ok := jsonval.Object(v)
	meta, _ := jsonval.Object(memberOf(m, "metadata").value)
	l := registryList{raw: v, isObject: ok, Servers: memberOf(m, "servers"), NextCursor: memberOf(meta, "nextCursor")}
	a, listed := jsonval.Array(l.Servers.value)
	l.listed = listed
	for _, e := range a {
		l.servers = append(l.servers, registryResponseOf(e))
	}
	return l
}

// forSchema is the list as the schema registry-server-list judges it: a
// copy without metadata.nextCursor, which the registry's OpenAPI allows
// and signpost's schema, of a static registry that never pages, does not.
func (l registryList) forSchema() any {
	m, ok := jsonval.Object(l.raw)
	if !ok || !l.NextCursor.present {
		return l.raw
	}
	meta, _ := jsonval.Object(m["metadata"])
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	trimmed := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "nextCursor" {
			trimmed[k] = v
		}
	}
	out["metadata"] = trimmed
	return out
}

// registryResponse is a ServerResponse of the MCP registry: an entry of a
// list, or the document of one version.
type registryResponse struct {
	raw      any // what jsonval.Diff compares
	isObject bool

	// Server is server; Name, Description and Version are its members.
	Server                     member
	Name, Description, Version member
	// Meta is _meta, Official its io.modelcontextprotocol.registry/official
	// block, whose members are the rest.
	Meta, Official                           member
	Status, IsLatest, PublishedAt, UpdatedAt member
}

func registryResponseOf(v any) registryResponse {
	m, ok := jsonval.Object(v)
	r := registryResponse{raw: v, isObject: ok, Server: memberOf(m, "server"), Meta: memberOf(m, "_meta")}
	s, _ := jsonval.Object(r.Server.value)
	r.Name, r.Description, r.Version = memberOf(s, "name"), memberOf(s, "description"), memberOf(s, "version")
	meta, _ := jsonval.Object(r.Meta.value)
	r.Official = memberOf(meta, spec.RegistryOfficialMeta)
	o, _ := jsonval.Object(r.Official.value)
	r.Status, r.IsLatest = memberOf(o, "status"), memberOf(o, "isLatest")
	r.PublishedAt, r.UpdatedAt = memberOf(o, "publishedAt"), memberOf(o, "updatedAt")
	return r
}

// hostDomain is the host's domain as its identifier or domain gives it.
func hostDomain(host map[string]any) member {
	id := memberOf(host, "identifier")
	if s, ok := id.str(); ok {
		if d, ok := strings.CutPrefix(s, "did:web:"); ok {
			id.value = d
		}
		return id
	}
	return memberOf(host, "domain")
}
