package cloudflare_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/hosts/cloudflare"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

// TestWriteExample writes the example catalog for Cloudflare and reads
// back what a deployment uploads: each tenant's folder with its
// configuration, its Worker and its assets, the route table that still
// opens as a build, and the report, printed and as JSON.
func TestWriteExample(t *testing.T) {
	b := buildtest.Example(t)
	out := filepath.Join(t.TempDir(), "site")
	sites, err := cloudflare.Write(t.Context(), b, out, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range b.Sites {
		dir := filepath.Join(out, filepath.FromSlash(s.Dir))
		config := read(t, filepath.Join(dir, cloudflare.ConfigFile))
		golden(t, s.Tenant+"-wrangler.jsonc", config)
		if worker := read(t, filepath.Join(dir, cloudflare.WorkerFile)); !bytes.Equal(worker, cloudflare.Code(s.Dir)) {
			t.Errorf("%s: %s is not cloudflare.Code(%q)", s.Dir, cloudflare.WorkerFile, s.Dir)
		}
		// The manifest holds every route and view with its headers, and
		// its asset holds the document's bytes.
		var m struct {
			Format int
			Routes map[string]map[string]struct{ Key, ContentType, CacheControl, ETag string }
		}
		if err := json.Unmarshal(read(t, filepath.Join(dir, cloudflare.AssetsDir, cloudflare.ManifestFile)), &m); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, views := range m.Routes {
			n += len(views)
		}
		if m.Format != cloudflare.ManifestFormat || n != len(s.Documents) {
			t.Errorf("%s: manifest format %d with %d routes and views, want %d with %d", s.Dir, m.Format, n, cloudflare.ManifestFormat, len(s.Documents))
		}
		for _, d := range s.Documents {
			e := m.Routes[d.Route.Route][d.View]
			if e.Key != d.Key || e.ContentType != d.ContentType || e.CacheControl != d.CacheControl || e.ETag != d.ETag {
				t.Errorf("%s: manifest has %s?view=%s as %+v, want the route table's %s %s %s %s", s.Dir, d.Route.Route, d.View, e, d.Key, d.ContentType, d.CacheControl, d.ETag)
			}
			if body := read(t, filepath.Join(dir, cloudflare.AssetsDir, filepath.FromSlash(d.Key))); !bytes.Equal(body, buildtest.Body(t, d)) {
				t.Errorf("%s: the asset of %s is not the document", s.Dir, d.Route.Route)
			}
		}
		// The Worker serves every route: no gap.
		if len(sites[i].Gaps) != 0 {
			t.Errorf("%s: gaps %+v, want none", s.Dir, sites[i].Gaps)
		}
		// The manifest indexes the registry's list as serve reads it.
		list, ok := hosts.RegistryList(s)
		if !ok {
			t.Fatalf("%s: no registry", s.Dir)
		}
		var idx struct{ Registry [][]any }
		if err := json.Unmarshal(read(t, filepath.Join(dir, cloudflare.AssetsDir, cloudflare.ManifestFile)), &idx); err != nil {
			t.Fatal(err)
		}
		entries, err := hosts.RegistryIndex(buildtest.Body(t, list))
		if err != nil || len(entries) == 0 || len(idx.Registry) != len(entries) {
			t.Fatalf("%s: the manifest indexes %d servers, want %d (%v)", s.Dir, len(idx.Registry), len(entries), err)
		}
		for j, e := range entries {
			got := idx.Registry[j]
			if len(got) != 5 || got[0] != float64(e.Start) || got[1] != float64(e.End) || got[2] != e.Name || got[3] != e.Description || got[4] != e.Version {
				t.Errorf("%s: the manifest indexes server %d as %v, want %+v", s.Dir, j, got, e)
			}
		}
	}
	golden(t, "cloudflare-report.json", read(t, filepath.Join(out, cloudflare.ReportFile)))
	var text bytes.Buffer
	if err := writeReport(&text, b, sites); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt", text.Bytes())

	// The folder is a build: it opens, and serves, as the route table says.
	opened, err := output.Open(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range opened.Sites {
		if len(s.Documents) != len(b.Sites[i].Documents) {
			t.Fatalf("%s: %d documents opened, want %d", s.Dir, len(s.Documents), len(b.Sites[i].Documents))
		}
		for j, d := range s.Documents {
			if want := b.Sites[i].Documents[j]; !bytes.Equal(buildtest.Body(t, d), buildtest.Body(t, want)) || d.Key != "assets/"+want.Key || d.ETag != want.ETag {
				t.Errorf("%s: %s opens as %s, want assets/%s with the same bytes", s.Dir, d.Route.Route, d.Key, want.Key)
			}
		}
	}

	// The same build writes the same bytes.
	again := filepath.Join(t.TempDir(), "site")
	if _, err := cloudflare.Write(t.Context(), b, again, ""); err != nil {
		t.Fatal(err)
	}
	if a, b := tree(t, out), tree(t, again); a != b {
		t.Errorf("two writes of one build differ:\n%s\n---\n%s", a, b)
	}
}

// TestCodeNamesNoDocument holds the Worker to its size: the same code for
// every site but the folder named in its header comment, and no document
// named in it.
func TestCodeNamesNoDocument(t *testing.T) {
	a, b := cloudflare.Code("public"), cloudflare.Code("tenants/acme")
	if !bytes.Equal(bytes.Replace(a, []byte(`"public"`), []byte(`"tenants/acme"`), 1), b) {
		t.Error("the Worker of two sites differs beyond the folder it names")
	}
	for _, name := range []string{"get_forecast", "tools.json", "ai-catalog", "mcp-server-card"} {
		if bytes.Contains(a, []byte(name)) {
			t.Errorf("the Worker names %s", name)
		}
	}
}

// TestLayoutRefuses checks that a site the Worker cannot serve, or
// Cloudflare cannot take, is refused before anything is written.
func TestLayoutRefuses(t *testing.T) {
	doc := func(route, key string) output.Document {
		return output.Document{Route: output.Route{Route: route, View: spec.ViewStandard, Key: key, ContentType: spec.ContentTypeJSON}, Body: content.New([]byte("{}"))}
	}
	for _, c := range []struct {
		name   string
		site   *output.Site
		worker string
		want   string
	}{
		{"dot segment", &output.Site{Dir: "public", Documents: []output.Document{doc("/a/../b.json", "b.json")}}, "", "cannot serve /a/../b.json"},
		{"reserved route", &output.Site{Dir: "public", Documents: []output.Document{doc("/.signpost-x.json", "x.json")}}, "", "cannot serve /.signpost-x.json"},
		{"reserved key", &output.Site{Dir: "public", Documents: []output.Document{doc("/x.json", ".signpost-headers.json")}}, "", `at the key ".signpost-headers.json"`},
		{"key above", &output.Site{Dir: "public", Documents: []output.Document{doc("/x.json", "../x.json")}}, "", `at the key "../x.json"`},
		{"long name", &output.Site{Dir: "tenants/acme", Tenant: "acme", Documents: []output.Document{doc("/x.json", "x.json")}}, strings.Repeat("n", 60), "longer than the 63 characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := cloudflare.Layout(c.site, c.worker)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Layout: %v, want an error with %q", err, c.want)
			}
		})
	}
}

