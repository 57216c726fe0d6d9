package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The statuses of an imported document.
const (
	// Imported: the document became a server declaration.
	Imported = "imported"
	// NoRemotes: the document is valid but describes neither a remote
	// endpoint nor a package signpost can declare, so there is nothing to
	// publish.
	NoRemotes = "no-remotes"
	// Invalid: the document breaks the registry schema in a way that
	// matters for a card, or repeats a server already imported.
	Invalid = "invalid"
)

// Server is the outcome of importing one MCP registry document.
type Server struct {
	// Source names the document: the file, or FILE#/3 for the fourth
	// element of an array and FILE#/servers/3 for the fourth entry of a
	// registry list response (a JSON pointer into the file).
	Source string
	// Name is the document's name, when it has one (even an invalid one).
	Name string
	// Server is the declaration item: the fields of an MCP server card
	// except $schema, in JSON types (map[string]any, []any, string, bool,
	// json.Number). It is nil unless Status is Imported.
	Server map[string]any
	// Status is Imported, NoRemotes or Invalid.
	Status string
	// Reason is one line. For NoRemotes and Invalid it says why;
	// for Imported it lists what was changed or left out ("; "
	// separated), and is empty when the document was taken as it is.
	Reason string
}

// Servers reads the bytes of one file: a single server.json document,
// a JSON array of them, or a registry API response (a list
// {"servers": [{"server": {...}, "_meta": {...}}, ...]} or a single
// {"server": {...}, "_meta": {...}}). Every document yields exactly one
// Server, in file order; a name that an earlier document of the file
// already imported makes the later one invalid. The error is for a file that
// is not JSON or not one of these shapes; file only labels messages and
// sources.
func Servers(file string, data []byte) ([]Server, error) {
	list, err := importServers(file, data)
	return exportImported(list), err
}

// MarkDuplicates makes every imported server whose name an earlier
// imported server of servers already has invalid, in place, and returns
// servers. Servers does this within a file; a command importing
// several files does it over all of them.
func MarkDuplicates(servers []Server) []Server {
	list := unexportImported(servers)
	markDuplicates(list)
	copy(servers, exportImported(list))
	return servers
}

// ServersYAML renders the imported servers (Status Imported) as one
// declaration file: a header comment naming the source files with their
// counts, then servers, in order, each below a comment naming its source and
// the import notes. The same list always gives the same bytes.
func ServersYAML(servers []Server) ([]byte, error) {
	return serversYAML(unexportImported(servers))
}

func exportImported(list []importedServer) []Server {
	if list == nil {
		return nil
	}
	out := make([]Server, len(list))
	for i, s := range list {
		out[i] = Server(s)
	}
	return out
}

func unexportImported(list []Server) []importedServer {
	if list == nil {
		return nil
	}
	out := make([]importedServer, len(list))
	for i, s := range list {
		out[i] = importedServer(s)
	}
	return out
}

// importedServer is the outcome for one registry document; see
// Server.
type importedServer struct {
	Source string
	Name   string
	Server map[string]any
	Status string
	Reason string
}

// registryMetaOfficial is the _meta key of the registry's own bookkeeping
// (status, publishedAt, isLatest, ...).
const registryMetaOfficial = "io.modelcontextprotocol.registry/official"

// Card limits, from the server card schema.
const (
	cardNameMaxLen        = 200
	cardVersionMaxLen     = 255
	cardDescriptionMaxLen = 100
	cardTitleMaxLen       = 100
)

// cardNamePattern is the pattern of a server name: reverse-DNS/name.
var cardNamePattern = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// urlTemplateVariable is a {variable} of a URL template.
var urlTemplateVariable = regexp.MustCompile(`\{[a-zA-Z_][a-zA-Z0-9_]*\}`)

// importServers reads one file's bytes; see Servers.
func importServers(file string, data []byte) ([]importedServer, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: no JSON value: the file is empty", file)
		}
		return nil, importJSONError(file, data, err)
	}
	next := int(dec.InputOffset())
	for next < len(data) && strings.IndexByte(" \t\r\n", data[next]) >= 0 {
		next++
	}
	var extra any
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err == nil:
		line, col := importLineCol(data, next)
		return nil, fmt.Errorf("%s: line %d, column %d: a second JSON value after the document; import one value per file", file, line, col)
	default:
		return nil, importJSONError(file, data, err)
	}

	docs, err := registryDocs(file, v)
	if err != nil {
		return nil, err
	}
	var out []importedServer
	for _, doc := range docs {
		out = append(out, importDocument(doc.source, decodeEntry(doc.v)))
	}
	markDuplicates(out)
	return out, nil
}

