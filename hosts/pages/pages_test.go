package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// pagesExample loads and compiles the example catalog.
func pagesExample(t testing.TB) *output.Build {
	t.Helper()
	return buildtest.Example(t)
}

// pagesSite returns the site of tenant.
func pagesSite(t testing.TB, b *output.Build, tenant string) *output.Site {
	t.Helper()
	s, err := b.Site(tenant)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantPagesPath is where Pages must serve a route: a path ending in .json,
// never a file where a folder must be; a registry route's at its key.
func wantPagesPath(route, view string) string {
	if key, ok := spec.RegistryKey(route); ok {
		return key
	}
	suffix := ".json"
	if view == spec.ViewCompact {
		suffix = ".compact.json"
	}
	if route == "/tools" || strings.HasPrefix(route, "/tools/") {
		return route[1:] + suffix
	}
	return route[1:]
}

func TestPagesLayoutFiles(t *testing.T) {
	b := pagesExample(t)
	for _, s := range b.Sites {
		t.Run(s.Dir, func(t *testing.T) {
			files, _ := Layout(s)
			want := make([]output.Document, 0, len(s.Documents))
			for _, d := range s.Documents {
				d.Key = wantPagesPath(d.Route.Route, d.View)
				want = append(want, d)
			}
			if diff := cmp.Diff(want, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			keys := map[string]bool{}
			for _, f := range files {
				if !strings.HasSuffix(f.Key, ".json") {
					t.Errorf("%s is served at %s: Pages would not serve it as application/json", f.Route.Route, f.Key)
				}
				keys[f.Key] = true
			}
			for k := range keys {
				for dir := path.Dir(k); dir != "."; dir = path.Dir(dir) {
					if keys[dir] {
						t.Errorf("%s is a file and the folder of %s", dir, k)
					}
				}
			}
		})
	}

	// Golden paths for a few routes of the first tenant.
	files, _ := Layout(pagesSite(t, b, "acme"))
	got := map[string]string{}
	for _, f := range files {
		got[f.Route.Route+"?view="+f.View] = f.Key
	}
	for rv, key := range map[string]string{
		"/tools?view=standard":                                                 "tools.json",
		"/tools?view=compact":                                                  "tools.compact.json",
		"/tools/get_forecast?view=standard":                                    "tools/get_forecast.json",
		"/tools/get_forecast?view=compact":                                     "tools/get_forecast.compact.json",
		"/.well-known/ai-catalog.json?view=standard":                           ".well-known/ai-catalog.json",
		"/.well-known/mcp/catalog.json?view=standard":                          ".well-known/mcp/catalog.json",
		"/.well-known/mcp-server-card/docs.json?view=standard":                 ".well-known/mcp-server-card/docs.json",
		"/.well-known/mcp/servers/com.example/weather.json?view=standard":      ".well-known/mcp/servers/com.example/weather.json",
		"/.well-known/mcp/server-cards/com.example/weather.json?view=standard": ".well-known/mcp/server-cards/com.example/weather.json",
	} {
		if got[rv] != key {
			t.Errorf("%s is served at %q, want %q", rv, got[rv], key)
		}
	}
}

// The gaps of a few routes of the example, written out in full.
var pagesGoldenGaps = []Gap{
	{
		Kind:        KindCORS,
		Route:       "*",
		Requirement: "Access-Control-Allow-Methods: GET, HEAD, OPTIONS, Access-Control-Allow-Headers: Authorization, Content-Type, If-None-Match and Access-Control-Expose-Headers: ETag on every response",
		Served:      "only Access-Control-Allow-Origin: *, so browsers fetch the documents but a script cannot send If-None-Match or read the ETag",
		Fix:         "in a CDN or worker in front of Pages, add the three headers to every response, errors included; or publish to S3 behind CloudFront instead",
	},
	{
		Kind:        KindCacheControl,
		Route:       "*",
		Requirement: "Cache-Control: public, max-age=3600 (a SHOULD)",
		Served:      "Cache-Control: max-age=600, so clients revalidate every 10 minutes rather than every hour",
		Fix:         "in a CDN or worker in front of Pages, set Cache-Control: public, max-age=3600; or publish to S3 behind CloudFront instead; harmless to leave as it is",
	},
	{
		Kind:        KindContentType,
		Route:       "/.well-known/ai-catalog.json",
		View:        "standard",
		Requirement: "Content-Type application/ai-catalog+json",
		Served:      "application/json, the type of the .json extension",
		Fix:         "in a CDN or worker in front of Pages, set Content-Type: application/ai-catalog+json on /.well-known/ai-catalog.json; or publish to S3 behind CloudFront instead, which stores it on the object",
	},
	{
		Kind:        KindContentType,
		Route:       "/.well-known/mcp/server-cards/com.example/weather.json",
		View:        "standard",
		Requirement: "Content-Type application/mcp-server-card+json",
		Served:      "application/json, the type of the .json extension",
		Fix:         "in a CDN or worker in front of Pages, set Content-Type: application/mcp-server-card+json on /.well-known/mcp/server-cards/com.example/weather.json; or publish to S3 behind CloudFront instead, which stores it on the object",
	},
	{
		Kind:        KindContentType,
		Route:       "/.well-known/mcp/servers/com.example/weather.json",
		View:        "standard",
		Requirement: "Content-Type application/mcp-server+json",
		Served:      "application/json, the type of the .json extension: clients that check it, as the draft spec says they should, reject the card",
		Fix:         "in a CDN or worker in front of Pages, set Content-Type: application/mcp-server+json on /.well-known/mcp/servers/com.example/weather.json; or publish to S3 behind CloudFront instead, which stores it on the object",
	},
	{
		Kind:        KindToolList,
		Route:       "/tools",
		View:        "standard",
		Requirement: "the list at /tools",
		Served:      "it at /tools.json instead; /tools, the URL /.well-known/ai-catalog.json advertises, is Pages' HTML 404",
		Fix:         "in a CDN or worker in front of Pages, rewrite /tools to /tools.json; or publish to S3 behind CloudFront instead",
	},
	{
		Kind:        KindCompactList,
		Route:       "/tools",
		View:        "compact",
		Requirement: "?view=compact to select the compact list",
		Served:      "the compact list at /tools.compact.json instead; Pages ignores the query",
		Fix:         "in a CDN or worker in front of Pages, rewrite /tools?view=compact to /tools.compact.json; or publish to S3 behind CloudFront instead",
	},
	{
		Kind:        KindToolURL,
		Route:       "/tools/get_forecast",
		View:        "standard",
		Requirement: "the descriptor at /tools/get_forecast",
		Served:      "it at /tools/get_forecast.json instead; /tools/get_forecast is Pages' HTML 404",
		Fix:         "in a CDN or worker in front of Pages, rewrite /tools/{toolId} to /tools/{toolId}.json; or publish to S3 behind CloudFront instead",
	},
	{
		Kind:        KindCompactTool,
		Route:       "/tools/get_forecast",
		View:        "compact",
		Requirement: "?view=compact to select the compact descriptor",
		Served:      "it at /tools/get_forecast.compact.json instead; Pages ignores the query",
		Fix:         "in a CDN or worker in front of Pages, rewrite /tools/{toolId}?view=compact to /tools/{toolId}.compact.json; or publish to S3 behind CloudFront instead",
	},
	{
		Kind:        KindNotFound,
		Route:       "/tools/{toolId}",
		Requirement: "a JSON 404 for an unknown toolId",
		Served:      "its own HTML 404 page: the status is right, the body is HTML (a 404.html of your own would be text/html too)",
		Fix:         "in a CDN or worker in front of Pages, answer an unknown /tools/{toolId} with a JSON 404; or publish to S3 behind CloudFront instead",
	},
}

// pagesGapKind classifies a gap by what the contract asks.
func pagesGapKind(g Gap) string {
	switch {
	case g.Kind == KindRegistry:
		return "registry"
	case g.Route == EveryRoute && strings.HasPrefix(g.Requirement, "Access-Control-"):
		return "cors"
	case g.Route == EveryRoute && strings.HasPrefix(g.Requirement, "Cache-Control:"):
		return "cache"
	case g.Route == UnknownTool:
		return "404"
	case strings.HasPrefix(g.Requirement, "Content-Type "):
		return "type"
	case strings.HasPrefix(g.Requirement, "?view=compact to "):
		return "view"
	case strings.HasPrefix(g.Requirement, "the list at ") || strings.HasPrefix(g.Requirement, "the descriptor at ") || strings.HasPrefix(g.Requirement, "the document at "):
		return "url"
	}
	return "unknown: " + g.Requirement
}

type pagesGapID struct{ Route, View, Kind string }

// wantPagesGaps is every gap a site must get on Pages, in the order
// Layout gives them, worked out from the documents alone.
func wantPagesGaps(s *output.Site) []pagesGapID {
	want := []pagesGapID{{"*", "", "cors"}, {"*", "", "cache"}}
	var standard, compact []pagesGapID
	for _, d := range s.Documents {
		id := pagesGapID{Route: d.Route.Route, View: d.View}
		var ids []pagesGapID
		switch {
		case d.View == spec.ViewCompact:
			id.Kind = "view"
			ids = append(ids, id)
		case spec.IsRegistryRoute(d.Route.Route):
			id.Kind = "registry"
			ids = append(ids, id)
		case d.Route.Route == "/tools" || strings.HasPrefix(d.Route.Route, "/tools/"):
			id.Kind = "url"
			ids = append(ids, id)
		}
		if d.ContentType != "application/json" {
			id.Kind = "type"
			ids = append(ids, id)
		}
		if d.View == spec.ViewCompact {
			compact = append(compact, ids...)
		} else {
			standard = append(standard, ids...)
		}
	}
	// Documents are sorted by route, then view name; gaps put the
	// standard view of a route before its compact one.
	byRoute := func(ids []pagesGapID) map[string][]pagesGapID {
		m := map[string][]pagesGapID{}
		for _, id := range ids {
			m[id.Route] = append(m[id.Route], id)
		}
		return m
	}
	std, cpt := byRoute(standard), byRoute(compact)
	var routes []string
	for _, d := range s.Documents {
		if len(routes) == 0 || routes[len(routes)-1] != d.Route.Route {
			routes = append(routes, d.Route.Route)
		}
	}
	routes = append(routes, UnknownTool)
	slices.Sort(routes)
	for _, r := range routes {
		if r == UnknownTool {
			want = append(want, pagesGapID{UnknownTool, "", "404"})
			continue
		}
		want = append(want, std[r]...)
		want = append(want, cpt[r]...)
	}
	return want
}

func TestPagesLayoutGaps(t *testing.T) {
	b := pagesExample(t)
	for _, s := range b.Sites {
		t.Run(s.Dir, func(t *testing.T) {
			_, gaps := Layout(s)
			var got []pagesGapID
			for _, g := range gaps {
				got = append(got, pagesGapID{g.Route, g.View, pagesGapKind(g)})
				if g.Requirement == "" || g.Served == "" || g.Fix == "" {
					t.Errorf("gap %+v: a field is empty", g)
				}
				for _, text := range []string{g.Requirement, g.Served, g.Fix} {
					if strings.ContainsAny(text, "\n\r") {
						t.Errorf("gap of %s: %q is not one line", g.Route, text)
					}
				}
				if g.Kind == KindRegistry {
					if !strings.Contains(g.Fix, "signpost serve") || !strings.Contains(g.Fix, "discovery: {registry: false}") {
						t.Errorf("gap of %s: the fix %q names no host that routes the registry", g.Route, g.Fix)
					}
				} else if !strings.Contains(g.Fix, "in front of Pages") || !strings.Contains(g.Fix, "S3 behind CloudFront") {
					t.Errorf("gap of %s: the fix %q names no remedy", g.Route, g.Fix)
				}
			}
			if diff := cmp.Diff(wantPagesGaps(s), got); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}

			// Counts, by kind.
			kinds := map[string]int{}
			for _, id := range got {
				kinds[id.Kind]++
			}
			types, registry := 0, 0
			for _, d := range s.Documents {
				if d.ContentType != spec.ContentTypeJSON {
					types++
				}
				if spec.IsRegistryRoute(d.Route.Route) {
					registry++
				}
			}
			wantKinds := map[string]int{"cors": 1, "cache": 1, "404": 1, "url": s.Tools + 1, "registry": registry, "view": s.Tools + 1, "type": types}
			if diff := cmp.Diff(wantKinds, kinds); diff != "" {
				t.Errorf("gaps by kind (-want +got):\n%s", diff)
			}
			// The MCP catalog is application/json by its spec: it has no
			// gap of its own.
			for _, g := range gaps {
				if g.Route == spec.RouteMCPCatalog {
					t.Errorf("unexpected gap for %s: %+v", spec.RouteMCPCatalog, g)
				}
			}
		})
	}

	// Golden gaps for a few routes.
	_, gaps := Layout(pagesSite(t, b, "acme"))
	golden := map[string]bool{}
	for _, g := range pagesGoldenGaps {
		golden[g.Route+"?"+g.View] = true
	}
	var got []Gap
	for _, g := range gaps {
		if golden[g.Route+"?"+g.View] {
			got = append(got, g)
		}
	}
	if diff := cmp.Diff(pagesGoldenGaps, got); diff != "" {
		t.Errorf("gaps of the golden routes (-want +got):\n%s", diff)
	}
}

// The example's tenants see different tools, and so get different gaps.
func TestPagesLayoutPerTenant(t *testing.T) {
	b := pagesExample(t)
	if len(b.Sites) < 2 {
		t.Skip("the example has no tenants")
	}
	tools := map[string]map[string]bool{}
	for _, s := range b.Sites {
		_, gaps := Layout(s)
		tools[s.Tenant] = map[string]bool{}
		for _, g := range gaps {
			if strings.HasPrefix(g.Route, "/tools/") && g.Route != UnknownTool {
				tools[s.Tenant][g.Route] = true
			}
		}
		if len(tools[s.Tenant]) != s.Tools {
			t.Errorf("%s: gaps for %d tools, the site has %d", s.Dir, len(tools[s.Tenant]), s.Tools)
		}
	}
	if cmp.Equal(tools[b.Sites[0].Tenant], tools[b.Sites[1].Tenant]) {
		t.Errorf("tenants %s and %s get the gaps of the same tools", b.Sites[0].Tenant, b.Sites[1].Tenant)
	}
}

func TestPagesLayoutDeterministic(t *testing.T) {
	b1, b2 := pagesExample(t), pagesExample(t)
	for i := range b1.Sites {
		f1, g1 := Layout(b1.Sites[i])
		f2, g2 := Layout(b2.Sites[i])
		f3, g3 := Layout(b1.Sites[i])
		if !cmp.Equal(f1, f2) || !cmp.Equal(g1, g2) || !cmp.Equal(f1, f3) || !cmp.Equal(g1, g3) {
			t.Errorf("%s: Layout differs between runs", b1.Sites[i].Dir)
		}
	}
	// Layout does not change the site.
	before := slices.Clone(b1.Sites[0].Documents)
	Layout(b1.Sites[0])
	if !cmp.Equal(before, b1.Sites[0].Documents) {
		t.Error("PagesLayout changed the site's documents")
	}
}

// pagesNoLeftovers fails when out's parent holds anything but out.
func pagesNoLeftovers(t testing.TB, out string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(out) {
			t.Errorf("left behind beside %s: %s", out, e.Name())
		}
	}
}