// TestAssetCountGap checks that a site with more assets than Workers Free
// accepts has the gap, counted and reported with its fix.
func TestAssetCountGap(t *testing.T) {
	s := &output.Site{Dir: "public"}
	for i := range cloudflare.FreeAssets {
		route := fmt.Sprintf("/docs/d%05d.json", i)
		s.Documents = append(s.Documents, output.Document{Route: output.Route{Route: route, View: spec.ViewStandard, Key: route[1:], ContentType: spec.ContentTypeJSON}, Body: content.New([]byte("{}"))})
	}
	laid, err := cloudflare.Layout(s, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(laid.Gaps) != 1 || laid.Gaps[0].Kind != cloudflare.KindAssetCount {
		t.Fatalf("gaps %+v, want the asset count's", laid.Gaps)
	}
	var text bytes.Buffer
	if err := writeReport(&text, &output.Build{Sites: []*output.Site{s}}, []*cloudflare.Site{laid}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"public/: Worker signpost, 20000 routes on Cloudflare, 1 gap\n",
		"  every route: needs 20001 assets (the documents, their precompressed variants and the manifest) in one Worker; Cloudflare allows at most 20000 assets on the Workers Free plan: wrangler deploy refuses the site. Fix: deploy on the Workers Paid plan, which accepts 100000; or split the catalog into tenants.\n",
		"  0 of 20000 routes are served exactly as the contract says.\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestLayoutVariants checks that a site laid out for Cloudflare keeps the
// precompressed variants of the documents that grow with the catalog, in
// its folder and its manifest, and that no other document has any: every
// variant is an asset, and the edge compresses the rest.
func TestLayoutVariants(t *testing.T) {
	b := buildtest.ExampleOnSite(t)
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := b.Sites[0]
	laid, err := cloudflare.Layout(s, "")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Routes map[string]map[string]struct {
			Key      string
			Variants []struct{ Encoding, Key, ETag string }
		}
	}
	for _, f := range laid.Files {
		if f.Path == filepath.ToSlash(filepath.Join(cloudflare.AssetsDir, cloudflare.ManifestFile)) {
			if err := json.Unmarshal(f.Body, &m); err != nil {
				t.Fatal(err)
			}
		}
	}
	kept := 0
	for i, d := range laid.Documents {
		orig := s.Documents[i]
		entry := m.Routes[d.Route.Route][d.View]
		if !spec.AlwaysPrecompressed(d.Route.Route) {
			if len(orig.Variants) != 0 || len(d.Variants) != 0 || len(d.Encoded) != 0 || len(entry.Variants) != 0 {
				t.Errorf("%s?view=%s has %d variants in the build, %d laid out, %d in the manifest, want none", d.Route.Route, d.View, len(orig.Variants), len(d.Variants), len(entry.Variants))
			}
			continue
		}
		if len(orig.Variants) != 2 || len(d.Variants) != 2 {
			t.Fatalf("%s?view=%s has %d variants in the build, %d laid out, want 2", orig.Route.Route, orig.View, len(orig.Variants), len(d.Variants))
		}
		kept++
		for j, v := range d.Variants {
			if want := cloudflare.AssetsDir + "/" + orig.Variants[j].Key; v.Key != want || v.ETag != orig.Variants[j].ETag || !bytes.Equal(d.Encoded[j], orig.Encoded[j]) {
				t.Errorf("%s variant %s at %s, ETag %s, want %s, %s and the build's bytes", d.Route.Route, v.Encoding, v.Key, v.ETag, want, orig.Variants[j].ETag)
			}
			if j >= len(entry.Variants) || entry.Variants[j].Key != orig.Variants[j].Key || entry.Variants[j].ETag != v.ETag || entry.Variants[j].Encoding != v.Encoding {
				t.Errorf("%s: manifest variants %+v, want the variant %s at %s", d.Route.Route, entry.Variants, v.Encoding, orig.Variants[j].Key)
			}
		}
		// The layout never changes the build it is given.
		if strings.HasPrefix(orig.Variants[0].Key, cloudflare.AssetsDir+"/") {
			t.Errorf("the build's variant key %s was changed", orig.Variants[0].Key)
		}
	}
	if kept == 0 || kept == len(laid.Documents) {
		t.Fatalf("%d of %d documents keep their variants, want some and not all", kept, len(laid.Documents))
	}
	if laid.Gaps != nil {
		t.Errorf("gaps %+v, want none", laid.Gaps)
	}
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tree lists every file below dir with its length and SHA-256.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %d %x\n", filepath.ToSlash(rel), len(data), sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWranglerVersion holds the Makefile, which installs the wrangler the
// tests run, to the version the workflow of signpost init deploys with.
func TestWranglerVersion(t *testing.T) {
	makefile := string(read(t, filepath.Join("..", "..", "Makefile")))
	if want := "\nWRANGLER_VERSION := " + cloudflare.WranglerVersion + "\n"; !strings.Contains(makefile, want) {
		t.Errorf("the Makefile lacks the line %q: make it the same as cloudflare.WranglerVersion", strings.TrimSpace(want))
	}
}

// writeReport writes the text of the report of b as laid out in sites.
func writeReport(w io.Writer, b *output.Build, sites []*cloudflare.Site) error {
	r, err := cloudflare.Report(b, sites)
	if err != nil {
		return err
	}
	return r.WriteText(w)
}
