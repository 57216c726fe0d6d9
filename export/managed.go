package export

import (
	"cmp"
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
//   - A package that speaks stdio is allowed by serverCommand: each
//     command line a client runs it with (packageCommands), at most 64.
//   - A server with neither, or with a package whose command a user
//     completes (an argument left to fill in), a bundle or a package over
//     HTTP, can only be allowed by its serverName, which matches the name a
//     user gives a server in their configuration, not the server itself; a
//     note says so.
//
// The error is an *output.TenantError, a *NoServersError, or a
// *ServerError for a remote whose URL no pattern can match.
func ManagedSettings(cat *build.Catalog, tenant string) (*Document, error) {
	servers, err := siteServers(cat, tenant)
	if err != nil {
		return nil, err
	}
	doc := &Document{}
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
				entries = append(entries, entry{key: "serverUrl", value: p})
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
		byName := ""
		for _, p := range s.Locals {
			if p == nil {
				continue
			}
			commands, why, hint := packageCommands(p)
			if hint != "" {
				doc.Notes = append(doc.Notes, s.Name+": "+hint)
			}
			if why != "" {
				byName = cmp.Or(byName, why)
				continue
			}
			for _, c := range commands {
				entries = append(entries, entry{key: "serverCommand", command: c})
				a.By = append(a.By, "serverCommand "+strings.Join(c, " "))
			}
		}
		switch {
		case byName != "":
			entries = append(entries, entry{key: "serverName", value: s.Name})
			a.By = append(a.By, "serverName "+s.Name)
			doc.Notes = append(doc.Notes, fmt.Sprintf("%s is allowed by serverName, which matches the name a user gives a server, whatever it runs: %s", s.Name, byName))
		case len(a.By) == 0:
			entries = append(entries, entry{key: "serverName", value: s.Name})
			a.By = append(a.By, "serverName "+s.Name)
			doc.Notes = append(doc.Notes, fmt.Sprintf("%s declares no remote and no package: it is allowed by serverName, which matches the name a user gives a server, whatever it runs", s.Name))
		}
		slices.Sort(a.By)
		doc.Servers = append(doc.Servers, Allowed{Name: a.Name, By: slices.Compact(a.By)})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.key, b.key), strings.Compare(a.value, b.value), slices.Compare(a.command, b.command))
	})
	entries = slices.CompactFunc(entries, func(a, b entry) bool {
		return a.key == b.key && a.value == b.value && slices.Equal(a.command, b.command)
	})
	list := make([]map[string]any, len(entries))
	for i, e := range entries {
		if e.command != nil {
			list[i] = map[string]any{e.key: e.command}
		} else {
			list[i] = map[string]any{e.key: e.value}
		}
	}
	if doc.JSON, err = encode(map[string]any{"allowedMcpServers": list}); err != nil {
		return nil, err
	}
	return doc, nil
}

// entry is one matcher of allowedMcpServers: serverUrl or serverName and
// its value, or serverCommand and its command line.
type entry struct {
	key, value string
	command    []string
}