func TestWrite(t *testing.T) {
	ctx := context.Background()
	b := pagesExample(t)
	b.Files = []output.File{{Path: "extra/notes.txt", Body: []byte("beside the sites\n")}}
	out := filepath.Join(t.TempDir(), "site")
	gaps, err := Write(ctx, b, out)
	if err != nil {
		t.Fatal(err)
	}
	pagesNoLeftovers(t, out)
	tree := catalogtest.ReadTree(t, out)

	want := map[string]string{}
	wantTable := output.RouteTable{Format: output.RouteTableFormat, Sites: []output.SiteRoutes{}}
	wantReport := hosts.Report{Format: ReportFormat, Target: "github-pages", Sites: []hosts.SiteReport{}}
	if len(gaps) != len(b.Sites) {
		t.Fatalf("Write returned %d lists of gaps for %d sites", len(gaps), len(b.Sites))
	}
	// Pages compresses itself: the layout leaves the variants out.
	for i, s := range b.WithoutVariants().Sites {
		files, wantGaps := Layout(s)
		if diff := cmp.Diff(wantGaps, gaps[i]); diff != "" {
			t.Errorf("%s: gaps (-Layout +Write):\n%s", s.Dir, diff)
		}
		want[s.Dir+"/.nojekyll"] = ""
		sr := output.SiteRoutes{Tenant: s.Tenant, Dir: s.Dir, Routes: []output.Route{}}
		for _, f := range files {
			want[s.Dir+"/"+f.Key] = string(buildtest.Body(t, f))
			sr.Routes = append(sr.Routes, f.Route)
		}
		wantTable.Sites = append(wantTable.Sites, sr)
		wantReport.Sites = append(wantReport.Sites, hosts.SiteReport{Tenant: s.Tenant, Dir: s.Dir, Routes: len(s.Documents), Exact: 0, Gaps: wantGaps})
	}
	want["extra/notes.txt"] = "beside the sites\n"
	want[output.RouteTableFile] = tree[output.RouteTableFile]
	want[ReportFile] = tree[ReportFile]
	if diff := cmp.Diff(want, tree); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	rt, err := output.ReadRouteTable(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantTable, *rt); diff != "" {
		t.Errorf("route table (-want +got):\n%s", diff)
	}
	var report hosts.Report
	dec := json.NewDecoder(strings.NewReader(tree[ReportFile]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&report); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantReport, report); diff != "" {
		t.Errorf("%s (-want +got):\n%s", ReportFile, diff)
	}

	// The folder is a build like any other: writing it again, normally
	// or for Pages, replaces it.
	if err := b.Write(ctx, out); err != nil {
		t.Fatalf("Write over a Pages build: %v", err)
	}
	if _, err := Write(ctx, b, out); err != nil {
		t.Fatalf("Write over a build: %v", err)
	}
	if diff := cmp.Diff(tree, catalogtest.ReadTree(t, out)); diff != "" {
		t.Errorf("the second Pages build differs (-first +second):\n%s", diff)
	}
}

func TestWriteDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var trees []map[string]string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprint("site", i))
		if _, err := Write(ctx, pagesExample(t), out); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, catalogtest.ReadTree(t, out))
	}
	if diff := cmp.Diff(trees[0], trees[1]); diff != "" {
		t.Errorf("two Pages builds differ (-first +second):\n%s", diff)
	}
}

func TestWriteAtomic(t *testing.T) {
	ctx := context.Background()
	// withDocument is the example with one more document in its first site.
	withDocument := func(route, contentType string) *output.Build {
		b := pagesExample(t)
		s := b.Sites[0]
		s.Documents = append(s.Documents, buildtest.Document(t, route, spec.ViewStandard, contentType, []byte("{}\n")))
		output.SortDocuments(s.Documents)
		return b
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		build   *output.Build
		wantErr string
	}{
		{
			// Fails half-way: a file name longer than any filesystem takes.
			name:    "a file cannot be written",
			ctx:     ctx,
			build:   withDocument("/.well-known/mcp/servers/"+strings.Repeat("x", 300)+".json", spec.ContentTypeServerCardDraft),
			wantErr: "file name too long",
		},
		{
			name:    "canceled",
			ctx:     canceled,
			build:   pagesExample(t),
			wantErr: context.Canceled.Error(),
		},
		{
			name:    "two routes at one path",
			ctx:     ctx,
			build:   withDocument("/tools.json", spec.ContentTypeServerCardV1),
			wantErr: "route /tools and route /tools.json would both be served at /tools.json on GitHub Pages",
		},
		{
			name:    "a file where a folder must be",
			ctx:     ctx,
			build:   withDocument("/.well-known/mcp", spec.ContentTypeServerCardV1),
			wantErr: "route /.well-known/mcp is served at /.well-known/mcp, which must be a folder for route /.well-known/mcp/",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			if _, err := Write(ctx, pagesExample(t), out); err != nil {
				t.Fatal(err)
			}
			before := catalogtest.ReadTree(t, out)
			gaps, err := Write(tc.ctx, tc.build, out)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Write: got error %v, want one with %q", err, tc.wantErr)
			}
			if gaps != nil {
				t.Errorf("Write failed but returned gaps")
			}
			if diff := cmp.Diff(before, catalogtest.ReadTree(t, out)); diff != "" {
				t.Errorf("a failed Write changed the previous build (-before +after):\n%s", diff)
			}
			pagesNoLeftovers(t, out)
		})
	}
}

