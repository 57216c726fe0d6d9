package gencatalog_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/gencatalog"
)

// TestTenants generates a catalog of three tenants that share its tools
// out, with limits and a target, and builds it: each tenant's site holds
// its share of the tools and no other tenant's.
func TestTenants(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "catalog")
	o := gencatalog.Options{Tools: 40, Servers: 2, Tenants: 3, Limits: "{files: 1000000}", Bucket: "scale-test"}
	if err := gencatalog.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile(filepath.Join(dir, "signpost.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := "site: {origin: https://example.com, publisher: example.com}\n" +
		"tenants: [t0000, t0001, t0002]\n" +
		"limits: {files: 1000000}\n" +
		"targets:\n  bench:\n    s3: {bucket: scale-test, region: us-east-1}\n"
	if string(config) != want {
		t.Errorf("signpost.yaml:\n%s\nwant:\n%s", config, want)
	}
	cat, diags := build.Load(context.Background(), dir)
	if diags.HasErrors() {
		t.Fatalf("the generated catalog is invalid: %v", diags)
	}
	out, err := build.Compile(context.Background(), cat)
	if err != nil {
		t.Fatal(err)
	}
	// 36 declared tools, one each in turn; the 4 recorded ones, of one
	// server, to the first tenant.
	tools := map[string]int{}
	for _, s := range out.Sites {
		tools[s.Tenant] = s.Tools
	}
	if len(tools) != 3 || tools["t0000"] != 16 || tools["t0001"] != 12 || tools["t0002"] != 12 {
		t.Errorf("tools per tenant: %v, want t0000 16, t0001 12, t0002 12", tools)
	}

	// The same options, the same bytes.
	again := filepath.Join(t.TempDir(), "again")
	if err := gencatalog.Write(again, o); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tools/team000.yaml", "imports/server00.yaml"} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, err := os.ReadFile(filepath.Join(again, name))
		if err != nil || string(a) != string(b) || len(a) == 0 {
			t.Errorf("%s differs between two runs of the same options (%v)", name, err)
		}
	}
}
