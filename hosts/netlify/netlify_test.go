package netlify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// TestLayoutRules holds the rules of each site of the example to the
// route table: every route and view rewritten to its key, the compact view
// first, every key and route with its exact headers, the lists' keys, the
// error document, the function's source and unknown paths the JSON 404;
// the routes of a type other than application/json served by the Netlify
// Function alone.
func TestLayoutRules(t *testing.T) {
	b := buildtest.Example(t)
	for _, s := range b.Sites {
		t.Run(s.Dir, func(t *testing.T) {
			l, err := Layout(s)
			if err != nil {
				t.Fatal(err)
			}
			red, hdr := string(l.Redirects), string(l.Headers)
			fn, routes, err := Function(s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fn, l.Function) || !slices.Equal(routes, l.FunctionRoutes) || len(routes) == 0 {
				t.Fatalf("the function serves %v, want the example's cards and AI catalog", l.FunctionRoutes)
			}
			paths, _ := json.Marshal(routes)
			if !strings.Contains(string(fn), "path: "+string(paths)+",") {
				t.Errorf("%s: config.path is not %s", FunctionFile, paths)
			}
			for _, d := range s.Documents {
				if spec.IsRegistryRoute(d.Route.Route) {
					continue // the registry's function's, below
				}
				if slices.Contains(routes, d.Route.Route) {
					// The function sends its headers: no rule may name it.
					if d.ContentType == spec.ContentTypeJSON && d.View == spec.ViewStandard {
						t.Errorf("the function serves %s, whose standard view is %s", d.Route.Route, d.ContentType)
					}
					if strings.Contains(hdr, d.Route.Route+"\n") || strings.Contains(red, d.Route.Route+" ") {
						t.Errorf("a rule names %s, which the function serves", d.Route.Route)
					}
					if !strings.Contains(string(fn), jsString(d.ETag)) {
						t.Errorf("%s: no ETag %s of %s", FunctionFile, d.ETag, d.Route.Route)
					}
					continue
				}
				if d.ContentType != spec.ContentTypeJSON {
					t.Errorf("%s is %s, but the function does not serve it", d.Route.Route, d.ContentType)
				}
				// A tool or a group: the placeholder rules of its family
				// serve it, and no rule names it.
				family := ""
				if id, ok := spec.ToolSegment(d.Route.Route); ok {
					family = "tools/:id"
					if strings.Contains(hdr, "/"+id) || strings.Contains(red, "/"+id) {
						t.Errorf("a rule names the tool %s", id)
					}
				} else if _, ok := spec.GroupKeyOf(d.Route.Route); ok {
					family = "tool-catalogue/groups/:key"
					if strings.Contains(hdr, d.Route.Route) || strings.Contains(red, d.Route.Route) {
						t.Errorf("a rule names the group %s", d.Route.Route)
					}
				}
				if family != "" {
					if !strings.Contains(hdr, headerRule(family, d.ContentType, d.CacheControl)) {
						t.Errorf("%s: no rule /%s with the headers of %s", HeadersFile, family, d.Key)
					}
					continue
				}
				rule := headerRule(d.Key, d.ContentType, d.CacheControl)
				if !strings.Contains(hdr, rule) {
					t.Errorf("%s: no rule\n%s", HeadersFile, rule)
				}
				if !strings.Contains(hdr, headerRule(strings.TrimPrefix(d.Route.Route, "/"), d.ContentType, d.CacheControl)) {
					t.Errorf("%s: no rule for route %s", HeadersFile, d.Route.Route)
				}
				if "/"+d.Key == d.Route.Route {
					continue
				}
				std := d.Route.Route + " /" + d.Key + " 200!\n"
				if d.View == spec.ViewCompact {
					compact := d.Route.Route + " view=compact /" + d.Key + " 200!\n"
					stdKey := strings.TrimSuffix(d.Key, ".compact.json") + ".json"
					i, j := strings.Index(red, compact), strings.Index(red, d.Route.Route+" /"+stdKey+" 200!\n")
					if i < 0 || j < 0 || i > j {
						t.Errorf("%s: the compact rule of %s must come before the standard one (at %d, %d)", RedirectsFile, d.Route.Route, i, j)
					}
					continue
				}
				if !strings.Contains(red, std) {
					t.Errorf("%s: no rule %q", RedirectsFile, std)
				}
			}
			// Every tool by two rules, the compact view first, not forced,
			// before the catch-all; an unknown toolId's key is the
			// not-found function's, which runs only where no file is.
			compact, standard := strings.Index(red, "\n/tools/:id view=compact /tools/:id.compact.json 200\n"), strings.Index(red, "\n/tools/:id /tools/:id.json 200\n")
			if compact < 0 || standard < compact || standard > strings.Index(red, "\n/* ") {
				t.Errorf("%s: no placeholder rules of the tools, compact first, before the catch-all:\n%s", RedirectsFile, red)
			}
			if nf := string(l.NotFound); !strings.Contains(nf, "path: [\"/tools/*.compact.json\",\"/tools/*.json\",\"/tool-catalogue/groups/*.json\"],\n  preferStatic: true,\n};") || !strings.Contains(nf, "const DOCUMENTS = {\n};") {
				t.Errorf("%s: not the function of unknown toolIds:\n%s", NotFoundFile, nf)
			}
			if strings.Contains(string(fn), "preferStatic") {
				t.Errorf("%s must run in place of the cards' files", FunctionFile)
			}
			for _, want := range []string{
				"/tools.json /" + ErrorFile + " 404!\n",
				"/tools.compact.json /" + ErrorFile + " 404!\n",
				"/" + ErrorFile + " /" + ErrorFile + " 404!\n",
				"/netlify/* /" + ErrorFile + " 404!\n",
			} {
				if !strings.Contains(red, want) {
					t.Errorf("%s: no rule %q", RedirectsFile, want)
				}
			}
			if !strings.HasSuffix(red, "/* /"+ErrorFile+" 404\n") {
				t.Errorf("%s must end with the catch-all 404:\n%s", RedirectsFile, red)
			}
			if !strings.Contains(hdr, headerRule(ErrorFile, spec.ContentTypeJSON, spec.ErrorCacheControl)) {
				t.Errorf("%s: no rule for the error document", HeadersFile)
			}
			cors := "/*\n"
			for _, h := range spec.CORSHeaders() {
				cors += "  " + h[0] + ": " + h[1] + "\n"
			}
			if !strings.Contains(hdr, cors) {
				t.Errorf("%s: no CORS rule for every path:\n%s", HeadersFile, hdr)
			}
			// One rule per path: no two rules may set one header.
			seen := map[string]bool{}
			for _, line := range strings.Split(hdr, "\n") {
				if strings.HasPrefix(line, "/") {
					if seen[line] {
						t.Errorf("%s: two rules for %s", HeadersFile, line)
					}
					seen[line] = true
				}
			}
			// The preflight and methods gaps alone: the registry's function
			// answers the registry, and no rule names a route of it.
			if len(l.Gaps) != 2 || l.Gaps[0].Kind != KindPreflight || l.Gaps[1].Kind != KindMethods {
				t.Errorf("gaps %+v, want the preflight and methods gaps alone", l.Gaps)
			}
			reg, regRoutes, err := RegistryFunction(s)
			if err != nil || !bytes.Equal(reg, l.Registry) || !slices.Equal(regRoutes, l.RegistryRoutes) || len(regRoutes) == 0 {
				t.Fatalf("the registry's function serves %v (%v), want the example's registry", l.RegistryRoutes, err)
			}
			if !strings.Contains(string(reg), "path: [\"/v0.1/servers\",\"/v0.1/servers/*\"],\n};") {
				t.Errorf("%s: config.path is not the registry's folder", RegistryFile)
			}
			for _, d := range s.Documents {
				if !spec.IsRegistryRoute(d.Route.Route) {
					continue
				}
				if !slices.Contains(regRoutes, d.Route.Route) || !strings.Contains(string(reg), jsString(d.ETag)) {
					t.Errorf("%s does not serve %s", RegistryFile, d.Route.Route)
				}
				if strings.Contains(hdr, d.Route.Route) || strings.Contains(red, d.Route.Route) || strings.Contains(red, d.Key) {
					t.Errorf("a rule names %s, which the registry's function serves", d.Route.Route)
				}
			}
		})
	}
}

