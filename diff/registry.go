package diff

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
)

// The MCP registry of each site (/v0.1/servers and below) is read as the
// servers it lists, not as documents: what its clients act on is which
// servers it names and their latest versions. Copilot CLI refuses a server
// the registry does not list, so a server added to, removed from or
// renamed in a tenant's registry is a risk, and so is a latest version
// that goes backwards. A change to what a server declares is a change to
// the server (its card), reported as such.

// registryServer is what a site's registry says of one server.
type registryServer struct {
	latest string
	// remotes are the URLs of the latest version's remotes, and its title
	// and description: what tells a rename from a removal.
	remotes            []string
	title, description string
}

// readRegistry reads one registry document into the site's registry: the
// versions of a server name its latest.
func (st *siteState) readRegistry(route string, body []byte) error {
	st.hasRegistry = true
	req, ok := spec.ParseRegistryPath(route)
	if !ok || req.Kind != spec.RegistryVersions {
		return nil // the list and each version repeat what the versions say
	}
	var list struct {
		Servers []struct {
			Server struct {
				Name, Version, Title, Description string
				Remotes                           []struct{ URL string }
			} `json:"server"`
			Meta map[string]struct {
				IsLatest bool `json:"isLatest"`
			} `json:"_meta"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return fmt.Errorf("not a registry server list: %w", err)
	}
	for _, r := range list.Servers {
		if !r.Meta[spec.RegistryOfficialMeta].IsLatest {
			continue
		}
		if r.Server.Name != req.Name {
			return fmt.Errorf("the versions of %s list %s", req.Name, r.Server.Name)
		}
		s := registryServer{latest: r.Server.Version, title: r.Server.Title, description: r.Server.Description}
		for _, rm := range r.Server.Remotes {
			s.remotes = append(s.remotes, rm.URL)
		}
		st.registry[req.Name] = s
	}
	return nil
}

// diffRegistry records the risks of the sites' registries: servers added,
// removed and renamed, one risk per server naming the tenants when not
// every common one; latest versions gone backwards.
func (c *Change) diffRegistry(before, after *snapshot) {
	var common []string
	for _, t := range slices.Sorted(maps.Keys(before.sites)) {
		if _, ok := after.sites[t]; ok {
			common = append(common, t)
		}
	}
	type event struct{ kind, server, old, new string }
	tenants := map[event][]string{}
	var order []event
	note := func(e event, t string) {
		if _, ok := tenants[e]; !ok {
			order = append(order, e)
		}
		tenants[e] = append(tenants[e], t)
	}
	for _, t := range common {
		b, a := before.sites[t], after.sites[t]
		var added, removed []string
		for _, name := range slices.Sorted(maps.Keys(a.registry)) {
			if _, ok := b.registry[name]; !ok {
				added = append(added, name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(b.registry)) {
			old := b.registry[name]
			now, ok := a.registry[name]
			if !ok {
				removed = append(removed, name)
				continue
			}
			if versionBefore(now.latest, old.latest) {
				note(event{RiskVersionBackwards, name, old.latest, now.latest}, t)
			}
		}
		// A server removed and one added that share a remote (or, without
		// remotes, their title and description) are one server renamed.
		for _, r := range removed {
			old := b.registry[r]
			i := slices.IndexFunc(added, func(n string) bool { return sameServer(old, a.registry[n]) })
			if i < 0 {
				note(event{RiskRegistryRemoved, r, r, ""}, t)
				continue
			}
			note(event{RiskRegistryRenamed, added[i], r, added[i]}, t)
			added = slices.Delete(added, i, i+1)
		}
		for _, n := range added {
			note(event{RiskRegistryAdded, n, "", n}, t)
		}
	}
	for _, e := range order {
		ts := tenants[e]
		where := "the registry"
		if len(ts) < len(common) || len(common) == 1 && ts[0] != "" {
			where = "the registry of " + english.Plural(len(ts), "tenant", "tenants") + " " + strings.Join(ts, ", ")
		}
		r := Risk{Kind: e.kind, Server: e.server, Old: e.old, New: e.new}
		switch e.kind {
		case RiskRegistryAdded:
			r.Message = fmt.Sprintf("now in %s: VS Code and Copilot offer it, Copilot CLI allows it", where)
		case RiskRegistryRemoved:
			r.Message = fmt.Sprintf("no longer in %s: Copilot CLI refuses it, and clients that installed it lose it", where)
		case RiskRegistryRenamed:
			r.Message = fmt.Sprintf("renamed %s -> %s in %s: Copilot CLI refuses the old name, and clients that installed it lose it", e.old, e.new, where)
		case RiskVersionBackwards:
			r.Message = fmt.Sprintf("latest version %s -> %s in %s: an older version than before", e.old, e.new, where)
		}
		c.risk(r)
	}
}

// sameServer reports whether two servers of a registry, under two names,
// are one: they share a remote URL, or, with no remote either, a title and
// a description.
func sameServer(a, b registryServer) bool {
	for _, u := range a.remotes {
		if slices.Contains(b.remotes, u) {
			return true
		}
	}
	return len(a.remotes) == 0 && len(b.remotes) == 0 && a.description != "" && a.title == b.title && a.description == b.description
}

// versionBefore reports whether the version a comes before b in semantic
// versioning's precedence (build metadata aside). A version that is not
// semantic (MAJOR.MINOR.PATCH[-PRE][+BUILD]) comes before none.
func versionBefore(a, b string) bool {
	va, ok1 := parseSemver(a)
	vb, ok2 := parseSemver(b)
	if !ok1 || !ok2 {
		return false
	}
	return compareSemver(va, vb) < 0
}

type semver struct {
	core [3]uint64
	pre  []string
}

func parseSemver(v string) (semver, bool) {
	v, _, _ = strings.Cut(v, "+")
	v = strings.TrimPrefix(v, "v")
	core, pre, hasPre := strings.Cut(v, "-")
	parts := strings.Split(core, ".")
	var s semver
	if len(parts) != 3 {
		return s, false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || p == "" || len(p) > 1 && p[0] == '0' {
			return s, false
		}
		s.core[i] = n
	}
	if hasPre {
		s.pre = strings.Split(pre, ".")
		for _, id := range s.pre {
			if id == "" {
				return s, false
			}
		}
	}
	return s, true
}

// compareSemver orders two versions by semantic versioning's precedence.
func compareSemver(a, b semver) int {
	for i := range a.core {
		if a.core[i] != b.core[i] {
			if a.core[i] < b.core[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1 // a release comes after its pre-releases
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, y := a.pre[i], b.pre[i]
		nx, errx := strconv.ParseUint(x, 10, 64)
		ny, erry := strconv.ParseUint(y, 10, 64)
		switch {
		case errx == nil && erry == nil:
			if nx != ny {
				if nx < ny {
					return -1
				}
				return 1
			}
		case errx == nil:
			return -1 // numeric identifiers come first
		case erry == nil:
			return 1
		case x != y:
			return strings.Compare(x, y)
		}
	}
	return len(a.pre) - len(b.pre)
}
