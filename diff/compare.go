package diff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
)

// Compare tells what changed between two builds of a catalog, old and
// new, document by document: tools by their standard and compact
// descriptors, servers by their cards (the v1 card, or the draft card when
// only that is published) and the entries of the discovery catalogs,
// tenants by their sites, each site's MCP registry by the servers it lists
// and their latest versions, every other document by route and view, and
// the origin and publisher the catalogs publish. It reads the documents only,
// so either side may be a catalog compiled in memory or a built site read
// back from disk; a nil or empty output.Build is a catalog that publishes
// nothing. A document that is not what signpost writes is a
// *MalformedError.
func Compare(old, new *output.Build) (*Change, error) {
	before, err := snapshotBuild(old)
	if err != nil {
		return nil, &MalformedError{Side: "old", Err: err}
	}
	after, err := snapshotBuild(new)
	if err != nil {
		return nil, &MalformedError{Side: "new", Err: err}
	}
	c := &Change{
		Format:    Format,
		Risks:     []Risk{},
		Tenants:   TenantChanges{Added: []string{}, Removed: []string{}, CompactView: []CompactViewChange{}},
		Tools:     ToolChanges{Added: []ToolSummary{}, Removed: []ToolSummary{}, Changed: []ToolChange{}},
		Servers:   ServerChanges{Added: []ServerSummary{}, Removed: []ServerSummary{}, Changed: []ServerChange{}},
		Documents: DocumentChanges{Added: []DocumentSummary{}, Removed: []DocumentSummary{}, Changed: []DocumentSummary{}},
	}
	before.nameUnnamed(after)
	after.nameUnnamed(before)
	c.diffTenants(before, after)
	c.diffTools(before, after)
	c.diffServers(before, after)
	c.diffRegistry(before, after)
	c.diffDocuments(before, after)
	c.diffIdentity(before, after)
	c.sortRisks()
	c.redact()
	return c, nil
}

// MalformedError is the error of Compare when a side holds a document
// that is not what signpost writes; Err says which and how.
type MalformedError struct {
	// Side is "old" or "new".
	Side string
	Err  error
}