func headerRule(p, contentType, cacheControl string) string {
	return "/" + p + "\n  Content-Type: " + contentType + "\n  Cache-Control: " + cacheControl + "\n"
}

// TestLayoutRefuses refuses routes Netlify's rules cannot name.
func TestLayoutRefuses(t *testing.T) {
	for _, route := range []string{"/.well-known/a b.json", "/x/../y.json", "/.signpost-x.json"} {
		s := &output.Site{Dir: "public", Documents: []output.Document{{Route: output.Route{Route: route, View: spec.ViewStandard, Key: strings.TrimPrefix(route, "/")}}}}
		if _, err := Layout(s); err == nil || !strings.Contains(err.Error(), "cannot be") {
			t.Errorf("route %q: err %v, want a refusal", route, err)
		}
	}
	// The tools' and groups' rules serve every document of theirs at the
	// key of its family, with one Content-Type and Cache-Control.
	tool := func(id, view, key, cacheControl string) output.Document {
		return output.Document{Route: output.Route{Route: spec.ToolRoute(id), View: view, Key: key, ContentType: spec.ContentTypeJSON, CacheControl: cacheControl}}
	}
	for name, docs := range map[string][]output.Document{
		"a tool at another key": {tool("a", spec.ViewStandard, "tools/a/index.json", spec.CacheControl)},
		"a compact view at the standard key": {
			tool("a", spec.ViewCompact, "tools/a.json", spec.CacheControl), tool("a", spec.ViewStandard, "tools/a.json", spec.CacheControl)},
		"tools of other headers": {tool("a", spec.ViewStandard, "tools/a.json", spec.CacheControl), tool("b", spec.ViewStandard, "tools/b.json", "no-cache")},
		"a group in a view":      {{Route: output.Route{Route: spec.GroupRoute("g"), View: spec.ViewCompact, Key: "tool-catalogue/groups/g.json", ContentType: spec.ContentTypeJSON}}},
	} {
		s := &output.Site{Dir: "public", Documents: docs}
		if _, err := Layout(s); err == nil || !strings.Contains(err.Error(), "Netlify's rule of every") {
			t.Errorf("%s: err %v, want a refusal", name, err)
		}
	}
}

