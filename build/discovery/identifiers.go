package discovery

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The identifiers of the AI catalog's entries, in the domain-anchored form
// of the MCP server card extension: urn:air:PUBLISHER:mcp:NAME for a server,
// urn:air:PUBLISHER:tool-catalog:NAME for the tool catalog. Every one
// matches the AI Catalog's identifier pattern, which has no '/': a server's
// name (com.example/weather) cannot be used as it is.

// AIIdentifierRe is the form of a server's AI catalog identifier, declared or
// derived: urn:air:DOMAIN:mcp: and one segment of letters, digits, '.', '_'
// and '-'. The schemas and the checker spell the same pattern.
var AIIdentifierRe = regexp.MustCompile(`^urn:air:[a-zA-Z0-9.-]+:mcp:[a-zA-Z0-9._-]+$`)

// aiSegmentRe matches what an identifier's segment cannot hold.
var aiSegmentRe = regexp.MustCompile(`[^a-zA-Z0-9._-]`)

// AISegment normalizes s into one segment of an AI catalog identifier: every
// character other than an ASCII letter, digit, '.', '_' or '-' becomes '-'.
func AISegment(s string) string {
	return aiSegmentRe.ReplaceAllString(s, "-")
}

// ToolCatalogIdentifier is the AI catalog identifier of a site's tool
// catalog: urn:air:PUBLISHER:tool-catalog:TENANT for a tenant's site, and
// urn:air:PUBLISHER:tool-catalog:tools for the one site of a catalog without
// tenants.
func ToolCatalogIdentifier(publisher, tenant string) string {
	if tenant == "" {
		tenant = "tools"
	}
	return "urn:air:" + publisher + ":tool-catalog:" + AISegment(tenant)
}

// OwnNamespace is the reverse-DNS namespace of a publisher's own servers:
// the publisher's domain reversed, com.example for example.com.
func OwnNamespace(publisher string) string {
	labels := strings.Split(publisher, ".")
	slices.Reverse(labels)
	return strings.Join(labels, ".")
}

// AIIdentifiers gives each server its AI catalog identifier, in the order of
// servers ("" for a nil entry), and the problems of the identifiers, by the
// server's index (nil when there are none). The rule depends on neither the
// order of servers nor which other servers there are: adding a server never
// changes another's identifier.
//
//   - A server that declares aiCatalogIdentifier has that identifier. It
//     must start with urn:air:PUBLISHER:mcp:, with PUBLISHER the
//     publisher (Declare checks the rest of its form, AIIdentifierRe, and
//     one not of that form takes no part here).
//   - Any other server's identifier is DerivedAIIdentifier's: NAME, the
//     part of its name after the namespace, or NAMESPACE.NAME when NAME is
//     generic (GenericServerName) and the namespace is not the publisher's
//     own.
//   - When two or more servers would have the same identifier, ignoring
//     case, the ones that declare theirs and the ones whose namespace is the
//     publisher's own (OwnNamespace, ignoring case) keep it, and every other
//     one of the collision is a problem at its name (/name): it is to
//     declare aiCatalogIdentifier, and the message suggests
//     urn:air:PUBLISHER:mcp:NAMESPACE.NAME, the identifier releases before
//     this rule derived for it in that collision.
//   - An identifier that is still not unique, ignoring case, is a problem
//     of each server but the first to have it, derived identifiers taken
//     before declared ones (a declared identifier is the one to change):
//     the author sets aiCatalogIdentifier explicitly. A declared identifier
//     is the problem's subject (/aiCatalogIdentifier), a derived one the
//     server's name (/name).
func AIIdentifiers(publisher string, servers []*Server) ([]string, map[int][]Problem) {
	base := "urn:air:" + publisher + ":mcp:"
	own := OwnNamespace(publisher)
	ids := make([]string, len(servers))
	out := map[int][]Problem{}
	add := func(i int, ptr, format string, args ...any) {
		out[i] = append(out[i], Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
	}
	valid := make([]bool, len(servers))
	for i, s := range servers {
		if s == nil {
			continue
		}
		if id := s.AICatalogIdentifier; id != "" {
			ids[i] = id
			switch {
			case !AIIdentifierRe.MatchString(id):
				// Declare reports it.
			case !strings.HasPrefix(id, base):
				add(i, "/aiCatalogIdentifier", "aiCatalogIdentifier %q must be %sNAME: the AI catalog's identifiers are anchored at the publisher's domain (site.publisher)", id, base)
			default:
				valid[i] = true
			}
			continue
		}
		ids[i] = DerivedAIIdentifier(publisher, s.Name)
		valid[i] = true
	}

	// A collision renames nobody: the servers that do not keep the
	// identifier are told to declare one.
	groups := map[string][]int{}
	for i, id := range ids {
		if valid[i] {
			groups[strings.ToLower(id)] = append(groups[strings.ToLower(id)], i)
		}
	}
	yields := make([]bool, len(servers))
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		var keepers, others []string
		for _, i := range g {
			s := servers[i]
			ns, _ := serverNameParts(s.Name)
			if s.AICatalogIdentifier == "" && !strings.EqualFold(ns, own) {
				yields[i] = true
				others = append(others, s.Name)
			} else {
				keepers = append(keepers, s.Name)
			}
		}
		slices.Sort(keepers)
		slices.Sort(others)
		for _, i := range g {
			if !yields[i] {
				continue
			}
			s := servers[i]
			ns, name := serverNameParts(s.Name)
			with := keepers
			if len(with) == 0 {
				with = slices.DeleteFunc(slices.Clone(others), func(n string) bool { return n == s.Name })
			}
			suggest := base + AISegment(ns+"."+name)
			if strings.EqualFold(suggest, ids[i]) {
				suggest = base + AISegment(strings.ReplaceAll(s.Name, "/", "-"))
			}
			add(i, "/name", "server %q would have the AI catalog identifier %q, which server %q has too: set aiCatalogIdentifier here, such as %s (an identifier is derived from the server's name alone; no collision renames a server)", s.Name, ids[i], with[0], suggest)
		}
	}

	claimed := map[string]int{}
	for _, declared := range []bool{false, true} {
		for i, s := range servers {
			if !valid[i] || yields[i] || (s.AICatalogIdentifier != "") != declared {
				continue
			}
			key := strings.ToLower(ids[i])
			j, dup := claimed[key]
			if !dup {
				claimed[key] = i
				continue
			}
			if declared {
				add(i, "/aiCatalogIdentifier", "aiCatalogIdentifier %q is already the AI catalog identifier of server %q: identifiers must be unique, ignoring case", s.AICatalogIdentifier, servers[j].Name)
			} else {
				add(i, "/name", "server %q would have the AI catalog identifier %q, which server %q already has: set aiCatalogIdentifier to one of its own, such as %s%s", s.Name, ids[i], servers[j].Name, base, AISegment(strings.ReplaceAll(s.Name, "/", "-")))
			}
		}
	}
	if len(out) == 0 {
		return ids, nil
	}
	for i := range out {
		slices.SortFunc(out[i], func(a, b Problem) int { return strings.Compare(a.Pointer+"\x00"+a.Message, b.Pointer+"\x00"+b.Message) })
	}
	return ids, out
}

