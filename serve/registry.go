package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// The MCP registry's routes, as its clients ask for them. VS Code probes
// /v0.1/servers?limit=1, lists with ?limit=50&version=latest (and
// &cursor= after a page with a nextCursor, which a static registry never
// gives), searches with &search=TEXT, and looks a server up by
// encodeURIComponent(name), its '/' as %2F; Copilot CLI asks for
// /v0.1/servers/{name}/versions/latest. Each gets the document of the
// canonical route (spec.ParseRegistryPath), whatever the escapes, a
// trailing slash and the query; an unknown server or version gets the
// registry's 404 ({"error": ...}).
//
// search is the one query that changes the answer: the servers of the
// list whose name or description holds it, ignoring case, with version
// (latest, or an exact version) and limit (a positive count) honoured.
// Every other query (limit and version without search, cursor,
// updated_since) gets the whole list, byte for byte what a static host
// serves: a static registry returns everything.

// registryLookup finds the answer to a request of the registry's: its
// path as sent (escaped) and its raw query. A search is computed only
// when dynamic is set; otherwise nil and "" (front leaves it to the
// handler). nil and the message of the 404 when there is no such server
// or version.
func (h *Handler) registryLookup(escaped, rawQuery string, dynamic bool) (*servedDoc, string) {
	req, ok := spec.ParseRegistryPath(escaped)
	if !ok {
		return nil, spec.RegistryServerNotFound
	}
	if req.Kind == spec.RegistryList && h.search != nil {
		if q := queryValue(rawQuery, "search"); q != "" {
			if !dynamic {
				return nil, ""
			}
			return h.search.answer(h, q, queryValue(rawQuery, "version"), queryValue(rawQuery, "limit")), ""
		}
	}
	if d := h.docs[docKey{req.Route(), spec.ViewStandard}]; d != nil {
		return d, ""
	}
	if req.Kind == spec.RegistryVersion && h.docs[docKey{spec.RegistryVersionsRoute(req.Name), spec.ViewStandard}] != nil {
		return nil, spec.RegistryVersionNotFound
	}
	return nil, spec.RegistryServerNotFound
}

// registrySearch is the registry's list as a search reads it: each
// server's response as the list holds it, with what a search matches.
type registrySearch struct {
	entries []registryEntry
}

type registryEntry struct {
	raw               []byte // the response, as the list has it
	name, description string // lower-case
	version           string
}

// newRegistrySearch reads the list document /v0.1/servers.
func newRegistrySearch(list []byte) (*registrySearch, error) {
	var doc struct {
		Servers []json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(list, &doc); err != nil {
		return nil, fmt.Errorf("read the registry's list: %w", err)
	}
	s := &registrySearch{}
	for _, raw := range doc.Servers {
		var r struct {
			Server struct {
				Name, Description, Version string
			} `json:"server"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("read the registry's list: %w", err)
		}
		s.entries = append(s.entries, registryEntry{
			raw: raw, name: strings.ToLower(r.Server.Name), description: strings.ToLower(r.Server.Description), version: r.Server.Version,
		})
	}
	return s, nil
}

// answer is the list of the servers that match text, version and limit,
// as the list writes them: {"metadata":{"count":N},"servers":[...]}.
func (s *registrySearch) answer(h *Handler, text, version, limit string) *servedDoc {
	text = strings.ToLower(text)
	n := -1
	if l, err := strconv.Atoi(limit); err == nil && l > 0 {
		n = l
	}
	var matched [][]byte
	for _, e := range s.entries {
		if n >= 0 && len(matched) == n {
			break
		}
		if version != "" && version != spec.RegistryLatest && e.version != version {
			continue
		}
		if strings.Contains(e.name, text) || strings.Contains(e.description, text) {
			matched = append(matched, e.raw)
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"metadata":{"count":` + strconv.Itoa(len(matched)) + `},"servers":[`)
	b.Write(bytes.Join(matched, []byte(",")))
	b.WriteString("]}\n")
	body := b.Bytes()
	sum := sha256.Sum256(body)
	hexSum := hex.EncodeToString(sum[:])
	route := output.Route{
		Route: spec.RouteRegistry, View: spec.ViewStandard, Key: "", ContentType: spec.ContentTypeJSON, CacheControl: spec.CacheControl,
		ETag: `"` + hexSum[:32] + `"`, SHA256: hexSum, Size: int64(len(body)),
	}
	return h.served(route, body)
}
