package build

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
)

// DiffFormat is the version of the layout of a Change in JSON. It grows
// only when a field changes meaning or goes away; new fields may appear
// without it.
const DiffFormat = 1

// The kinds of Risk a Change reports, in the order they are listed.
const (
	// RiskTierRaised: a tool's safetyTier moved up the order
	// pure < read < write < exec.
	RiskTierRaised = "tier-raised"
	// RiskEgressWidened: a tool's egress moved up the order
	// none < internal < internet.
	RiskEgressWidened = "egress-widened"
	// RiskReplayLoosened: a tool's replayPolicy moved up the order, from
	// strictest to loosest, deterministic < idempotent < keyed < unsafe.
	RiskReplayLoosened = "replay-loosened"
	// RiskToolAdded: a new tool that can change state: its safetyTier is
	// write or exec. (A tier this version does not know ranks above exec,
	// as for RiskTierRaised, and counts too.) A new pure or read tool is
	// listed as a change, not a risk.
	RiskToolAdded = "tool-added"
	// RiskToolRemoved: a toolId is no longer published, to any tenant or to
	// one that still exists; or a tenant's whole site is gone.
	RiskToolRemoved = "tool-removed"
	// RiskToolReassigned: the same toolId now names a different tool: its
	// MCP server, its MCP name or its source changed.
	RiskToolReassigned = "tool-reassigned"
	// RiskTenantWidened: a tool is now published to a tenant that did not
	// see it before, or there is a new tenant.
	RiskTenantWidened = "tenant-widened"
	// RiskCompactChanged: the compact view was switched on or off, or a
	// tool's compact descriptor changed while its standard one did not.
	RiskCompactChanged = "compact-changed"
	// RiskServerAdded: a new MCP server: a new endpoint clients connect to
	// and send their credentials to.
	RiskServerAdded = "server-added"
	// RiskServerRemoved: an MCP server is no longer published.
	RiskServerRemoved = "server-removed"
	// RiskServerRemoteChanged: what clients connect to changed: a server's
	// remote endpoints (one added or removed, or anything else about one,
	// such as its URL variables or headers), or the card URL of a server
	// whose card another host serves.
	RiskServerRemoteChanged = "server-remote-changed"
	// RiskOriginChanged: the site's origin or publisher changed, so every
	// URL and identifier the discovery catalogs publish changed. Both are
	// read from the published catalogs: the origin from either, the
	// publisher from the AI catalog.
	RiskOriginChanged = "origin-changed"
	// RiskRouteRemoved: a route other than the tool routes, one a client
	// could fetch, is no longer published: a discovery catalog switched
	// off, a server card moved or removed.
	RiskRouteRemoved = "route-removed"
)

// RiskAny, given to HasRisk, matches every kind of risk.
const RiskAny = "any"

// FormatMarkdown is the Change.Write format fit for a pull-request comment
// or a GitHub job summary.
const FormatMarkdown = "markdown"

// riskKinds lists every kind of risk in report order.
var riskKinds = []string{
	RiskTierRaised, RiskEgressWidened, RiskReplayLoosened, RiskToolAdded, RiskToolRemoved,
	RiskToolReassigned, RiskTenantWidened, RiskCompactChanged, RiskServerAdded, RiskServerRemoved,
	RiskServerRemoteChanged, RiskOriginChanged, RiskRouteRemoved,
}

// RiskKinds returns every kind of risk, in the order reports list them.
func RiskKinds() []string { return slices.Clone(riskKinds) }

