package check

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/dial"
	"github.com/signpost-dev/signpost/check/jsonval"
	"github.com/signpost-dev/signpost/check/transport"
)

// gateState is what the access.gate probes learned of a gated site.
type gateState struct {
	// gated says /tools refused a request without the token.
	gated bool
	// publicDiscovery says the discovery catalogs answered without it.
	publicDiscovery bool
}

// checkGate applies access.gate when Options.Token is set: the routes the
// token opens must refuse a request without it, with 401 (and a Bearer
// challenge) or 403, or 404 for a tool, carrying the CORS headers and never
// the document; the discovery catalogs may answer, when the organization
// keeps them public. A gated site that answered its list to anyone would
// leak the tenant's tools, so a 200 fails.
func (c *checker) checkGate(ctx context.Context, ids []string) {
	if c.opts.Token == "" {
		return
	}
	probes := []string{c.at(spec.RouteTools), c.at(spec.RouteToolCatalogue)}
	if len(ids) > 0 {
		probes = append(probes, c.toolURL(ids[0], ""))
	}
	discovery := []string{c.at(spec.RouteAICatalog), c.at(spec.RouteMCPCatalog)}
	for i, u := range append(probes, discovery...) {
		if ctx.Err() != nil {
			c.add("access.gate", ResultSkip, u, "out of time", "not asked without the token")
			continue
		}
		r := c.send(ctx, u, "", "", false, false)
		withToken := c.pages[u]
		isDiscovery := i >= len(probes)
		ev := "without the token: status " + strconv.Itoa(r.status)
		switch {
		case r.err != nil:
			c.add("access.gate", ResultFail, u, "without the token: GET failed: "+dial.ErrText(r.err, c.opts.Timeout), "must refuse a request without the token")
		case r.status == http.StatusOK && isDiscovery:
			c.gate.publicDiscovery = true
			c.add("access.gate", ResultPass, u, ev, "public, as the discovery catalogs of a gated site may be")
		case r.status == http.StatusOK:
			c.add("access.gate", ResultFail, u, ev, "answered without the token: the gate is open, and anyone can read what the token should protect")
		case r.status == http.StatusNotFound && withToken != nil && withToken.status == http.StatusOK && !strings.HasPrefix(c.path(u), spec.RouteTools+"/"):
			c.add("access.gate", ResultFail, u, ev+", 200 with the token", "must refuse with 401 or 403, not pretend the document is missing")
		case r.status != http.StatusUnauthorized && r.status != http.StatusForbidden && r.status != http.StatusNotFound:
			c.add("access.gate", ResultFail, u, ev, "must refuse a request without the token with 401 or 403")
		case transport.CORSProblem(r.header) != "":
			c.add("access.gate", ResultFail, u, ev+", "+transport.CORSProblem(r.header), "a refusal must carry the CORS headers, or browsers cannot read why")
		case r.status == http.StatusUnauthorized && !strings.HasPrefix(strings.ToLower(r.header.Get("WWW-Authenticate")), "bearer"):
			c.add("access.gate", ResultFail, u, ev+", WWW-Authenticate: "+jsonval.Show(r.header.Get("WWW-Authenticate")), "a 401 must challenge with WWW-Authenticate: Bearer")
		case withToken != nil && withToken.status == http.StatusOK && r.size == withToken.size && r.sum == withToken.sum:
			c.add("access.gate", ResultFail, u, ev+", with the document's bytes", "a refusal must not carry the document")
		default:
			if u == c.at(spec.RouteTools) {
				c.gate.gated = true
			}
			c.add("access.gate", ResultPass, u, ev, "refused without the token")
		}
	}
}

// path is the route of a URL of the checked site (c.at made it: the base,
// then the route, then maybe a query).
func (c *checker) path(u string) string {
	route, _, _ := strings.Cut(strings.TrimPrefix(u, c.base), "?")
	return route
}

// private reports whether the response of u must be private: it was let
// through the gate, which marks what it protects so that no shared cache
// hands it to a client without the token.
func (c *checker) private(u string) bool {
	return c.gate.gated && !(c.gate.publicDiscovery && strings.HasPrefix(c.path(u), spec.WellKnownPrefix))
}
