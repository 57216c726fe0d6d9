package build_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/hosts/cloudflare"
	"github.com/signpost-dev/signpost/hosts/cloudfront"
	"github.com/signpost-dev/signpost/hosts/netlify"
	"github.com/signpost-dev/signpost/hosts/pages"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/gencatalog"
)

// estimateError is the most Load's estimate of a build may be under what
// the build writes, as a fraction of what it writes.
const estimateError = 0.10

// TestEstimate holds Load's estimate of a build (what limits.build and
// limits.files are held to before anything is encoded) to what Compile
// makes of the catalog and what each host's layout writes of it: never
// more, so that Load refuses only what Compile would, and within 10% (a
// catalog Load lets through is not far over a limit), on catalogs with and
// without tenants, servers and the compact view, and the generated catalogs
// of 10,000 tools.
func TestEstimate(t *testing.T) {
	ctx := context.Background()
	example := catalogtest.ReadTree(t, catalogtest.ExampleDir(t))
	edited := func(edit func(config string) string) string {
		files := map[string]string{}
		for k, v := range example {
			files[k] = v
		}
		files["signpost.yaml"] = edit(files["signpost.yaml"])
		return catalogtest.Write(t, files)
	}
	generated := func(o gencatalog.Options) func() string {
		return func() string {
			dir := filepath.Join(t.TempDir(), "catalog")
			if err := gencatalog.Write(dir, o); err != nil {
				t.Fatal(err)
			}
			return dir
		}
	}
	targets := "targets:\n  s3: {s3: {bucket: example-bucket, region: us-east-1}}\n  pages: {githubPages: {}}\n  workers: {cloudflare: {}}\n  netlify: {netlify: {}}\n"
	cases := []struct {
		name    string
		dir     func() string
		large   bool // not in -short mode
		layouts bool // written by each host too
	}{
		{"example", func() string { return catalogtest.ExampleDir(t) }, false, true},
		{"300 tools, 30 servers, no tenants", generated(gencatalog.Options{Tools: 300, Servers: 30, NoTenants: true}), false, true},
		{"example, compact view off", func() string {
			return edited(func(c string) string { return c + "toolCatalog: {compactView: false}\n" })
		}, false, false},
		{"example, three tenants and every discovery document", func() string {
			return edited(func(c string) string {
				return strings.Replace(c, "tenants: [acme, globex]", "tenants: [acme, globex, initech]", 1) + "discovery: {mcpCatalog: true, aiCatalog: true}\n"
			})
		}, false, false},
		{"example with its host targets", func() string { return edited(func(c string) string { return c + targets }) }, false, true},
		{"300 tools, 30 servers, two tenants", generated(gencatalog.Options{Tools: 300, Servers: 30}), false, true},
		{"10,000 tools, two tenants", generated(gencatalog.Options{Tools: 10_000}), true, false},
		{"10,000 tools, 1,000 servers, no tenants", generated(gencatalog.Options{Tools: 10_000, Servers: 1_000, NoTenants: true}), true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.large && testing.Short() {
				t.Skip("a catalog of 10,000 tools: not in -short mode")
			}
			cat, diags := build.Load(ctx, tc.dir())
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			est := cat.EstimatedSize()
			b, err := build.Compile(ctx, cat)
			if err != nil {
				t.Fatal(err)
			}
			// What the limits count of the build Compile made.
			made := build.BuildSize{Files: 1}
			for _, s := range b.Sites {
				made.Files += int64(len(s.Documents))
				for _, d := range s.Documents {
					made.Bytes += d.Size + output.RouteEntrySize(d.Route)
				}
			}
			if est.Files != made.Files {
				t.Errorf("Load counts %d files, Compile makes %d", est.Files, made.Files)
			}
			within(t, "Compile's documents and route table", est.Bytes, made.Bytes)
			t.Logf("estimate %d bytes, %d files; Compile's documents and route table %d bytes (%+.2f%%), %d files",
				est.Bytes, est.Files, made.Bytes, 100*float64(est.Bytes-made.Bytes)/float64(made.Bytes), made.Files)
			layouts := map[string]hosts.Host{"plain": hosts.Plain{}}
			if tc.layouts {
				layouts["cloudfront"] = cloudfront.Host{Target: &target.S3{Bucket: "example-bucket", Region: "us-east-1"}, CompactView: cat.Config.CompactView}
				layouts["pages"], layouts["cloudflare"], layouts["netlify"] = pages.Host{}, cloudflare.Host{}, netlify.Host{}
			}
			for name, host := range layouts {
				out := filepath.Join(t.TempDir(), "site")
				if _, err := host.Write(ctx, b, out); err != nil {
					t.Fatal(err)
				}
				docs, all := written(t, out)
				t.Logf("%s: estimate %d bytes; the documents and route table written %d (%+.2f%%), everything written %d (%+.2f%%)",
					name, est.Bytes, docs, 100*float64(est.Bytes-docs)/float64(docs), all, 100*float64(est.Bytes-all)/float64(all))
				within(t, name+" layout's documents and route table", est.Bytes, docs)
			}
		})
	}
}

// within holds an estimate to be at most, and at most estimateError under,
// the size it estimates.
func within(t *testing.T, what string, estimate, size int64) {
	t.Helper()
	if estimate > size || float64(size-estimate) > estimateError*float64(size) {
		t.Errorf("%s: %d bytes, Load's estimate %d (%+.2f%%): want at most the size and within %.0f%% of it",
			what, size, estimate, 100*float64(estimate-size)/float64(size), 100*estimateError)
	}
}

// written returns the bytes of the documents and the route table in the
// build output folder out, and of everything in it.
func written(t *testing.T, out string) (docs, all int64) {
	t.Helper()
	rt, err := output.ReadRouteTable(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(out, output.RouteTableFile))
	if err != nil {
		t.Fatal(err)
	}
	docs = fi.Size()
	for _, s := range rt.Sites {
		for _, r := range s.Routes {
			docs += r.Size
		}
	}
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		all += info.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs, all
}