func TestWriteKeepsOtherFolders(t *testing.T) {
	out := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Write(context.Background(), pagesExample(t), out)
	if err == nil || !strings.Contains(err.Error(), "not a signpost build") {
		t.Fatalf("Write into a source folder: got %v, want a refusal", err)
	}
	if diff := cmp.Diff(map[string]string{"main.go": "package main\n"}, catalogtest.ReadTree(t, out)); diff != "" {
		t.Errorf("the folder changed (-want +got):\n%s", diff)
	}
}

// pagesSmallSite is a site of one tool with every kind of gap.
func pagesSmallSite(t testing.TB) *output.Site {
	docs := []output.Document{
		buildtest.Document(t, spec.RouteAICatalog, spec.ViewStandard, spec.ContentTypeAICatalog, []byte("{}\n")),
		buildtest.Document(t, spec.RouteMCPCatalog, spec.ViewStandard, spec.ContentTypeJSON, []byte("{}\n")),
		buildtest.Document(t, "/tools", spec.ViewStandard, spec.ContentTypeJSON, []byte("[{}]\n")),
		buildtest.Document(t, "/tools", spec.ViewCompact, spec.ContentTypeJSON, []byte(`{"tools":[{}]}`+"\n")),
		buildtest.Document(t, "/tools/get_forecast", spec.ViewStandard, spec.ContentTypeJSON, []byte("{}\n")),
		buildtest.Document(t, "/tools/get_forecast", spec.ViewCompact, spec.ContentTypeJSON, []byte("{}\n")),
	}
	output.SortDocuments(docs)
	return &output.Site{Dir: "public", Documents: docs, Tools: 1}
}

