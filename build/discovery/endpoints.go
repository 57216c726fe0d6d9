package discovery

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
)

// The card beside an MCP endpoint: the Server Card extension reserves
// <streamable-http-url>/server-card for a server's card
// (experimental-ext-server-card, docs/discovery.md, "Hosted Server Card
// Location"). A site can answer that path only for an endpoint on its own
// origin; the card of an endpoint elsewhere is that server's to answer.

// EndpointCard is one Streamable HTTP endpoint of a local server with a
// literal URL (no {variable}), and where the site answers the server's v1
// card beside it.
type EndpointCard struct {
	// Server is the index of the server in the list EndpointCards read;
	// Remote the index of the endpoint in its remotes.
	Server, Remote int
	// Name is the server's name; URL the endpoint's URL as declared.
	Name, URL string
	// Route is <the endpoint's path>/server-card when the endpoint is on
	// the site's origin and its path can be a document's; "" otherwise.
	Route string
	// Elsewhere is set when the endpoint is on another origin than the
	// site's: the site cannot answer its card's URL.
	Elsewhere bool
	// Problem says why an endpoint on the site's origin cannot have its
	// card beside it (a path no host serves as a document's); "" when it
	// can, or when it is Elsewhere.
	Problem string
}

// CardURL is where a client finds the card beside the endpoint: the
// endpoint's URL, without a final slash, and /server-card.
func (e EndpointCard) CardURL() string {
	return strings.TrimSuffix(e.URL, "/") + "/" + spec.ServerCardSegment
}

// EndpointCards lists the Streamable HTTP endpoints with a literal URL of
// the local servers (a cross-host server's card is another host's; a nil
// server is skipped), in the order declared, each with the route of its
// card on the site of origin (see EndpointCard). Two endpoints of one
// server with the same route are listed once.
func EndpointCards(origin string, servers []*Server) []EndpointCard {
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" {
		return nil
	}
	var out []EndpointCard
	for i, s := range servers {
		if s == nil || s.CrossHost() {
			continue
		}
		seen := map[string]bool{}
		for j, r := range s.Endpoints {
			if r == nil {
				continue
			}
			typ, _ := r.Type.String()
			raw, ok := r.URL.String()
			if typ != "streamable-http" || !ok || strings.ContainsAny(raw, "{}") || CheckRemoteURL(raw) != "" {
				continue
			}
			u, err := url.Parse(raw)
			if err != nil {
				continue
			}
			e := EndpointCard{Server: i, Remote: j, Name: s.Name, URL: raw}
			if !sameOrigin(o, u) {
				e.Elsewhere = true
				out = append(out, e)
				continue
			}
			e.Route, e.Problem = endpointCardRoute(u)
			key := strings.ToLower(e.Route)
			if e.Route != "" && seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, e)
		}
	}
	return out
}

// sameOrigin reports whether u is on the origin o: the same scheme, host
// (ignoring case) and port (a scheme's default port written or not).
func sameOrigin(o, u *url.URL) bool {
	port := func(x *url.URL) string {
		if p := x.Port(); p != "" {
			return p
		}
		if strings.EqualFold(x.Scheme, "http") {
			return "80"
		}
		return "443"
	}
	return strings.EqualFold(o.Scheme, u.Scheme) &&
		strings.EqualFold(strings.TrimSuffix(o.Hostname(), "."), strings.TrimSuffix(u.Hostname(), ".")) &&
		port(o) == port(u)
}

// endpointCardRoute is the route of the card beside the endpoint u, or
// why it cannot be one: its path, without a final slash, and
// /server-card, every segment of letters, digits, '.', '_', '-' and '~',
// none "." or "..", none in publish's namespace.
func endpointCardRoute(u *url.URL) (string, string) {
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", "its URL has a query or a fragment, so no path of this site is <url>/server-card"
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	route := p + "/" + spec.ServerCardSegment
	for _, seg := range strings.Split(route[1:], "/") {
		switch {
		case seg == "":
			return "", "its path has empty segments (//)"
		case seg == "." || seg == "..":
			return "", `its path has "." or ".." segments`
		case spec.IsReservedName(seg):
			return "", "its path " + spec.ReservedProblem
		}
		for k := 0; k < len(seg); k++ {
			if c := seg[k]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~-", c) >= 0) {
				return "", "its path has a character other than letters, digits, '.', '_', '-' and '~' between its slashes, which no host serves as a document's path"
			}
		}
	}
	if len(route) > 1024 {
		return "", "its path is longer than a document's may be (1024 bytes)"
	}
	return route, ""
}

