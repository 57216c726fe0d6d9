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
func (d *docImporter) repository(r repositoryDoc) map[string]any {
	if r.kind != "" {
		d.note("dropped repository: it is %s, not an object", r.kind)
		return nil
	}
	if r.empty {
		d.note("dropped empty repository {}")
		return nil
	}
	out := map[string]any{}
	var missing, bad []string
	for _, f := range []struct {
		k string
		v member
	}{{"url", r.url}, {"source", r.source}} {
		switch s, ok := f.v.str(); {
		case f.v.null():
			missing = append(missing, f.k)
		case !ok:
			bad = append(bad, fmt.Sprintf("%s is %s, not a string", f.k, f.v.kind()))
		case strings.TrimSpace(s) == "":
			missing = append(missing, f.k)
		case f.k == "url" && !isAbsoluteURI(s):
			bad = append(bad, fmt.Sprintf("url %s is not an absolute URL", quoteForReason(s)))
		default:
			out[f.k] = s
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
	// In the order of their keys.
	for _, f := range []struct {
		k string
		v member
	}{{"id", r.id}, {"subfolder", r.subfolder}} {
		if !f.v.set {
			continue
		}
		if s, ok := f.v.str(); ok {
			out[f.k] = s
		} else {
			d.note("dropped repository.%s: it is %s, not a string", f.k, f.v.kind())
		}
	}
	d.dropUnknown("repository", r.unknown)
	return out
}

// icons converts icons: each needs an http(s) or data: src.
func (d *docImporter) icons(icons iconsDoc) []any {
	if icons.kind != "" {
		d.note("dropped icons: it is %s, not an array", icons.kind)
		return nil
	}
	var out []any
	for i, ic := range icons.items {
		path := fmt.Sprintf("icons[%d]", i)
		if ic.kind != "" {
			d.note("dropped %s: it is %s, not an object", path, ic.kind)
			continue
		}
		src, ok := ic.src.str()
		switch {
		case ic.src.null():
			d.note("dropped %s: no src", path)
			continue
		case !ok:
			d.note("dropped %s: src is %s, not a string", path, ic.src.kind())
			continue
		case !isIconURL(src):
			d.note("dropped %s: src %s is not an http(s) or data: URL", path, quoteForReason(src))
			continue
		}
		icon := map[string]any{"src": src}
		// In the order of their keys.
		if ic.mimeType.set {
			if s, ok := ic.mimeType.str(); ok {
				icon["mimeType"] = s
			} else {
				d.note("dropped %s.mimeType: it is %s, not a string", path, ic.mimeType.kind())
			}
		}
		if ic.sizes.set {
			if l, ok := ic.sizes.stringList(); ok {
				icon["sizes"] = l
			} else {
				d.note("dropped %s.sizes: not an array of strings", path)
			}
		}
		if ic.theme.set {
			if s, ok := ic.theme.str(); ok && (s == "light" || s == "dark") {
				icon["theme"] = s
			} else {
				d.note("dropped %s.theme %s: not light or dark", path, quoteForReason(ic.theme.v))
			}
		}
		d.dropUnknown(path, ic.unknown)
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
func (d *docImporter) remotes(rs remotesDoc) []any {
	if rs.kind != "" {
		d.problem("remotes is %s, not an array", rs.kind)
		return nil
	}
	var out []any
	for i, r := range rs.items {
		if r := d.remote(fmt.Sprintf("remotes[%d]", i), r); r != nil {
			out = append(out, r)
		}
	}
	return out
}

func (d *docImporter) remote(path string, r remoteDoc) map[string]any {
	if r.kind != "" {
		d.problem("%s is %s, not an object", path, r.kind)
		return nil
	}
	out := map[string]any{}
	bad := false

	typ := r.typ
	typeField := "type"
	if r.transportType.set {
		if typ.set {
			d.note("dropped %s.transport_type: type is set", path)
		} else {
			typ, typeField = r.transportType, "transport_type"
		}
	}
	switch s, ok := typ.str(); {
	case !typ.set:
		d.problem("%s has no type", path)
		bad = true
	case !ok:
		d.problem("%s.%s is %s, not a string", path, typeField, typ.kind())
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

	u, ok := r.url.str()
	// The rule the loader applies, so that an imported remote validates.
	urlProblem := ""
	if ok {
		urlProblem = discovery.CheckRemoteURL(u)
	}
	switch {
	case r.url.null():
		d.problem("%s has no url", path)
		bad = true
	case !ok:
		d.problem("%s.url is %s, not a string", path, r.url.kind())
		bad = true
	case urlProblem != "":
		d.problem("%s.url %s %s", path, quoteForReason(spec.Redact(u)), urlProblem)
		bad = true
	default:
		out["url"] = u
	}

	// In the order of their keys.
	if r.headers.set {
		if r.headers.kind != "" {
			d.note("dropped %s.headers: it is %s, not an array", path, r.headers.kind)
		} else {
			var headers []any
			seen := map[string]string{}
			for i, h := range r.headers.items {
				hp := fmt.Sprintf("%s.headers[%d]", path, i)
				in, name := d.input(hp, "header", "", h)
				if in == nil {
					continue
				}
				key := strings.ToLower(name)
				if first, dup := seen[key]; dup {
					d.note("dropped %s: header %s is already declared by %s", hp, quoteKeyForReason(name), first)
					continue
				}
				seen[key] = hp
				headers = append(headers, in)
			}
			if len(headers) > 0 {
				out["headers"] = headers
			}
		}
	}
	if r.protocolVersions.set {
		if l, ok := r.protocolVersions.stringList(); ok {
			out["supportedProtocolVersions"] = l
		} else {
			d.note("dropped %s.supportedProtocolVersions: not an array of strings", path)
		}
	}
	var vars map[string]any
	if r.variables.set {
		if vars = d.variables(path+".variables", r.variables); vars != nil {
			out["variables"] = vars
		}
	}
	d.dropUnknown(path, r.unknown)
	if bad {
		return nil
	}
	setVariables(out, d.matchVariables(path, "url", u, vars, false))
	return out
}

// matchVariables makes vars, the variables of a remote or a header, those
// that its template (the remote's url, the header's value) uses, and
// returns them (nil for none): a {variable} it does not declare is
// declared (as a secret when its name, or the header's, says it holds a
// credential), and a declared one it does not use is dropped. Without the
// declaration a client would send {variable} as it is.
func (d *docImporter) matchVariables(path, field, template string, vars map[string]any, credential bool) map[string]any {
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
		return nil
	}
	return vars
}

// setVariables sets the variables of obj, a remote or a header, or drops
// them when there are none.
func setVariables(obj, vars map[string]any) {
	if vars == nil {
		delete(obj, "variables")
		return
	}
	obj["variables"] = vars
}

// variables converts a map of URL or header-value variables.
func (d *docImporter) variables(path string, vars varsDoc) map[string]any {
	if vars.kind != "" {
		d.note("dropped %s: it is %s, not an object", path, vars.kind)
		return nil
	}
	out := map[string]any{}
	for _, v := range vars.vars {
		if in, _ := d.input(path+"."+quoteKeyForReason(v.key), "variable", v.key, v.in); in != nil {
			out[v.key] = in
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// input converts an Input: a header or a package's environment variable
// (kind "header" or "environment variable", which have a name and
// variables of their own), a package's argument (kind "argument", named
// by key, its flag or valueHint, with variables of its own) or a variable
// (kind "variable", named by its key), and returns it with its name. A secret's value, default and choices (and
// a secret header's variables) are dropped: a secret must not be published.
// So is the literal value of an input whose name says it holds a credential
// (Authorization, X-API-Key, ...) but which is not marked secret; a
// {variable} template is kept.
func (d *docImporter) input(path, kind, key string, in inputDoc) (map[string]any, string) {
	if in.kind != "" {
		d.note("dropped %s: it is %s, not an object", path, in.kind)
		return nil, ""
	}
	out := map[string]any{}
	name := key
	unknown := in.unknown
	if kind == "header" || kind == "environment variable" {
		n, ok := in.name.str()
		switch {
		case in.name.null() || ok && strings.TrimSpace(n) == "":
			d.note("dropped %s: no name", path)
			return nil, ""
		case !ok:
			d.note("dropped %s: name is %s, not a string", path, in.name.kind())
			return nil, ""
		}
		out["name"], name = n, n
	} else if kind == "variable" {
		// A variable is named by its key, and has no variables.
		for _, f := range []struct {
			k   string
			set bool
		}{{"name", in.name.set}, {"variables", in.variables.set}} {
			if f.set {
				unknown = append(slices.Clone(unknown), f.k)
			}
		}
		slices.Sort(unknown)
	}
	// The strings and booleans an input may hold, by their members, in the
	// order of their keys; is_required and is_secret are the first
	// registry format's spellings of isRequired and isSecret.
	var secret bool
	var value string
	for _, f := range []struct {
		k, field string
		v        member
		camel    member
	}{
		{"choices", "choices", in.choices, member{}},
		{"default", "default", in.def, member{}},
		{"description", "description", in.description, member{}},
		{"format", "format", in.format, member{}},
		{"isRequired", "isRequired", in.isRequired, member{}},
		{"isSecret", "isSecret", in.isSecret, member{}},
		{"is_required", "isRequired", in.isRequiredLegacy, in.isRequired},
		{"is_secret", "isSecret", in.isSecretLegacy, in.isSecret},
		{"placeholder", "placeholder", in.placeholder, member{}},
		{"value", "value", in.value, member{}},
	} {
		if !f.v.set {
			continue
		}
		k := f.k
		if k != f.field {
			if f.camel.set {
				d.note("dropped %s.%s: %s is set", path, k, f.field)
				continue
			}
			d.note("%s.%s mapped to %s", path, k, f.field)
		}
		val := f.v
		switch f.field {
		case "description", "default", "placeholder", "value":
			if s, ok := val.str(); ok {
				out[f.field] = s
				if f.field == "value" {
					value = s
				}
			} else {
				d.note("dropped %s.%s: it is %s, not a string", path, k, val.kind())
			}
		case "choices":
			if l, ok := val.stringList(); ok {
				out[f.field] = l
			} else {
				d.note("dropped %s.choices: not an array of strings", path)
			}
		case "format":
			if s, ok := val.str(); ok && slices.Contains([]string{"boolean", "filepath", "number", "string"}, s) {
				out[f.field] = s
			} else {
				d.note("dropped %s.format %s: not boolean, filepath, number or string", path, quoteForReason(val.v))
			}
		case "isRequired", "isSecret":
			b, ok := val.boolean()
			if s, isStr := val.str(); !ok && isStr && (s == "true" || s == "false") {
				b, ok = s == "true", true
				d.note("%s.%s %q read as %s", path, k, s, s)
			}
			if !ok {
				d.note("dropped %s.%s: it is %s, not a boolean", path, k, val.kind())
				continue
			}
			out[f.field] = b
			if f.field == "isSecret" {
				secret = b
			}
		}
	}
	var vars map[string]any
	if kind != "variable" && in.variables.set {
		if vars = d.variables(path+".variables", in.variables); vars != nil {
			out["variables"] = vars
		}
	}
	d.dropUnknown(path, unknown)

	label := kind + " " + quoteKeyForReason(name)
	if secret {
		// A secret header may keep a value that is only a template, such as
		// "Bearer {api_key}": clients fill its variables in, and prompt for
		// the secret one. Anything literal is dropped.
		drop := []string{"value", "default", "choices", "variables"}
		if _, ok := out["value"]; ok && urlTemplateVariable.MatchString(value) {
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
	if kind != "variable" {
		if _, kept := out["value"]; !kept {
			value = ""
		}
		if _, kept := out["variables"]; !kept {
			vars = nil
		}
		setVariables(out, d.matchVariables(path, "value", value, vars, isCredentialInputName(name)))
	}
	return out, name
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
func (d *docImporter) meta(meta metaDoc) map[string]any {
	if meta.kind != "" {
		d.note("dropped _meta: it is %s, not an object", meta.kind)
		return nil
	}
	out := map[string]any{}
	for _, m := range meta.members {
		switch k, huge := m.key, hugeNumber(m.value); {
		case k == registryMetaOfficial:
			d.note("dropped _meta %s: the registry's own bookkeeping", k)
			d.officialStatus(m.official)
		case !isMetaKey(k):
			d.note("dropped _meta %s: not a _meta key ([PREFIX/]NAME)", quoteKeyForReason(k))
		case isReservedMetaKey(k):
			d.note("dropped _meta %s: its prefix is reserved for MCP; to publish it, move it under a prefix of your own domain", quoteKeyForReason(k))
		case huge != "":
			d.note("dropped _meta %s: it holds the number %s, beyond the range of a 64-bit float", quoteKeyForReason(k), quoteForReason(huge))
		default:
			out[k] = m.value
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