func TestWriteReport(t *testing.T) {
	s := pagesSmallSite(t)
	_, gaps := Layout(s)
	var buf bytes.Buffer
	if err := writeReport(&buf, []*output.Site{s}, [][]Gap{gaps}); err != nil {
		t.Fatal(err)
	}
	const front = "in a CDN or worker in front of Pages, "
	const instead = "; or publish to S3 behind CloudFront instead"
	want := "What GitHub Pages cannot do:\n" +
		"  /tools will not work on GitHub Pages: it is Pages' HTML 404, and the tool list is at /tools.json.\n" +
		"  ?view=compact will not work on GitHub Pages: Pages ignores the query, and the compact views are at .compact.json paths.\n" +
		"  /tools/{toolId} will not work on GitHub Pages: it is Pages' HTML 404, and each descriptor is at /tools/{toolId}.json.\n" +
		"  Every document is served as application/json on GitHub Pages, whatever its media type: clients that check a card's media type, as the draft spec says they should, reject the card.\n" +
		"  A script in a browser cannot send If-None-Match or read the ETag on GitHub Pages: Pages sends Access-Control-Allow-Origin: * and no other CORS header.\n" +
		"  Responses have Pages' Cache-Control: max-age=600, not public, max-age=3600 (a SHOULD; harmless).\n" +
		"  An unknown toolId gets Pages' HTML 404, not a JSON one.\n" +
		"public/: 6 routes on GitHub Pages, 8 gaps\n" +
		"  /tools: needs the list at /tools; Pages serves it at /tools.json instead; /tools, the URL /.well-known/ai-catalog.json advertises, is Pages' HTML 404. Fix: " + front + "rewrite /tools to /tools.json" + instead + ".\n" +
		"  /tools?view=compact: needs ?view=compact to select the compact list; Pages serves the compact list at /tools.compact.json instead; Pages ignores the query. Fix: " + front + "rewrite /tools?view=compact to /tools.compact.json" + instead + ".\n" +
		"  /tools/get_forecast: needs the descriptor at /tools/get_forecast; Pages serves it at /tools/get_forecast.json instead; /tools/get_forecast is Pages' HTML 404. Fix: " + front + "rewrite /tools/{toolId} to /tools/{toolId}.json" + instead + ".\n" +
		"  /tools/get_forecast?view=compact: needs ?view=compact to select the compact descriptor; Pages serves it at /tools/get_forecast.compact.json instead; Pages ignores the query. Fix: " + front + "rewrite /tools/{toolId}?view=compact to /tools/{toolId}.compact.json" + instead + ".\n" +
		"  /.well-known/ai-catalog.json: needs Content-Type application/ai-catalog+json; Pages serves application/json, the type of the .json extension. Fix: " + front + "set Content-Type: application/ai-catalog+json on /.well-known/ai-catalog.json" + instead + ", which stores it on the object.\n" +
		"  every route: needs Access-Control-Allow-Methods: GET, HEAD, OPTIONS, Access-Control-Allow-Headers: Authorization, Content-Type, If-None-Match and Access-Control-Expose-Headers: ETag on every response; Pages serves only Access-Control-Allow-Origin: *, so browsers fetch the documents but a script cannot send If-None-Match or read the ETag. Fix: " + front + "add the three headers to every response, errors included" + instead + ".\n" +
		"  every route: needs Cache-Control: public, max-age=3600 (a SHOULD); Pages serves Cache-Control: max-age=600, so clients revalidate every 10 minutes rather than every hour. Fix: " + front + "set Cache-Control: public, max-age=3600" + instead + "; harmless to leave as it is.\n" +
		"  /tools/{toolId}: needs a JSON 404 for an unknown toolId; Pages serves its own HTML 404 page: the status is right, the body is HTML (a 404.html of your own would be text/html too). Fix: " + front + "answer an unknown /tools/{toolId} with a JSON 404" + instead + ".\n" +
		"  0 of 6 routes are served exactly as the contract says; 1 more has the contract's URL and Content-Type but not the headers every route needs.\n" +
		"Deploying to GitHub Pages:\n" +
		"  Every gap, route by route, is in pages-report.json beside routes.json.\n" +
		"  A CDN or worker in front of Pages (a Cloudflare Worker, or CloudFront with a CloudFront Function) can close every gap above; S3 behind CloudFront, with the functions an S3 target's build writes, closes them without Pages.\n" +
		"  Serve each site at the root of its origin (a custom domain, or OWNER.github.io), as signpost.yaml's origin says: /.well-known and /tools only work at the root.\n" +
		"  Upload with actions/upload-pages-artifact include-hidden-files: true, or .well-known is left out; .nojekyll keeps it in branch deployments.\n" +
		"  Pages sends strong ETags of its own, not those of routes.json; that is not a gap.\n" +
		"  Compression: GitHub Pages compresses what it serves itself (gzip), and cannot send a file with a Content-Encoding of its own: the build makes no precompressed variants for it, and none are uploaded.\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}

	// Without the headers every route lacks, the count says so.
	buf.Reset()
	if err := writeReport(&buf, []*output.Site{s}, [][]Gap{gaps[2:]}); err != nil {
		t.Fatal(err)
	}
	if line := "  1 of 6 routes is served exactly as the contract says.\n"; !strings.Contains(buf.String(), line) {
		t.Errorf("report without the gaps of every route lacks %q:\n%s", line, buf.String())
	}

	if err := writeReport(&buf, []*output.Site{s}, nil); err == nil {
		t.Error("Report took no gaps for one site")
	}
}

