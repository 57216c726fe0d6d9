package export

import (
	"fmt"
	"slices"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/internal/english"
)

// transportStreamable is the remote type Cline recommends, and the one an
// export prefers when a server declares several remotes.
const transportStreamable = "streamable-http"

// Cline returns the MCP part of Cline's remote configuration that allows
// the servers tenant's site publishes and nothing else:
//
//   - allowedMCPServers: an {"id": NAME} for every server, sorted. Cline
//     runs a server its users configure themselves only when the name
//     they give it is one of these.
//   - remoteMCPServers: a {"name": NAME, "url": URL} for every server with
//     a remote, sorted by name: pushed to every user. A server declares
//     one URL per remote and Cline takes one per server: the first
//     streamable-http remote, else the first remote. Its variables are
//     filled as a client that asks nothing fills them: a fixed value, else
//     the default; a variable with neither is an error, for Cline takes a
//     URL as it is. The remote's headers are left out (a secret one is
//     each user's own): a note names those it declares.
//   - blockPersonalRemoteMCPServers: true, so that users add no remote
//     server of their own.
//
// The error is an *output.TenantError, a *NoServersError or a
// *ServerError.
func Cline(cat *build.Catalog, tenant string) (*Document, error) {
	servers, err := siteServers(cat, tenant)
	if err != nil {
		return nil, err
	}
	doc := &Document{}
	allowed := make([]map[string]string, 0, len(servers))
	remotes := []map[string]string{}
	for _, s := range servers {
		a := Allowed{Name: s.Name, By: []string{"id " + s.Name}}
		allowed = append(allowed, map[string]string{"id": s.Name})
		if r := clineRemote(s.Endpoints); r != nil {
			template, _ := r.URL.String()
			u, missing := resolve(template, r.Variables)
			if missing != "" {
				return nil, &ServerError{Server: s.Name, URL: template, Reason: fmt.Sprintf("needs {%s}, which has no value or default: Cline's remoteMCPServers takes a URL as it is; give the variable a default", missing)}
			}
			remotes = append(remotes, map[string]string{"name": s.Name, "url": u})
			a.By = append(a.By, "remoteMCPServers "+u)
			if headers := headerNames(r); len(headers) > 0 {
				doc.Notes = append(doc.Notes, fmt.Sprintf("%s: its remote takes %s %s, which its remoteMCPServers entry leaves out: a value the same for every user can be added to the entry's headers by hand", s.Name, english.Plural(len(headers), "the header", "the headers"), english.Some(headers, 8)))
			}
		}
		slices.Sort(a.By)
		doc.Servers = append(doc.Servers, a)
	}
	doc.JSON, err = encode(map[string]any{
		"allowedMCPServers":             allowed,
		"blockPersonalRemoteMCPServers": true,
		"remoteMCPServers":              remotes,
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// clineRemote is the remote of a server a Cline entry connects to: the
// first streamable-http one with a URL, else the first with a URL; nil
// when there is none.
func clineRemote(remotes []*discovery.Remote) *discovery.Remote {
	var first *discovery.Remote
	for _, r := range remotes {
		if r == nil {
			continue
		}
		if _, ok := r.URL.String(); !ok {
			continue
		}
		if t, _ := r.Type.String(); t == transportStreamable {
			return r
		}
		if first == nil {
			first = r
		}
	}
	return first
}

// headerNames lists the headers a remote declares, as "Authorization
// (required, secret)".
func headerNames(r *discovery.Remote) []string {
	var names []string
	for _, h := range r.Headers {
		if h == nil {
			continue
		}
		n, ok := h.Name.String()
		if !ok {
			continue
		}
		switch {
		case h.IsRequired && h.IsSecret:
			n += " (required, secret)"
		case h.IsRequired:
			n += " (required)"
		case h.IsSecret:
			n += " (secret)"
		}
		names = append(names, n)
	}
	return names
}
