package build

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/internal/english"
	"go.yaml.in/yaml/v3"
)

// Import of MCP registry server.json documents as server declarations.
//
// A registry document describes a server twice over: its remote endpoints
// (what a server card publishes) and its local packages (npm, pypi, oci, ...:
// what a client installs and runs). Only the first part becomes a
// declaration, made to be one that a card can carry: no secret value, no
// registry bookkeeping, no field a card does not have, every {variable} of a
// template declared. Everything the importer changes or leaves out is said in
// the outcome's Reason, so a reviewer sees it before the card is published.

// The statuses of an imported document.
const (
	// ImportImported: the document became a server declaration.
	ImportImported = "imported"
	// ImportNoRemotes: the document is valid but describes no remote
	// endpoint (local packages only), so there is no card to publish.
	ImportNoRemotes = "no-remotes"
	// ImportInvalid: the document breaks the registry schema in a way that
	// matters for a card, or repeats a server already imported.
	ImportInvalid = "invalid"
)

// ImportedServer is the outcome of importing one MCP registry document.
type ImportedServer struct {
	// Source names the document: the file, or FILE#/3 for the fourth
	// element of an array and FILE#/servers/3 for the fourth entry of a
	// registry list response (a JSON pointer into the file).
	Source string
	// Name is the document's name, when it has one (even an invalid one).
	Name string
	// Server is the declaration item: the fields of an MCP server card
	// except $schema, in JSON types (map[string]any, []any, string, bool,
	// json.Number). It is nil unless Status is ImportImported.
	Server map[string]any
	// Status is ImportImported, ImportNoRemotes or ImportInvalid.
	Status string
	// Reason is one line. For ImportNoRemotes and ImportInvalid it says why;
	// for ImportImported it lists what was changed or left out ("; "
	// separated), and is empty when the document was taken as it is.
	Reason string
}

// ImportServers reads the bytes of one file: a single server.json document,
// a JSON array of them, or a registry API response (a list
// {"servers": [{"server": {...}, "_meta": {...}}, ...]} or a single
// {"server": {...}, "_meta": {...}}). Every document yields exactly one
// ImportedServer, in file order; a name that an earlier document of the file
// already imported makes the later one invalid. The error is for a file that
// is not JSON or not one of these shapes; file only labels messages and
// sources.
func ImportServers(file string, data []byte) ([]ImportedServer, error) {
	list, err := importServers(file, data)
	return exportImported(list), err
}

// MarkDuplicateServers makes every imported server whose name an earlier
// imported server of servers already has invalid, in place, and returns
// servers. ImportServers does this within a file; a command importing
// several files does it over all of them.
func MarkDuplicateServers(servers []ImportedServer) []ImportedServer {
	list := unexportImported(servers)
	markDuplicates(list)
	copy(servers, exportImported(list))
	return servers
}

// ServersYAML renders the imported servers (Status ImportImported) as one
// declaration file: a header comment naming the source files with their
// counts, then servers, in order, each below a comment naming its source and
// the import notes. The same list always gives the same bytes.
func ServersYAML(servers []ImportedServer) ([]byte, error) {
	return serversYAML(unexportImported(servers))
}

func exportImported(list []importedServer) []ImportedServer {
	if list == nil {
		return nil
	}
	out := make([]ImportedServer, len(list))
	for i, s := range list {
		out[i] = ImportedServer(s)
	}
	return out
}

func unexportImported(list []ImportedServer) []importedServer {
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
// ImportedServer.
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

// importServers reads one file's bytes; see ImportServers.
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

	var out []importedServer
	switch t := v.(type) {
	case []any:
		for i, e := range t {
			out = append(out, importDocument(file+"#/"+strconv.Itoa(i), e))
		}
	case map[string]any:
		list, isList := t["servers"]
		if _, named := t["name"]; !isList || named {
			out = append(out, importDocument(file, t))
			break
		}
		arr, ok := list.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: \"servers\" is %s, not an array of registry entries", file, jsonValueKind(list))
		}
		for i, e := range arr {
			out = append(out, importDocument(file+"#/servers/"+strconv.Itoa(i), e))
		}
	default:
		return nil, fmt.Errorf("%s: the JSON value is %s, not a server.json object, an array of them or a registry server list", file, jsonValueKind(v))
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
		if s.Status != ImportImported {
			continue
		}
		key := strings.ToLower(s.Name)
		j, seen := first[key]
		if !seen {
			first[key] = i
			continue
		}
		s.Status = ImportInvalid
		s.Reason = fmt.Sprintf("duplicate: %s already imports %s (version %s), and a catalog declares each server once",
			list[j].Source, list[j].Name, quoteForReason(list[j].Server["version"]))
		s.Server = nil
	}
}