// kindsOf lists the kinds of gaps, each once.
func kindsOf(gaps []Gap) []string {
	var ks []string
	for _, g := range gaps {
		if !slices.Contains(ks, g.Kind) {
			ks = append(ks, g.Kind)
		}
	}
	return ks
}

func TestWriteReportExample(t *testing.T) {
	b := pagesExample(t)
	gaps := make([][]Gap, len(b.Sites))
	for i, s := range b.Sites {
		_, gaps[i] = Layout(s)
	}
	var buf bytes.Buffer
	if err := writeReport(&buf, b.Sites, gaps); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	wantLines := 0
	// What Pages cannot do, once; then for each site a line per kind of
	// gap, between a header and a count.
	wantLines += 1 + len(Limits(gaps...))
	for i, s := range b.Sites {
		// The registry's gaps are a line for each class of its routes.
		wantLines += 1 + len(kindsOf(gaps[i])) - 1 + len(registryClasses) + 1
		header := fmt.Sprintf("%s/ (tenant %s): %d routes on GitHub Pages, %d gaps\n", s.Dir, s.Tenant, len(s.Documents), len(gaps[i]))
		if s.Tenant == "" {
			header = fmt.Sprintf("%s/: %d routes on GitHub Pages, %d gaps\n", s.Dir, len(s.Documents), len(gaps[i]))
		}
		if !strings.Contains(text, header) {
			t.Errorf("no header %q", header)
		}
		// Only the documents whose route names a .json file of
		// application/json have their contract URL and Content-Type: the
		// MCP catalog, the tool catalogue and its groups.
		urlAndType := 0
		for _, d := range s.Documents {
			if _, group := spec.GroupKeyOf(d.Route.Route); group || d.Route.Route == spec.RouteMCPCatalog || d.Route.Route == spec.RouteToolCatalogue {
				urlAndType++
			}
		}
		end := fmt.Sprintf("  0 of %d routes are served exactly as the contract says; %d more have the contract's URL and Content-Type but not the headers every route needs.\n", len(s.Documents), urlAndType)
		if !strings.Contains(text, end) {
			t.Errorf("no closing line %q", end)
		}
	}
	wantLines += 8 // the notes, tenants included
	if len(lines) != wantLines {
		t.Errorf("%d lines, want %d:\n%s", len(lines), wantLines, text)
	}
	for _, line := range []string{
		"  22 routes /tools/{toolId}: need each descriptor at /tools/{toolId}; Pages serves each at /tools/{toolId}.json instead; /tools/{toolId} is Pages' HTML 404. Fix: in a CDN or worker in front of Pages, rewrite /tools/{toolId} to /tools/{toolId}.json; or publish to S3 behind CloudFront instead.\n",
		"  11 routes with a Content-Type of their own: need their Content-Type: application/ai-catalog+json on 1, application/mcp-server+json on 5, application/mcp-server-card+json on 5; Pages serves application/json, the type of the .json extension. Fix: in a CDN or worker in front of Pages, set each route's Content-Type (pages-report.json lists them); or publish to S3 behind CloudFront instead, which stores it on the object.\n",
		"  /tools?view=compact: needs ?view=compact to select the compact list; Pages serves the compact list at /tools.compact.json instead; Pages ignores the query. Fix: in a CDN or worker in front of Pages, rewrite /tools?view=compact to /tools.compact.json; or publish to S3 behind CloudFront instead.\n",
		"  Pages serves one site per repository: publish each tenants/ID folder from a repository of its own, at its tenant's origin.\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("report lacks %q", line)
		}
	}
}