func (e *MalformedError) Error() string { return fmt.Sprintf("diff: %s side: %v", e.Side, e.Err) }
func (e *MalformedError) Unwrap() error { return e.Err }

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
		if b := before.sites[t]; b.access.Token && !a.access.Token {
			c.risk(Risk{Kind: RiskAccessOpened, Tenant: t, Old: "gate: token", New: "public", Message: fmt.Sprintf("%s is gated no more: anyone can read its tools", spec.SiteName(t))})
		} else if b.access.Token && !b.access.PublicDiscovery && a.access.PublicDiscovery {
			c.risk(Risk{Kind: RiskAccessOpened, Tenant: t, Old: "gated", New: "publicDiscovery", Message: fmt.Sprintf("the discovery catalogs and server cards of %s are now public", spec.SiteName(t))})
		}
		if b := before.sites[t]; samePublisher(before, after) && b.toolCatalogID != "" && a.toolCatalogID != "" && b.toolCatalogID != a.toolCatalogID {
			c.risk(Risk{Kind: RiskIdentifierChanged, Tenant: t, Old: b.toolCatalogID, New: a.toolCatalogID, Message: fmt.Sprintf("the AI catalog identifier of the tool catalog of %s %s -> %s", spec.SiteName(t), b.toolCatalogID, a.toolCatalogID) + publisherCaseReason(b.toolCatalogID, a.toolCatalogID)})
		}
		if b := before.sites[t]; b.compact != a.compact {
			c.Tenants.CompactView = append(c.Tenants.CompactView, CompactViewChange{Tenant: t, Old: b.compact, New: a.compact})
			c.risk(Risk{Kind: RiskCompactChanged, Tenant: t, Old: onOff(b.compact), New: onOff(a.compact), Message: fmt.Sprintf("compact view switched %s for %s", onOff(a.compact), spec.SiteName(t))})
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
		if tier := a.desc.SafetyTier; rank(spec.Tiers(), tier) >= rank(spec.Tiers(), spec.TierWrite) {
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
	for _, f := range []struct {
		name     string
		old, new json.RawMessage
	}{{"inputSchema", bd.InputSchema, ad.InputSchema}, {"outputSchema", bd.OutputSchema, ad.OutputSchema}} {
		if !bytes.Equal(f.old, f.new) {
			tc.Fields = append(tc.Fields, FieldChange{Field: f.name, Breaking: SchemaBreak(f.name, f.old, f.new)})
		}
	}
	if old, new := bd.Meta.Definition.Digest, ad.Meta.Definition.Digest; old != new {
		tc.Digest = &DigestChange{Old: old, New: new}
	}
	if len(tc.Fields) == 0 && !bytes.Equal(b.standard, a.standard) {
		// Something outside the fields above, such as the annotations of a
		// site built by another version.
		tc.Fields = append(tc.Fields, FieldChange{Field: "descriptor"})
	}

	if widens(spec.Tiers(), bd.SafetyTier, ad.SafetyTier) {
		c.risk(Risk{Kind: RiskTierRaised, ToolID: id, Old: bd.SafetyTier, New: ad.SafetyTier, Message: fmt.Sprintf("safetyTier %s -> %s", bd.SafetyTier, ad.SafetyTier)})
	}
	if widens(spec.Egresses(), bd.Egress, ad.Egress) {
		c.risk(Risk{Kind: RiskEgressWidened, ToolID: id, Old: bd.Egress, New: ad.Egress, Message: fmt.Sprintf("egress %s -> %s", bd.Egress, ad.Egress)})
	}
	if widens(spec.ReplayPolicies(), bd.ReplayPolicy, ad.ReplayPolicy) {
		c.risk(Risk{Kind: RiskReplayLoosened, ToolID: id, Old: bd.ReplayPolicy, New: ad.ReplayPolicy, Message: fmt.Sprintf("replayPolicy %s -> %s", bd.ReplayPolicy, ad.ReplayPolicy)})
	}
	if bd.Server != ad.Server || bd.Name != ad.Name || bd.Source != ad.Source {
		old, new := toolIdentity(bd), toolIdentity(ad)
		c.risk(Risk{Kind: RiskToolReassigned, ToolID: id, Old: old, New: new, Message: fmt.Sprintf("now names %s (was %s)", new, old)})
	}
	c.diffEntries(id, b.entry, a.entry)

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

	tc.CompactFields = []CompactField{}
	if b.compact != nil && a.compact != nil && !bytes.Equal(b.compact, a.compact) {
		tc.CompactChanged = true
		tc.CompactFields = compactFields(b.compact, a.compact)
		if bytes.Equal(b.standard, a.standard) {
			msg := "the compact descriptor changed while the standard one did not"
			if what := describeCompact(tc.CompactFields); what != "" {
				msg += ": " + what
			}
			c.risk(Risk{Kind: RiskCompactChanged, ToolID: id, Message: msg})
		}
	}
	changed := len(tc.Fields) > 0 || len(tc.TenantsAdded) > 0 || len(tc.TenantsRemoved) > 0 || tc.CompactChanged || tc.Digest != nil
	return tc, changed
}

// toolIdentity names the tool a toolId stands for: its source, and its MCP
// server and name when it has them.
// diffEntries reports what changed in a tool's entry of the tool
// catalogue: its group, and its reserved arguments, which callers must
// send. A build without a catalogue has nothing to compare.
func (c *Change) diffEntries(id string, b, a catalogueEntry) {
	if b.Name == "" || a.Name == "" {
		return
	}
	if b.Group != a.Group {
		c.risk(Risk{Kind: RiskGroupMoved, ToolID: id, Old: b.Group, New: a.Group, Message: fmt.Sprintf("group %s -> %s", b.Group, a.Group)})
	}
	for _, f := range []struct{ what, old, new string }{
		{"idempotency key", b.Reserved.IdempotencyKey.Argument, a.Reserved.IdempotencyKey.Argument},
		{"confirmation", b.Reserved.Confirmation.Argument, a.Reserved.Confirmation.Argument},
	} {
		switch {
		case f.old == f.new:
		case f.old == "":
			c.risk(Risk{Kind: RiskReservedChanged, ToolID: id, New: f.new, Message: fmt.Sprintf("reserved %s %s added: callers must now send it", f.what, f.new)})
		case f.new == "":
			c.risk(Risk{Kind: RiskReservedChanged, ToolID: id, Old: f.old, Message: fmt.Sprintf("reserved %s %s removed", f.what, f.old)})
		default:
			c.risk(Risk{Kind: RiskReservedChanged, ToolID: id, Old: f.old, New: f.new, Message: fmt.Sprintf("reserved %s %s -> %s", f.what, f.old, f.new)})
		}
	}
}

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
		sc := ServerChange{Name: name, Fields: []FieldChange{}, RemotesAdded: []string{}, RemotesRemoved: []string{}, RemotesReplaced: []RemoteReplacement{}, RemotesChanged: []RemoteChange{}}
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
		sc.pairReplaced()
		if b.aiIdentifier != "" && a.aiIdentifier != "" && b.aiIdentifier != a.aiIdentifier && samePublisher(before, after) {
			sc.Fields = append(sc.Fields, FieldChange{Field: "aiCatalogIdentifier", Old: b.aiIdentifier, New: a.aiIdentifier})
			msg := fmt.Sprintf("AI catalog identifier %s -> %s", b.aiIdentifier, a.aiIdentifier) + publisherCaseReason(b.aiIdentifier, a.aiIdentifier)
			if discovery.GenericQualified(name, b.aiIdentifier, a.aiIdentifier) {
				// Not the author's change: a release that qualifies
				// generic names built the new side.
				msg += fmt.Sprintf(": signpost now qualifies a generic server name by its namespace; to keep the identifier clients know, declare aiCatalogIdentifier: %s", b.aiIdentifier)
			}
			c.risk(Risk{Kind: RiskIdentifierChanged, Server: name, Old: b.aiIdentifier, New: a.aiIdentifier, Message: msg})
		}
		if sc.remotesChanged() {
			var old, new []string
			for _, r := range sc.RemotesReplaced {
				old, new = append(old, r.Old), append(new, r.New)
			}
			old, new = append(old, sc.RemotesRemoved...), append(new, sc.RemotesAdded...)
			c.risk(Risk{Kind: RiskServerRemoteChanged, Server: name, Old: strings.Join(old, ", "), New: strings.Join(new, ", "), Message: remotesMessage(sc)})
		}
		if b.cardURL != a.cardURL && b.cardURL != "" && a.cardURL != "" {
			c.risk(Risk{Kind: RiskServerRemoteChanged, Server: name, Old: b.cardURL, New: a.cardURL, Message: fmt.Sprintf("card URL %s -> %s", b.cardURL, a.cardURL)})
		}
		if len(sc.Fields) > 0 || sc.remotesChanged() {
			c.Servers.Changed = append(c.Servers.Changed, sc)
		}
	}
}

