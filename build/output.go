package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/signpost-dev/signpost/build/content"
)

// IsOutput reports whether dir is a build output folder (it holds a route
// table) rather than a catalog folder.
func IsOutput(ctx context.Context, dir string) bool {
	if ctx.Err() != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, RouteTableFile))
	return err == nil
}

// Open reads the build output folder dir: its route table, and every object
// the table names, checked to be present, inside the folder, and of the
// recorded size and SHA-256. A folder that fails the check was changed after
// the build, or the build was interrupted; it must not be served or
// published. The result holds the sites' documents, not the Files beside
// them, so that serving or comparing a built site starts from exactly what
// was built and reviewed.
func Open(ctx context.Context, dir string) (*Output, error) {
	rt, err := ReadRouteTable(ctx, dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open site: %w", err)
	}
	defer root.Close()
	b := &Output{}
	for _, sr := range rt.Sites {
		docs := make([]Document, 0, len(sr.Routes))
		for _, r := range sr.Routes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			key := path.Join(sr.Dir, r.Key)
			data, err := root.ReadFile(filepath.FromSlash(key))
			if err != nil {
				return nil, fmt.Errorf("open site: route %s: %w (rebuild the site)", r.Route, err)
			}
			sum := sha256.Sum256(data)
			if int64(len(data)) != r.Size || hex.EncodeToString(sum[:]) != r.SHA256 {
				return nil, fmt.Errorf("open site: %s changed since the build (size %d, route table says %d): rebuild the site", key, len(data), r.Size)
			}
			docs = append(docs, Document{Route: r, Body: content.New(data)})
		}
		s := &Site{Tenant: sr.Tenant, Dir: sr.Dir, Origin: sr.Origin, Documents: docs}
		if sr.Access != nil {
			s.Access = *sr.Access
		}
		b.Sites = append(b.Sites, s)
	}
	return b, nil
}

// Site returns the site of tenant: the only site when tenant is empty and
// the build has one, or the tenant's. The error is a *TenantError.
func (b *Output) Site(tenant string) (*Site, error) {
	var tenants []string
	for _, s := range b.Sites {
		if s.Tenant == tenant && (tenant != "" || len(b.Sites) == 1) {
			return s, nil
		}
		tenants = append(tenants, s.Tenant)
	}
	return nil, &TenantError{Tenant: tenant, Tenants: tenants}
}

// TenantError is the error of Output.Site: tenant names no single site of the
// build.
type TenantError struct {
	Tenant  string   // the tenant asked for, "" for none
	Tenants []string // the build's tenants, [""] for a build without tenants
}

func (e *TenantError) Error() string {
	switch {
	case e.Tenant == "" && len(e.Tenants) > 1:
		return fmt.Sprintf("the build has one site per tenant (%s): choose one", strings.Join(e.Tenants, ", "))
	case len(e.Tenants) == 1 && e.Tenants[0] == "":
		return "the build has no tenants"
	case len(e.Tenants) == 0:
		return "the build has no sites"
	}
	return fmt.Sprintf("no tenant %q in the build: it has %s", e.Tenant, strings.Join(e.Tenants, ", "))
}