func TestCheckPagesPathsMessage(t *testing.T) {
	s := &output.Site{Dir: "public"}
	files := []output.Document{{Route: output.Route{Route: "/a.json", View: spec.ViewStandard, Key: "a.json"}}, {Route: output.Route{Route: "/a.json/b.json", View: spec.ViewStandard, Key: "a.json/b.json"}}}
	err := checkPaths(s, files)
	if err == nil || !strings.Contains(err.Error(), "route /a.json is served at /a.json, which must be a folder for route /a.json/b.json") {
		t.Errorf("checkPagesPaths: %v", err)
	}
}

// writeReport writes the text of the report of sites and gaps.
func writeReport(w io.Writer, sites []*output.Site, gaps [][]Gap) error {
	r, err := Report(sites, gaps)
	if err != nil {
		return err
	}
	return r.WriteText(w)
}

// TestPagesLayoutARD: a site with an ARD manifest and a card beside an
// endpoint on its origin gets the gaps Pages has of them: no Link header
// on any route, and the extensionless card served as
// application/octet-stream.
func TestPagesLayoutARD(t *testing.T) {
	s := buildtest.ExampleOnSite(t).Sites[0]
	_, gaps := Layout(s)
	var link, card bool
	for _, g := range gaps {
		link = link || g.Kind == KindLink && g.Route == EveryRoute && strings.Contains(g.Requirement, spec.DiscoveryLink)
		card = card || g.Kind == KindContentType && g.Route == buildtest.OnSiteCardRoute
	}
	if !link {
		t.Errorf("no %s gap for every route; gaps %+v", KindLink, gaps)
	}
	if !card {
		t.Errorf("no %s gap for %s", KindContentType, buildtest.OnSiteCardRoute)
	}
	_, plain := Layout(buildtest.Example(t).Sites[0])
	for _, g := range plain {
		if g.Kind == KindLink {
			t.Errorf("a %s gap without an ARD manifest: %+v", KindLink, g)
		}
	}
}
