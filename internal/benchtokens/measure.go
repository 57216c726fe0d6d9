package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tokens"
	"github.com/signpost-dev/signpost/internal/english"
)

// row is the figures of one server, or of the whole corpus: tokens in
// o200k_base.
type row struct {
	server string
	tools  int
	// standard is the standard list's entries (/tools), noDigest the same
	// without each descriptor's definition digest, compact the compact
	// list's (/tools?view=compact).
	standard, noDigest, compact int
	// group is the server's group document of the tool catalogue.
	group int
}

// ratio is what the compact list costs of the standard list.
func (r row) ratio() float64 { return fraction(r.compact, r.standard) }

// ratioNoDigest is the same against the standard list without digests.
func (r row) ratioNoDigest() float64 { return fraction(r.compact, r.noDigest) }

func fraction(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// report is what the benchmark measured of a site.
type report struct {
	rows  []row
	total row
	// aiCatalog is the site's root, catalogue the tool catalogue: the
	// walks to a callable tool start there.
	aiCatalog, catalogue int
	// groupsIndex is the catalogue's groups member alone: what a client
	// reads of the catalogue to choose a group.
	groupsIndex int
	// losses name each thing a compact descriptor lost; checked is what
	// they were looked for in.
	losses  []string
	checked checked
}

// metaSuffix is the definition digest every standard descriptor ends with.
var metaSuffix = regexp.MustCompile(`,"_meta":\{"` + regexp.QuoteMeta(spec.DefinitionMeta) + `":\{"digest":"sha256:[0-9a-f]{64}","size":[0-9]+\}\}\}$`)

// withoutDigest is a standard descriptor without its definition digest:
// the _meta member it ends with, when that holds the digest alone.
func withoutDigest(desc []byte) []byte {
	loc := metaSuffix.FindIndex(desc)
	if loc == nil {
		return desc
	}
	return append(desc[:loc[0]:loc[0]], '}')
}

// measure counts the site's lists, per server (servers, the names after
// the slash of the tools' MCP servers, in the order of the table) and in
// total, and holds each compact descriptor to its standard one.
func measure(s *output.Site, servers []string) (*report, error) {
	counter, err := tokens.NewCounter()
	if err != nil {
		return nil, err
	}
	var countErr error // the first error of count
	count := func(b []byte) int {
		n, err := counter.Count(b)
		if err != nil && countErr == nil {
			countErr = fmt.Errorf("count tokens: %w", err)
		}
		return n
	}
	type tool struct{ standard, compact []byte }
	byServer := map[string][]tool{}
	var groups struct {
		Groups []struct{ Name, Document string }
	}
	var catalogue struct{ Groups json.RawMessage }
	docs := map[string][]byte{} // by route and view
	r := &report{}
	for _, d := range s.Documents {
		body, err := d.Body.Bytes()
		if err != nil {
			return nil, err
		}
		docs[d.Route.Route+"?"+d.View] = body
	}
	for _, d := range s.Documents {
		id, ok := spec.ToolIDOf(d.Route.Route)
		if !ok || d.View != spec.ViewStandard {
			continue
		}
		std := bytes.TrimSuffix(docs[d.Route.Route+"?"+d.View], []byte("\n"))
		var desc struct{ Server string }
		if err := json.Unmarshal(std, &desc); err != nil {
			return nil, fmt.Errorf("the descriptor of tool %s: %w", id, err)
		}
		_, name, _ := strings.Cut(desc.Server, "/")
		cpt, ok := docs[d.Route.Route+"?"+spec.ViewCompact]
		if !ok {
			return nil, fmt.Errorf("tool %s has no compact descriptor", id)
		}
		cpt = bytes.TrimSuffix(cpt, []byte("\n"))
		byServer[name] = append(byServer[name], tool{std, cpt})
		lost, n := losses(std, cpt)
		r.losses, r.checked = append(r.losses, lost...), r.checked.add(n)
	}
	for _, v := range []any{&groups, &catalogue} {
		if err := json.Unmarshal(docs[spec.RouteToolCatalogue+"?"+spec.ViewStandard], v); err != nil {
			return nil, fmt.Errorf("the tool catalogue: %w", err)
		}
	}
	r.groupsIndex = count(catalogue.Groups)
	groupDoc := map[string][]byte{}
	for _, g := range groups.Groups {
		groupDoc[g.Name] = docs[g.Document+"?"+spec.ViewStandard]
	}
	for _, name := range servers {
		ts := byServer[name]
		if len(ts) == 0 {
			return nil, fmt.Errorf("the site has no tool of server %s", name)
		}
		var std, bare, cpt [][]byte
		for _, t := range ts {
			std, bare, cpt = append(std, t.standard), append(bare, withoutDigest(t.standard)), append(cpt, t.compact)
		}
		r.rows = append(r.rows, row{
			server: name, tools: len(ts),
			standard: count(standardList(std)), noDigest: count(standardList(bare)), compact: count(compactList(cpt)),
			group: count(groupDoc[name]),
		})
		delete(byServer, name)
	}
	if len(byServer) > 0 {
		return nil, fmt.Errorf("the site has tools of servers outside the corpus: %s", strings.Join(slices.Sorted(maps.Keys(byServer)), ", "))
	}
	stdList := docs[spec.RouteTools+"?"+spec.ViewStandard]
	var raw []json.RawMessage
	if err := json.Unmarshal(stdList, &raw); err != nil {
		return nil, fmt.Errorf("the /tools list: %w", err)
	}
	var all [][]byte
	for _, d := range raw {
		all = append(all, withoutDigest(d))
	}
	r.total = row{
		server: "total", tools: s.Tools,
		standard: count(stdList), noDigest: count(standardList(all)),
		compact: count(docs[spec.RouteTools+"?"+spec.ViewCompact]),
	}
	for _, x := range r.rows {
		r.total.group = max(r.total.group, x.group)
	}
	r.aiCatalog = count(docs[spec.RouteAICatalog+"?"+spec.ViewStandard])
	r.catalogue = count(docs[spec.RouteToolCatalogue+"?"+spec.ViewStandard])
	return r, countErr
}

// standardList is descriptors as /tools lists them.
func standardList(descs [][]byte) []byte {
	return slices.Concat([]byte("["), bytes.Join(descs, []byte(",")), []byte("]\n"))
}

// compactList is compact descriptors as /tools?view=compact lists them.
func compactList(descs [][]byte) []byte {
	return slices.Concat([]byte(`{"tools":[`), bytes.Join(descs, []byte(",")), []byte("]}\n"))
}

// viaCompact is the tokens from the AI catalog to a callable tool through
// the compact list: the AI catalog names /tools and its compact view, and
// each compact descriptor is enough to call the tool by toolId.
func (r *report) viaCompact() int { return r.aiCatalog + r.total.compact }

// viaGroups is the same through the tool catalogue's groups: the AI
// catalog names the catalogue, which lists the groups, and the group's
// document holds its tools' arguments.
func (r *report) viaGroups(x row) int { return r.aiCatalog + r.catalogue + x.group }

// markdown is the report as a Markdown table, the walks to a callable
// tool and what the compact descriptors were held to below it.
func (r *report) markdown() string {
	var b strings.Builder
	b.WriteString("| server | tools | /tools | without digests | compact | compact / /tools | compact / without digests | its group's document |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|\n")
	line := func(x row, name, group string) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1f%% | %.1f%% | %s |\n",
			name, x.tools, x.standard, x.noDigest, x.compact, 100*x.ratio(), 100*x.ratioNoDigest(), group)
	}
	for _, x := range r.rows {
		line(x, x.server, strconv.Itoa(x.group))
	}
	line(r.total, "**total**", fmt.Sprintf("%d to %d", minGroup(r.rows), r.total.group))
	fmt.Fprintf(&b, "\nTokens from the AI catalog (%d) to a callable tool:\n\n", r.aiCatalog)
	fmt.Fprintf(&b, "- through the compact view, AI catalog + /tools?view=compact: %d\n", r.viaCompact())
	fmt.Fprintf(&b, "- through the standard list, AI catalog + /tools: %d\n", r.aiCatalog+r.total.standard)
	fmt.Fprintf(&b, "- through the catalogue's groups, AI catalog + /tool-catalogue.json (%d, of which its groups %d) + the tool's group document: %d to %d\n",
		r.catalogue, r.groupsIndex, r.aiCatalog+r.catalogue+minGroup(r.rows), r.viaGroups(r.total))
	fmt.Fprintf(&b, "\nEach compact descriptor held to its standard one: toolId, description, %s, %s of at most %d values: %s.\n",
		english.Count(r.checked.required, "required argument", "required arguments"), english.Count(r.checked.enums, "enum", "enums"),
		maxEnum, english.Count(len(r.losses), "loss", "losses"))
	return b.String()
}

func minGroup(rows []row) int {
	m := 0
	for i, x := range rows {
		if i == 0 || x.group < m {
			m = x.group
		}
	}
	return m
}
