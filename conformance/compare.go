package conformance

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/schemas"
)

// Compare checks each build on its own, then the two against each other, and
// returns every finding in report order. It reads nothing but its arguments.
// The error is for a broken embedded schema only.
func Compare(first, second *Build) (*Report, error) {
	v, err := schemas.NewValidator()
	if err != nil {
		return nil, err
	}
	f1, ids1 := checkBuild(v, first)
	f2, ids2 := checkBuild(v, second)
	findings := append(f1, f2...)
	findings = append(findings, compareIdentities(ids1, ids2, first.Name, second.Name)...)
	findings = append(findings, compareTables(first, second)...)
	sortFindings(findings)
	return &Report{First: first.Name, Second: second.Name, Conformant: len(findings) == 0, Findings: findings}, nil
}

// compareIdentities reports the catalogue tool names of a site whose
// descriptor reference differs between the builds.
func compareIdentities(a, b identities, nameA, nameB string) []Finding {
	var out []Finding
	for dir, names := range a {
		for name, ra := range names {
			if rb, ok := b[dir][name]; ok && ra != rb {
				out = append(out, Finding{Kind: KindIdentityReassigned, File: dir + "/tool-catalogue.json", Route: "/tool-catalogue.json",
					Message: fmt.Sprintf("tool %s is descriptor %s in %s and %s in %s", name, refString(ra), nameA, refString(rb), nameB)})
			}
		}
	}
	return out
}

// routeKey identifies a route of a site.
type routeKey struct{ route, view string }

func (k routeKey) String() string {
	if k.view != "" && k.view != "standard" {
		return k.route + " ?view=" + k.view
	}
	return k.route
}

// compareTables reports the differences of the two route tables and of the
// objects they name.
func compareTables(a, b *Build) []Finding {
	var out []Finding
	at := Finding{File: output.RouteTableFile}
	add := func(f Finding, kind, msg string) {
		f.Kind, f.Message = kind, msg
		out = append(out, f)
	}
	if a.Table.Format != b.Table.Format {
		add(at, KindRouteTableDiffers, fmt.Sprintf("format %d in %s, %d in %s", a.Table.Format, a.Name, b.Table.Format, b.Name))
	}
	sitesA, sitesB := siteIndex(a.Table), siteIndex(b.Table)
	var orderA, orderB []string
	for _, s := range a.Table.Sites {
		if _, ok := sitesB[s.Dir]; ok {
			orderA = append(orderA, s.Dir)
		} else {
			add(at, KindRouteTableDiffers, fmt.Sprintf("site %s is only in %s", s.Dir, a.Name))
		}
	}
	for _, s := range b.Table.Sites {
		if _, ok := sitesA[s.Dir]; ok {
			orderB = append(orderB, s.Dir)
		} else {
			add(at, KindRouteTableDiffers, fmt.Sprintf("site %s is only in %s", s.Dir, b.Name))
		}
	}
	if !slices.Equal(orderA, orderB) {
		add(at, KindRouteOrderDiffers, fmt.Sprintf("the sites are in another order: %s in %s, %s in %s", strings.Join(orderA, ", "), a.Name, strings.Join(orderB, ", "), b.Name))
	}
	for _, dir := range orderA {
		sa, sb := sitesA[dir], sitesB[dir]
		if sa.Tenant != sb.Tenant {
			add(Finding{File: dir}, KindRouteTableDiffers, fmt.Sprintf("the site's tenant is %q in %s and %q in %s", sa.Tenant, a.Name, sb.Tenant, b.Name))
		}
		out = append(out, compareRoutes(a, b, sa, sb)...)
	}
	if len(out) == 0 && a.RouteTable != nil && b.RouteTable != nil && !bytes.Equal(a.RouteTable, b.RouteTable) {
		off := firstDifference(a.RouteTable, b.RouteTable)
		add(Finding{File: output.RouteTableFile, Offset: &off}, KindBytesDiffer, fmt.Sprintf("the route tables hold the same routes, but their bytes differ from offset %d (%d bytes in %s, %d in %s)", off, len(a.RouteTable), a.Name, len(b.RouteTable), b.Name))
	}
	return out
}

