package export

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/gencatalog"
)

// This file proves the exports allow every server a built site publishes
// and nothing else, site by site: over the example, a catalog of many
// servers of every shape a remote's URL takes, and a large generated
// catalog. The published servers are read from the built site's server
// cards, not from the catalog the exports read, and held to its MCP
// registry list when the site has one; serverUrl patterns are
// matched as GitHub documents its matching (docs/policy.md), and a pattern
// of any other form fails the test.

// cardServer is what a published server card says of a server's
// endpoints.
type cardServer struct {
	Name    string       `json:"name"`
	Remotes []cardRemote `json:"remotes"`
}

type cardRemote struct {
	Type      string `json:"type"`
	URL       string `json:"url"`
	Variables map[string]struct {
		Value   *string  `json:"value"`
		Default *string  `json:"default"`
		Choices []string `json:"choices"`
	} `json:"variables"`
}

// published reads the servers a built site publishes: its v1 server cards,
// sorted by name.
func published(t *testing.T, s *output.Site) []cardServer {
	t.Helper()
	var out []cardServer
	for _, d := range s.Documents {
		if d.ContentType != spec.ContentTypeServerCardV1 {
			continue
		}
		var c cardServer
		if err := json.Unmarshal(buildtest.Body(t, d), &c); err != nil {
			t.Fatalf("%s of %s: %v", d.Route.Route, spec.SiteName(s.Tenant), err)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b cardServer) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// registryRoute is the route of an MCP registry's server list.
const registryRoute = "/v0.1/servers"

// registryPackage is a package as the registry's server.json publishes
// it: what a client runs.
type registryPackage struct {
	RegistryType string `json:"registryType"`
	Identifier   string `json:"identifier"`
	Version      string `json:"version"`
	Transport    struct {
		Type string `json:"type"`
	} `json:"transport"`
	RuntimeArguments     []registryArgument `json:"runtimeArguments"`
	PackageArguments     []registryArgument `json:"packageArguments"`
	EnvironmentVariables []struct {
		Name string `json:"name"`
	} `json:"environmentVariables"`
}

type registryArgument struct {
	Type        string   `json:"type"`
	Name        string   `json:"name"`
	ValueHint   *string  `json:"valueHint"`
	Value       *string  `json:"value"`
	Default     *string  `json:"default"`
	Description *string  `json:"description"`
	Choices     []string `json:"choices"`
	Variables   map[string]struct {
		Value   *string  `json:"value"`
		Choices []string `json:"choices"`
	} `json:"variables"`
}

// registryNames reads the names of the servers a built site's MCP registry
// lists, sorted, and their packages, when the site has one: the exports
// must allow what it lists too. A site with documents below /v0.1/ but no
// list at registryRoute fails the test, so that a registry never goes
// unchecked.
func registryNames(t *testing.T, s *output.Site) ([]string, map[string][]registryPackage, bool) {
	t.Helper()
	var below bool
	for _, d := range s.Documents {
		below = below || strings.HasPrefix(d.Route.Route, "/v0.1/")
		if d.Route.Route != registryRoute {
			continue
		}
		var list struct {
			Servers []struct {
				Server struct {
					Name     string            `json:"name"`
					Packages []registryPackage `json:"packages"`
				} `json:"server"`
			} `json:"servers"`
		}
		if err := json.Unmarshal(buildtest.Body(t, d), &list); err != nil {
			t.Fatalf("%s of %s: %v", registryRoute, spec.SiteName(s.Tenant), err)
		}
		var names []string
		packages := map[string][]registryPackage{}
		for _, e := range list.Servers {
			names = append(names, e.Server.Name)
			packages[e.Server.Name] = e.Server.Packages
		}
		slices.Sort(names)
		return names, packages, true
	}
	if below {
		t.Fatalf("%s has documents below /v0.1/ but none at %s: read its registry list where it is", spec.SiteName(s.Tenant), registryRoute)
	}
	return nil, nil, false
}

// commandLines are the command lines a client runs a published package
// with, as VS Code writes a server it installs from a registry
// (getMcpServerConfigurationFromManifest of its mcpManagementService.ts,
// docs/policy.md), restated here: the usual program of the registry type,
// docker's run -i --rm, the runtime arguments, docker's -e NAME per
// environment variable, the package and its version, nuget's --yes (and
// -- before package arguments), the package arguments. An argument
// without a fixed value, choices, or the literal VS Code writes makes
// byName true: no command names the package, and its server is allowed by
// serverName. So does a package over HTTP and an mcpb bundle.
func commandLines(p registryPackage) (lines [][]string, byName bool) {
	program := map[string]string{"npm": "npx", "pypi": "uvx", "oci": "docker", "nuget": "dnx"}[p.RegistryType]
	if program == "" || p.Transport.Type != "stdio" {
		return nil, true
	}
	lines = [][]string{{program}}
	add := func(alts ...[]string) {
		var next [][]string
		for _, l := range lines {
			for _, a := range alts {
				next = append(next, append(slices.Clone(l), a...))
			}
		}
		lines = next
	}
	args := func(list []registryArgument) bool {
		for _, a := range list {
			var values []string
			switch {
			case a.Value != nil:
				values = []string{*a.Value}
				for n, v := range a.Variables {
					var fills []string
					switch {
					case v.Value != nil:
						fills = []string{*v.Value}
					case len(v.Choices) > 0:
						fills = v.Choices
					default:
						return false
					}
					var next []string
					for _, val := range values {
						for _, f := range fills {
							next = append(next, strings.ReplaceAll(val, "{"+n+"}", f))
						}
					}
					values = next
				}
			case len(a.Choices) > 0:
				values = a.Choices
			case a.Description != nil || a.Default != nil:
				return false
			case a.Type == "named":
				add([]string{a.Name})
				continue
			default:
				add([]string{*a.ValueHint})
				continue
			}
			var alts [][]string
			for _, v := range values {
				if a.Type == "named" {
					alts = append(alts, []string{a.Name, v})
				} else {
					alts = append(alts, []string{v})
				}
			}
			add(alts...)
		}
		return true
	}
	if p.RegistryType == "oci" {
		add([]string{"run", "-i", "--rm"})
	}
	if !args(p.RuntimeArguments) {
		return nil, true
	}
	switch p.RegistryType {
	case "npm", "nuget":
		add([]string{p.Identifier + "@" + p.Version})
	case "pypi":
		add([]string{p.Identifier + "==" + p.Version})
	case "oci":
		for _, e := range p.EnvironmentVariables {
			add([]string{"-e", e.Name})
		}
		if p.Version != "" {
			add([]string{p.Identifier + ":" + p.Version})
		} else {
			add([]string{p.Identifier})
		}
	}
	if p.RegistryType == "nuget" {
		add([]string{"--yes"})
		if len(p.PackageArguments) > 0 {
			add([]string{"--"})
		}
	}
	if !args(p.PackageArguments) {
		return nil, true
	}
	return lines, false
}

// freeSample is the value a test gives a variable a client may set to
// anything.
const freeSample = "zq1"

// samples returns URLs a client may connect to for a remote: its template
// with every variable given each of its choices, its fixed value, or its
// default and freeSample; at most perVar values a variable (every one when
// perVar is 0), so that the count stays small.
func samples(r cardRemote, perVar int) []string {
	urls := []string{r.URL}
	for _, n := range templateVars(r.URL) {
		v := r.Variables[n]
		var values []string
		switch {
		case v.Value != nil:
			values = []string{*v.Value}
		case len(v.Choices) > 0:
			values = v.Choices
		default:
			if v.Default != nil {
				values = append(values, *v.Default)
			}
			values = append(values, freeSample)
		}
		if perVar > 0 {
			values = values[:min(len(values), perVar)]
		}
		var next []string
		for _, u := range urls {
			for _, val := range values {
				next = append(next, fill(u, n, val))
			}
		}
		urls = next
	}
	return urls
}

// splitURL cuts a URL into its canonical scheme, host, port and the rest
// (path and query), as GitHub canonicalizes one before it compares: scheme
// and host in lower case, the default port dropped, the fragment dropped.
func splitURL(u string) (scheme, host, port, rest string) {
	scheme, after, _ := strings.Cut(u, "://")
	scheme = strings.ToLower(scheme)
	end := strings.IndexAny(after, "/?#")
	if end < 0 {
		end = len(after)
	}
	host, rest = after[:end], after[end:]
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		host, port = host[:i], host[i+1:]
	}
	host = strings.ToLower(host)
	if scheme == "https" && port == "443" || scheme == "http" && port == "80" {
		port = ""
	}
	rest, _, _ = strings.Cut(rest, "#")
	return scheme, host, port, rest
}

// githubMatch reports whether a serverUrl pattern matches a URL, as
// GitHub documents the forms a pattern takes: "*" as the leftmost label of
// the host (subdomains) and at the end of the path (a path prefix). A "*"
// anywhere else fails the test: the export must use the documented forms
// only.
func githubMatch(t *testing.T, pattern, u string) bool {
	ps, ph, pp, pr := splitURL(pattern)
	us, uh, up, ur := splitURL(u)
	if strings.Contains(strings.TrimPrefix(ph, "*."), "*") || strings.Contains(strings.TrimSuffix(pr, "*"), "*") || strings.Contains(pp, "*") {
		t.Fatalf("serverUrl %s has a wildcard GitHub does not document", pattern)
	}
	if ps != us || pp != up {
		return false
	}
	if suffix, ok := strings.CutPrefix(ph, "*."); ok {
		if !strings.HasSuffix(uh, "."+suffix) || len(uh) == len(suffix)+1 {
			return false
		}
	} else if ph != uh {
		return false
	}
	if prefix, ok := strings.CutSuffix(pr, "*"); ok {
		return strings.HasPrefix(ur, prefix)
	}
	return pr == ur
}

// matcher holds serverUrl patterns indexed, so that a URL is held to the
// few that can match it: an exact pattern by its canonical URL, a pattern
// with a wildcard by its host ("*.DOMAIN" for one of DOMAIN's subdomains).
type matcher struct {
	t      *testing.T
	exact  map[string][]string
	byHost map[string][]string
}

func newMatcher(t *testing.T, patterns []string) *matcher {
	m := &matcher{t: t, exact: map[string][]string{}, byHost: map[string][]string{}}
	for _, p := range patterns {
		if !strings.Contains(p, "*") {
			m.exact[canonical(p)] = append(m.exact[canonical(p)], p)
			continue
		}
		_, host, _, _ := splitURL(p)
		m.byHost[host] = append(m.byHost[host], p)
	}
	return m
}

// canonical is u as GitHub compares it (see splitURL).
func canonical(u string) string {
	scheme, host, port, rest := splitURL(u)
	return scheme + "://" + host + ":" + port + rest
}

// matches returns the patterns that match u.
func (m *matcher) matches(u string) []string {
	out := slices.Clone(m.exact[canonical(u)])
	_, host, _, _ := splitURL(u)
	candidates := slices.Clone(m.byHost[host])
	for rest := host; ; {
		_, after, ok := strings.Cut(rest, ".")
		if !ok {
			break
		}
		candidates = append(candidates, m.byHost["*."+after]...)
		rest = after
	}
	for _, p := range candidates {
		if githubMatch(m.t, p, u) {
			out = append(out, p)
		}
	}
	return out
}

// managedEntries decodes a managed-settings fragment: each entry must hold
// exactly one matcher.
func managedEntries(t *testing.T, data []byte) (urls, names []string, commands [][]string) {
	t.Helper()
	var doc map[string][]map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if keys := slices.Collect(maps.Keys(doc)); !slices.Equal(keys, []string{"allowedMcpServers"}) {
		t.Fatalf("managed settings have the keys %v, want allowedMcpServers only", keys)
	}
	for _, e := range doc["allowedMcpServers"] {
		if len(e) != 1 {
			t.Fatalf("entry %v has %d matchers, want exactly one", e, len(e))
		}
		switch {
		case e["serverUrl"] != nil:
			urls = append(urls, e["serverUrl"].(string))
		case e["serverName"] != nil:
			names = append(names, e["serverName"].(string))
		case e["serverCommand"] != nil:
			list, _ := e["serverCommand"].([]any)
			var c []string
			for _, a := range list {
				s, ok := a.(string)
				if !ok {
					t.Fatalf("entry %v: serverCommand holds %v, not a string", e, a)
				}
				c = append(c, s)
			}
			if len(c) == 0 {
				t.Fatalf("entry %v: serverCommand is no command", e)
			}
			commands = append(commands, c)
		default:
			t.Fatalf("entry %v matches by neither serverUrl, serverName nor serverCommand", e)
		}
	}
	return urls, names, commands
}

type clineDoc struct {
	Allowed []struct {
		ID string `json:"id"`
	} `json:"allowedMCPServers"`
	Block   *bool `json:"blockPersonalRemoteMCPServers"`
	Remotes []struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"remoteMCPServers"`
}

// holdAgreement holds both exports of every site of cat to what the built
// site publishes; outside are URLs no published server declares (the
// cards of servers another host serves), which no entry may match.
func holdAgreement(t *testing.T, cat *build.Catalog, outside []string) {
	t.Helper()
	tenants := cat.Config.Tenants
	ctx := context.Background()
	b, err := build.Compile(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(tenants) == 0 {
		tenants = []string{""}
	}
	if len(b.Sites) != len(tenants) {
		t.Fatalf("%d sites for %d tenants", len(b.Sites), len(tenants))
	}
	for i, tenant := range tenants {
		site := spec.SiteName(tenant)
		pub := published(t, b.Sites[i])
		if len(pub) == 0 {
			t.Fatalf("%s publishes no server card", site)
		}
		var pubNames []string
		for _, p := range pub {
			pubNames = append(pubNames, p.Name)
		}
		listed, err := cat.SiteServers(tenant)
		if err != nil {
			t.Fatal(err)
		}
		var listedNames []string
		for _, s := range listed {
			listedNames = append(listedNames, s.Name)
		}
		if diff := cmp.Diff(pubNames, listedNames); diff != "" {
			t.Fatalf("%s: the site's cards and SiteServers disagree (-cards +SiteServers):\n%s", site, diff)
		}
		names, packages, ok := registryNames(t, b.Sites[i])
		if ok {
			if diff := cmp.Diff(pubNames, names); diff != "" {
				t.Fatalf("%s: the site's cards and its registry list disagree (-cards +registry):\n%s", site, diff)
			}
		}

		doc, err := ManagedSettings(cat, tenant)
		if err != nil {
			t.Fatal(err)
		}
		urls, names, commands := managedEntries(t, doc.JSON)
		// Every command line a published package runs with is allowed,
		// and every serverCommand is one of them; a server none of whose
		// packages a command names is allowed by name.
		wantCommands := map[string]bool{}
		byName := map[string]bool{}
		for _, p := range pub {
			for _, pkg := range packages[p.Name] {
				lines, name := commandLines(pkg)
				byName[p.Name] = byName[p.Name] || name
				for _, l := range lines {
					wantCommands[strings.Join(l, "\x00")] = true
				}
			}
			if len(p.Remotes) == 0 && len(packages[p.Name]) == 0 {
				byName[p.Name] = true
			}
		}
		gotCommands := map[string]bool{}
		for _, c := range commands {
			key := strings.Join(c, "\x00")
			if gotCommands[key] {
				t.Errorf("%s: serverCommand %q is listed twice", site, c)
			}
			gotCommands[key] = true
			if !wantCommands[key] {
				t.Errorf("%s: serverCommand %q is no command a published package runs with", site, c)
			}
		}
		for key := range wantCommands {
			if !gotCommands[key] {
				t.Errorf("%s: the command %q of a published package is allowed by no entry", site, strings.Split(key, "\x00"))
			}
		}
		m := newMatcher(t, urls)
		allows := func(u string) bool { return len(m.matches(u)) > 0 }
		// Every URL a published remote makes, each of its variables
		// given every known value, and the shape of each remote as a
		// serverUrl pattern can widen it at most.
		declared := map[string]bool{}
		var shapes []*regexp.Regexp
		for _, p := range pub {
			for _, r := range p.Remotes {
				for _, u := range samples(r, 0) {
					declared[canonical(u)] = true
				}
				shapes = append(shapes, shape(r.URL))
			}
		}
		used := map[string]bool{}
		for _, p := range pub {
			if byName[p.Name] {
				if !slices.Contains(names, p.Name) {
					t.Errorf("%s: %s has neither a remote nor a package a command names, and no serverName entry", site, p.Name)
				}
				used["name "+p.Name] = true
			}
			for _, r := range p.Remotes {
				for _, u := range samples(r, 3) {
					if !allows(u) {
						t.Errorf("%s: %s's URL %s (of %s) is allowed by no entry", site, p.Name, u, r.URL)
					}
					for _, pat := range m.matches(u) {
						used["url "+pat] = true
					}
					for _, probe := range probes(u, r.URL) {
						if allows(probe) {
							t.Errorf("%s: %s, which no server declares, is allowed (probe of %s's %s)", site, probe, p.Name, u)
						}
					}
				}
			}
		}
		for _, pat := range urls {
			if !used["url "+pat] {
				t.Errorf("%s: serverUrl %s allows no URL of a published server", site, pat)
			}
			if !strings.Contains(pat, "*") {
				if !declared[canonical(pat)] {
					t.Errorf("%s: serverUrl %s is no URL a published remote makes", site, pat)
				}
				continue
			}
			w := witness(pat)
			if !slices.ContainsFunc(shapes, func(re *regexp.Regexp) bool { return re.MatchString(w) }) {
				t.Errorf("%s: serverUrl %s allows %s, beyond what GitHub's forms make of any published remote", site, pat, w)
			}
		}
		for _, n := range names {
			if !used["name "+n] {
				t.Errorf("%s: serverName %s is no published server that only its name can allow", site, n)
			}
		}
		for _, u := range outside {
			if allows(u) {
				t.Errorf("%s: %s, the card of a server another host serves, is allowed", site, u)
			}
		}

		doc, err = Cline(cat, tenant)
		if err != nil {
			t.Fatal(err)
		}
		var c clineDoc
		if err := json.Unmarshal(doc.JSON, &c); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range c.Allowed {
			ids = append(ids, a.ID)
		}
		if diff := cmp.Diff(pubNames, ids); diff != "" {
			t.Errorf("%s: allowedMCPServers are not the published servers (-published +ids):\n%s", site, diff)
		}
		if c.Block == nil || !*c.Block {
			t.Errorf("%s: blockPersonalRemoteMCPServers is not true", site)
		}
		var remoteNames []string
		for _, r := range c.Remotes {
			remoteNames = append(remoteNames, r.Name)
			i := slices.IndexFunc(pub, func(p cardServer) bool { return p.Name == r.Name })
			if i < 0 {
				t.Errorf("%s: remoteMCPServers has %s, which the site does not publish", site, r.Name)
				continue
			}
			if !slices.ContainsFunc(pub[i].Remotes, func(cr cardRemote) bool { return slices.Contains(samples(cr, 3), r.URL) }) {
				t.Errorf("%s: remoteMCPServers gives %s the URL %s, which none of its remotes makes", site, r.Name, r.URL)
			}
		}
		var withRemotes []string
		for _, p := range pub {
			if len(p.Remotes) > 0 {
				withRemotes = append(withRemotes, p.Name)
			}
		}
		if diff := cmp.Diff(withRemotes, remoteNames); diff != "" {
			t.Errorf("%s: remoteMCPServers are not the published servers with remotes (-published +remoteMCPServers):\n%s", site, diff)
		}
	}
}

// witness is a URL a serverUrl pattern allows, canonical: each "*" given
// freeSample.
func witness(pattern string) string {
	scheme, host, port, rest := splitURL(pattern)
	host = strings.Replace(host, "*", freeSample, 1)
	rest = strings.Replace(rest, "*", freeSample, 1)
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host + rest
}

// shape is the widest a serverUrl pattern may make of a remote's URL
// template, as a regular expression over canonical URLs: in a host with
// variables, every label up to the last one that holds one becomes any
// subdomain; the path and query after their first variable become
// anything. No more than GitHub's forms force (docs/policy.md).
func shape(template string) *regexp.Regexp {
	scheme, rest, _ := strings.Cut(template, "://")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host, tail := rest[:end], rest[end:]
	port := ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host, port = host[:i], host[i:]
	}
	var b strings.Builder
	b.WriteString("^" + regexp.QuoteMeta(strings.ToLower(scheme)+"://"))
	labels := strings.Split(strings.ToLower(host), ".")
	last := -1
	for i, l := range labels {
		if strings.Contains(l, "{") {
			last = i
		}
	}
	if last >= 0 {
		b.WriteString(`[^/?#:]+\.`)
	}
	b.WriteString(regexp.QuoteMeta(strings.Join(labels[last+1:], ".") + port))
	if i := strings.IndexByte(tail, '{'); i >= 0 {
		b.WriteString(regexp.QuoteMeta(tail[:i]) + ".*")
	} else {
		b.WriteString(regexp.QuoteMeta(tail))
	}
	return regexp.MustCompile(b.String() + "$")
}

// probes are URLs near u, a URL of the remote template, that no
// declaration makes: another domain, the other scheme, another port, and,
// for a template without variables, a longer path.
func probes(u, template string) []string {
	scheme, after, _ := strings.Cut(u, "://")
	end := strings.IndexAny(after, "/?#")
	if end < 0 {
		end = len(after)
	}
	authority, rest := after[:end], after[end:]
	other := map[string]string{"https": "http", "http": "https"}[strings.ToLower(scheme)]
	out := []string{
		scheme + "://attacker.example.net" + rest,
		other + "://" + authority + rest,
	}
	if !strings.Contains(authority, ":") {
		out = append(out, scheme+"://"+authority+":8443"+rest)
	}
	if !strings.Contains(template, "{") {
		out = append(out, u+"x", strings.TrimSuffix(u, "/")+"/x")
	}
	return out
}

func TestAgreementExample(t *testing.T) {
	cat := load(t, catalogtest.ExampleDir(t))
	holdAgreement(t, cat, []string{"https://mcp.helpdesk-vendor.example.net/example-corp/.well-known/mcp-server-card"})
}

// shapedServers declares n servers, each of one of the shapes a remote's
// URL takes, and returns the declarations and the card URLs of the ones
// another host serves.
func shapedServers(n int) (string, []string) {
	var b strings.Builder
	var outside []string
	b.WriteString("servers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: com.example/s%04d\n", i)
		if i%11 == 9 {
			u := fmt.Sprintf("https://vendor%d.example.net/card.json", i)
			fmt.Fprintf(&b, "    cardUrl: %s\n", u)
			outside = append(outside, u)
			continue
		}
		fmt.Fprintf(&b, "    version: 1.%d.0\n    description: Server number %d.\n", i%7, i)
		switch i % 11 {
		case 0: // a URL as it is
			fmt.Fprintf(&b, "    remotes:\n      - {type: streamable-http, url: \"https://s%d.mcp.example.com/mcp\"}\n", i)
		case 1: // a subdomain of choices
			fmt.Fprintf(&b, "    remotes:\n      - type: streamable-http\n        url: \"https://{region}.s%d.example.com/mcp\"\n        variables:\n          region: {description: Region, default: eu, choices: [eu, us, ap]}\n", i)
		case 2: // a subdomain of any value
			fmt.Fprintf(&b, "    remotes:\n      - type: streamable-http\n        url: \"https://{tenant}.s%d.example.com/mcp\"\n        variables:\n          tenant: {description: Tenant, default: acme}\n", i)
		case 3: // a path of any value
			fmt.Fprintf(&b, "    remotes:\n      - type: streamable-http\n        url: \"https://api.example.com/s%d/{tenant}/mcp\"\n        variables:\n          tenant: {description: Tenant, default: t1}\n", i)
		case 4: // a fixed value
			fmt.Fprintf(&b, "    remotes:\n      - type: streamable-http\n        url: \"https://mcp.example.com/s%d/{v}\"\n        variables:\n          v: {description: Version, value: v2}\n", i)
		case 5: // two remotes
			fmt.Fprintf(&b, "    remotes:\n      - {type: sse, url: \"https://mcp.example.com/s%d/sse\"}\n      - {type: streamable-http, url: \"https://mcp.example.com/s%d\"}\n", i, i)
		case 6: // no remote
		case 7: // a query of any value
			fmt.Fprintf(&b, "    remotes:\n      - type: streamable-http\n        url: \"https://mcp.example.com/s%d?tenant={tenant}\"\n        variables:\n          tenant: {description: Tenant, default: x}\n", i)
		case 8: // more combinations of choices than are listed
			fmt.Fprintf(&b, "    remotes:\n      - type: streamable-http\n        url: \"https://{a}.{b}.s%d.example.com/{c}\"\n        variables:\n", i)
			ten := "[a0, a1, a2, a3, a4, a5, a6, a7, a8, a9]"
			fmt.Fprintf(&b, "          a: {description: A, default: a0, choices: %s}\n          b: {description: B, default: a1, choices: %s}\n          c: {description: C, default: c0, choices: [c0, c1, c2]}\n", ten, ten)
		case 10: // plain http on a loopback host
			fmt.Fprintf(&b, "    remotes:\n      - {type: streamable-http, url: \"http://127.0.0.1:%d/mcp\"}\n", 9000+i)
		}
		// Packages, beside some of the shapes above.
		switch i % 55 {
		case 6: // an npm package only, one command per choice
			fmt.Fprintf(&b, "    packages:\n      - registryType: npm\n        identifier: \"@example/s%d\"\n        version: 1.0.%d\n        transport: {type: stdio}\n        runtimeArguments: [{type: named, name: -y}]\n        packageArguments:\n          - {type: named, name: --mode, value: \"{mode}\", variables: {mode: {description: Mode, choices: [read, write]}}}\n          - {type: positional, value: serve}\n", i, i)
		case 17: // no remote, and a package a user completes
			fmt.Fprintf(&b, "    packages:\n      - registryType: pypi\n        identifier: s%d\n        version: \"2.0\"\n        transport: {type: stdio}\n        packageArguments: [{type: positional, valueHint: dir, description: A folder}]\n", i)
		case 5: // two remotes and an image with environment variables
			fmt.Fprintf(&b, "    packages:\n      - registryType: oci\n        identifier: ghcr.io/example/s%d:1.0.0\n        transport: {type: stdio}\n        environmentVariables: [{name: S_TOKEN, isSecret: true}, {name: S_MODE, value: fast}]\n", i)
		case 0: // a URL as it is, a NuGet tool and a bundle
			fmt.Fprintf(&b, "    packages:\n      - {registryType: nuget, identifier: Example.S%d, version: 3.0.0, transport: {type: stdio}, packageArguments: [{type: named, name: --verbose}]}\n      - {registryType: mcpb, identifier: \"https://example.com/s%d.mcpb\", fileSha256: %s, transport: {type: stdio}}\n", i, i, strings.Repeat("ab", 32))
		case 1: // a subdomain of choices and a package over HTTP
			fmt.Fprintf(&b, "    packages:\n      - {registryType: npm, identifier: s%d, version: 1.0.0, transport: {type: streamable-http, url: \"http://localhost:8080/mcp\"}}\n", i)
		}
	}
	return b.String(), outside
}

func TestAgreementShapes(t *testing.T) {
	servers, outside := shapedServers(330)
	cat := load(t, catalogtest.Write(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\ntenants: [t1, t2]\n",
		"servers.yaml":  servers,
	}))
	if len(cat.Servers) != 330 {
		t.Fatalf("%d servers loaded, want 330", len(cat.Servers))
	}
	holdAgreement(t, cat, outside)
	// A catalog without tenants has one site.
	cat = load(t, catalogtest.Write(t, map[string]string{
		"signpost.yaml": "site: {origin: https://example.com, publisher: example.com}\n",
		"servers.yaml":  servers,
	}))
	holdAgreement(t, cat, outside)
}

func TestAgreementGenerated(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	dir := t.TempDir()
	if err := gencatalog.Write(dir, gencatalog.Options{Servers: n}); err != nil {
		t.Fatal(err)
	}
	cat := load(t, dir)
	if len(cat.Servers) != n {
		t.Fatalf("%d servers loaded, want %d", len(cat.Servers), n)
	}
	holdAgreement(t, cat, nil)
}
