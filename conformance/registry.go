package conformance

import (
	"fmt"
	"strconv"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// registry checks a document of the MCP registry for what its schema
// cannot say: its route is canonical and its key the registry's
// (spec.RegistryKey), so that every host finds it; a list counts its
// servers, holds each server once, and, for one server's versions, holds
// that server's versions with the latest, and only it, first; a version
// is the server and version its route names, latest or not as its route
// says; no version was updated before it was published.
func (c *checker) registry(r output.Route, doc any) {
	req, ok := spec.ParseRegistryPath(r.Route)
	if !ok || req.Route() != r.Route {
		c.add(KindInvalidDocument, "", "the registry route is not canonical: its name and version are escaped as encodeURIComponent escapes them, as "+quote(req.Route()))
		return
	}
	if key, _ := spec.RegistryKey(r.Route); key != r.Key {
		c.add(KindUnsafePath, "", fmt.Sprintf("the registry document is at the key %s; its route's key is %s", quote(r.Key), quote(key)))
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return
	}
	if req.Kind == spec.RegistryVersion {
		c.registryResponse("", m, req.Name, req.Version)
		return
	}
	servers, _ := m["servers"].([]any)
	meta, _ := m["metadata"].(map[string]any)
	if n := str(meta["count"]); n != strconv.Itoa(len(servers)) {
		c.add(KindInvalidDocument, "/metadata/count", fmt.Sprintf("is %s for %d servers", quote(n), len(servers)))
	}
	seen := map[string]bool{}
	for i, s := range servers {
		sm, _ := s.(map[string]any)
		at := "/servers/" + strconv.Itoa(i)
		name, version := c.registryResponse(at, sm, req.Name, "")
		key := name
		if req.Kind == spec.RegistryVersions {
			key = version
		}
		if seen[key] {
			c.add(KindInvalidDocument, at, "lists "+quote(key)+" twice")
		}
		seen[key] = true
		latest := isLatest(sm)
		switch {
		case req.Kind == spec.RegistryList && !latest:
			c.add(KindInvalidDocument, at, "the list holds a version that is not its server's latest")
		case req.Kind == spec.RegistryVersions && latest != (i == 0):
			c.add(KindInvalidDocument, at, "a server's versions hold its latest first, and only there")
		}
	}
}

// registryResponse checks one ServerResponse at pointer at: of the server
// name, and of version unless it is empty (RegistryLatest for the
// latest); name "" is any server. It returns the server's name and
// version.
func (c *checker) registryResponse(at string, m map[string]any, name, version string) (string, string) {
	server, _ := m["server"].(map[string]any)
	gotName, gotVersion := str(server["name"]), str(server["version"])
	if name != "" && gotName != name {
		c.add(KindInvalidDocument, at+"/server/name", fmt.Sprintf("is %s; the route names %s", quote(gotName), quote(name)))
	}
	switch {
	case version == spec.RegistryLatest && !isLatest(m):
		c.add(KindInvalidDocument, at+"/_meta", "the route names the latest version, and isLatest is not true")
	case version != "" && version != spec.RegistryLatest && gotVersion != version:
		c.add(KindInvalidDocument, at+"/server/version", fmt.Sprintf("is %s; the route names %s", quote(gotVersion), quote(version)))
	}
	official := officialMeta(m)
	if p, u := str(official["publishedAt"]), str(official["updatedAt"]); p != "" && u != "" && u < p {
		c.add(KindInvalidDocument, at+"/_meta", fmt.Sprintf("updatedAt %s is before publishedAt %s", u, p))
	}
	return gotName, gotVersion
}

func officialMeta(m map[string]any) map[string]any {
	meta, _ := m["_meta"].(map[string]any)
	o, _ := meta[spec.RegistryOfficialMeta].(map[string]any)
	return o
}

func isLatest(m map[string]any) bool { return officialMeta(m)["isLatest"] == true }

// registryLatest checks that each server's latest version in the site's
// registry is the same bytes at versions/latest as at its version.
func (c *checker) registryLatest(s output.SiteRoutes) {
	bodies := map[string][]byte{}
	var latest []output.Route
	for _, r := range s.Routes {
		if req, ok := spec.ParseRegistryPath(r.Route); ok && req.Kind == spec.RegistryVersion {
			bodies[r.Route] = c.b.Bodies[objectPath(s.Dir, r.Key)]
			if req.Version == spec.RegistryLatest {
				latest = append(latest, r)
			}
		}
	}
	for _, r := range latest {
		c.where = Finding{Build: c.b.Name, File: objectPath(s.Dir, r.Key), Route: r.Route, View: r.View}
		doc, err := decodeJSON(bodies[r.Route])
		m, _ := doc.(map[string]any)
		if err != nil || m == nil {
			continue // reported with the document
		}
		req, _ := spec.ParseRegistryPath(r.Route)
		server, _ := m["server"].(map[string]any)
		version := spec.RegistryVersionRoute(req.Name, str(server["version"]))
		if body, ok := bodies[version]; !ok || string(body) != string(bodies[r.Route]) {
			c.add(KindInvalidDocument, "", "the latest version is not the same document as its version's, "+version)
		}
	}
}
