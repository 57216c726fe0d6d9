package publish

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build"
)

func buildExample(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	cat, diags := build.Load(ctx, filepath.Join("..", "catalogs", "example"))
	if diags.HasErrors() {
		t.Fatalf("example catalog: %v", diags)
	}
	b, err := build.Compile(ctx, cat)
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
	out := buildExample(t)
	s, err := Open(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Routes.Sites) != 2 {
		t.Errorf("sites = %d, want 2", len(s.Routes.Sites))
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
			return os.Remove(filepath.Join(dir, build.RouteTableFile))
		},
	} {
		t.Run(name, func(t *testing.T) {
			out := buildExample(t)
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