// importJSONError turns a decoding error into FILE: line L, column C: message.
func importJSONError(file string, data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the bytes read, the offending one included.
		line, col := importLineCol(data, int(syn.Offset)-1)
		return fmt.Errorf("%s: line %d, column %d: not valid JSON: %v", file, line, col, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: not valid JSON: the file ends inside a value", file)
	}
	return fmt.Errorf("%s: not valid JSON: %v", file, err)
}

// importLineCol gives the 1-based line and column (in bytes) of offset in data.
func importLineCol(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// markDuplicates makes every imported server whose name an earlier imported
// server already has, ignoring case, invalid: a catalog declares each server
// once (and card paths, made of names, are case-insensitive on many hosts).
func markDuplicates(list []importedServer) {
	first := map[string]int{}
	for i := range list {
		s := &list[i]
		if s.Status != Imported {
			continue
		}
		key := strings.ToLower(s.Name)
		j, seen := first[key]
		if !seen {
			first[key] = i
			continue
		}
		s.Status = Invalid
		s.Reason = fmt.Sprintf("duplicate: %s already imports %s (version %s), and a catalog declares each server once",
			list[j].Source, list[j].Name, quoteForReason(list[j].Server["version"]))
		s.Server = nil
	}
}

// importDocument converts one registry document: a server.json object, or
// a registry API entry {"server": {...}, "_meta": {...}}.
func importDocument(source string, e registryEntry) importedServer {
	res := importedServer{Source: source}
	switch {
	case e.kind != "":
		res.Status, res.Reason = Invalid, fmt.Sprintf("not a server.json object but %s", e.kind)
		return res
	case e.serverKind != "":
		res.Status, res.Reason = Invalid, fmt.Sprintf("\"server\" is %s, not a server.json object", e.serverKind)
		return res
	}
	d := &docImporter{}
	if e.wrapped {
		d.wrapper(e.wrapper)
	}
	res.Name, _ = e.server.name.str()
	item, status, reason := d.server(e.server)
	res.Server, res.Status, res.Reason = item, status, reason
	return res
}

// docImporter collects what is wrong with one document (problems: it is
// invalid) and what the import changed (notes).
type docImporter struct {
	problems []string
	notes    []string
}

func (d *docImporter) problem(format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf(format, args...))
}

func (d *docImporter) note(format string, args ...any) {
	d.notes = append(d.notes, fmt.Sprintf(format, args...))
}

// wrapper handles the parts of a registry API entry around the server: its
// _meta is the registry's bookkeeping about the entry, never card material.
// The notes follow the order of the members' keys.
func (d *docImporter) wrapper(w entryWrapper) {
	metaDone := !w.meta.set
	for _, k := range w.others {
		if !metaDone && k > "_meta" {
			d.wrapperMeta(w.meta)
			metaDone = true
		}
		d.note("dropped the registry entry's %s: not part of a server", quoteKeyForReason(k))
	}
	if !metaDone {
		d.wrapperMeta(w.meta)
	}
}

// wrapperMeta notes the _meta of a registry API entry, dropped.
func (d *docImporter) wrapperMeta(meta metaDoc) {
	if meta.kind != "" {
		d.note("dropped the registry entry's _meta: it is %s, not an object", meta.kind)
		return
	}
	if len(meta.members) > 0 {
		keys := make([]string, len(meta.members))
		for i, m := range meta.members {
			keys[i] = quoteKeyForReason(m.key)
		}
		d.note("dropped the registry entry's _meta (%s): the registry's own bookkeeping", strings.Join(keys, ", "))
	}
	for _, m := range meta.members {
		if m.key == registryMetaOfficial {
			d.officialStatus(m.official)
		}
	}
}

