package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build"
)

// ManagedSettings returns the fragment of GitHub Copilot's
// managed-settings.json that allows the servers tenant's site publishes
// and nothing else: {"allowedMcpServers": [...]}, each entry with exactly
// one matcher, sorted and each once.
//
//   - A remote is allowed by its serverUrl: its URL as declared when it
//     has no variable; one exact URL per value when every variable has a
//     fixed value or choices (at most 64); otherwise the pattern with the
//     wildcards GitHub's matching accepts (see wildcard), and a note says
//     so. A server with several remotes has an entry for each.
//   - A server without remotes can only be allowed by its serverName,
//     which matches the name a user gives a server in their configuration,
//     not the server itself; a note says so.
//
// Declarations cannot declare local packages, so no entry is a
// serverCommand. The error is an *output.TenantError, a *NoServersError,
// or a *ServerError for a remote whose URL no pattern can match.
func ManagedSettings(cat *build.Catalog, tenant string) (*Document, error) {
	servers, err := siteServers(cat, tenant)
	if err != nil {
		return nil, err
	}
	doc := &Document{}
	type entry struct{ key, value string }
	var entries []entry
	for _, s := range servers {
		a := Allowed{Name: s.Name}
		for _, r := range s.Endpoints {
			if r == nil {
				continue
			}
			template, ok := r.URL.String()
			if !ok {
				continue
			}
			patterns, free, err := urlPatterns(template, r.Variables)
			if err != nil {
				return nil, &ServerError{Server: s.Name, URL: template, Reason: err.Error()}
			}
			for _, p := range patterns {
				entries = append(entries, entry{"serverUrl", p})
				a.By = append(a.By, "serverUrl "+p)
			}
			if len(free) > 0 {
				for i, n := range free {
					free[i] = "{" + n + "}"
				}
				doc.Notes = append(doc.Notes, fmt.Sprintf("%s: a wildcard stands for %s of %s: %s allows every URL it matches",
					s.Name, strings.Join(free, ", "), template, strings.Join(patterns, ", ")))
			}
		}
		if len(a.By) == 0 {
			entries = append(entries, entry{"serverName", s.Name})
			a.By = append(a.By, "serverName "+s.Name)
			doc.Notes = append(doc.Notes, fmt.Sprintf("%s declares no remote: it is allowed by serverName, which matches the name a user gives a server, whatever it runs", s.Name))
		}
		slices.Sort(a.By)
		doc.Servers = append(doc.Servers, Allowed{Name: a.Name, By: slices.Compact(a.By)})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.value, b.value)
	})
	entries = slices.Compact(entries)
	list := make([]map[string]string, len(entries))
	for i, e := range entries {
		list[i] = map[string]string{e.key: e.value}
	}
	if doc.JSON, err = encode(map[string]any{"allowedMcpServers": list}); err != nil {
		return nil, err
	}
	return doc, nil
}