// TestWrite writes the example for Netlify: the normal build's documents
// and route table without the precompressed variants (Netlify compresses
// itself), each site's rules and error document, and the report, the same
// bytes twice.
func TestWrite(t *testing.T) {
	b := buildtest.Example(t)
	plain, out, again := t.TempDir(), filepath.Join(t.TempDir(), "site"), filepath.Join(t.TempDir(), "site")
	if err := b.WithoutVariants().Write(t.Context(), plain); err != nil {
		t.Fatal(err)
	}
	gaps, err := Write(t.Context(), b, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(gaps) != len(b.Sites) {
		t.Fatalf("%d lists of gaps for %d sites", len(gaps), len(b.Sites))
	}
	if _, err := Write(t.Context(), b, again); err != nil {
		t.Fatal(err)
	}
	read := func(dir, p string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if !bytes.Equal(read(plain, output.RouteTableFile), read(out, output.RouteTableFile)) {
		t.Error("the route table differs from the normal build's")
	}
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			if !bytes.Equal(read(out, s.Dir+"/"+d.Key), buildtest.Body(t, d)) {
				t.Errorf("%s/%s differs from its document", s.Dir, d.Key)
			}
		}
		if !bytes.Equal(read(out, s.Dir+"/"+ErrorFile), spec.NotFoundBody()) {
			t.Errorf("%s: the error document differs", s.Dir)
		}
		for _, f := range []string{HeadersFile, RedirectsFile, FunctionFile, NotFoundFile, RegistryFile} {
			if !bytes.Equal(read(out, s.Dir+"/"+f), read(again, s.Dir+"/"+f)) {
				t.Errorf("%s/%s differs between two writes", s.Dir, f)
			}
		}
	}
	if !bytes.Equal(read(out, ReportFile), read(again, ReportFile)) {
		t.Errorf("%s differs between two writes", ReportFile)
	}
	var buf bytes.Buffer
	rep, err := Report(b.Sites, gaps)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"What Netlify cannot do:\n",
		"tenants/acme/ (tenant acme): ",
		"Deploy each tenants/ID folder as a Netlify site of its own",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestRuleTargetsAreDeployed: netlify deploy uploads no file whose name
// starts with a dot but .well-known, so a rule of _redirects that rewrote
// to one would, deployed, lead nowhere (netlify dev, which serves the
// folder as it is, would not show it). Every rule's target is a file the
// deploy uploads.
func TestRuleTargetsAreDeployed(t *testing.T) {
	for _, b := range []*output.Build{buildtest.Example(t), buildtest.ExampleOnSite(t)} {
		for _, s := range b.Sites {
			l, err := Layout(s)
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.SplitSeq(string(l.Redirects), "\n") {
				fields := strings.Fields(line)
				if len(fields) < 3 || strings.HasPrefix(line, "#") {
					continue
				}
				to := fields[len(fields)-2]
				for seg := range strings.SplitSeq(strings.TrimPrefix(to, "/"), "/") {
					if strings.HasPrefix(seg, ".") && seg != ".well-known" {
						t.Errorf("%s: the rule %q leads to %s, which netlify deploy does not upload", s.Dir, line, to)
					}
				}
			}
		}
	}
}
