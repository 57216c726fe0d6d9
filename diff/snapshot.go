package diff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// snapshot is what Compare compares of one build.
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
	// access is who may read the site.
	access gate.Access
	tools  int
	// docs are the documents other than the tool routes.
	docs map[docKey]output.Document
	// What the discovery catalogs publish: the AI catalog's host domain
	// and its tool catalog URL, and the URLs of both catalogs' entries.
	publisher      string
	toolCatalogURL string
	entryURLs      []string
	// toolCatalogID is the identifier of the AI catalog's tool catalog
	// entry; empty when there is none.
	toolCatalogID string
	// aiEntries are the AI catalog's server entries, named by
	// nameAIEntries once every document of the site is read: cardNames (a
	// local card's name by route) and mcpNames (a name by URL, from the MCP
	// catalog's urn:mcp:server:NAME entries) say whose they are.
	aiEntries []aiEntry
	cardNames map[string]string
	mcpNames  map[string]string
	// registry are the servers of the site's MCP registry, by name (see
	// readRegistry); hasRegistry is set when the site has one.
	registry    map[string]registryServer
	hasRegistry bool
}

// aiEntry is an AI catalog entry that points at a server card.
type aiEntry struct{ identifier, url string }

// docKey is a document's route and view.
type docKey struct{ route, view string }

type toolState struct {
	desc     toolDoc
	standard []byte // the descriptor as published
	compact  []byte // nil when the site has no compact view
	tenants  []string
	// entry is what the tool catalogue says of the tool; zero for a build
	// without one.
	entry catalogueEntry
}

// catalogueEntry is what diff reads of a tool's entry in the tool
// catalogue: its group and its reserved arguments.
type catalogueEntry struct {
	Name     string `json:"name"`
	Group    string `json:"group"`
	Reserved struct {
		IdempotencyKey reservedArgument `json:"idempotencyKey"`
		Confirmation   reservedArgument `json:"confirmation"`
	} `json:"reserved"`
}

// reservedArgument is a reserved argument's entry; Argument is empty when
// the tool has none.
type reservedArgument struct {
	Argument string `json:"argument"`
}

// toolDoc is a published tool.Descriptor with its schemas kept as the bytes
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
	Meta         struct {
		// Definition is the digest of the tool's definition, which clients
		// pin the tool by; zero for a site built without digests.
		Definition struct {
			Digest string `json:"digest"`
		} `json:"dev.signpost/definition"`
	} `json:"_meta"`
}

type serverState struct {
	card    map[string]json.RawMessage // without $schema; nil for a cross-host server
	cardURL string                     // a cross-host server's card URL
	remotes []string                   // "TYPE URL", sorted and unique
	// remoteJSON holds, by "TYPE URL", the canonical JSON of each remote
	// endpoint listed under it (usually one).
	remoteJSON map[string][]json.RawMessage
	// aiIdentifier is the server's identifier in the AI catalog; empty
	// when no AI catalog lists it.
	aiIdentifier string
}

