package build

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/signpost-dev/signpost/build/configfile"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/jcs"
	"github.com/signpost-dev/signpost/build/secrets"
	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/target"
)

func (l *loader) loadConfig(src *source.File, c *Config) {
	top := ref{src: src}
	if src.Value == nil {
		l.sink.errorf(top, "config", "%s is empty: it needs at least a site with origin and publisher", ConfigFile)
		return
	}
	// The site's settings are published (the AI catalog names the publisher
	// and its display name), and signpost.yaml is as public as the rest of
	// the catalog: no field may hold a credential.
	for _, found := range secrets.Find(src.Value) {
		l.sink.errorf(top.at(source.SplitPointer(found.Pointer)...), "credential", "%s: remove it; %s is public with the catalog, and signpost publish takes credentials from its environment", found.Reason, ConfigFile)
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
	f, ok, err := configfile.Decode(src.Value)
	if err != nil {
		l.sink.errorf(top, "internal", "decode %s: %v", ConfigFile, err)
	}
	if !ok {
		return
	}
	if f.Site.Origin != nil {
		c.Origin = *f.Site.Origin
	}
	if sound("site", "publisher") {
		c.Publisher = f.Site.Publisher
	}
	if sound("site", "displayName") {
		c.DisplayName = f.Site.DisplayName
		// The AI catalog names it, and AI Catalog 1.0 requires every
		// catalog to be valid input to JCS (RFC 8785): I-JSON strings.
		if err := jcs.ValidString(c.DisplayName); err != nil && setting(f.Discovery.AICatalog) {
			l.sink.errorf(top.at("site", "displayName"), "ai-catalog", "site.displayName has %v: the AI catalog names it, and an AI catalog must be valid input to JSON canonicalization (RFC 8785), which takes I-JSON only; remove the character", err)
		}
	}
	loadTenants(l.sink, top, f.Tenants, c, sound)
	l.limitsAt = top
	if sound("limits") {
		loadLimits(l.sink, top, f.Limits, &c.Limits)
		if f.Limits.Files != nil {
			l.limitsAt = top.at("limits", "files")
		}
	}
	c.CompactView = setting(f.ToolCatalog.CompactView)
	c.CompactDescriptions = setting(f.ToolCatalog.CompactDescriptions)
	if sound("toolCatalog") {
		c.Budgets = f.ToolCatalog.Budgets.Budgets()
		c.APIVersion = f.ToolCatalog.APIVersion
	}
	c.MCPCatalog = setting(f.Discovery.MCPCatalog)
	c.AICatalog = setting(f.Discovery.AICatalog)
	c.Registry = setting(f.Discovery.Registry)
	c.ARD = f.Discovery.ARD
	if c.ARD && !c.AICatalog {
		l.sink.errorf(top.at("discovery", "ard"), "config", "discovery.ard needs the AI catalog, whose v1 cards its entries name: drop aiCatalog: false, or ard: true")
	}
	for _, p := range []struct {
		key string
		v   string
		to  *string
	}{{"privacyPolicyUrl", f.Site.PrivacyPolicyURL, &c.PrivacyPolicyURL}, {"termsOfServiceUrl", f.Site.TermsOfServiceURL, &c.TermsOfServiceURL}} {
		if p.v == "" || !sound("site", p.key) {
			continue
		}
		if msg := discovery.PolicyURLProblem(p.v); msg != "" {
			l.sink.errorf(top.at("site", p.key), "config", "site.%s %q %s", p.key, spec.Redact(p.v), msg)
			continue
		}
		*p.to = p.v
	}
	if f.Signing != nil && sound("signing") {
		c.Signing = loadSigning(l.sink, top, *f.Signing, c)
	}
	for _, name := range sortedKeys(f.Targets) {
		if !sound("targets", name) {
			continue
		}
		t, msg := target.Decode(f.Targets[name], c.Tenants)
		if msg != "" {
			l.sink.errorf(top.at("targets", name), "target", "target %s: %s", name, msg)
			continue
		}
		if c.Targets == nil {
			c.Targets = map[string]target.Target{}
		}
		c.Targets[name] = t
		for _, id := range c.Tenants {
			if c.TenantSites[id].Access.Token {
				if msg := target.GateProblem(t, id); msg != "" {
					l.sink.errorf(top.at("targets", name), "target", "target %s: %s", name, msg)
				}
			}
		}
	}
	c.declareOrigins()
	// An origin missing, or not a string, is the schema's to report.
	if f.Site.Origin != nil {
		if _, err := spec.ParseOrigin(c.Origin); err != nil {
			l.sink.errorf(top.at("site", "origin"), "origin", "%s", err)
		}
	}
}

// loadTenants reads the schema-valid tenants of signpost.yaml: ids, or
// tenants with an origin or a gate of their own.
func loadTenants(s sink, top ref, list []configfile.Tenant, c *Config, sound func(segs ...string) bool) {
	origins := map[string]string{}
	// The tenants declared so far, looked up once each: a list of tens of
	// thousands is read in linear time.
	known := make(map[string]bool, len(c.Tenants)+len(list))
	for _, id := range c.Tenants {
		known[id] = true
	}
	for i, v := range list {
		at := top.at("tenants", fmt.Sprint(i))
		if !sound("tenants", fmt.Sprint(i)) {
			// The tenant is known by its id, if that is sound, so that
			// tools naming it are not reported too; its settings are
			// unread, but an origin is checked, since the schema's
			// verdict on it was left to this check.
			if v.IsObject {
				if v.Origin != nil {
					if _, err := spec.ParseOrigin(*v.Origin); err != nil {
						s.errorf(at.at("origin"), "origin", "tenant %s: %s", v.ID, err)
					}
				}
				if sound("tenants", fmt.Sprint(i), "id") && v.ID != "" && !known[v.ID] {
					c.Tenants = append(c.Tenants, v.ID)
					known[v.ID] = true
				}
			}
			continue
		}
		var t TenantSite
		id := v.ID
		if v.IsObject {
			if v.Origin != nil {
				t.Origin = *v.Origin
			}
			t.Access.Token = v.Gate == "token"
			t.Access.PublicDiscovery = v.PublicDiscovery
			if t.Access.PublicDiscovery && !t.Access.Token {
				s.errorf(at.at("publicDiscovery"), "tenant", "tenant %s: publicDiscovery keeps /.well-known/ public on a gated site, but the site has no gate: add gate: token, or drop publicDiscovery", id)
			}
			if t.Origin != "" {
				if _, err := spec.ParseOrigin(t.Origin); err != nil {
					s.errorf(at.at("origin"), "origin", "tenant %s: %s", id, err)
				} else if other, dup := origins[strings.TrimSuffix(t.Origin, "/")]; dup {
					s.errorf(at.at("origin"), "origin", "tenants %s and %s share the origin %s: each tenant's origin must serve its own site only", other, id, t.Origin)
				} else {
					origins[strings.TrimSuffix(t.Origin, "/")] = id
				}
			}
		}
		if known[id] {
			s.errorf(at, "tenant", "tenant %s is declared twice", id)
			continue
		}
		c.Tenants = append(c.Tenants, id)
		known[id] = true
		if t != (TenantSite{}) {
			if c.TenantSites == nil {
				c.TenantSites = map[string]TenantSite{}
			}
			c.TenantSites[id] = t
		}
	}
}

// setting is a boolean setting of signpost.yaml; every one defaults to true.
func setting(v *bool) bool { return v == nil || *v }

// loadSigning checks signing: against the rest of the settings: the AI
// catalog it signs must be built, and site.publisher must be a root
// did:web domain, the signer's (did:web:PUBLISHER).
func loadSigning(sink sink, top ref, f configfile.Signing, c *Config) *Signing {
	s := &Signing{Key: f.Key}
	ok := true
	if !c.AICatalog {
		sink.errorf(top.at("signing"), "signing", "signing: signs the AI catalog, which discovery.aiCatalog: false turns off; remove signing: or turn the AI catalog on")
		ok = false
	}
	if _, err := signing.DIDWeb(c.Publisher); err != nil && c.Publisher != "" {
		sink.errorf(top.at("site", "publisher"), "signing", "signing: needs site.publisher to be the signer's did:web domain: %v", err)
		ok = false
	}
	for i, k := range f.PreviousKeys {
		pub, err := signing.ParsePublicJWK(map[string]any{"kty": k.Kty, "crv": k.Crv, "x": k.X, "y": k.Y})
		if err != nil {
			sink.errorf(top.at("signing", "previousKeys", strconv.Itoa(i)), "signing", "signing.previousKeys[%d]: %v", i, err)
			ok = false
			continue
		}
		s.PreviousKeys = append(s.PreviousKeys, pub)
	}
	if days, err := f.Validity.Int64(); err == nil && days > 0 {
		s.Validity = time.Duration(days) * 24 * time.Hour
	}
	if !ok {
		return nil
	}
	return s
}
