package build

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/signpost-dev/signpost/build/output"
)

// TestSiteServers holds the servers each of the example's sites publishes
// as its own: every server but the one whose card another host serves, for
// every tenant; a tenant the catalog lacks is an *output.TenantError.
func TestSiteServers(t *testing.T) {
	cat, diags := Load(context.Background(), exampleDir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := []string{"com.example/billing", "com.example/docs", "com.example/ops", "com.example/tickets", "com.example/weather"}
	for _, tenant := range []string{"acme", "globex"} {
		servers, err := cat.SiteServers(tenant)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range servers {
			names = append(names, s.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("SiteServers(%q) = %v, want %v", tenant, names, want)
		}
	}
	for _, tenant := range []string{"", "initech"} {
		var te *output.TenantError
		if _, err := cat.SiteServers(tenant); !errors.As(err, &te) || te.Tenant != tenant || !slices.Equal(te.Tenants, []string{"acme", "globex"}) {
			t.Errorf("SiteServers(%q): %v, want a *output.TenantError", tenant, err)
		}
	}
}
