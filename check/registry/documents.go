package registry

import (
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check/jsonval"
)

// The documents of the registry the rules read, each member by its exact
// name, written once here (as check/documents reads the others).

// registryList is a ServerList of the MCP registry: a page of
// /v0.1/servers, a search's answer, or the versions of one server.
type registryList struct {
	raw      any
	isObject bool

	Servers jsonval.Member
	// servers are those of Servers, nil unless it is an array; listed
	// says it is one.
	servers []registryResponse
	listed  bool
	// NextCursor is metadata.nextCursor: the cursor of the next page, which
	// a registry that pages gives and a static one never does.
	NextCursor jsonval.Member
}

func registryListOf(v any) registryList {
	m, ok := jsonval.Object(v)
	meta, _ := jsonval.Object(jsonval.MemberOf(m, "metadata").Value)
	l := registryList{raw: v, isObject: ok, Servers: jsonval.MemberOf(m, "servers"), NextCursor: jsonval.MemberOf(meta, "nextCursor")}
	a, listed := jsonval.Array(l.Servers.Value)
	l.listed = listed
	for _, e := range a {
		l.servers = append(l.servers, registryResponseOf(e))
	}
	return l
}

// forSchema is the list as the schema registry-server-list judges it: a
// copy without metadata.nextCursor, which the registry's OpenAPI allows
// and signpost's schema, of a static registry that never pages, does not.
func (l registryList) forSchema() any {
	m, ok := jsonval.Object(l.raw)
	if !ok || !l.NextCursor.Present {
		return l.raw
	}
	meta, _ := jsonval.Object(m["metadata"])
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	trimmed := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "nextCursor" {
			trimmed[k] = v
		}
	}
	out["metadata"] = trimmed
	return out
}

// registryResponse is a ServerResponse of the MCP registry: an entry of a
// list, or the document of one version.
type registryResponse struct {
	raw      any // what jsonval.Diff compares
	isObject bool

	// Server is server; Name, Description and Version are its members.
	Server                     jsonval.Member
	Name, Description, Version jsonval.Member
	// Meta is _meta, Official its io.modelcontextprotocol.registry/official
	// block, whose members are the rest.
	Meta, Official                           jsonval.Member
	Status, IsLatest, PublishedAt, UpdatedAt jsonval.Member
}

func registryResponseOf(v any) registryResponse {
	m, ok := jsonval.Object(v)
	r := registryResponse{raw: v, isObject: ok, Server: jsonval.MemberOf(m, "server"), Meta: jsonval.MemberOf(m, "_meta")}
	s, _ := jsonval.Object(r.Server.Value)
	r.Name, r.Description, r.Version = jsonval.MemberOf(s, "name"), jsonval.MemberOf(s, "description"), jsonval.MemberOf(s, "version")
	meta, _ := jsonval.Object(r.Meta.Value)
	r.Official = jsonval.MemberOf(meta, spec.RegistryOfficialMeta)
	o, _ := jsonval.Object(r.Official.Value)
	r.Status, r.IsLatest = jsonval.MemberOf(o, "status"), jsonval.MemberOf(o, "isLatest")
	r.PublishedAt, r.UpdatedAt = jsonval.MemberOf(o, "publishedAt"), jsonval.MemberOf(o, "updatedAt")
	return r
}