// DerivedAIIdentifier is the AI catalog identifier of a server named name
// that declares none: urn:air:PUBLISHER:mcp:NAME, NAME being the part of
// its name after the namespace (weather for com.example/weather), or
// NAMESPACE.NAME when that part is generic (GenericServerName) and the
// namespace is not the publisher's own (OwnNamespace, ignoring case):
// com.gitlab/mcp is urn:air:example.com:mcp:com.gitlab.mcp, com.example/mcp
// urn:air:example.com:mcp:mcp. The segment is normalized by AISegment. It
// depends on the name and the publisher alone.
func DerivedAIIdentifier(publisher, name string) string {
	ns, own := serverNameParts(name)
	seg := own
	if ns != "" && GenericServerName(own) && !strings.EqualFold(ns, OwnNamespace(publisher)) {
		seg = ns + "." + own
	}
	return "urn:air:" + publisher + ":mcp:" + AISegment(seg)
}

// GenericServerName reports whether the part of a server's name after its
// namespace says nothing of the server, ignoring case: api, mcp, mcp-api,
// mcp-server, mcp_server, mcpserver, remote, remote-mcp, server or
// server-mcp. Registries hold many servers named so (com.gitlab/mcp,
// io.cycloid.mcp/server), which only their namespace tells apart.
func GenericServerName(name string) bool {
	switch strings.ToLower(name) {
	case "api", "mcp", "mcp-api", "mcp-server", "mcp_server", "mcpserver", "remote", "remote-mcp", "server", "server-mcp":
		return true
	}
	return false
}

// serverNameParts splits a server name into its namespace and its own name;
// a name without '/' is all name.
func serverNameParts(name string) (namespace, own string) {
	if ns, n, ok := strings.Cut(name, "/"); ok {
		return ns, n
	}
	return "", name
}

// GenericQualified reports whether old and new are the AI catalog
// identifiers a server named name was derived before and since generic
// names are qualified by their namespace (DerivedAIIdentifier): old
// urn:air:PUBLISHER:mcp:NAME, new urn:air:PUBLISHER:mcp:NAMESPACE.NAME, NAME
// generic. A comparison of a site built before with one built since says
// so, for its author did not change the identifier.
func GenericQualified(name, old, new string) bool {
	ns, own := serverNameParts(name)
	if ns == "" || !GenericServerName(own) {
		return false
	}
	rest, ok := strings.CutPrefix(new, "urn:air:")
	if !ok {
		return false
	}
	publisher, _, ok := strings.Cut(rest, ":mcp:")
	if !ok {
		return false
	}
	base := "urn:air:" + publisher + ":mcp:"
	return old == base+AISegment(own) && new == base+AISegment(ns+"."+own)
}
