package build

import (
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/budgets"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
)

func (l *loader) loadConfig(src *source.File, c *Config) {
	top := ref{src: src}
	if src.Value == nil {
		l.errorf(top, "config", "%s is empty: it needs at least a site with origin and publisher", ConfigFile)
		return
	}
	// The site's settings are published (the AI catalog names the publisher
	// and its display name), and signpost.yaml is as public as the rest of
	// the catalog: no field may hold a credential.
	for _, found := range secrets.Find(src.Value) {
		l.errorf(top.at(source.SplitPointer(found.Pointer)...), "credential", "%s: remove it; %s is public with the catalog, and signpost publish takes credentials from its environment", found.Reason, ConfigFile)
	}
	// A schema violation leaves the settings it concerns unread, and the
	// rest is still checked, so that one run reports every problem. An
	// origin the schema rejects is reported by the origin's own check,
	// which says why.
	bad := l.validateExcept("config", top, src.Value, func(ptr string, v any) bool {
		segs := source.SplitPointer(ptr)
		s, ok := v.(string)
		isOrigin := len(segs) == 2 && segs[0] == "site" && segs[1] == "origin" ||
			len(segs) == 3 && segs[0] == "tenants" && segs[2] == "origin"
		_, err := spec.ParseOrigin(s)
		return isOrigin && ok && err != nil
	})
	sound := func(segs ...string) bool {
		p := source.Pointer(segs)
		for _, b := range bad {
			if b == p || strings.HasPrefix(b, p+"/") {
				return false
			}
		}
		return true
	}
	m, ok := src.Value.(map[string]any)
	if !ok {
		return
	}
	site, _ := m["site"].(map[string]any)
	c.Origin = str(site, "origin")
	if sound("site", "publisher") {
		c.Publisher = str(site, "publisher")
	}
	if sound("site", "displayName") {
		c.DisplayName = str(site, "displayName")
	}
	l.loadTenants(top, m, c, sound)
	if sound("limits") {
		l.loadLimits(top, m, &c.Limits)
	}
	c.CompactView = setting(m, "toolCatalog", "compactView")
	c.CompactDescriptions = setting(m, "toolCatalog", "compactDescriptions")
	if sound("toolCatalog") {
		c.Budgets = budgets.FromConfig(m)
		tc, _ := m["toolCatalog"].(map[string]any)
		c.APIVersion = str(tc, "apiVersion")
	}
	c.MCPCatalog = setting(m, "discovery", "mcpCatalog")
	c.AICatalog = setting(m, "discovery", "aiCatalog")
	targets, _ := m["targets"].(map[string]any)
	for _, name := range sortedKeys(targets) {
		tm, ok := targets[name].(map[string]any)
		if !ok || !sound("targets", name) {
			continue
		}
		t, msg := decodeTarget(tm, c.Tenants)
		if msg != "" {
			l.errorf(top.at("targets", name), "target", "target %s: %s", name, msg)
			continue
		}
		if c.Targets == nil {
			c.Targets = map[string]Target{}
		}
		c.Targets[name] = t
		for _, id := range c.Tenants {
			if c.TenantSites[id].Access.Token {
				if msg := gateProblem(t, id); msg != "" {
					l.errorf(top.at("targets", name), "target", "target %s: %s", name, msg)
				}
			}
		}
	}
	// An origin missing, or not a string, is the schema's to report.
	if _, isString := site["origin"].(string); isString {
		if _, err := spec.ParseOrigin(c.Origin); err != nil {
			l.errorf(top.at("site", "origin"), "origin", "%s", err)
		}
	}
}

// loadTenants reads the schema-valid tenants of signpost.yaml: ids, or
// tenants with an origin or a gate of their own.
func (l *loader) loadTenants(top ref, m map[string]any, c *Config, sound func(segs ...string) bool) {
	list, _ := m["tenants"].([]any)
	origins := map[string]string{}
	for i, v := range list {
		at := top.at("tenants", fmt.Sprint(i))
		var t TenantSite
		var id string
		if !sound("tenants", fmt.Sprint(i)) {
			// The tenant is known by its id, if that is sound, so that
			// tools naming it are not reported too; its settings are
			// unread, but an origin is checked, since the schema's
			// verdict on it was left to this check.
			if v, ok := v.(map[string]any); ok {
				if o, ok := v["origin"].(string); ok {
					if _, err := spec.ParseOrigin(o); err != nil {
						l.errorf(at.at("origin"), "origin", "tenant %s: %s", str(v, "id"), err)
					}
				}
				if sound("tenants", fmt.Sprint(i), "id") && str(v, "id") != "" && !slices.Contains(c.Tenants, str(v, "id")) {
					c.Tenants = append(c.Tenants, str(v, "id"))
				}
			}
			continue
		}
		switch v := v.(type) {
		case string:
			id = v
		case map[string]any:
			id = str(v, "id")
			t.Origin = str(v, "origin")
			t.Access.Token = str(v, "gate") == "token"
			t.Access.PublicDiscovery, _ = v["publicDiscovery"].(bool)
			if t.Access.PublicDiscovery && !t.Access.Token {
				l.errorf(at.at("publicDiscovery"), "tenant", "tenant %s: publicDiscovery keeps /.well-known/ public on a gated site, but the site has no gate: add gate: token, or drop publicDiscovery", id)
			}
			if t.Origin != "" {
				if _, err := spec.ParseOrigin(t.Origin); err != nil {
					l.errorf(at.at("origin"), "origin", "tenant %s: %s", id, err)
				} else if other, dup := origins[strings.TrimSuffix(t.Origin, "/")]; dup {
					l.errorf(at.at("origin"), "origin", "tenants %s and %s share the origin %s: each tenant's origin must serve its own site only", other, id, t.Origin)
				} else {
					origins[strings.TrimSuffix(t.Origin, "/")] = id
				}
			}
		}
		if slices.Contains(c.Tenants, id) {
			l.errorf(at, "tenant", "tenant %s is declared twice", id)
			continue
		}
		c.Tenants = append(c.Tenants, id)
		if t != (TenantSite{}) {
			if c.TenantSites == nil {
				c.TenantSites = map[string]TenantSite{}
			}
			c.TenantSites[id] = t
		}
	}
}

// setting reads a boolean setting of signpost.yaml; every one defaults to true.
func setting(m map[string]any, section, name string) bool {
	sec, _ := m[section].(map[string]any)
	v, ok := sec[name].(bool)
	return v || !ok
}
