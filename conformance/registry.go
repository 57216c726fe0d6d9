package conformance

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// registryResponse is what the checks read of a ServerResponse; a member
// of the wrong type reads as absent (the schema reports it).
type registryResponse struct {
	Server struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Meta struct {
		Official struct {
			IsLatest    bool   `json:"isLatest"`
			PublishedAt string `json:"publishedAt"`
			UpdatedAt   string `json:"updatedAt"`
		} `json:"io.modelcontextprotocol.registry/official"`
	} `json:"_meta"`
}

// registryList is what the checks read of a ServerList.
type registryList struct {
	Servers  []registryResponse `json:"servers"`
	Metadata struct {
		Count json.Number `json:"count"`
	} `json:"metadata"`
}

// decodeLoose decodes body into v, leaving a member of the wrong type at
// its zero.
func decodeLoose(body []byte, v any) {
	_ = json.Unmarshal(body, v) // the document is JSON: checked before
}

// registry checks a document of the MCP registry for what its schema
// cannot say: its route is canonical and its key the registry's
// (spec.RegistryKey), so that every host finds it; a list counts its
// servers, holds each server once, and, for one server's versions, holds
// that server's versions with the latest, and only it, first; a version
// is the server and version its route names, latest or not as its route
// says; no version was updated before it was published.
func (c *checker) registry(r output.Route, body []byte) {
	req, ok := spec.ParseRegistryPath(r.Route)
	if !ok || req.Route() != r.Route {
		c.add(KindInvalidDocument, "", "the registry route is not canonical: its name and version are escaped as encodeURIComponent escapes them, as "+quote(req.Route()))
		return
	}
	if key, _ := spec.RegistryKey(r.Route); key != r.Key {
		c.add(KindUnsafePath, "", fmt.Sprintf("the registry document is at the key %s; its route's key is %s", quote(r.Key), quote(key)))
	}
	if req.Kind == spec.RegistryVersion {
		var resp registryResponse
		decodeLoose(body, &resp)
		c.registryResponse("", resp, req.Name, req.Version)
		return
	}
	var list registryList
	decodeLoose(body, &list)
	if n := list.Metadata.Count.String(); n != strconv.Itoa(len(list.Servers)) {
		c.add(KindInvalidDocument, "/metadata/count", fmt.Sprintf("is %s for %d servers", quote(n), len(list.Servers)))
	}
	seen := map[string]bool{}
	for i, s := range list.Servers {
		at := "/servers/" + strconv.Itoa(i)
		c.registryResponse(at, s, req.Name, "")
		key := s.Server.Name
		if req.Kind == spec.RegistryVersions {
			key = s.Server.Version
		}
		if seen[key] {
			c.add(KindInvalidDocument, at, "lists "+quote(key)+" twice")
		}
		seen[key] = true
		latest := s.Meta.Official.IsLatest
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
// latest); name "" is any server.
func (c *checker) registryResponse(at string, r registryResponse, name, version string) {
	if name != "" && r.Server.Name != name {
		c.add(KindInvalidDocument, at+"/server/name", fmt.Sprintf("is %s; the route names %s", quote(r.Server.Name), quote(name)))
	}
	switch {
	case version == spec.RegistryLatest && !r.Meta.Official.IsLatest:
		c.add(KindInvalidDocument, at+"/_meta", "the route names the latest version, and isLatest is not true")
	case version != "" && version != spec.RegistryLatest && r.Server.Version != version:
		c.add(KindInvalidDocument, at+"/server/version", fmt.Sprintf("is %s; the route names %s", quote(r.Server.Version), quote(version)))
	}
	if p, u := r.Meta.Official.PublishedAt, r.Meta.Official.UpdatedAt; p != "" && u != "" && u < p {
		c.add(KindInvalidDocument, at+"/_meta", fmt.Sprintf("updatedAt %s is before publishedAt %s", u, p))
	}
}

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
		var resp registryResponse
		if json.Unmarshal(bodies[r.Route], &resp) != nil || resp.Server.Version == "" {
			continue // reported with the document
		}
		req, _ := spec.ParseRegistryPath(r.Route)
		version := spec.RegistryVersionRoute(req.Name, resp.Server.Version)
		if body, ok := bodies[version]; !ok || string(body) != string(bodies[r.Route]) {
			c.add(KindInvalidDocument, "", "the latest version is not the same document as its version's, "+version)
		}
	}
}