// officialStatus notes a registry status other than active (deprecated,
// deleted) found in the registry's official metadata.
func (d *docImporter) officialStatus(status string) {
	if status != "" && status != "active" {
		d.note("the registry marks this server %s", quoteKeyForReason(status))
	}
}

// server converts a server.json object.
func (d *docImporter) server(doc serverDoc) (map[string]any, string, string) {
	item := map[string]any{}

	// Identity: name, version, description. Any problem here is fatal.
	switch name := doc.name; {
	case !name.set:
		d.problem("missing name")
	default:
		if s, ok := name.str(); !ok {
			d.problem("name is %s, not a string", name.kind())
		} else if n := utf8.RuneCountInString(s); n > cardNameMaxLen {
			d.problem("name is %d characters; at most %d", n, cardNameMaxLen)
		} else if !cardNamePattern.MatchString(s) {
			d.problem("name %s is not of the form reverse-DNS/name, such as com.example/weather", quoteForReason(s))
		} else {
			item["name"] = s
		}
	}

	version := doc.version
	if !version.set {
		// The first registry format (2025-07-09) nested it.
		if v := doc.versionDetailVersion; v.set {
			version = v
			d.note("version_detail.version mapped to version")
		}
	} else if doc.versionDetail.set {
		d.note("dropped version_detail: version is set")
	}
	switch {
	case !version.set:
		d.problem("missing version")
	default:
		if s, ok := version.str(); !ok {
			d.problem("version is %s, not a string", version.kind())
		} else if p := versionProblem(s); p != "" {
			d.problem("%s", p)
		} else {
			item["version"] = s
		}
	}

	switch desc := doc.description; {
	case !desc.set:
		d.problem("missing description")
	default:
		if s, ok := desc.str(); !ok {
			d.problem("description is %s, not a string", desc.kind())
		} else if strings.TrimSpace(s) == "" {
			d.problem("description is empty")
		} else {
			item["description"] = d.cut("description", s, cardDescriptionMaxLen)
		}
	}

	// Optional fields: a bad one is dropped with a note.
	if title := doc.title; title.set {
		if s, ok := title.str(); !ok {
			d.note("dropped title: it is %s, not a string", title.kind())
		} else if strings.TrimSpace(s) == "" {
			d.note("dropped empty title")
		} else {
			item["title"] = d.cut("title", s, cardTitleMaxLen)
		}
	}

	site := doc.websiteURL
	if doc.websiteURLLegacy.set {
		if site.set {
			d.note("dropped website_url: websiteUrl is set")
		} else {
			site = doc.websiteURLLegacy
			d.note("website_url mapped to websiteUrl")
		}
	}
	if site.set {
		if s, ok := site.str(); !ok {
			d.note("dropped websiteUrl: it is %s, not a string", site.kind())
		} else if !isAbsoluteURI(s) {
			d.note("dropped websiteUrl %s: not an absolute URL", quoteForReason(s))
		} else {
			item["websiteUrl"] = s
		}
	}

	if doc.repository.set {
		if r := d.repository(doc.repository); r != nil {
			item["repository"] = r
		}
	}
	if doc.icons.set {
		if l := d.icons(doc.icons); l != nil {
			item["icons"] = l
		}
	}

	var remoteList []any
	if doc.remotes.set {
		remoteList = d.remotes(doc.remotes)
	}

	var packageList []any
	if pkgs := doc.packages; pkgs.set {
		if pkgs.kind == "" {
			packageList = d.packages(pkgs)
		} else {
			d.note("dropped packages: it is %s, not an array", pkgs.kind)
		}
	}

	if doc.meta.set {
		if m := d.meta(doc.meta); m != nil {
			item["_meta"] = m
		}
	}

	d.dropUnknown("", doc.unknown)

	if len(d.problems) > 0 {
		return nil, Invalid, joinReasons(d.problems)
	}
	if len(remoteList) == 0 && len(packageList) == 0 {
		what := "no remotes and no packages"
		if len(doc.packages.items) > 0 {
			what = "no remotes, and no package signpost can declare"
		}
		return nil, NoRemotes, what + ": nothing to publish"
	}
	if len(remoteList) > 0 {
		item["remotes"] = remoteList
	}
	if len(packageList) > 0 {
		item["packages"] = packageList
	}
	return item, Imported, joinReasons(d.notes)
}