// ParseRiskKinds reads a comma-separated list of risk kinds, such as
// "tier-raised,tool-removed" or "any". Spaces around names are ignored;
// an unknown name is an error that lists the known ones.
func ParseRiskKinds(list string) ([]string, error) {
	var kinds []string
	for k := range strings.SplitSeq(list, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if k != RiskAny && !slices.Contains(riskKinds, k) {
			return nil, fmt.Errorf("unknown risk kind %q: use any or %s", k, strings.Join(riskKinds, ", "))
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no risk kind in %q: use any or %s", list, strings.Join(riskKinds, ", "))
	}
	return kinds, nil
}

// Orders of the safety fields, least to most permissive. A value outside
// them (a site built by another version) ranks above all: changing to it
// is reported.
var (
	tierOrder   = []string{spec.TierPure, spec.TierRead, spec.TierWrite, spec.TierExec}
	egressOrder = []string{spec.EgressNone, spec.EgressInternal, spec.EgressInternet}
	replayOrder = []string{spec.ReplayDeterministic, spec.ReplayIdempotent, spec.ReplayKeyed, spec.ReplayUnsafe}
)

// rank is the place of v in order; a value outside it ranks above all.
func rank(order []string, v string) int {
	if i := slices.Index(order, v); i >= 0 {
		return i
	}
	return len(order)
}

// widens reports whether moving from old to new goes up order.
func widens(order []string, old, new string) bool {
	return old != new && rank(order, new) > rank(order, old)
}

// Change is what differs between two builds of a catalog: the risks first,
// then every tenant, tool, server and other document added, removed or
// changed. Its JSON form is stable (see DiffFormat); lists are sorted and
// never null.
type Change struct {
	Format int `json:"format"`
	// Old and New name the two sides, as the user gave them.
	Old string `json:"old"`
	New string `json:"new"`
	// OldEmpty says that the old side had no catalog (a revision from
	// before the catalog was added) and was compared as an empty one.
	OldEmpty bool `json:"oldEmpty"`
	// Risks are sorted by kind, in the order of RiskKinds, then subject.
	Risks   []Risk        `json:"risks"`
	Tenants TenantChanges `json:"tenants"`
	Tools   ToolChanges   `json:"tools"`
	Servers ServerChanges `json:"servers"`
	// Documents are the documents other than tools: the discovery
	// catalogs and the server cards.
	Documents DocumentChanges `json:"documents"`
}

// Risk is one change a reviewer should look at twice.
type Risk struct {
	Kind string `json:"kind"`
	// ToolID, Server, Tenant or Route is what the risk is about (all ""
	// when it is about the whole site).
	ToolID string `json:"toolId,omitempty"`
	Server string `json:"server,omitempty"`
	Tenant string `json:"tenant,omitempty"`
	Route  string `json:"route,omitempty"`
	// Old and New are the values that changed, when there are two.
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	Message string `json:"message"`
}

// subject names what the risk is about, for reports.
func (r Risk) subject() string {
	switch {
	case r.ToolID != "":
		return "tool " + r.ToolID
	case r.Server != "":
		return "server " + r.Server
	case r.Tenant != "":
		return "tenant " + r.Tenant
	case r.Route != "":
		return "route " + r.Route
	}
	return "site"
}

// mdSubject is subject in Markdown, names as code.
func (r Risk) mdSubject() string {
	switch {
	case r.ToolID != "":
		return "tool " + mdCode(r.ToolID)
	case r.Server != "":
		return "server " + mdCode(r.Server)
	case r.Tenant != "":
		return "tenant " + mdCode(r.Tenant)
	case r.Route != "":
		return "route " + mdCode(r.Route)
	}
	return "site"
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
}

// FieldChange is one field that changed. Old and New hold its values when
// they are short strings; for schemas and other structured fields they are
// left out and the field is only named.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new,omitempty"`
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
	// RemotesChanged are the remote endpoints, on both sides by "TYPE
	// URL", whose other fields (variables, headers) changed.
	RemotesChanged []RemoteChange `json:"remotesChanged"`
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

// describe says what changed about the endpoint.
func (r RemoteChange) describe() string {
	what := "changed"
	if len(r.Fields) > 0 {
		what = strings.Join(r.Fields, ", ") + " changed"
	}
	return "remote " + r.Remote + ": " + what
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

// describe is one line about the document.
func (d DocumentSummary) describe() string {
	about := []string{d.ContentType}
	if d.View != spec.ViewStandard {
		about = append([]string{d.View + " view"}, about...)
	}
	if len(d.Tenants) > 0 {
		about = append(about, "tenants "+strings.Join(d.Tenants, ", "))
	}
	return printable(d.Route+" ("+strings.Join(about, "; ")+")", 0)
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

// Diff compares two builds of a catalog, old and new, document by document:
// tools by their standard and compact descriptors, servers by their cards
// (the v1 card, or the draft card when only that is published) and the
// entries of the discovery catalogs, tenants by their sites, every other
// document by route and view, and the origin and publisher the catalogs
// publish. It reads the documents only, so either side may be a catalog
// compiled in memory or a built site read back from disk; a nil or empty
// Build is a catalog that publishes nothing. A document that is not what
// signpost writes is an error.
func Diff(old, new *Build) (*Change, error) {
	before, err := snapshotBuild(old)
	if err != nil {
		return nil, fmt.Errorf("diff: old side: %w", err)
	}
	after, err := snapshotBuild(new)
	if err != nil {
		return nil, fmt.Errorf("diff: new side: %w", err)
	}
	c := &Change{
		Format:    DiffFormat,
		Risks:     []Risk{},
		Tenants:   TenantChanges{Added: []string{}, Removed: []string{}, CompactView: []CompactViewChange{}},
		Tools:     ToolChanges{Added: []ToolSummary{}, Removed: []ToolSummary{}, Changed: []ToolChange{}},
		Servers:   ServerChanges{Added: []ServerSummary{}, Removed: []ServerSummary{}, Changed: []ServerChange{}},
		Documents: DocumentChanges{Added: []DocumentSummary{}, Removed: []DocumentSummary{}, Changed: []DocumentSummary{}},
	}
	c.diffTenants(before, after)
	c.diffTools(before, after)
	c.diffServers(before, after)
	c.diffDocuments(before, after)
	c.diffIdentity(before, after)
	slices.SortStableFunc(c.Risks, func(a, b Risk) int {
		return cmp.Or(
			cmp.Compare(slices.Index(riskKinds, a.Kind), slices.Index(riskKinds, b.Kind)),
			strings.Compare(a.ToolID, b.ToolID),
			strings.Compare(a.Server, b.Server),
			strings.Compare(a.Tenant, b.Tenant),
			strings.Compare(a.Route, b.Route),
		)
	})
	return c, nil
}

func (c *Change) risk(r Risk) { c.Risks = append(c.Risks, r) }

// snapshot is what Diff compares of one build.
type snapshot struct {
	sites   map[string]*siteState // by tenant
	tools   map[string]*toolState // by toolId
	servers map[string]*serverState
	// origins and publishers are what the sites' discovery catalogs
	// publish (see siteState.identity); empty when no catalog says.
	origins    map[string]bool
	publishers map[string]bool
}

type siteState struct {
	compact bool
	tools   int
	// docs are the documents other than the tool routes.
	docs map[docKey]Document
	// What the discovery catalogs publish: the AI catalog's host domain
	// and its tool catalog URL, and the URLs of both catalogs' entries.
	publisher      string
	toolCatalogURL string
	entryURLs      []string
}

// docKey is a document's route and view.
type docKey struct{ route, view string }

type toolState struct {
	desc     toolDoc
	standard []byte // the descriptor as published
	compact  []byte // nil when the site has no compact view
	tenants  []string
}

// toolDoc is a published ToolDescriptor with its schemas kept as the bytes
// that were published: documents are compact JSON with sorted keys, so equal
// schemas have equal bytes.
type toolDoc struct {
	ToolID       string          `json:"toolId"`
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Source       string          `json:"source"`
	Server       string          `json:"server"`
	SafetyTier   string          `json:"safetyTier"`
	ReplayPolicy string          `json:"replayPolicy"`
	Egress       string          `json:"egress"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

type serverState struct {
	card    map[string]json.RawMessage // without $schema; nil for a cross-host server
	cardURL string                     // a cross-host server's card URL
	remotes []string                   // "TYPE URL", sorted and unique
	// remoteJSON holds, by "TYPE URL", the canonical JSON of each remote
	// endpoint listed under it (usually one).
	remoteJSON map[string][]json.RawMessage
}

// snapshotBuild reads the tools, servers and sites of a build from its
// documents.
func snapshotBuild(b *Build) (*snapshot, error) {
	s := &snapshot{
		sites: map[string]*siteState{}, tools: map[string]*toolState{}, servers: map[string]*serverState{},
		origins: map[string]bool{}, publishers: map[string]bool{},
	}
	if b == nil {
		return s, nil
	}
	entries := map[string]string{} // cross-host card URLs by server name
	for _, site := range b.Sites {
		if _, dup := s.sites[site.Tenant]; dup {
			return nil, fmt.Errorf("two sites for tenant %q", site.Tenant)
		}
		st := &siteState{docs: map[docKey]Document{}}
		s.sites[site.Tenant] = st
		for _, d := range site.Documents {
			if err := s.readDocument(site.Tenant, st, d, entries); err != nil {
				return nil, fmt.Errorf("%s %s: %w", siteName(site.Tenant), d.Route.Route, err)
			}
		}
		origin, publisher := st.identity()
		if origin != "" {
			s.origins[origin] = true
		}
		if publisher != "" {
			s.publishers[publisher] = true
		}
	}
	for name, u := range entries {
		if _, ok := s.servers[name]; !ok {
			s.servers[name] = &serverState{cardURL: u, remotes: []string{}}
		}
	}
	for _, t := range s.tools {
		slices.Sort(t.tenants)
	}
	return s, nil
}

// identity returns the origin and the publisher the site's discovery
// catalogs publish. The publisher is the AI catalog's host domain. The
// origin is the scheme and host of the AI catalog's tool catalog URL
// (origin + /tools), or else of a catalog entry whose path is a route of
// this site: a local server's card, at origin + its path. The MCP catalog
// names no publisher, and a site with neither catalog publishes neither
// value (its tool descriptors carry no URL): then "" is returned, and Diff
// compares only what both sides publish.
func (st *siteState) identity() (origin, publisher string) {
	hostOf := func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return ""
		}
		return u.Scheme + "://" + u.Host
	}
	if st.toolCatalogURL != "" {
		origin = hostOf(st.toolCatalogURL)
	}
	if origin == "" {
		urls := slices.Sorted(slices.Values(st.entryURLs))
		for _, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil {
				continue
			}
			if _, local := st.docs[docKey{u.Path, spec.ViewStandard}]; local {
				if origin = hostOf(raw); origin != "" {
					break
				}
			}
		}
	}
	return origin, st.publisher
}

// isToolRoute reports whether route is /tools or a tool's route.
func isToolRoute(route string) bool {
	return route == "/tools" || strings.HasPrefix(route, "/tools/")
}

func (s *snapshot) readDocument(tenant string, st *siteState, d Document, entries map[string]string) error {
	route := d.Route.Route
	if !isToolRoute(route) {
		k := docKey{route, d.View}
		if _, dup := st.docs[k]; dup {
			return fmt.Errorf("two documents for view %s", d.View)
		}
		st.docs[k] = d
	}
	switch {
	case route == "/tools":
		if d.View == spec.ViewCompact {
			st.compact = true
		}
	case strings.HasPrefix(route, "/tools/"):
		id := strings.TrimPrefix(route, "/tools/")
		t := s.tools[id]
		if t == nil {
			t = &toolState{}
			s.tools[id] = t
		}
		body := bytes.TrimSpace(d.Body)
		if d.View == spec.ViewCompact {
			t.compact = body
			return nil
		}
		var doc toolDoc
		if err := json.Unmarshal(body, &doc); err != nil {
			return fmt.Errorf("not a tool descriptor: %w", err)
		}
		if doc.ToolID != id {
			return fmt.Errorf("the descriptor's toolId is %q", doc.ToolID)
		}
		if t.standard == nil {
			t.desc, t.standard = doc, body
		}
		if tenant != "" {
			t.tenants = append(t.tenants, tenant)
		}
		st.tools++
	case d.ContentType == spec.ContentTypeServerCardV1 || d.ContentType == spec.ContentTypeServerCardDraft:
		card, name, err := readCard(d.Body)
		if err != nil {
			return err
		}
		// The v1 card wins over the draft card: they differ only by
		// $schema, and the v1 card is the one AI catalogs point at.
		if old, ok := s.servers[name]; ok && d.ContentType != spec.ContentTypeServerCardV1 && old.card != nil {
			return nil
		}
		delete(card, "$schema")
		remotes, remoteJSON, err := cardRemotes(card["remotes"])
		if err != nil {
			return err
		}
		s.servers[name] = &serverState{card: card, remotes: remotes, remoteJSON: remoteJSON}
	case route == spec.RouteAICatalog || route == spec.RouteMCPCatalog:
		var cat struct {
			Host struct {
				Domain string `json:"domain"`
			} `json:"host"`
			Entries []struct {
				Identifier string `json:"identifier"`
				URL        string `json:"url"`
				Data       struct {
					ToolCatalog struct {
						URL string `json:"url"`
					} `json:"toolCatalog"`
				} `json:"data"`
			} `json:"entries"`
		}
		if err := json.Unmarshal(d.Body, &cat); err != nil {
			return fmt.Errorf("not a discovery catalog: %w", err)
		}
		if route == spec.RouteAICatalog {
			st.publisher = cat.Host.Domain
		}
		for _, e := range cat.Entries {
			if e.Data.ToolCatalog.URL != "" && route == spec.RouteAICatalog {
				st.toolCatalogURL = e.Data.ToolCatalog.URL
			}
			if e.URL != "" {
				st.entryURLs = append(st.entryURLs, e.URL)
			}
			var name string
			if _, n, ok := strings.Cut(e.Identifier, ":mcp:"); ok && strings.HasPrefix(e.Identifier, "urn:air:") {
				name = n
			} else if n, ok := strings.CutPrefix(e.Identifier, "urn:mcp:server:"); ok {
				name = n
			}
			if name != "" && e.URL != "" {
				// Local servers' entries point at cards read above; only
				// cross-host servers keep this URL (see snapshotBuild).
				entries[name] = e.URL
			}
		}
	}
	return nil
}

// readCard reads a server card and its name.
func readCard(body []byte) (map[string]json.RawMessage, string, error) {
	var card map[string]json.RawMessage
	if err := json.Unmarshal(body, &card); err != nil {
		return nil, "", fmt.Errorf("not a server card: %w", err)
	}
	var name string
	if err := json.Unmarshal(card["name"], &name); err != nil || name == "" {
		return nil, "", fmt.Errorf("a server card without a name")
	}
	return card, name, nil
}

// cardRemotes lists a card's remotes as "TYPE URL", sorted and unique, and
// the canonical JSON of the endpoints under each.
func cardRemotes(raw json.RawMessage) ([]string, map[string][]json.RawMessage, error) {
	out, all := []string{}, map[string][]json.RawMessage{}
	if len(raw) == 0 {
		return out, all, nil
	}
	var remotes []json.RawMessage
	if err := json.Unmarshal(raw, &remotes); err != nil {
		return nil, nil, fmt.Errorf("a server card whose remotes are not a list of endpoints: %w", err)
	}
	for _, r := range remotes {
		var ep struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		}
		if err := json.Unmarshal(r, &ep); err != nil {
			return nil, nil, fmt.Errorf("a server card whose remotes are not a list of endpoints: %w", err)
		}
		canon, err := canonicalJSON(r)
		if err != nil {
			return nil, nil, fmt.Errorf("a server card with a remote that is not JSON: %w", err)
		}
		key := strings.TrimSpace(ep.Type + " " + ep.URL)
		out = append(out, key)
		all[key] = append(all[key], canon)
	}
	for _, eps := range all {
		slices.SortFunc(eps, func(a, b json.RawMessage) int { return bytes.Compare(a, b) })
	}
	slices.Sort(out)
	return slices.Compact(out), all, nil
}

// canonicalJSON re-encodes a JSON value with sorted keys and no spaces, so
// that equal values have equal bytes whatever wrote them.
func canonicalJSON(raw []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// remoteFields names the fields of a remote endpoint that differ between
// two canonical encodings of it, sorted; nil when either is not an object.
func remoteFields(old, new json.RawMessage) []string {
	var b, a map[string]json.RawMessage
	if json.Unmarshal(old, &b) != nil || json.Unmarshal(new, &a) != nil {
		return nil
	}
	var fields []string
	for k := range b {
		if !bytes.Equal(b[k], a[k]) {
			fields = append(fields, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			fields = append(fields, k)
		}
	}
	slices.Sort(fields)
	return fields
}

// siteName names a site in messages.
func siteName(tenant string) string {
	if tenant == "" {
		return "the site without tenants"
	}
	return "tenant " + tenant
}

func (c *Change) diffTenants(before, after *snapshot) {
	for _, t := range slices.Sorted(maps.Keys(after.sites)) {
		if _, ok := before.sites[t]; !ok {
			c.Tenants.Added = append(c.Tenants.Added, t)
			c.risk(Risk{Kind: RiskTenantWidened, Tenant: t, Message: fmt.Sprintf("new site, publishing %s", english.Count(after.sites[t].tools, "tool", "tools"))})
		}
	}
	for _, t := range slices.Sorted(maps.Keys(before.sites)) {
		a, ok := after.sites[t]
		if !ok {
			c.Tenants.Removed = append(c.Tenants.Removed, t)
			c.risk(Risk{Kind: RiskToolRemoved, Tenant: t, Message: fmt.Sprintf("site removed, with the %s it published", english.Count(before.sites[t].tools, "tool", "tools"))})
			continue
		}
		if b := before.sites[t]; b.compact != a.compact {
			c.Tenants.CompactView = append(c.Tenants.CompactView, CompactViewChange{Tenant: t, Old: b.compact, New: a.compact})
			c.risk(Risk{Kind: RiskCompactChanged, Tenant: t, Old: onOff(b.compact), New: onOff(a.compact), Message: fmt.Sprintf("compact view switched %s for %s", onOff(a.compact), siteName(t))})
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (c *Change) diffTools(before, after *snapshot) {
	for _, id := range slices.Sorted(maps.Keys(after.tools)) {
		a := after.tools[id]
		if _, ok := before.tools[id]; ok || a.standard == nil {
			continue
		}
		c.Tools.Added = append(c.Tools.Added, summarizeTool(a))
		if tier := a.desc.SafetyTier; rank(tierOrder, tier) >= rank(tierOrder, spec.TierWrite) {
			msg := "new " + tier + " tool"
			if len(a.tenants) > 0 {
				msg += " for " + english.Plural(len(a.tenants), "tenant", "tenants") + " " + strings.Join(a.tenants, ", ")
			}
			c.risk(Risk{Kind: RiskToolAdded, ToolID: id, New: tier, Message: msg})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(before.tools)) {
		b := before.tools[id]
		if b.standard == nil {
			continue
		}
		a, ok := after.tools[id]
		if !ok || a.standard == nil {
			c.Tools.Removed = append(c.Tools.Removed, summarizeTool(b))
			c.risk(Risk{Kind: RiskToolRemoved, ToolID: id, Message: "no longer published"})
			continue
		}
		if tc, changed := c.diffTool(id, b, a, before, after); changed {
			c.Tools.Changed = append(c.Tools.Changed, tc)
		}
	}
}

func summarizeTool(t *toolState) ToolSummary {
	d := t.desc
	return ToolSummary{
		ToolID: d.ToolID, Title: d.Title, Server: d.Server, Name: d.Name, Source: d.Source,
		SafetyTier: d.SafetyTier, ReplayPolicy: d.ReplayPolicy, Egress: d.Egress,
		Tenants: append([]string{}, t.tenants...),
	}
}

// diffTool compares one tool published on both sides and records its risks.
func (c *Change) diffTool(id string, b, a *toolState, before, after *snapshot) (ToolChange, bool) {
	tc := ToolChange{ToolID: id, Fields: []FieldChange{}, TenantsAdded: []string{}, TenantsRemoved: []string{}}
	field := func(name, old, new string, show bool) {
		if old == new {
			return
		}
		if show {
			tc.Fields = append(tc.Fields, FieldChange{Field: name, Old: old, New: new})
		} else {
			tc.Fields = append(tc.Fields, FieldChange{Field: name})
		}
	}
	bd, ad := b.desc, a.desc
	field("name", bd.Name, ad.Name, true)
	field("title", bd.Title, ad.Title, true)
	field("description", bd.Description, ad.Description, true)
	field("source", bd.Source, ad.Source, true)
	field("server", bd.Server, ad.Server, true)
	field("safetyTier", bd.SafetyTier, ad.SafetyTier, true)
	field("replayPolicy", bd.ReplayPolicy, ad.ReplayPolicy, true)
	field("egress", bd.Egress, ad.Egress, true)
	field("inputSchema", string(bd.InputSchema), string(ad.InputSchema), false)
	field("outputSchema", string(bd.OutputSchema), string(ad.OutputSchema), false)
	if len(tc.Fields) == 0 && !bytes.Equal(b.standard, a.standard) {
		// Something outside the fields above, such as the annotations of a
		// site built by another version.
		tc.Fields = append(tc.Fields, FieldChange{Field: "descriptor"})
	}

	if widens(tierOrder, bd.SafetyTier, ad.SafetyTier) {
		c.risk(Risk{Kind: RiskTierRaised, ToolID: id, Old: bd.SafetyTier, New: ad.SafetyTier, Message: fmt.Sprintf("safetyTier %s -> %s", bd.SafetyTier, ad.SafetyTier)})
	}
	if widens(egressOrder, bd.Egress, ad.Egress) {
		c.risk(Risk{Kind: RiskEgressWidened, ToolID: id, Old: bd.Egress, New: ad.Egress, Message: fmt.Sprintf("egress %s -> %s", bd.Egress, ad.Egress)})
	}
	if widens(replayOrder, bd.ReplayPolicy, ad.ReplayPolicy) {
		c.risk(Risk{Kind: RiskReplayLoosened, ToolID: id, Old: bd.ReplayPolicy, New: ad.ReplayPolicy, Message: fmt.Sprintf("replayPolicy %s -> %s", bd.ReplayPolicy, ad.ReplayPolicy)})
	}
	if bd.Server != ad.Server || bd.Name != ad.Name || bd.Source != ad.Source {
		old, new := toolIdentity(bd), toolIdentity(ad)
		c.risk(Risk{Kind: RiskToolReassigned, ToolID: id, Old: old, New: new, Message: fmt.Sprintf("now names %s (was %s)", new, old)})
	}

	// A tenant added or removed is reported once, as a site, rather than
	// with every tool it sees: only the tenants on both sides count here.
	for _, t := range a.tenants {
		if _, existed := before.sites[t]; existed && !slices.Contains(b.tenants, t) {
			tc.TenantsAdded = append(tc.TenantsAdded, t)
			c.risk(Risk{Kind: RiskTenantWidened, ToolID: id, Tenant: t, New: t, Message: fmt.Sprintf("now published to tenant %s", t)})
		}
	}
	for _, t := range b.tenants {
		if _, exists := after.sites[t]; exists && !slices.Contains(a.tenants, t) {
			tc.TenantsRemoved = append(tc.TenantsRemoved, t)
			c.risk(Risk{Kind: RiskToolRemoved, ToolID: id, Tenant: t, Old: t, Message: fmt.Sprintf("no longer published to tenant %s", t)})
		}
	}

	if b.compact != nil && a.compact != nil && !bytes.Equal(b.compact, a.compact) {
		tc.CompactChanged = true
		if bytes.Equal(b.standard, a.standard) {
			c.risk(Risk{Kind: RiskCompactChanged, ToolID: id, Message: "the compact descriptor changed while the standard one did not"})
		}
	}
	changed := len(tc.Fields) > 0 || len(tc.TenantsAdded) > 0 || len(tc.TenantsRemoved) > 0 || tc.CompactChanged
	return tc, changed
}

// toolIdentity names the tool a toolId stands for: its source, and its MCP
// server and name when it has them.
func toolIdentity(d toolDoc) string {
	id := cmp.Or(d.Source, "(no source)")
	if d.Server != "" {
		id += " " + d.Server
	}
	if d.Name != "" {
		id += " tool " + d.Name
	}
	return id
}

func (c *Change) diffServers(before, after *snapshot) {
	for _, name := range slices.Sorted(maps.Keys(after.servers)) {
		if _, ok := before.servers[name]; ok {
			continue
		}
		a := after.servers[name]
		c.Servers.Added = append(c.Servers.Added, summarizeServer(name, a))
		msg := "new server"
		switch {
		case a.cardURL != "":
			msg += ", its card at " + a.cardURL
		case len(a.remotes) > 0:
			msg += ": clients connect to " + strings.Join(a.remotes, ", ")
		}
		c.risk(Risk{Kind: RiskServerAdded, Server: name, New: cmp.Or(strings.Join(a.remotes, ", "), a.cardURL), Message: msg})
	}
	for _, name := range slices.Sorted(maps.Keys(before.servers)) {
		b := before.servers[name]
		a, ok := after.servers[name]
		if !ok {
			c.Servers.Removed = append(c.Servers.Removed, summarizeServer(name, b))
			c.risk(Risk{Kind: RiskServerRemoved, Server: name, Message: "no longer published"})
			continue
		}
		sc := ServerChange{Name: name, Fields: []FieldChange{}, RemotesAdded: []string{}, RemotesRemoved: []string{}, RemotesChanged: []RemoteChange{}}
		keys := map[string]bool{"cardUrl": true}
		for k := range b.card {
			keys[k] = true
		}
		for k := range a.card {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			var old, new string
			switch k {
			case "cardUrl":
				old, new = b.cardURL, a.cardURL
			default:
				if bytes.Equal(b.card[k], a.card[k]) {
					continue
				}
				old, new = string(b.card[k]), string(a.card[k])
			}
			if old == new {
				continue
			}
			switch k {
			case "version", "title", "description", "websiteUrl":
				sc.Fields = append(sc.Fields, FieldChange{Field: k, Old: cardString(b.card[k]), New: cardString(a.card[k])})
			case "cardUrl":
				sc.Fields = append(sc.Fields, FieldChange{Field: k, Old: old, New: new})
			default:
				sc.Fields = append(sc.Fields, FieldChange{Field: k})
			}
		}
		for _, r := range a.remotes {
			if !slices.Contains(b.remotes, r) {
				sc.RemotesAdded = append(sc.RemotesAdded, r)
			}
		}
		for _, r := range b.remotes {
			if !slices.Contains(a.remotes, r) {
				sc.RemotesRemoved = append(sc.RemotesRemoved, r)
				continue
			}
			// The same type and URL template: anything else about the
			// endpoint (a variable's default or choices, a header) changes
			// what clients send where.
			bj, aj := b.remoteJSON[r], a.remoteJSON[r]
			if slices.EqualFunc(bj, aj, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) }) {
				continue
			}
			rc := RemoteChange{Remote: r, Fields: []string{}}
			if len(bj) == 1 && len(aj) == 1 {
				rc.Fields = append(rc.Fields, remoteFields(bj[0], aj[0])...)
			}
			sc.RemotesChanged = append(sc.RemotesChanged, rc)
		}
		if len(sc.RemotesAdded) > 0 || len(sc.RemotesRemoved) > 0 || len(sc.RemotesChanged) > 0 {
			c.risk(Risk{Kind: RiskServerRemoteChanged, Server: name, Old: strings.Join(sc.RemotesRemoved, ", "), New: strings.Join(sc.RemotesAdded, ", "), Message: remotesMessage(sc)})
		}
		if b.cardURL != a.cardURL && b.cardURL != "" && a.cardURL != "" {
			c.risk(Risk{Kind: RiskServerRemoteChanged, Server: name, Old: b.cardURL, New: a.cardURL, Message: fmt.Sprintf("card URL %s -> %s", b.cardURL, a.cardURL)})
		}
		if len(sc.Fields) > 0 || len(sc.RemotesAdded) > 0 || len(sc.RemotesRemoved) > 0 || len(sc.RemotesChanged) > 0 {
			c.Servers.Changed = append(c.Servers.Changed, sc)
		}
	}
}

func remotesMessage(sc ServerChange) string {
	var parts []string
	if len(sc.RemotesAdded) > 0 {
		parts = append(parts, "new endpoint "+strings.Join(sc.RemotesAdded, ", "))
	}
	if len(sc.RemotesRemoved) > 0 {
		parts = append(parts, "endpoint removed "+strings.Join(sc.RemotesRemoved, ", "))
	}
	for _, r := range sc.RemotesChanged {
		parts = append(parts, r.describe())
	}
	return strings.Join(parts, "; ")
}

// diffDocuments compares the documents other than the tool routes of each
// site on both sides, by route and view, and reports the routes no longer
// published.
func (c *Change) diffDocuments(before, after *snapshot) {
	type entry struct {
		contentType string
		tenants     []string
	}
	added, removed, changed := map[docKey]*entry{}, map[docKey]*entry{}, map[docKey]*entry{}
	note := func(m map[docKey]*entry, k docKey, contentType, tenant string) {
		e := m[k]
		if e == nil {
			e = &entry{contentType: contentType, tenants: []string{}}
			m[k] = e
		}
		if tenant != "" {
			e.tenants = append(e.tenants, tenant)
		}
	}
	var common []string
	for _, t := range slices.Sorted(maps.Keys(before.sites)) {
		a, ok := after.sites[t]
		if !ok {
			continue
		}
		common = append(common, t)
		b := before.sites[t]
		for _, k := range sortedDocKeys(a.docs) {
			if bd, ok := b.docs[k]; !ok {
				note(added, k, a.docs[k].ContentType, t)
			} else if !bytes.Equal(bd.Body, a.docs[k].Body) || bd.ContentType != a.docs[k].ContentType {
				note(changed, k, a.docs[k].ContentType, t)
			}
		}
		for _, k := range sortedDocKeys(b.docs) {
			if _, ok := a.docs[k]; !ok {
				note(removed, k, b.docs[k].ContentType, t)
			}
		}
	}
	list := func(m map[docKey]*entry) []DocumentSummary {
		out := []DocumentSummary{}
		for _, k := range sortedDocKeys(m) {
			out = append(out, DocumentSummary{Route: k.route, View: k.view, ContentType: m[k].contentType, Tenants: m[k].tenants})
		}
		return out
	}
	c.Documents.Added, c.Documents.Removed, c.Documents.Changed = list(added), list(removed), list(changed)

	for _, d := range c.Documents.Removed {
		tenant := ""
		if len(d.Tenants) > 0 {
			tenant = d.Tenants[0]
		}
		r := Risk{Kind: RiskRouteRemoved, Route: d.Route, Old: d.Route}
		old := before.sites[tenant].docs[docKey{d.Route, d.View}]
		r.Message, r.New = routeRemoved(old, after.sites[tenant])
		if len(d.Tenants) > 0 && len(d.Tenants) < len(common) {
			r.Message += " for " + english.Plural(len(d.Tenants), "tenant", "tenants") + " " + strings.Join(d.Tenants, ", ")
		}
		c.risk(r)
	}
}

// routeRemoved says what became of a document no longer published at its
// route: a catalog switched off, a card gone or moved (the same server's
// card of the same type at another route of the new site, returned as
// moved).
func routeRemoved(old Document, now *siteState) (msg, moved string) {
	switch old.Route.Route {
	case spec.RouteAICatalog:
		return "the AI catalog is no longer published", ""
	case spec.RouteMCPCatalog:
		return "the MCP catalog is no longer published", ""
	}
	kind := map[string]string{spec.ContentTypeServerCardV1: "v1 card", spec.ContentTypeServerCardDraft: "draft card"}[old.ContentType]
	if kind == "" {
		return "no longer published", ""
	}
	_, name, err := readCard(old.Body)
	if err != nil {
		return "no longer published", "" // read before: not reached
	}
	for _, k := range sortedDocKeys(now.docs) {
		d := now.docs[k]
		if d.ContentType != old.ContentType {
			continue
		}
		if _, n, err := readCard(d.Body); err == nil && n == name {
			return fmt.Sprintf("the %s of server %s moved to %s", kind, name, k.route), k.route
		}
	}
	return fmt.Sprintf("the %s of server %s is no longer published", kind, name), ""
}

func sortedDocKeys[V any](m map[docKey]V) []docKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b docKey) int {
		return cmp.Or(strings.Compare(a.route, b.route), strings.Compare(a.view, b.view))
	})
}

// diffIdentity compares the origin and publisher both sides publish. A side
// whose catalogs do not say (both discovery catalogs off, or only the MCP
// catalog, which names no publisher) cannot be compared: nothing it
// publishes carries the value, so nothing a client sees changed with it.
func (c *Change) diffIdentity(before, after *snapshot) {
	for _, f := range []struct {
		what     string
		old, new map[string]bool
	}{
		{"origin", before.origins, after.origins},
		{"publisher", before.publishers, after.publishers},
	} {
		if len(f.old) == 0 || len(f.new) == 0 {
			continue
		}
		old := strings.Join(slices.Sorted(maps.Keys(f.old)), ", ")
		new := strings.Join(slices.Sorted(maps.Keys(f.new)), ", ")
		if old != new {
			c.risk(Risk{Kind: RiskOriginChanged, Old: old, New: new, Message: fmt.Sprintf("%s %s -> %s", f.what, old, new)})
		}
	}
}

// cardString is a card's string field, or its JSON when it is not a string.
func cardString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 {
		return ""
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return string(raw)
	}
	return s
}

func summarizeServer(name string, s *serverState) ServerSummary {
	return ServerSummary{Name: name, Version: cardString(s.card["version"]), Remotes: append([]string{}, s.remotes...), CardURL: s.cardURL}
}

// Write prints the change in format: "text" (the default of signpost
// diff), "json" (the Change itself, indented) or "markdown" (a heading, the
// risk table, then the details, long lists folded in <details>, fit for a
// pull-request comment or a GitHub job summary).
func (c *Change) Write(w io.Writer, format string) error {
	var b strings.Builder
	switch format {
	case FormatText:
		c.writeText(&b)
	case FormatMarkdown:
		c.writeMarkdown(&b)
	case FormatJSON:
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("diff: %w", err)
		}
	default:
		return fmt.Errorf("diff: unknown format %q: use text, json or markdown", format)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// counts summarizes the change in one line.
func (c *Change) counts() string {
	var parts []string
	part := func(what string, added, removed, changed int) {
		var p []string
		if added > 0 {
			p = append(p, fmt.Sprintf("%d added", added))
		}
		if removed > 0 {
			p = append(p, fmt.Sprintf("%d removed", removed))
		}
		if changed > 0 {
			p = append(p, fmt.Sprintf("%d changed", changed))
		}
		if len(p) > 0 {
			parts = append(parts, what+" "+strings.Join(p, ", "))
		}
	}
	parts = append(parts, english.Count(len(c.Risks), "risk", "risks"))
	part("tools", len(c.Tools.Added), len(c.Tools.Removed), len(c.Tools.Changed))
	part("servers", len(c.Servers.Added), len(c.Servers.Removed), len(c.Servers.Changed))
	part("tenants", len(c.Tenants.Added), len(c.Tenants.Removed), len(c.Tenants.CompactView))
	part("documents", len(c.Documents.Added), len(c.Documents.Removed), len(c.Documents.Changed))
	return strings.Join(parts, "; ")
}

// printable replaces control characters, so that a value from a
// declaration cannot rewrite the reader's terminal, and shortens it.
func printable(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) {
			return '?'
		}
		return r
	}, s)
	if limit > 0 && utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		s = string(r[:limit-3]) + "..."
	}
	return s
}

// valueLimit is the longest value the text and markdown reports show.
const valueLimit = 72

func tenantLabel(t string) string {
	if t == "" {
		return "(no tenants)"
	}
	return t
}

// describe is one line about a tool added or removed.
func (t ToolSummary) describe() string {
	s := fmt.Sprintf("%s, %s, %s, egress %s", t.Source, t.SafetyTier, t.ReplayPolicy, t.Egress)
	if t.Server != "" {
		s += "; server " + t.Server
	}
	if len(t.Tenants) > 0 {
		s += "; tenants " + strings.Join(t.Tenants, ", ")
	}
	return printable(s, 0)
}

// describe is one line about a field that changed.
func (f FieldChange) describe() string {
	if f.Old == "" && f.New == "" {
		return f.Field + " changed"
	}
	show := func(v string) string {
		if v == "" {
			return "(none)"
		}
		return strconv.Quote(printable(v, valueLimit))
	}
	switch f.Field {
	case "safetyTier", "replayPolicy", "egress", "source", "version":
		return fmt.Sprintf("%s %s -> %s", f.Field, printable(f.Old, valueLimit), printable(f.New, valueLimit))
	}
	return fmt.Sprintf("%s %s -> %s", f.Field, show(f.Old), show(f.New))
}

// details lists what changed about a tool, one item each.
func (t ToolChange) details() []string {
	var out []string
	for _, f := range t.Fields {
		out = append(out, f.describe())
	}
	if len(t.TenantsAdded) > 0 {
		out = append(out, "now published to "+printable(strings.Join(t.TenantsAdded, ", "), 0))
	}
	if len(t.TenantsRemoved) > 0 {
		out = append(out, "no longer published to "+printable(strings.Join(t.TenantsRemoved, ", "), 0))
	}
	if t.CompactChanged {
		out = append(out, "compact descriptor changed")
	}
	return out
}

func (s ServerSummary) describe() string {
	var p []string
	if s.Version != "" {
		p = append(p, "version "+s.Version)
	}
	if s.CardURL != "" {
		p = append(p, "card "+s.CardURL)
	}
	if len(s.Remotes) > 0 {
		p = append(p, "remotes "+strings.Join(s.Remotes, ", "))
	}
	return printable(strings.Join(p, "; "), 0)
}

func (s ServerChange) details() []string {
	var out []string
	for _, f := range s.Fields {
		if f.Field == "remotes" && (len(s.RemotesAdded) > 0 || len(s.RemotesRemoved) > 0 || len(s.RemotesChanged) > 0) {
			continue // said below, endpoint by endpoint
		}
		out = append(out, f.describe())
	}
	for _, r := range s.RemotesAdded {
		out = append(out, "new remote "+printable(r, 0))
	}
	for _, r := range s.RemotesRemoved {
		out = append(out, "remote removed "+printable(r, 0))
	}
	for _, r := range s.RemotesChanged {
		out = append(out, printable(r.describe(), 0))
	}
	return out
}

// oldLabel names the old side in report headings.
func (c *Change) oldLabel() string {
	if c.OldEmpty {
		return c.Old + " (no catalog)"
	}
	return c.Old
}

func (c *Change) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "signpost diff %s -> %s\n", printable(c.oldLabel(), 0), printable(c.New, 0))
	if c.Empty() {
		b.WriteString("no changes\n")
		return
	}
	fmt.Fprintf(b, "%s\n", c.counts())
	if len(c.Risks) > 0 {
		b.WriteString("\nRISKS\n")
		tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		for _, r := range c.Risks {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Kind, printable(r.subject(), 0), printable(r.Message, 0))
		}
		_ = tw.Flush() // a strings.Builder does not fail
	}
	if len(c.Tenants.Added)+len(c.Tenants.Removed)+len(c.Tenants.CompactView) > 0 {
		b.WriteString("\nTENANTS\n")
		for _, t := range c.Tenants.Added {
			fmt.Fprintf(b, "  + %s\n", printable(tenantLabel(t), 0))
		}
		for _, t := range c.Tenants.Removed {
			fmt.Fprintf(b, "  - %s\n", printable(tenantLabel(t), 0))
		}
		for _, v := range c.Tenants.CompactView {
			fmt.Fprintf(b, "  ~ %s: compact view %s -> %s\n", printable(tenantLabel(v.Tenant), 0), onOff(v.Old), onOff(v.New))
		}
	}
	if len(c.Tools.Added)+len(c.Tools.Removed)+len(c.Tools.Changed) > 0 {
		b.WriteString("\nTOOLS\n")
		for _, t := range c.Tools.Added {
			fmt.Fprintf(b, "  + %s (%s)\n", printable(t.ToolID, 0), t.describe())
		}
		for _, t := range c.Tools.Removed {
			fmt.Fprintf(b, "  - %s (%s)\n", printable(t.ToolID, 0), t.describe())
		}
		for _, t := range c.Tools.Changed {
			fmt.Fprintf(b, "  ~ %s\n", printable(t.ToolID, 0))
			for _, d := range t.details() {
				fmt.Fprintf(b, "      %s\n", d)
			}
		}
	}
	if len(c.Servers.Added)+len(c.Servers.Removed)+len(c.Servers.Changed) > 0 {
		b.WriteString("\nSERVERS\n")
		for _, s := range c.Servers.Added {
			fmt.Fprintf(b, "  + %s (%s)\n", printable(s.Name, 0), s.describe())
		}
		for _, s := range c.Servers.Removed {
			fmt.Fprintf(b, "  - %s (%s)\n", printable(s.Name, 0), s.describe())
		}
		for _, s := range c.Servers.Changed {
			fmt.Fprintf(b, "  ~ %s\n", printable(s.Name, 0))
			for _, d := range s.details() {
				fmt.Fprintf(b, "      %s\n", d)
			}
		}
	}
	if len(c.Documents.Added)+len(c.Documents.Removed)+len(c.Documents.Changed) > 0 {
		b.WriteString("\nDOCUMENTS\n")
		for _, d := range c.Documents.Added {
			fmt.Fprintf(b, "  + %s\n", d.describe())
		}
		for _, d := range c.Documents.Removed {
			fmt.Fprintf(b, "  - %s\n", d.describe())
		}
		for _, d := range c.Documents.Changed {
			fmt.Fprintf(b, "  ~ %s\n", d.describe())
		}
	}
}

// Bounds of the markdown report, so that it fits a pull-request comment
// (GitHub takes 65,536 characters): lists longer than markdownFold items
// are folded, and none shows more than markdownMax.
const (
	markdownFold = 10
	markdownMax  = 50
)

// mdText escapes Markdown and HTML in plain text: the characters that
// mean something anywhere in a line (the rest only at its start, where no
// value is put).
func mdText(s string) string {
	var b strings.Builder
	for _, r := range printable(s, 0) {
		if strings.ContainsRune("\\`*_[]<|~&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode is s as inline code; in a table cell a "|" must still be escaped.
func mdCode(s string) string {
	s = strings.ReplaceAll(printable(s, 0), "`", "'")
	return "`" + strings.ReplaceAll(s, "|", "\\|") + "`"
}

// mdItems renders each of xs as a list item.
func mdItems[T any](xs []T, item func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, item(x))
	}
	return out
}

// mdChanges writes a section of what was added, removed and changed, when
// anything was.
func mdChanges(b *strings.Builder, title string, added, removed, changed []string) {
	if len(added)+len(removed)+len(changed) == 0 {
		return
	}
	b.WriteString("### " + title + "\n\n")
	mdList(b, "Added", added)
	mdList(b, "Removed", removed)
	mdList(b, "Changed", changed)
}

// mdList writes items as a bulleted list under a bold title, folded in
// <details> when long and cut at markdownMax.
func mdList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	heading := fmt.Sprintf("%s (%d)", title, len(items))
	if len(items) > markdownFold {
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", heading)
	} else {
		fmt.Fprintf(b, "**%s**\n\n", heading)
	}
	for i, it := range items {
		if i == markdownMax {
			fmt.Fprintf(b, "- … and %d more: see `signpost diff --format json`\n", len(items)-markdownMax)
			break
		}
		fmt.Fprintf(b, "- %s\n", it)
	}
	if len(items) > markdownFold {
		b.WriteString("\n</details>\n")
	}
	b.WriteString("\n")
}

func (c *Change) writeMarkdown(b *strings.Builder) {
	old := mdCode(c.Old)
	if c.OldEmpty {
		old += " (no catalog)"
	}
	fmt.Fprintf(b, "## signpost diff: %s → %s\n\n", old, mdCode(c.New))
	if c.Empty() {
		b.WriteString("No changes.\n")
		return
	}
	fmt.Fprintf(b, "%s.\n\n", mdText(c.counts()))
	b.WriteString("### Risks\n\n")
	if len(c.Risks) == 0 {
		b.WriteString("None.\n\n")
	} else {
		row := func(r Risk) {
			fmt.Fprintf(b, "| %s | %s | %s |\n", r.Kind, r.mdSubject(), mdText(r.Message))
		}
		header := "| risk | subject | change |\n|---|---|---|\n"
		b.WriteString(header)
		for _, r := range c.Risks[:min(len(c.Risks), markdownFold*2)] {
			row(r)
		}
		if rest := c.Risks[min(len(c.Risks), markdownFold*2):]; len(rest) > 0 {
			fmt.Fprintf(b, "\n<details><summary>%d more risks</summary>\n\n%s", len(rest), header)
			for i, r := range rest {
				if i == markdownMax*2 {
					break
				}
				row(r)
			}
			if len(rest) > markdownMax*2 {
				fmt.Fprintf(b, "\n… and %d more: see `signpost diff --format json`\n", len(rest)-markdownMax*2)
			}
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
	}

	if len(c.Tenants.Added)+len(c.Tenants.Removed)+len(c.Tenants.CompactView) > 0 {
		b.WriteString("### Tenants\n\n")
		var items []string
		for _, t := range c.Tenants.Added {
			items = append(items, "added: "+mdText(tenantLabel(t)))
		}
		for _, t := range c.Tenants.Removed {
			items = append(items, "removed: "+mdText(tenantLabel(t)))
		}
		for _, v := range c.Tenants.CompactView {
			items = append(items, fmt.Sprintf("%s: compact view %s → %s", mdText(tenantLabel(v.Tenant)), onOff(v.Old), onOff(v.New)))
		}
		mdList(b, "Changes", items)
	}
	tool := func(t ToolSummary) string { return mdCode(t.ToolID) + ": " + mdText(t.describe()) }
	mdChanges(b, "Tools",
		mdItems(c.Tools.Added, tool), mdItems(c.Tools.Removed, tool),
		mdItems(c.Tools.Changed, func(t ToolChange) string { return mdCode(t.ToolID) + ": " + mdText(strings.Join(t.details(), "; ")) }))
	server := func(s ServerSummary) string { return mdCode(s.Name) + ": " + mdText(s.describe()) }
	mdChanges(b, "Servers",
		mdItems(c.Servers.Added, server), mdItems(c.Servers.Removed, server),
		mdItems(c.Servers.Changed, func(s ServerChange) string { return mdCode(s.Name) + ": " + mdText(strings.Join(s.details(), "; ")) }))
	document := func(d DocumentSummary) string {
		s := mdCode(d.Route)
		if d.View != spec.ViewStandard {
			s += " (" + mdText(d.View) + " view)"
		}
		s += ": " + mdText(d.ContentType)
		if len(d.Tenants) > 0 {
			s += "; tenants " + mdText(strings.Join(d.Tenants, ", "))
		}
		return s
	}
	mdChanges(b, "Documents", mdItems(c.Documents.Added, document), mdItems(c.Documents.Removed, document), mdItems(c.Documents.Changed, document))
}
