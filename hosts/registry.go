package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// RegistryEntry is one server of the MCP registry's list (/v0.1/servers)
// as an edge's code searches it, the way signpost serve does
// (serve/registry.go): the byte range of its response in the list
// document, its name and description in lower case (strings.ToLower), and
// its version. It is written as the JSON array [start, end, name,
// description, version].
type RegistryEntry struct {
	Start, End        int
	Name, Description string
	Version           string
}

// MarshalJSON writes the entry as [start, end, name, description, version].
func (e RegistryEntry) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{e.Start, e.End, e.Name, e.Description, e.Version})
}

// RegistryList returns the document of the MCP registry's list of s, and
// false for a site without a registry.
func RegistryList(s *output.Site) (output.Document, bool) {
	for _, d := range s.Documents {
		if d.Route.Route == spec.RouteRegistry && d.View == spec.ViewStandard {
			return d, true
		}
	}
	return output.Document{}, false
}

// SiteRegistryIndex is the RegistryIndex of the MCP registry's list of s,
// read back from where the build holds it; false for a site without a
// registry.
func SiteRegistryIndex(s *output.Site) ([]RegistryEntry, bool, error) {
	list, ok := RegistryList(s)
	if !ok {
		return nil, false, nil
	}
	data, err := list.Body.Bytes()
	if err != nil {
		return nil, true, err
	}
	entries, err := RegistryIndex(data)
	return entries, true, err
}

// RegistryIndex reads the registry's list document: its servers in the
// list's order, each with the range of list it takes. The fields are read
// as serve reads them, so that a search of the edge answers as serve does.
func RegistryIndex(list []byte) ([]RegistryEntry, error) {
	var doc struct {
		Servers []json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(list, &doc); err != nil {
		return nil, fmt.Errorf("read the registry's list: %w", err)
	}
	entries := make([]RegistryEntry, 0, len(doc.Servers))
	at := 0
	for _, raw := range doc.Servers {
		var r struct {
			Server struct {
				Name, Description, Version string
			} `json:"server"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("read the registry's list: %w", err)
		}
		// A raw value is the list's own bytes; only a comma and spaces
		// lie between two.
		i := bytes.Index(list[at:], raw)
		if i < 0 {
			return nil, fmt.Errorf("read the registry's list: a server's response is not in the list as it is")
		}
		start := at + i
		at = start + len(raw)
		entries = append(entries, RegistryEntry{
			Start: start, End: at,
			Name: strings.ToLower(r.Server.Name), Description: strings.ToLower(r.Server.Description), Version: r.Server.Version,
		})
	}
	return entries, nil
}

// RegistryScript returns what the registry's script of an edge
// (templates/registry, which the Cloudflare Worker and the Netlify
// Function include) is filled in with: its constants, each a JavaScript
// literal. JSON is JavaScript, and encoding/json escapes <, >, &, U+2028
// and U+2029, so a literal is safe anywhere in a script.
func RegistryScript() map[string]string {
	lit := func(v any) string {
		b, _ := json.Marshal(v) // strings and a map of strings
		return string(b)
	}
	cors := map[string]string{}
	for _, h := range spec.RegistryCORSHeaders() {
		cors[h[0]] = h[1]
	}
	return map[string]string{
		"Route":           lit(spec.RouteRegistry),
		"CORS":            lit(cors),
		"Latest":          lit(spec.RegistryLatest),
		"ServerNotFound":  lit(spec.RegistryServerNotFound),
		"VersionNotFound": lit(spec.RegistryVersionNotFound),
		"SearchType":      lit(spec.ContentTypeJSON),
		"SearchCache":     lit(spec.CacheControl),
	}
}
