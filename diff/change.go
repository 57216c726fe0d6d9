package diff

import (
	"slices"

	"github.com/signpost-dev/signpost/build/diag/records"
)

// Format is the version of the layout of a Change in JSON. It grows
// only when a field changes meaning or goes away; new fields may appear
// without it.
const Format = 1

// Change is what differs between two builds of a catalog: the risks first,
// then every tenant, tool, server and other document added, removed or
// changed. Its JSON form is stable (see Format); lists are sorted and
// never null. Every string of it is redacted (see Risk.Redacted): no
// credential a side holds is repeated.
type Change struct {
	Format int `json:"format"`
	// Old and New name the two sides, as the user gave them.
	Old string `json:"old"`
	New string `json:"new"`
	// OldEmpty says that the old side had no catalog (a revision from
	// before the catalog was added) and was compared as an empty one.
	OldEmpty bool `json:"oldEmpty"`
	// Risks are sorted by kind, in the order of RiskKinds, then subject
	// (see Risk.Compare).
	Risks   []Risk        `json:"risks"`
	Tenants TenantChanges `json:"tenants"`
	Tools   ToolChanges   `json:"tools"`
	Servers ServerChanges `json:"servers"`
	// Documents are the documents other than tools: the discovery
	// catalogs and the server cards.
	Documents DocumentChanges `json:"documents"`

	// risks are the risks recorded, which Risks lists (see sortRisks).
	risks *records.Log[Risk]
}

// Risk is one change a reviewer should look at twice.
type Risk struct {
	Kind string `json:"kind"`
	// ToolID, Server, Tenant, Route or Target is what the risk is about
	// (all "" when it is about the whole site).
	ToolID string `json:"toolId,omitempty"`
	Server string `json:"server,omitempty"`
	Tenant string `json:"tenant,omitempty"`
	Route  string `json:"route,omitempty"`
	Target string `json:"target,omitempty"`
	// Old and New are the values that changed, when there are two.
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	Message string `json:"message"`
}

// TenantChanges are the sites added and removed, by tenant, and the sites
// whose compact view was switched on or off. The tenant "" is the one site
// of a catalog without tenants.
type TenantChanges struct {
	Added       []string            `json:"added"`
	Removed     []string            `json:"removed"`
	CompactView []CompactViewChange `json:"compactView"`
}

// CompactViewChange is the compact view of one site switched on or off.
type CompactViewChange struct {
	Tenant string `json:"tenant"`
	Old    bool   `json:"old"`
	New    bool   `json:"new"`
}

// ToolChanges are the tools added, removed and changed, each sorted by
// toolId.
type ToolChanges struct {
	Added   []ToolSummary `json:"added"`
	Removed []ToolSummary `json:"removed"`
	Changed []ToolChange  `json:"changed"`
}

// ToolSummary is a tool added or removed: its identity and safety fields,
// and the tenants that see it (empty without tenants).
type ToolSummary struct {
	ToolID       string   `json:"toolId"`
	Title        string   `json:"title,omitempty"`
	Server       string   `json:"server,omitempty"`
	Name         string   `json:"name,omitempty"`
	Source       string   `json:"source"`
	SafetyTier   string   `json:"safetyTier"`
	ReplayPolicy string   `json:"replayPolicy"`
	Egress       string   `json:"egress"`
	Tenants      []string `json:"tenants"`
}

// ToolChange is a tool published on both sides whose descriptors or tenants
// differ.
type ToolChange struct {
	ToolID string `json:"toolId"`
	// Fields are the descriptor fields that changed, in descriptor order.
	Fields []FieldChange `json:"fields"`
	// TenantsAdded and TenantsRemoved are the tenants, present on both
	// sides, that now see, or no longer see, the tool. (Tenants added or
	// removed are in TenantChanges.)
	TenantsAdded   []string `json:"tenantsAdded"`
	TenantsRemoved []string `json:"tenantsRemoved"`
	// CompactChanged says that the compact descriptor changed (both sides
	// publish the compact view).
	CompactChanged bool `json:"compactChanged"`
	// CompactFields are the fields of the compact descriptor that changed,
	// sorted by name; empty when the descriptors cannot be compared field
	// by field.
	CompactFields []CompactField `json:"compactFields"`
	// Digest is the digest of the tool's definition (its descriptors'
	// _meta.dev.signpost/definition) when it changed: clients that pinned
	// the tool by it see a new definition. Nil when it did not change.
	Digest *DigestChange `json:"digest,omitempty"`
}

