package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeExample(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	cat, diags := Load(ctx, exampleDir)
	if diags.HasErrors() {
		t.Fatalf("example catalog: %v", diags)
	}
	b, err := Compile(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if err := b.Write(ctx, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOpen(t *testing.T) {
	out := writeExample(t)
	s, err := Open(context.Background(), out)
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
			return os.Remove(filepath.Join(dir, RouteTableFile))
		},
	} {
		t.Run(name, func(t *testing.T) {
			out := writeExample(t)
			if err := change(out); err != nil {
				t.Fatal(err)
			}
			_, err := Open(context.Background(), out)
			if err == nil || !strings.Contains(err.Error(), "build") {
				t.Fatalf("Open = %v, want an error that says to rebuild", err)
			}
		})
	}
}

func TestBuildSite(t *testing.T) {
	o, err := Open(context.Background(), writeExample(t))
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
		var te *TenantError
		if !errors.As(err, &te) || err.Error() != want {
			t.Errorf("Site(%q) = %v, want a TenantError %q", tenant, err, want)
		}
	}
	single := &Output{Sites: []*Site{{}}}
	if s, err := single.Site(""); err != nil || s != single.Sites[0] {
		t.Errorf("Site(\"\") of a build without tenants = %v, %v", s, err)
	}
	if _, err := single.Site("acme"); err == nil || err.Error() != "the build has no tenants" {
		t.Errorf("Site(acme) of a build without tenants = %v", err)
	}
}