// snapshotBuild reads the tools, servers and sites of a build from its
// documents.
func snapshotBuild(b *output.Build) (*snapshot, error) {
	s := &snapshot{
		sites: map[string]*siteState{}, tools: map[string]*toolState{}, servers: map[string]*serverState{},
		origins: map[string]bool{}, publishers: map[string]bool{},
	}
	if b == nil {
		return s, nil
	}
	entries := map[string]string{} // cross-host card URLs by server name
	aiIDs := map[string]string{}   // AI catalog identifiers by server name
	for _, site := range b.Sites {
		if _, dup := s.sites[site.Tenant]; dup {
			return nil, fmt.Errorf("two sites for tenant %q", site.Tenant)
		}
		st := &siteState{access: site.Access, docs: map[docKey]output.Document{}, cardNames: map[string]string{}, mcpNames: map[string]string{},
			registry: map[string]registryServer{}}
		s.sites[site.Tenant] = st
		for _, d := range site.Documents {
			if err := s.readDocument(site.Tenant, st, d, entries); err != nil {
				return nil, fmt.Errorf("%s %s: %w", spec.SiteName(site.Tenant), d.Route.Route, err)
			}
		}
		st.nameAIEntries(entries, aiIDs)
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
	for name, id := range aiIDs {
		if sv := s.servers[name]; sv != nil {
			sv.aiIdentifier = id
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
// value (its tool descriptors carry no URL): then "" is returned, and
// Compare compares only what both sides publish.
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

func (s *snapshot) readDocument(tenant string, st *siteState, d output.Document, entries map[string]string) error {
	route := d.Route.Route
	data, err := d.Body.Bytes()
	if err != nil {
		return err
	}
	if spec.IsRegistryRoute(route) {
		// Read as the servers it lists, not as documents.
		return st.readRegistry(route, data)
	}
	_, isGroup := spec.GroupKeyOf(route)
	// The tool routes and the tool catalogue are read as tools, not as
	// documents: a change to them is a change to a tool.
	if !spec.IsToolRoute(route) && route != spec.RouteToolCatalogue && !isGroup {
		k := docKey{route, d.View}
		if _, dup := st.docs[k]; dup {
			return fmt.Errorf("two documents for view %s", d.View)
		}
		st.docs[k] = d
	}
	switch {
	case route == spec.RouteTools:
		if d.View == spec.ViewCompact {
			st.compact = true
		}
	case strings.HasPrefix(route, spec.RouteTools+"/"):
		id, _ := spec.ToolIDOf(route)
		t := s.tools[id]
		if t == nil {
			t = &toolState{}
			s.tools[id] = t
		}
		body := bytes.TrimSpace(data)
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
	case route == spec.RouteToolCatalogue:
		var cat struct {
			Tools []catalogueEntry `json:"tools"`
		}
		if err := json.Unmarshal(data, &cat); err != nil {
			return fmt.Errorf("not a tool catalogue: %w", err)
		}
		for _, e := range cat.Tools {
			t := s.tools[e.Name]
			if t == nil {
				t = &toolState{}
				s.tools[e.Name] = t
			}
			if t.entry.Name == "" {
				t.entry = e
			}
		}
	case d.ContentType == spec.ContentTypeServerCardV1 || d.ContentType == spec.ContentTypeServerCardDraft:
		card, name, err := readCard(data)
		if err != nil {
			return err
		}
		// The v1 card wins over the draft card: they differ only by
		// $schema, and the v1 card is the one AI catalogs point at.
		st.cardNames[route] = name
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
				// Domain is the host's domain as builds before AI
				// Catalog 1.0's Host Info wrote it; Identifier is where
				// later builds write it (did:web:DOMAIN when signed).
				Domain     string `json:"domain"`
				Identifier string `json:"identifier"`
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
		if err := json.Unmarshal(data, &cat); err != nil {
			return fmt.Errorf("not a discovery catalog: %w", err)
		}
		if route == spec.RouteAICatalog {
			// The same publisher, however the build wrote it: a diff
			// across the change of host.domain to host.identifier, or
			// from an unsigned build to a signed one, is no change of
			// publisher.
			st.publisher = cmp.Or(cat.Host.Domain, strings.TrimPrefix(cat.Host.Identifier, "did:web:"))
		}
		for _, e := range cat.Entries {
			if e.Data.ToolCatalog.URL != "" && route == spec.RouteAICatalog {
				st.toolCatalogURL = e.Data.ToolCatalog.URL
				st.toolCatalogID = e.Identifier
			}
			if e.URL == "" {
				continue
			}
			st.entryURLs = append(st.entryURLs, e.URL)
			if route == spec.RouteAICatalog {
				st.aiEntries = append(st.aiEntries, aiEntry{e.Identifier, e.URL})
			} else if name, ok := strings.CutPrefix(e.Identifier, "urn:mcp:server:"); ok && name != "" {
				// Local servers' entries point at cards read as
				// documents; only cross-host servers keep this URL (see
				// snapshotBuild).
				entries[name] = e.URL
				st.mcpNames[e.URL] = name
			}
		}
	}
	return nil
}

// nameAIEntries names the servers of the site's AI catalog entries, keyed
// by server name as the rest of diff is, and records their identifiers in
// ids and the card URLs of cross-host servers in entries. An AI catalog
// identifier is not a server name (urn:air:PUBLISHER:mcp:weather lists
// com.example/weather), so the name is the one of the card the entry points
// at when it is a card of this site, else the one the MCP catalog gives the
// same URL, else the one an identifier of the older form
// urn:air:PUBLISHER:mcp:NAMESPACE/NAME spells out; a cross-host server
// listed only in the AI catalog is keyed by its identifier.
func (st *siteState) nameAIEntries(entries, ids map[string]string) {
	for _, e := range st.aiEntries {
		name := ""
		if u, err := url.Parse(e.url); err == nil {
			if _, local := st.docs[docKey{u.Path, spec.ViewStandard}]; local {
				name = st.cardNames[u.Path]
			}
		}
		if name == "" {
			name = st.mcpNames[e.url]
		}
		if _, n, ok := strings.Cut(e.identifier, ":mcp:"); name == "" && ok && strings.Contains(n, "/") {
			name = n
		}
		if name = cmp.Or(name, e.identifier); name == "" {
			continue
		}
		// As for the MCP catalog: only a cross-host server keeps it.
		entries[name] = e.url
		if _, seen := ids[name]; !seen {
			ids[name] = e.identifier
		}
	}
}

// nameUnnamed gives a server of s that is keyed by its AI catalog
// identifier (see nameAIEntries) the name other has for it: the one server
// there with the same identifier, or else with the same card URL. A
// catalog whose MCP catalog is switched on or off then compares its
// cross-host servers by name.
func (s *snapshot) nameUnnamed(other *snapshot) {
	for _, key := range slices.Sorted(maps.Keys(s.servers)) {
		sv := s.servers[key]
		if !strings.HasPrefix(key, "urn:air:") { // a server name has no ':'
			continue
		}
		match := func(same func(o *serverState) bool) string {
			found := ""
			for name, o := range other.servers {
				if !strings.HasPrefix(name, "urn:air:") && same(o) {
					if found != "" {
						return ""
					}
					found = name
				}
			}
			return found
		}
		name := match(func(o *serverState) bool { return o.aiIdentifier == sv.aiIdentifier })
		if name == "" {
			name = match(func(o *serverState) bool { return o.card == nil && o.cardURL == sv.cardURL })
		}
		if _, taken := s.servers[name]; name != "" && !taken {
			delete(s.servers, key)
			s.servers[name] = sv
		}
	}
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