// importDocument converts one registry document: a server.json object, or
// a registry API entry {"server": {...}, "_meta": {...}}.
func importDocument(source string, v any) importedServer {
	res := importedServer{Source: source}
	doc, ok := v.(map[string]any)
	if !ok {
		res.Status, res.Reason = ImportInvalid, fmt.Sprintf("not a server.json object but %s", jsonValueKind(v))
		return res
	}
	d := &docImporter{}
	if inner, wrapped := doc["server"]; wrapped {
		if _, named := doc["name"]; !named {
			m, ok := inner.(map[string]any)
			if !ok {
				res.Status, res.Reason = ImportInvalid, fmt.Sprintf("\"server\" is %s, not a server.json object", jsonValueKind(inner))
				return res
			}
			d.wrapper(doc)
			doc = m
		}
	}
	res.Name, _ = doc["name"].(string)
	item, status, reason := d.server(doc)
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
func (d *docImporter) wrapper(entry map[string]any) {
	for _, k := range sortedKeys(entry) {
		switch k {
		case "server":
		case "_meta":
			meta, ok := entry[k].(map[string]any)
			if !ok {
				d.note("dropped the registry entry's _meta: it is %s, not an object", jsonValueKind(entry[k]))
				continue
			}
			if len(meta) > 0 {
				keys := sortedKeys(meta)
				for i, k := range keys {
					keys[i] = quoteKeyForReason(k)
				}
				d.note("dropped the registry entry's _meta (%s): the registry's own bookkeeping", strings.Join(keys, ", "))
			}
			d.officialStatus(meta[registryMetaOfficial])
		default:
			d.note("dropped the registry entry's %s: not part of a server", quoteKeyForReason(k))
		}
	}
}

// officialStatus notes a registry status other than active (deprecated,
// deleted) found in the registry's official metadata.
func (d *docImporter) officialStatus(official any) {
	m, _ := official.(map[string]any)
	if s, ok := m["status"].(string); ok && s != "" && s != "active" {
		d.note("the registry marks this server %s", quoteKeyForReason(s))
	}
}

// registryServerKeys are the server.json fields the importer knows; the
// others are dropped with a note.
var registryServerKeys = []string{"$schema", "name", "version", "version_detail", "description", "title", "websiteUrl", "website_url", "repository", "icons", "remotes", "packages", "_meta"}

// server converts a server.json object.
func (d *docImporter) server(doc map[string]any) (map[string]any, string, string) {
	item := map[string]any{}

	// Identity: name, version, description. Any problem here is fatal.
	switch name, ok := doc["name"]; {
	case !ok:
		d.problem("missing name")
	default:
		if s, ok := name.(string); !ok {
			d.problem("name is %s, not a string", jsonValueKind(name))
		} else if n := utf8.RuneCountInString(s); n > cardNameMaxLen {
			d.problem("name is %d characters; at most %d", n, cardNameMaxLen)
		} else if !cardNamePattern.MatchString(s) {
			d.problem("name %s is not of the form reverse-DNS/name, such as com.example/weather", quoteForReason(s))
		} else {
			item["name"] = s
		}
	}

	version, hasVersion := doc["version"]
	if !hasVersion {
		// The first registry format (2025-07-09) nested it.
		if vd, ok := doc["version_detail"].(map[string]any); ok {
			if v, ok := vd["version"]; ok {
				version, hasVersion = v, true
				d.note("version_detail.version mapped to version")
			}
		}
	} else if _, ok := doc["version_detail"]; ok {
		d.note("dropped version_detail: version is set")
	}
	switch {
	case !hasVersion:
		d.problem("missing version")
	default:
		if s, ok := version.(string); !ok {
			d.problem("version is %s, not a string", jsonValueKind(version))
		} else if p := versionProblem(s); p != "" {
			d.problem("%s", p)
		} else {
			item["version"] = s
		}
	}

	switch desc, ok := doc["description"]; {
	case !ok:
		d.problem("missing description")
	default:
		if s, ok := desc.(string); !ok {
			d.problem("description is %s, not a string", jsonValueKind(desc))
		} else if strings.TrimSpace(s) == "" {
			d.problem("description is empty")
		} else {
			item["description"] = d.cut("description", s, cardDescriptionMaxLen)
		}
	}

	// Optional fields: a bad one is dropped with a note.
	if title, ok := doc["title"]; ok {
		if s, ok := title.(string); !ok {
			d.note("dropped title: it is %s, not a string", jsonValueKind(title))
		} else if strings.TrimSpace(s) == "" {
			d.note("dropped empty title")
		} else {
			item["title"] = d.cut("title", s, cardTitleMaxLen)
		}
	}

	site, hasSite := doc["websiteUrl"]
	if legacy, ok := doc["website_url"]; ok {
		if hasSite {
			d.note("dropped website_url: websiteUrl is set")
		} else {
			site, hasSite = legacy, true
			d.note("website_url mapped to websiteUrl")
		}
	}
	if hasSite {
		if s, ok := site.(string); !ok {
			d.note("dropped websiteUrl: it is %s, not a string", jsonValueKind(site))
		} else if !isAbsoluteURI(s) {
			d.note("dropped websiteUrl %s: not an absolute URL", quoteForReason(s))
		} else {
			item["websiteUrl"] = s
		}
	}

	if repo, ok := doc["repository"]; ok {
		if r := d.repository(repo); r != nil {
			item["repository"] = r
		}
	}
	if icons, ok := doc["icons"]; ok {
		if l := d.icons(icons); l != nil {
			item["icons"] = l
		}
	}

	remotes, hasRemotes := doc["remotes"]
	var remoteList []any
	if hasRemotes {
		remoteList = d.remotes(remotes)
	}

	var packageTypes []string
	hasPackages := false
	if pkgs, ok := doc["packages"]; ok {
		if l, ok := pkgs.([]any); ok {
			packageTypes, hasPackages = registryTypes(l), len(l) > 0
		} else {
			d.note("dropped packages: it is %s, not an array", jsonValueKind(pkgs))
		}
	}

	if meta, ok := doc["_meta"]; ok {
		if m := d.meta(meta); m != nil {
			item["_meta"] = m
		}
	}

	var unknown []string
	for _, k := range sortedKeys(doc) {
		if !slices.Contains(registryServerKeys, k) {
			unknown = append(unknown, k)
		}
	}
	d.dropUnknown("", unknown)

	if len(d.problems) > 0 {
		return nil, ImportInvalid, joinReasons(d.problems)
	}
	if len(remoteList) == 0 {
		what := "no remotes and no packages"
		if hasPackages {
			what = "local packages only"
			if len(packageTypes) > 0 {
				what += " (" + strings.Join(packageTypes, ", ") + ")"
			}
		}
		return nil, ImportNoRemotes, what + ": a server card describes remote endpoints; nothing to publish"
	}
	item["remotes"] = remoteList
	if hasPackages {
		list := ""
		if len(packageTypes) > 0 {
			list = " (" + strings.Join(packageTypes, ", ") + ")"
		}
		// Reported last among the top-level fields, where a reader of the
		// YAML looks for what is missing.
		d.notes = append(d.notes, "dropped packages"+list+": a server card describes remote endpoints only")
	}
	return item, ImportImported, joinReasons(d.notes)
}

// maxReasons is how many problems or notes a reason lists in full.
const maxReasons = 20

// joinReasons joins problems or notes into one line, at most maxReasons of
// them, then how many more there are.
func joinReasons(list []string) string {
	if len(list) <= maxReasons {
		return strings.Join(list, "; ")
	}
	return strings.Join(list[:maxReasons], "; ") + fmt.Sprintf("; and %d more", len(list)-maxReasons)
}

// registryTypes lists the distinct registryType values of packages, in
// order.
func registryTypes(packages []any) []string {
	var types []string
	for _, p := range packages {
		m, _ := p.(map[string]any)
		if t, ok := m["registryType"].(string); ok && t != "" {
			if t = quoteKeyForReason(t); !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	return types
}

// cut shortens text to at most limit characters (code points, as JSON Schema
// counts them), noting it.
func (d *docImporter) cut(field, s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	out := cutAtWord(s, limit)
	d.note("%s cut from %d to %d characters", field, n, utf8.RuneCountInString(out))
	return out
}

// cutAtWord shortens s to at most limit characters, ending with "…": at the
// last word boundary past half the limit, or in the middle
// of a word when there is none (long words, scripts without spaces).
// Punctuation and spaces left dangling before the "…" are trimmed.
func cutAtWord(s string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	keep := limit - 1 // room for "…"
	end := keep
	if !unicode.IsSpace(r[keep]) {
		for i := keep - 1; i > keep/2; i-- {
			if unicode.IsSpace(r[i]) {
				end = i
				break
			}
		}
	}
	dangling := func(c rune) bool {
		return unicode.IsSpace(c) || strings.ContainsRune(",;:.-–—([{/&", c)
	}
	out := strings.TrimRightFunc(string(r[:end]), dangling)
	if out == "" {
		out = string(r[:keep])
	}
	return out + "…"
}

// versionProblem says why v is not an exact version for a card, or "".
func versionProblem(v string) string {
	if strings.TrimSpace(v) == "" {
		return "version is empty"
	}
	if n := utf8.RuneCountInString(v); n > cardVersionMaxLen {
		return fmt.Sprintf("version is %d characters; at most %d", n, cardVersionMaxLen)
	}
	t := strings.TrimSpace(v)
	isRange := strings.ContainsAny(t[:1], "^~<>=") || strings.Contains(t, "||") || strings.Contains(t, " - ") || t == "*"
	if !isRange {
		core := strings.TrimPrefix(strings.TrimPrefix(t, "v"), "V")
		if i := strings.IndexAny(core, "-+"); i >= 0 {
			core = core[:i]
		}
		for part := range strings.SplitSeq(core, ".") {
			if part == "x" || part == "X" || part == "*" {
				isRange = true
			}
		}
	}
	if isRange {
		return fmt.Sprintf("version %s is a range, not an exact version", quoteForReason(v))
	}
	if strings.EqualFold(t, "latest") {
		return fmt.Sprintf("version %s is not an exact version", quoteForReason(v))
	}
	return ""
}

// isAbsoluteURI reports whether s is an absolute URI without spaces, as the
// JSON Schema "uri" format demands of websiteUrl and repository.url.
func isAbsoluteURI(s string) bool {
	if s == "" || strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}

// repository converts repository: url and source are required; an empty or
// incomplete one is dropped.
func (d *docImporter) repository(v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.note("dropped repository: it is %s, not an object", jsonValueKind(v))
		return nil
	}
	if len(m) == 0 {
		d.note("dropped empty repository {}")
		return nil
	}
	out := map[string]any{}
	var missing, bad []string
	for _, k := range []string{"url", "source"} {
		switch s, ok := m[k].(string); {
		case m[k] == nil:
			missing = append(missing, k)
		case !ok:
			bad = append(bad, fmt.Sprintf("%s is %s, not a string", k, jsonValueKind(m[k])))
		case strings.TrimSpace(s) == "":
			missing = append(missing, k)
		case k == "url" && !isAbsoluteURI(s):
			bad = append(bad, fmt.Sprintf("url %s is not an absolute URL", quoteForReason(s)))
		default:
			out[k] = s
		}
	}
	if len(missing) > 0 || len(bad) > 0 {
		var why []string
		if len(missing) > 0 {
			why = append(why, "no "+strings.Join(missing, " or "))
		}
		why = append(why, bad...)
		d.note("dropped repository: %s", strings.Join(why, ", "))
		return nil
	}
	var unknown []string
	for _, k := range sortedKeys(m) {
		switch k {
		case "url", "source":
		case "subfolder", "id":
			if s, ok := m[k].(string); ok {
				out[k] = s
			} else {
				d.note("dropped repository.%s: it is %s, not a string", k, jsonValueKind(m[k]))
			}
		default:
			unknown = append(unknown, k)
		}
	}
	d.dropUnknown("repository", unknown)
	return out
}

// icons converts icons: each needs an http(s) or data: src.
func (d *docImporter) icons(v any) []any {
	l, ok := v.([]any)
	if !ok {
		d.note("dropped icons: it is %s, not an array", jsonValueKind(v))
		return nil
	}
	var out []any
	for i, e := range l {
		path := fmt.Sprintf("icons[%d]", i)
		m, ok := e.(map[string]any)
		if !ok {
			d.note("dropped %s: it is %s, not an object", path, jsonValueKind(e))
			continue
		}
		src, ok := m["src"].(string)
		switch {
		case m["src"] == nil:
			d.note("dropped %s: no src", path)
			continue
		case !ok:
			d.note("dropped %s: src is %s, not a string", path, jsonValueKind(m["src"]))
			continue
		case !isIconURL(src):
			d.note("dropped %s: src %s is not an http(s) or data: URL", path, quoteForReason(src))
			continue
		}
		icon := map[string]any{"src": src}
		var unknown []string
		for _, k := range sortedKeys(m) {
			switch k {
			case "src":
			case "mimeType":
				if s, ok := m[k].(string); ok {
					icon[k] = s
				} else {
					d.note("dropped %s.mimeType: it is %s, not a string", path, jsonValueKind(m[k]))
				}
			case "sizes":
				if l, ok := asStringList(m[k]); ok {
					icon[k] = l
				} else {
					d.note("dropped %s.sizes: not an array of strings", path)
				}
			case "theme":
				if s, ok := m[k].(string); ok && (s == "light" || s == "dark") {
					icon[k] = s
				} else {
					d.note("dropped %s.theme %s: not light or dark", path, quoteForReason(m[k]))
				}
			default:
				unknown = append(unknown, k)
			}
		}
		d.dropUnknown(path, unknown)
		out = append(out, icon)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func isIconURL(s string) bool {
	if !isAbsoluteURI(s) {
		return false
	}
	u, _ := url.Parse(s)
	switch strings.ToLower(u.Scheme) {
	case "https", "http":
		return u.Host != ""
	case "data":
		return true
	}
	return false
}

// remoteTransports maps the spellings of a remote transport seen in the wild,
// lower-cased and without separators, to the card's values.
var remoteTransports = map[string]string{
	"streamablehttp": "streamable-http",
	"streamable":     "streamable-http", // the first registry format (2025-07-09)
	"http":           "streamable-http", // client configurations (VS Code, Claude Code)
	"sse":            "sse",
}

// remotes converts remotes. A remote that cannot be connected to (no or an
// unknown transport, no or a bad URL) makes the document invalid.
func (d *docImporter) remotes(v any) []any {
	l, ok := v.([]any)
	if !ok {
		d.problem("remotes is %s, not an array", jsonValueKind(v))
		return nil
	}
	var out []any
	for i, e := range l {
		if r := d.remote(fmt.Sprintf("remotes[%d]", i), e); r != nil {
			out = append(out, r)
		}
	}
	return out
}

func (d *docImporter) remote(path string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.problem("%s is %s, not an object", path, jsonValueKind(v))
		return nil
	}
	out := map[string]any{}
	bad := false

	typ, hasType := m["type"]
	typeField := "type"
	if legacy, ok := m["transport_type"]; ok {
		if hasType {
			d.note("dropped %s.transport_type: type is set", path)
		} else {
			typ, hasType, typeField = legacy, true, "transport_type"
		}
	}
	switch s, ok := typ.(string); {
	case !hasType:
		d.problem("%s has no type", path)
		bad = true
	case !ok:
		d.problem("%s.%s is %s, not a string", path, typeField, jsonValueKind(typ))
		bad = true
	default:
		key := strings.Map(func(r rune) rune {
			if r == '-' || r == '_' || r == ' ' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
		canonical, known := remoteTransports[key]
		switch {
		case !known:
			d.problem("%s.%s %s is not a remote transport: streamable-http or sse", path, typeField, quoteForReason(s))
			bad = true
		case typeField != "type":
			d.note("%s.%s %s mapped to type %s", path, typeField, quoteForReason(s), canonical)
		case s != canonical:
			d.note("%s.type %s mapped to %s", path, quoteForReason(s), canonical)
		}
		out["type"] = canonical
	}

	switch u, ok := m["url"].(string); {
	case m["url"] == nil:
		d.problem("%s has no url", path)
		bad = true
	case !ok:
		d.problem("%s.url is %s, not a string", path, jsonValueKind(m["url"]))
		bad = true
	case !isRemoteURL(u):
		d.problem("%s.url %s is not an http(s) URL", path, quoteForReason(u))
		bad = true
	default:
		out["url"] = u
	}

	var unknown []string
	for _, k := range sortedKeys(m) {
		switch k {
		case "type", "transport_type", "url":
		case "headers":
			l, ok := m[k].([]any)
			if !ok {
				d.note("dropped %s.headers: it is %s, not an array", path, jsonValueKind(m[k]))
				continue
			}
			var headers []any
			seen := map[string]string{}
			for i, h := range l {
				hp := fmt.Sprintf("%s.headers[%d]", path, i)
				in := d.input(hp, "header", "", h)
				if in == nil {
					continue
				}
				key := strings.ToLower(in["name"].(string))
				if first, dup := seen[key]; dup {
					d.note("dropped %s: header %s is already declared by %s", hp, quoteKeyForReason(in["name"].(string)), first)
					continue
				}
				seen[key] = hp
				headers = append(headers, in)
			}
			if len(headers) > 0 {
				out[k] = headers
			}
		case "variables":
			if vars := d.variables(path+".variables", m[k]); vars != nil {
				out[k] = vars
			}
		case "supportedProtocolVersions":
			if l, ok := asStringList(m[k]); ok {
				out[k] = l
			} else {
				d.note("dropped %s.supportedProtocolVersions: not an array of strings", path)
			}
		default:
			unknown = append(unknown, k)
		}
	}
	d.dropUnknown(path, unknown)
	if bad {
		return nil
	}
	d.matchVariables(path, "url", out["url"].(string), out, false)
	return out
}

// matchVariables makes the variables of obj (a remote or a header) those
// that its template (the remote's url, the header's value) uses: a
// {variable} it does not declare is declared (as a secret when its name, or
// the header's, says it holds a credential), and a declared one it does not
// use is dropped. Without the declaration a client would send {variable} as
// it is.
func (d *docImporter) matchVariables(path, field, template string, obj map[string]any, credential bool) {
	vars, _ := obj["variables"].(map[string]any)
	if vars == nil {
		vars = map[string]any{}
	}
	var used []string
	for _, m := range urlTemplateVariable.FindAllString(template, -1) {
		if name := m[1 : len(m)-1]; !slices.Contains(used, name) {
			used = append(used, name)
		}
	}
	for _, name := range used {
		if _, ok := vars[name]; ok {
			continue
		}
		in, as := map[string]any{}, ""
		if credential || isCredentialInputName(name) {
			in["isSecret"], as = true, " as a secret"
		}
		vars[name] = in
		d.note("declared %s.variables.%s%s: the %s uses {%s}", path, name, as, field, name)
	}
	for _, name := range sortedKeys(vars) {
		if !slices.Contains(used, name) {
			delete(vars, name)
			d.note("dropped %s.variables.%s: the %s does not use it", path, quoteKeyForReason(name), field)
		}
	}
	if len(vars) == 0 {
		delete(obj, "variables")
		return
	}
	obj["variables"] = vars
}

// isRemoteURL reports whether s is a remote's URL template: http(s)://…
// without spaces, or starting with a {variable} (as the card and the draft
// registry schema allow), that parses once its variables are filled in.
func isRemoteURL(s string) bool {
	if s == "" || strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	filled := urlTemplateVariable.ReplaceAllString(s, "x")
	if loc := urlTemplateVariable.FindStringIndex(s); loc != nil && loc[0] == 0 {
		_, err := url.Parse("https://" + filled)
		return err == nil
	}
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") {
		return false
	}
	u, err := url.Parse(filled)
	return err == nil && u.Host != ""
}

// variables converts a map of URL or header-value variables.
func (d *docImporter) variables(path string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.note("dropped %s: it is %s, not an object", path, jsonValueKind(v))
		return nil
	}
	out := map[string]any{}
	for _, k := range sortedKeys(m) {
		if in := d.input(path+"."+quoteKeyForReason(k), "variable", k, m[k]); in != nil {
			out[k] = in
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// input converts an Input: a header (kind "header", which has a name and
// variables of its own) or a variable (kind "variable", named by its key).
// A secret's value, default and choices (and a secret header's variables)
// are dropped: a secret must not be published. So is the literal value of an
// input whose name says it holds a credential (Authorization, X-API-Key, ...)
// but which is not marked secret; a {variable} template is kept.
func (d *docImporter) input(path, kind, key string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.note("dropped %s: it is %s, not an object", path, jsonValueKind(v))
		return nil
	}
	out := map[string]any{}
	name := key
	if kind == "header" {
		n, ok := m["name"].(string)
		switch {
		case m["name"] == nil || ok && strings.TrimSpace(n) == "":
			d.note("dropped %s: no name", path)
			return nil
		case !ok:
			d.note("dropped %s: name is %s, not a string", path, jsonValueKind(m["name"]))
			return nil
		}
		out["name"], name = n, n
	}
	fields := map[string]string{"is_required": "isRequired", "is_secret": "isSecret"}
	var unknown []string
	for _, k := range sortedKeys(m) {
		field := k
		if camel, ok := fields[k]; ok {
			if _, set := m[camel]; set {
				d.note("dropped %s.%s: %s is set", path, k, camel)
				continue
			}
			d.note("%s.%s mapped to %s", path, k, camel)
			field = camel
		}
		val := m[k]
		switch field {
		case "name":
			if kind != "header" {
				unknown = append(unknown, k)
			}
		case "description", "default", "placeholder", "value":
			if s, ok := val.(string); ok {
				out[field] = s
			} else {
				d.note("dropped %s.%s: it is %s, not a string", path, k, jsonValueKind(val))
			}
		case "choices":
			if l, ok := asStringList(val); ok {
				out[field] = l
			} else {
				d.note("dropped %s.choices: not an array of strings", path)
			}
		case "format":
			if s, ok := val.(string); ok && slices.Contains([]string{"boolean", "filepath", "number", "string"}, s) {
				out[field] = s
			} else {
				d.note("dropped %s.format %s: not boolean, filepath, number or string", path, quoteForReason(val))
			}
		case "isRequired", "isSecret":
			if b, ok := val.(bool); ok {
				out[field] = b
			} else if s, ok := val.(string); ok && (s == "true" || s == "false") {
				out[field] = s == "true"
				d.note("%s.%s %q read as %s", path, k, s, s)
			} else {
				d.note("dropped %s.%s: it is %s, not a boolean", path, k, jsonValueKind(val))
			}
		case "variables":
			if kind != "header" {
				unknown = append(unknown, k)
				continue
			}
			if vars := d.variables(path+".variables", val); vars != nil {
				out[field] = vars
			}
		default:
			unknown = append(unknown, k)
		}
	}
	d.dropUnknown(path, unknown)

	label := kind + " " + quoteKeyForReason(name)
	if secret, _ := out["isSecret"].(bool); secret {
		// A secret header may keep a value that is only a template, such as
		// "Bearer {api_key}": clients fill its variables in, and prompt for
		// the secret one. Anything literal is dropped.
		drop := []string{"value", "default", "choices", "variables"}
		if v, ok := out["value"].(string); ok && urlTemplateVariable.MatchString(v) {
			drop = []string{"default", "choices"}
		}
		if dropped := dropSetFields(out, drop...); dropped != "" {
			d.note("dropped the %s of secret %s (%s): a secret must not be published", dropped, label, path)
		}
	} else if isCredentialInputName(name) {
		var literal []string
		for _, f := range []string{"value", "default"} {
			if s, ok := out[f].(string); ok && strings.TrimSpace(s) != "" && !urlTemplateVariable.MatchString(s) {
				literal = append(literal, f)
			}
		}
		if dropped := dropSetFields(out, literal...); dropped != "" {
			d.note("dropped the %s of %s (%s): a literal credential must not be published; declare it isSecret without a value", dropped, label, path)
		}
	}
	if kind == "header" {
		value, _ := out["value"].(string)
		d.matchVariables(path, "value", value, out, isCredentialInputName(name))
	}
	return out
}

// dropSetFields deletes the fields of m that are set, and lists them in words
// ("value", "value and default"), "" when none was set.
func dropSetFields(m map[string]any, fields ...string) string {
	var set []string
	for _, f := range fields {
		if _, ok := m[f]; ok {
			set = append(set, f)
			delete(m, f)
		}
	}
	switch len(set) {
	case 0:
		return ""
	case 1:
		return set[0]
	}
	return strings.Join(set[:len(set)-1], ", ") + " and " + set[len(set)-1]
}

// isCredentialInputName reports whether a header or variable of this name
// carries a credential (Authorization, X-API-Key, *token*, ...).
func isCredentialInputName(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	for _, w := range []string{"token", "secret", "password", "passwd", "apikey", "api-key", "api_key", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// meta keeps _meta except the keys a card cannot carry: the registry's own
// bookkeeping, malformed keys and keys under a prefix MCP reserves (which
// includes the registry's publisher-provided metadata).
func (d *docImporter) meta(v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.note("dropped _meta: it is %s, not an object", jsonValueKind(v))
		return nil
	}
	out := map[string]any{}
	for _, k := range sortedKeys(m) {
		switch huge := hugeNumber(m[k]); {
		case k == registryMetaOfficial:
			d.note("dropped _meta %s: the registry's own bookkeeping", k)
			d.officialStatus(m[k])
		case !isMetaKey(k):
			d.note("dropped _meta %s: not a _meta key ([PREFIX/]NAME)", quoteKeyForReason(k))
		case isReservedMetaKey(k):
			d.note("dropped _meta %s: its prefix is reserved for MCP; to publish it, move it under a prefix of your own domain", quoteKeyForReason(k))
		case huge != "":
			d.note("dropped _meta %s: it holds the number %s, beyond the range of a 64-bit float", quoteKeyForReason(k), quoteForReason(huge))
		default:
			out[k] = m[k]
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// A _meta key is [PREFIX/]NAME (the MCP specification of _meta): PREFIX is
// dot-separated labels, NAME letters, digits, '-', '_' and '.'.
var (
	metaLabel = regexp.MustCompile(`^[a-zA-Z]([a-zA-Z0-9-]*[a-zA-Z0-9])?$`)
	metaName  = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?)?$`)
)

func isMetaKey(k string) bool {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		return metaName.MatchString(k)
	}
	for label := range strings.SplitSeq(prefix, ".") {
		if !metaLabel.MatchString(label) {
			return false
		}
	}
	return metaName.MatchString(name)
}

// isReservedMetaKey reports whether a _meta key's prefix is one MCP reserves:
// labels, then modelcontextprotocol or mcp, then one more label, as in
// io.modelcontextprotocol.registry/ or mcp.dev/.
func isReservedMetaKey(k string) bool {
	prefix, _, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		return false
	}
	labels := strings.Split(strings.ToLower(prefix), ".")
	n := len(labels)
	return n >= 2 && (labels[n-2] == "modelcontextprotocol" || labels[n-2] == "mcp")
}

// hugeNumber returns the first number in v that JSON allows but a 64-bit
// float (and so YAML) cannot hold, such as 1e400, or "".
func hugeNumber(v any) string {
	switch t := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(t), 64); err != nil {
			return string(t)
		}
	case []any:
		for _, e := range t {
			if n := hugeNumber(e); n != "" {
				return n
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if n := hugeNumber(t[k]); n != "" {
				return n
			}
		}
	}
	return ""
}

// dropUnknown notes the fields of the object at path that a card does not
// have.
func (d *docImporter) dropUnknown(path string, keys []string) {
	if len(keys) == 0 {
		return
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = quoteKeyForReason(k)
		if path != "" {
			names[i] = path + "." + names[i]
		}
	}
	what := "not a card field"
	if len(keys) > 1 {
		what = "not card fields"
	}
	d.note("dropped %s: %s", strings.Join(names, ", "), what)
}

// asStringList returns v as a fresh []any of strings, when it is one.
func asStringList(v any) ([]any, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]any, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// jsonValueKind names the JSON type of a decoded value, with its article.
func jsonValueKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, int:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// quoteForReason renders a value for a one-line message: strings quoted (and
// shortened past 60 characters), other values as JSON.
func quoteForReason(v any) string {
	s, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return jsonValueKind(v)
		}
		if s = string(b); utf8.RuneCountInString(s) > 60 {
			s = string([]rune(s)[:59]) + "…"
		}
		return s
	}
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return strconv.Quote(s)
}

// quoteKeyForReason quotes a key or word for a message when it holds spaces,
// separators or non-printing characters.
func quoteKeyForReason(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == ',' || r == ';' || r == '"'
	}) {
		return quoteForReason(s)
	}
	return s
}

// ---------------------------------------------------------------------------
// YAML rendering

// sourceElementPointer is the JSON pointer a source gets for an array
// element or a registry list entry.
var sourceElementPointer = regexp.MustCompile(`#/(servers/)?[0-9]+$`)

// serversYAML renders the imported servers as one declaration file; see
// ServersYAML.
func serversYAML(servers []importedServer) ([]byte, error) {
	type counts struct{ docs, imported, noRemotes, invalid int }
	var files []string
	perFile := map[string]*counts{}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range servers {
		file := sourceElementPointer.ReplaceAllString(s.Source, "")
		c := perFile[file]
		if c == nil {
			c = &counts{}
			perFile[file] = c
			files = append(files, file)
		}
		c.docs++
		switch s.Status {
		case ImportImported:
			c.imported++
		case ImportNoRemotes:
			c.noRemotes++
		default:
			c.invalid++
		}
		if s.Status != ImportImported {
			continue
		}
		if s.Server == nil {
			return nil, fmt.Errorf("%s: imported without a server", s.Source)
		}
		item, err := cardYAMLNode(s.Server, cardServer)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Source, err)
		}
		item.HeadComment = "# source: " + yamlCommentText(s.Source)
		if s.Reason != "" {
			item.HeadComment += "\n# import notes: " + yamlCommentText(s.Reason)
		}
		seq.Content = append(seq.Content, item)
	}
	if len(seq.Content) == 0 {
		seq.Style = yaml.FlowStyle
	}

	header := []string{
		"# MCP servers imported by `signpost import server` from MCP registry",
		"# server.json documents. Each one is published as a server card: review",
		"# the import notes, then edit freely.",
	}
	if len(files) == 0 {
		header = append(header, "# No documents were imported.")
	}
	for _, f := range files {
		c := perFile[f]
		header = append(header, fmt.Sprintf("# %s: %d %s, %d imported, %d without remotes, %d invalid",
			yamlCommentText(f), c.docs, english.Plural(c.docs, "document", "documents"), c.imported, c.noRemotes, c.invalid))
	}
	return declarationFile(header, "servers", seq)
}

// declarationFile encodes a declaration file of imports: the header
// comment, then key (tools or servers) holding seq, indented by two.
func declarationFile(header []string, key string, seq *yaml.Node) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{yamlStringNode(key), seq}}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: strings.Join(header, "\n"), Content: []*yaml.Node{root}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// yamlCommentText makes s safe inside a one-line YAML comment.
func yamlCommentText(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || !unicode.IsPrint(r) && r != ' ' }) {
		return strconv.Quote(s)
	}
	return s
}

// cardObject says which card object a map is, which fixes its key order.
type cardObject int

const (
	cardAny cardObject = iota // keys sorted
	cardServer
	cardRepository
	cardIcon
	cardRemote
	cardInput
	cardInputMap // variables: sorted keys, Input values
	cardWords    // a list of strings, rendered on one line
)

// cardKeyOrder is the order of the known fields of each card object; other
// keys follow, sorted.
var cardKeyOrder = map[cardObject][]string{
	cardServer:     {"name", "version", "description", "title", "websiteUrl", "repository", "icons", "remotes", "_meta"},
	cardRepository: {"url", "source", "subfolder", "id"},
	cardIcon:       {"src", "mimeType", "sizes", "theme"},
	cardRemote:     {"type", "url", "headers", "variables", "supportedProtocolVersions"},
	cardInput:      {"name", "description", "format", "isRequired", "isSecret", "value", "default", "placeholder", "choices", "variables"},
}

// cardChild is the kind of the value under key of a map of kind k (for
// arrays, of their elements).
func cardChild(k cardObject, key string) cardObject {
	switch {
	case k == cardServer && key == "repository":
		return cardRepository
	case k == cardServer && key == "icons":
		return cardIcon
	case k == cardServer && key == "remotes":
		return cardRemote
	case k == cardRemote && key == "headers":
		return cardInput
	case (k == cardRemote || k == cardInput) && key == "variables":
		return cardInputMap
	case k == cardInputMap:
		return cardInput
	case k != cardAny && (key == "sizes" || key == "choices" || key == "supportedProtocolVersions"):
		return cardWords
	}
	return cardAny
}

// cardYAMLNode builds the YAML node of a decoded JSON value.
func cardYAMLNode(v any, k cardObject) (*yaml.Node, error) {
	switch t := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		order := cardKeyOrder[k]
		keys := sortedKeys(t)
		slices.SortStableFunc(keys, func(a, b string) int {
			ia, ib := slices.Index(order, a), slices.Index(order, b)
			if ia < 0 {
				ia = len(order)
			}
			if ib < 0 {
				ib = len(order)
			}
			return ia - ib
		})
		for _, key := range keys {
			val, err := cardYAMLNode(t[key], cardChild(k, key))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, yamlStringNode(key), val)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		scalars := true
		for _, e := range t {
			val, err := cardYAMLNode(e, k)
			if err != nil {
				return nil, err
			}
			scalars = scalars && val.Kind == yaml.ScalarNode
			n.Content = append(n.Content, val)
		}
		// Short lists of words (sizes, choices, protocol versions) read best
		// on one line; other lists (in _meta) stay one item a line.
		if len(t) == 0 || scalars && k == cardWords {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case string:
		return yamlStringNode(t), nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case json.Number:
		return yamlNumberNode(string(t))
	case float64:
		out := strconv.FormatFloat(t, 'g', -1, 64)
		if !strings.ContainsAny(out, ".eEIN") {
			out += ".0"
		}
		return yamlNumberNode(out)
	case int:
		return yamlNumberNode(strconv.Itoa(t))
	case int64:
		return yamlNumberNode(strconv.FormatInt(t, 10))
	}
	return nil, fmt.Errorf("cannot render a %T in YAML", v)
}

// yamlNumberNode is a number scalar written as in the JSON source, so
// 1.50 and 12345678901234567890 stay as they were: tagged as YAML reads it
// back (an integer when it fits 64 bits, a float otherwise), so no explicit
// tag is written.
func yamlNumberNode(s string) (*yaml.Node, error) {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s}, nil
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s}, nil
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil || !jsonNumberPattern.MatchString(s) {
		return nil, fmt.Errorf("%q is not a number YAML can hold", s)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}, nil
}

// jsonNumberPattern is the grammar of a JSON number; every one is also a
// YAML float.
var jsonNumberPattern = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// yamlStringNode is a string scalar. The encoder quotes what would read back as
// another type; words that YAML 1.1 readers take for booleans are quoted too.
func yamlStringNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off":
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}