// EndpointProblem is a problem of one endpoint's card: Server is the index
// of the server, Pointer is relative to the server item.
type EndpointProblem struct {
	Server int
	Problem
}

// CheckEndpointCards applies the rules of the cards beside endpoints on
// the site's origin (cards, as EndpointCards lists them, of servers):
//   - the endpoint's path can be a document's (EndpointCard.Problem);
//   - the card's route is none of the tool catalog's (/tools and below),
//     the tool catalogue's groups', the MCP registry's (/v0.1/ and
//     below), and does not lie inside a discovery catalog or a card path;
//   - no card path lies inside it (a file cannot also be a folder on
//     static hosts);
//   - two servers' endpoints do not share a route, ignoring case: the
//     first keeps it.
//
// Each problem points at the endpoint's URL, /remotes/N/url. reserved
// are further routes the site publishes (the catalogs, /.well-known/ard.json),
// which the route must neither be nor lie inside.
func CheckEndpointCards(cards []EndpointCard, servers []*Server, reserved []string) []EndpointProblem {
	var out []EndpointProblem
	add := func(e EndpointCard, format string, args ...any) {
		msg := fmt.Sprintf("the card of this endpoint would be answered at %s, but %s", e.CardURL(), fmt.Sprintf(format, args...))
		out = append(out, EndpointProblem{e.Server, Problem{Pointer: fmt.Sprintf("/remotes/%d/url", e.Remote), Message: msg}})
	}
	files := map[string]string{} // a card path, lower case, to what it is
	for _, s := range servers {
		if s == nil || s.CrossHost() {
			continue
		}
		files[strings.ToLower(s.DraftRoute())] = fmt.Sprintf("the draft card path %s of server %q", s.DraftRoute(), s.Name)
		files[strings.ToLower(s.V1Route())] = fmt.Sprintf("the v1 card path %s of server %q", s.V1Route(), s.Name)
	}
	for _, r := range reserved {
		files[strings.ToLower(r)] = r
	}
	claimed := map[string]EndpointCard{}
	for _, e := range cards {
		if e.Elsewhere {
			continue
		}
		if e.Problem != "" {
			add(e, "%s: serve the card at a card path (card.v1Path) and let the MCP server answer /server-card", e.Problem)
			continue
		}
		key := strings.ToLower(e.Route)
		_, group := spec.GroupKeyOf(key)
		switch {
		case key == spec.RouteTools+"/"+spec.ServerCardSegment || strings.HasPrefix(key, spec.RouteTools+"/"):
			add(e, "%s is the tool catalog's (/tools and below): move the endpoint", e.Route)
			continue
		case group || strings.HasPrefix(key, strings.TrimSuffix(spec.RouteGroups, "groups/")):
			add(e, "%s is the tool catalogue's: move the endpoint", e.Route)
			continue
		case strings.HasPrefix(key, spec.RegistryFolder):
			add(e, "%s is the MCP registry's (%s and below): move the endpoint", e.Route, spec.RegistryFolder)
			continue
		}
		inside := ""
		for k := len(key) - 1; k > 0 && inside == ""; k-- {
			if key[k] == '/' {
				inside = files[key[:k]]
			}
		}
		if inside != "" {
			add(e, "that lies inside %s: a file cannot also be a folder on static hosts; move the endpoint or the card", inside)
			continue
		}
		if what, ok := files[key]; ok {
			add(e, "that is %s: move the endpoint or the card", what)
			continue
		}
		under := ""
		for f, what := range files {
			if strings.HasPrefix(f, key+"/") && (under == "" || what < under) {
				under = what
			}
		}
		if under != "" {
			add(e, "%s lies inside it: a file cannot also be a folder on static hosts; move the endpoint or the card", under)
			continue
		}
		if c, dup := claimed[key]; dup {
			if c.Server != e.Server {
				add(e, "that is already the card of server %q, whose endpoint %s has the same path: each server needs an endpoint of its own, ignoring case", c.Name, c.URL)
			}
			continue
		}
		claimed[key] = e
	}
	return out
}