// remotesChanged reports whether any remote endpoint was added, removed,
// replaced or changed.
func (sc *ServerChange) remotesChanged() bool {
	return len(sc.RemotesAdded) > 0 || len(sc.RemotesRemoved) > 0 || len(sc.RemotesReplaced) > 0 || len(sc.RemotesChanged) > 0
}

// pairReplaced moves an endpoint removed and one added to RemotesReplaced
// when they are the only ones of their type removed and added: the
// endpoint moved. Others stay added and removed.
func (sc *ServerChange) pairReplaced() {
	count := func(list []string, typ string) (n int, at int) {
		for i, r := range list {
			if remoteType(r) == typ {
				n, at = n+1, i
			}
		}
		return n, at
	}
	var keep []string
	for _, r := range sc.RemotesRemoved {
		typ := remoteType(r)
		nr, _ := count(sc.RemotesRemoved, typ)
		na, at := count(sc.RemotesAdded, typ)
		if nr != 1 || na != 1 {
			keep = append(keep, r)
			continue
		}
		sc.RemotesReplaced = append(sc.RemotesReplaced, RemoteReplacement{Old: r, New: sc.RemotesAdded[at]})
		sc.RemotesAdded = slices.Delete(sc.RemotesAdded, at, at+1)
	}
	sc.RemotesRemoved = append([]string{}, keep...)
}

// remoteType is the TYPE of "TYPE URL".
func remoteType(r string) string {
	typ, _, _ := strings.Cut(r, " ")
	return typ
}

func remotesMessage(sc ServerChange) string {
	var parts []string
	for _, r := range sc.RemotesReplaced {
		parts = append(parts, "endpoint "+r.describe())
	}
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
			} else if !bd.Body.Equal(a.docs[k].Body) || bd.ContentType != a.docs[k].ContentType {
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
func routeRemoved(old output.Document, now *siteState) (msg, moved string) {
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
	var name string
	data, err := old.Body.Bytes()
	if err == nil {
		_, name, err = readCard(data)
	}
	if err != nil {
		return "no longer published", "" // read before: not reached
	}
	for _, k := range sortedDocKeys(now.docs) {
		d := now.docs[k]
		if d.ContentType != old.ContentType {
			continue
		}
		data, err := d.Body.Bytes()
		if err != nil {
			continue
		}
		if _, n, err := readCard(data); err == nil && n == name {
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

// samePublisher reports whether both sides publish the same publisher,
// ignoring case (a domain name's case means nothing), so that a changed
// identifier is a change of its own and not of the publisher
// (RiskOriginChanged).
func samePublisher(before, after *snapshot) bool {
	return maps.Equal(lowerSet(before.publishers), lowerSet(after.publishers))
}

func lowerSet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[strings.ToLower(k)] = true
	}
	return out
}

// publisherCaseReason explains an AI catalog identifier that changed only
// in the case of its publisher segment (urn:air:Example.com:... ->
// urn:air:example.com:...): a one-time change of a site published before
// signpost wrote the segment in lower case, as AI Catalog 1.0 needs of a
// urn:air identifier whose entry its publisher signs (the did:web domain
// rules). "" for any other change.
func publisherCaseReason(old, new string) string {
	const prefix = "urn:air:"
	op, orest, ok1 := strings.Cut(strings.TrimPrefix(old, prefix), ":")
	np, nrest, ok2 := strings.Cut(strings.TrimPrefix(new, prefix), ":")
	if !ok1 || !ok2 || !strings.HasPrefix(old, prefix) || !strings.HasPrefix(new, prefix) || op == np || !strings.EqualFold(op, np) || orest != nrest || np != strings.ToLower(np) {
		return ""
	}
	return ": its publisher segment is now in lower case, as AI Catalog 1.0 requires of an identifier its publisher signs (did:web domain rules); a one-time change, clients that key on the old identifier see a new entry"
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
		// A publisher whose case alone changed is the same domain: the
		// identifiers' risks say what it changed.
		if old != new && !(f.what == "publisher" && strings.EqualFold(old, new)) {
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