// DigestChange is the digest of a tool's definition before and after;
// either is "" on a side built without digests.
type DigestChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// CompactField is a field of a compact descriptor that changed. For
// inputSchema, the properties added, removed and changed, each sorted.
type CompactField struct {
	Field             string   `json:"field"`
	PropertiesAdded   []string `json:"propertiesAdded,omitempty"`
	PropertiesRemoved []string `json:"propertiesRemoved,omitempty"`
	PropertiesChanged []string `json:"propertiesChanged,omitempty"`
}

// FieldChange is one field that changed. Old and New hold its values when
// they are short strings; for schemas and other structured fields they are
// left out and the field is only named.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new,omitempty"`
	// Breaking, for inputSchema and outputSchema, says why the change
	// breaks callers (see SchemaBreak); "" when it does not.
	Breaking string `json:"breaking,omitempty"`
}

// ServerChanges are the MCP servers added, removed and changed, each sorted
// by name.
type ServerChanges struct {
	Added   []ServerSummary `json:"added"`
	Removed []ServerSummary `json:"removed"`
	Changed []ServerChange  `json:"changed"`
}

// ServerSummary is a server added or removed.
type ServerSummary struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Remotes are "TYPE URL" of each remote endpoint, sorted.
	Remotes []string `json:"remotes"`
	// CardURL is set for a server whose card another host serves.
	CardURL string `json:"cardUrl,omitempty"`
}

// ServerChange is a server published on both sides whose card or catalog
// entry differs.
type ServerChange struct {
	Name string `json:"name"`
	// Fields are the card fields that changed, sorted by name: version,
	// title, description, websiteUrl and cardUrl with their values, others
	// (remotes, icons, repository, _meta) named only.
	Fields []FieldChange `json:"fields"`
	// RemotesAdded and RemotesRemoved are "TYPE URL" of remote endpoints.
	RemotesAdded   []string `json:"remotesAdded"`
	RemotesRemoved []string `json:"remotesRemoved"`
	// RemotesReplaced are the endpoints that replaced another: of a type
	// with one endpoint removed and one added, which are then in neither
	// list above.
	RemotesReplaced []RemoteReplacement `json:"remotesReplaced"`
	// RemotesChanged are the remote endpoints, on both sides by "TYPE
	// URL", whose other fields (variables, headers) changed.
	RemotesChanged []RemoteChange `json:"remotesChanged"`
}

// RemoteReplacement is a remote endpoint replaced by another of its type:
// "TYPE URL" of each.
type RemoteReplacement struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// RemoteChange is a remote endpoint whose type and URL template stayed the
// same while the rest of it changed.
type RemoteChange struct {
	// Remote is "TYPE URL" of the endpoint.
	Remote string `json:"remote"`
	// Fields are the endpoint's fields that changed, sorted, such as
	// headers and variables; empty when the card lists the endpoint more
	// than once, so that its fields cannot be paired.
	Fields []string `json:"fields"`
}

// DocumentChanges are the documents other than the tool routes (/tools and
// /tools/{toolId}) added, removed and changed, by route and view, each
// sorted by route, then view. Only the sites of tenants on both sides are
// compared: a site added or removed is in TenantChanges.
type DocumentChanges struct {
	Added   []DocumentSummary `json:"added"`
	Removed []DocumentSummary `json:"removed"`
	Changed []DocumentSummary `json:"changed"`
}

// DocumentSummary is a document added, removed or changed.
type DocumentSummary struct {
	Route string `json:"route"`
	View  string `json:"view"`
	// ContentType is the new side's, or the old side's for a document
	// removed.
	ContentType string `json:"contentType"`
	// Tenants are the sites where the document was added, removed or
	// changed (empty without tenants).
	Tenants []string `json:"tenants"`
}

// Empty reports whether the two sides publish the same tools, servers,
// tenants and documents.
func (c *Change) Empty() bool {
	return len(c.Risks) == 0 && len(c.Tenants.Added) == 0 && len(c.Tenants.Removed) == 0 &&
		len(c.Tenants.CompactView) == 0 && len(c.Tools.Added) == 0 && len(c.Tools.Removed) == 0 &&
		len(c.Tools.Changed) == 0 && len(c.Servers.Added) == 0 && len(c.Servers.Removed) == 0 &&
		len(c.Servers.Changed) == 0 && len(c.Documents.Added) == 0 && len(c.Documents.Removed) == 0 &&
		len(c.Documents.Changed) == 0
}

// HasRisk reports whether the change carries a risk of one of kinds
// (RiskAny matches every risk).
func (c *Change) HasRisk(kinds ...string) bool {
	for _, r := range c.Risks {
		if slices.Contains(kinds, RiskAny) || slices.Contains(kinds, r.Kind) {
			return true
		}
	}
	return false
}
