package importer

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/signpost-dev/signpost/build/discovery"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/schemas"
)

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
		d.note("dropped repository: it is %s, not an object", schemas.KindOf(v))
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
			bad = append(bad, fmt.Sprintf("%s is %s, not a string", k, schemas.KindOf(m[k])))
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "url", "source":
		case "subfolder", "id":
			if s, ok := m[k].(string); ok {
				out[k] = s
			} else {
				d.note("dropped repository.%s: it is %s, not a string", k, schemas.KindOf(m[k]))
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
		d.note("dropped icons: it is %s, not an array", schemas.KindOf(v))
		return nil
	}
	var out []any
	for i, e := range l {
		path := fmt.Sprintf("icons[%d]", i)
		m, ok := e.(map[string]any)
		if !ok {
			d.note("dropped %s: it is %s, not an object", path, schemas.KindOf(e))
			continue
		}
		src, ok := m["src"].(string)
		switch {
		case m["src"] == nil:
			d.note("dropped %s: no src", path)
			continue
		case !ok:
			d.note("dropped %s: src is %s, not a string", path, schemas.KindOf(m["src"]))
			continue
		case !isIconURL(src):
			d.note("dropped %s: src %s is not an http(s) or data: URL", path, quoteForReason(src))
			continue
		}
		icon := map[string]any{"src": src}
		var unknown []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch k {
			case "src":
			case "mimeType":
				if s, ok := m[k].(string); ok {
					icon[k] = s
				} else {
					d.note("dropped %s.mimeType: it is %s, not a string", path, schemas.KindOf(m[k]))
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
		d.problem("remotes is %s, not an array", schemas.KindOf(v))
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
		d.problem("%s is %s, not an object", path, schemas.KindOf(v))
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
		d.problem("%s.%s is %s, not a string", path, typeField, schemas.KindOf(typ))
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

	u, ok := m["url"].(string)
	// The rule the loader applies, so that an imported remote validates.
	urlProblem := ""
	if ok {
		urlProblem = discovery.CheckRemoteURL(u)
	}
	switch {
	case m["url"] == nil:
		d.problem("%s has no url", path)
		bad = true
	case !ok:
		d.problem("%s.url is %s, not a string", path, schemas.KindOf(m["url"]))
		bad = true
	case urlProblem != "":
		d.problem("%s.url %s %s", path, quoteForReason(spec.Redact(u)), urlProblem)
		bad = true
	default:
		out["url"] = u
	}

	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "type", "transport_type", "url":
		case "headers":
			l, ok := m[k].([]any)
			if !ok {
				d.note("dropped %s.headers: it is %s, not an array", path, schemas.KindOf(m[k]))
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
	for _, name := range slices.Sorted(maps.Keys(vars)) {
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

// variables converts a map of URL or header-value variables.
func (d *docImporter) variables(path string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		d.note("dropped %s: it is %s, not an object", path, schemas.KindOf(v))
		return nil
	}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
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
		d.note("dropped %s: it is %s, not an object", path, schemas.KindOf(v))
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
			d.note("dropped %s: name is %s, not a string", path, schemas.KindOf(m["name"]))
			return nil
		}
		out["name"], name = n, n
	}
	fields := map[string]string{"is_required": "isRequired", "is_secret": "isSecret"}
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
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
				d.note("dropped %s.%s: it is %s, not a string", path, k, schemas.KindOf(val))
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
				d.note("dropped %s.%s: it is %s, not a boolean", path, k, schemas.KindOf(val))
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
		d.note("dropped _meta: it is %s, not an object", schemas.KindOf(v))
		return nil
	}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
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
		for _, k := range slices.Sorted(maps.Keys(t)) {
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

// quoteForReason renders a value for a one-line message: strings quoted (and
// shortened past 60 characters), other values as JSON.
func quoteForReason(v any) string {
	s, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return schemas.KindOf(v)
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
