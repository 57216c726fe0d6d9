package output_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// writeExample writes the build of the example catalog into a new folder.
func writeExample(t *testing.T) (string, *output.Build) {
	t.Helper()
	b := buildtest.Example(t)
	out := filepath.Join(t.TempDir(), "site")
	if err := b.Write(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	return out, b
}

func TestOpen(t *testing.T) {
	out, _ := writeExample(t)
	s, err := output.Open(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sites) != 2 {
		t.Errorf("sites = %d, want 2", len(s.Sites))
	}
}

func TestOpenRejectsChangedSite(t *testing.T) {
	for name, change := range map[string]func(dir string) error{
		"edited object": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "tenants", "acme", "tools.json"), []byte("[]\n"), 0o644)
		},
		"missing object": func(dir string) error {
			return os.Remove(filepath.Join(dir, "tenants", "globex", "tools", "get_forecast.json"))
		},
		"no route table": func(dir string) error {
			return os.Remove(filepath.Join(dir, output.RouteTableFile))
		},
	} {
		t.Run(name, func(t *testing.T) {
			out, _ := writeExample(t)
			if err := change(out); err != nil {
				t.Fatal(err)
			}
			_, err := output.Open(context.Background(), out)
			if err == nil || !strings.Contains(err.Error(), "build") {
				t.Fatalf("Open = %v, want an error that says to rebuild", err)
			}
		})
	}
}

func TestBuildSite(t *testing.T) {
	out, _ := writeExample(t)
	o, err := output.Open(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	b := o
	if s, err := b.Site("globex"); err != nil || s.Tenant != "globex" || len(s.Documents) == 0 || s.Documents[0].Body.Len() == 0 {
		t.Errorf("Site(globex) = %v, %v; want globex's documents with their bodies", s, err)
	}
	for tenant, want := range map[string]string{
		"":        "the build has one site per tenant (acme, globex): choose one",
		"initech": `no tenant "initech" in the build: it has acme, globex`,
	} {
		_, err := b.Site(tenant)
		var te *output.TenantError
		if !errors.As(err, &te) || err.Error() != want {
			t.Errorf("Site(%q) = %v, want a output.TenantError %q", tenant, err, want)
		}
	}
	single := &output.Build{Sites: []*output.Site{{}}}
	if s, err := single.Site(""); err != nil || s != single.Sites[0] {
		t.Errorf("Site(\"\") of a build without tenants = %v, %v", s, err)
	}
	if _, err := single.Site("acme"); err == nil || err.Error() != "the build has no tenants" {
		t.Errorf("Site(acme) of a build without tenants = %v", err)
	}
}

func TestRouteTable(t *testing.T) {
	out, b := writeExample(t)
	rt, err := output.ReadRouteTable(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.RouteTable(), *rt); diff != "" {
		t.Errorf("route table read back differs:\n%s", diff)
	}
	for _, s := range rt.Sites {
		for _, r := range s.Routes {
			data, err := os.ReadFile(filepath.Join(out, s.Dir, r.Key))
			if err != nil {
				t.Fatal(err)
			}
			want := "application/json"
			switch {
			case r.Route == "/.well-known/ai-catalog.json":
				want = "application/ai-catalog+json"
			case strings.HasPrefix(r.Route, "/.well-known/mcp/server-cards/"):
				want = "application/mcp-server-card+json"
			case strings.HasPrefix(r.Route, "/.well-known/mcp/servers/"), strings.HasPrefix(r.Route, "/.well-known/mcp-server-card/"):
				want = "application/mcp-server+json"
			}
			if int64(len(data)) != r.Size || r.ContentType != want || r.CacheControl != "public, max-age=3600" {
				t.Errorf("%s %s: size %d, want Content-Type %s, route %+v", s.Tenant, r.Route, len(data), want, r)
			}
		}
	}
}

func TestWriteIsAtomic(t *testing.T) {
	out, b := writeExample(t)
	before := catalogtest.ReadTree(t, out)
	// A write that fails halfway (cancelled) leaves the previous output.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Write(ctx, out); err == nil {
		t.Fatal("cancelled write succeeded")
	}
	if diff := cmp.Diff(before, catalogtest.ReadTree(t, out)); diff != "" {
		t.Errorf("failed write changed the output:\n%s", diff)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary folders left behind: %v", entries)
	}
}

// TestRouteTableFile: the route table is written as json.MarshalIndent
// writes it, for a build with tenants and gates, one without sites, and
// values encoding/json escapes.
func TestRouteTableFile(t *testing.T) {
	odd := output.Route{Route: "/tools/a<b>&c", View: "standard", Key: "tools/a\u2028.json", ContentType: "application/json",
		CacheControl: "public, max-age=3600", ETag: `"0123"`, SHA256: "ab", Size: 12}
	gated := &output.Site{Tenant: "acme", Dir: "tenants/acme", Origin: "https://acme.example", Access: gate.Access{Token: true, PublicDiscovery: true},
		Documents: []output.Document{{Route: odd}, {Route: odd}}}
	for name, b := range map[string]*output.Build{
		"example":  buildtest.Example(t),
		"no sites": {},
		"odd":      {Sites: []*output.Site{gated, {Dir: "public"}}},
	} {
		dir := filepath.Join(t.TempDir(), "site")
		if err := b.Write(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, output.RouteTableFile))
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(b.RouteTable(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(append(want, '\n')), string(got)); diff != "" {
			t.Errorf("%s: route table (-json.MarshalIndent +written):\n%s", name, diff)
		}
	}
}