// siteIndex returns the first site of each dir.
func siteIndex(rt output.RouteTable) map[string]output.SiteRoutes {
	m := map[string]output.SiteRoutes{}
	for _, s := range rt.Sites {
		if _, ok := m[s.Dir]; !ok {
			m[s.Dir] = s
		}
	}
	return m
}

// compareRoutes reports the differences of one site's routes and documents.
func compareRoutes(a, b *Build, sa, sb output.SiteRoutes) []Finding {
	var out []Finding
	index := func(s output.SiteRoutes) map[routeKey]output.Route {
		m := map[routeKey]output.Route{}
		for _, r := range s.Routes {
			k := routeKey{r.Route, r.View}
			if _, ok := m[k]; !ok {
				m[k] = r
			}
		}
		return m
	}
	ra, rb := index(sa), index(sb)
	var orderA, orderB []routeKey
	for _, r := range sa.Routes {
		k := routeKey{r.Route, r.View}
		if _, ok := rb[k]; ok {
			orderA = append(orderA, k)
			continue
		}
		out = append(out, Finding{Kind: KindRouteTableDiffers, File: objectPath(sa.Dir, r.Key), Route: r.Route, View: r.View, Message: "the route is only in " + a.Name})
	}
	for _, r := range sb.Routes {
		k := routeKey{r.Route, r.View}
		if _, ok := ra[k]; ok {
			orderB = append(orderB, k)
			continue
		}
		out = append(out, Finding{Kind: KindRouteTableDiffers, File: objectPath(sb.Dir, r.Key), Route: r.Route, View: r.View, Message: "the route is only in " + b.Name})
	}
	for i := range min(len(orderA), len(orderB)) {
		if orderA[i] != orderB[i] {
			out = append(out, Finding{Kind: KindRouteOrderDiffers, File: output.RouteTableFile, Route: orderA[i].route, View: orderA[i].view,
				Message: fmt.Sprintf("site %s lists its routes in another order: at position %d, %s has %s and %s has %s", sa.Dir, i+1, a.Name, orderA[i], b.Name, orderB[i])})
			break
		}
	}
	for _, k := range orderA {
		x, y := ra[k], rb[k]
		pa, pb := objectPath(sa.Dir, x.Key), objectPath(sb.Dir, y.Key)
		at := Finding{File: pa, Route: k.route, View: k.view}
		for _, h := range []struct{ name, x, y string }{
			{"key", x.Key, y.Key}, {"contentType", x.ContentType, y.ContentType}, {"cacheControl", x.CacheControl, y.CacheControl},
		} {
			if h.x != h.y {
				at.Kind, at.Message = KindRouteTableDiffers, fmt.Sprintf("%s is %q in %s and %q in %s", h.name, h.x, a.Name, h.y, b.Name)
				out = append(out, at)
			}
		}
		ba, okA := a.Bodies[pa]
		bb, okB := b.Bodies[pb]
		switch {
		case !okA || !okB:
			// Reported as unreadable or unsafe.
		case !bytes.Equal(ba, bb):
			off := firstDifference(ba, bb)
			at.Kind, at.Offset = KindBytesDiffer, &off
			at.Message = fmt.Sprintf("the documents differ from byte offset %d (%d bytes in %s, %d in %s)", off, len(ba), a.Name, len(bb), b.Name)
			out = append(out, at)
		case x.ETag != y.ETag:
			at.Kind, at.Message = KindRouteTableDiffers, fmt.Sprintf("the documents are the same, but the etag is %s in %s and %s in %s", x.ETag, a.Name, y.ETag, b.Name)
			out = append(out, at)
		}
	}
	return out
}

// firstDifference is the offset of the first byte at which x and y differ,
// or the length of the shorter one.
func firstDifference(x, y []byte) int64 {
	n := min(len(x), len(y))
	for i := range n {
		if x[i] != y[i] {
			return int64(i)
		}
	}
	return int64(n)
}
