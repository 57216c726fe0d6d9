package schemas

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the library's own messages, for the kinds of error this file has no words for.
var printer = message.NewPrinter(language.English)

// leaf is one violation on its way out, with what is needed to merge the branches of an anyOf.
type leaf struct {
	ptr  []string // instance location, unescaped tokens
	msg  string
	want string // for a value of the wrong type (Type, or Enum or Const of other types): what is accepted
	typ  bool   // a Type error: other errors about the type of the same value add nothing
}

// flattener turns the library's tree of errors into leaves.
type flattener struct {
	v    *Validator
	root any // the instance
	out  []leaf
}

func (f *flattener) add(ptr []string, msg string) {
	f.out = append(f.out, leaf{ptr: ptr, msg: msg})
}

func (f *flattener) walk(e *jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		if len(e.Causes) == 0 {
			f.leaf(e)
		}
		for _, c := range e.Causes {
			f.walk(c)
		}
	case *kind.AnyOf:
		f.alternatives(e)
	case *kind.OneOf:
		if k.Subschemas == nil {
			f.alternatives(e)
		} else {
			f.add(e.InstanceLocation, fmt.Sprintf("must match exactly one of the allowed forms, but matches forms %d and %d", k.Subschemas[0]+1, k.Subschemas[1]+1))
		}
	default:
		f.leaf(e)
	}
}

// alternatives reports an anyOf or oneOf none of whose branches matched. A branch whose type does
// not fit the value is discarded; if exactly one branch is left, its own violations are reported,
// since that is the form the author was writing. Otherwise one violation at the value lists what
// each branch would have accepted.
func (f *flattener) alternatives(e *jsonschema.ValidationError) {
	at := e.InstanceLocation
	var fitting [][]leaf
	var wants []string
	for _, c := range e.Causes {
		sub := flattener{v: f.v, root: f.root}
		sub.walk(c)
		want := ""
		for _, l := range sub.out {
			if l.want != "" && slices.Equal(l.ptr, at) {
				want = l.want
				break
			}
		}
		if want != "" {
			wants = append(wants, want)
		} else {
			fitting = append(fitting, sub.out)
		}
	}
	switch {
	case len(fitting) == 1:
		f.out = append(f.out, fitting[0]...)
	case len(fitting) == 0:
		msg := "must be " + strings.Join(dedupe(wants), ", or ") + "; got " + describeValue(f.value(at))
		f.out = append(f.out, leaf{ptr: at, msg: msg, want: strings.Join(wants, ", or ")})
	default:
		var forms []string
		for _, ls := range fitting {
			var parts []string
			for _, l := range ls {
				p := l.msg
				if rel := l.ptr[min(len(at), len(l.ptr)):]; len(rel) > 0 {
					p = "at " + pointer(rel) + ": " + p
				}
				parts = append(parts, p)
			}
			slices.Sort(parts)
			forms = append(forms, "("+strings.Join(slices.Compact(parts), "; ")+")")
		}
		f.add(at, "matches none of the allowed forms: "+strings.Join(forms, " or "))
	}
}

// leaf reports one error of the library as violations, without looking at its causes.
func (f *flattener) leaf(e *jsonschema.ValidationError) {
	at := e.InstanceLocation
	when := f.condition(e)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		msg := "must be " + typeWant(k.Want) + when + ", got " + k.Got
		if k.Got == "boolean" && len(at) > 0 && (at[len(at)-1] == "exclusiveMinimum" || at[len(at)-1] == "exclusiveMaximum") && slices.Contains(k.Want, "number") {
			msg += " (a draft-04 habit: since draft-06 it is the bound itself)"
		}
		f.out = append(f.out, leaf{ptr: at, msg: msg, want: typeWant(k.Want), typ: true})
	case *kind.Enum:
		want := enumWant(k.Want)
		l := leaf{ptr: at, msg: "must be " + want + when + "; got " + describeValue(k.Got)}
		if !typeAmong(k.Got, k.Want) {
			l.want = want
		}
		f.out = append(f.out, l)
	case *kind.Const:
		want := showAllowed(k.Want)
		l := leaf{ptr: at, msg: "must be " + want + when + "; got " + describeValue(k.Got)}
		if !typeAmong(k.Got, []any{k.Want}) {
			l.want = want
		}
		f.out = append(f.out, l)
	case *kind.Required:
		for _, m := range k.Missing {
			f.add(at, fmt.Sprintf("missing required field %s%s", quoteValue(m), when))
		}
	case *kind.AdditionalProperties:
		allowed := f.allowedFields(e.SchemaURL)
		for _, p := range k.Properties {
			msg := fmt.Sprintf("unknown field %s", quoteValue(p))
			if len(allowed) > 0 {
				msg += "; allowed: " + strings.Join(allowed, ", ")
			} else {
				msg += "; no fields are allowed here"
			}
			f.add(append(slices.Clip(at), p), msg)
		}
	case *kind.Pattern:
		what, ok := patternNames[k.Want]
		if !ok {
			what = "match the pattern " + k.Want
		}
		f.add(at, "must "+what+when+"; got "+describeValue(k.Got))
	case *kind.MinLength:
		if k.Want == 1 {
			f.add(at, "must not be empty"+when)
		} else {
			f.add(at, fmt.Sprintf("must be at least %d characters long%s; got %d", k.Want, when, k.Got))
		}
	case *kind.MaxLength:
		f.add(at, fmt.Sprintf("must be at most %d characters long%s; got %d", k.Want, when, k.Got))
	case *kind.Format:
		f.add(at, fmt.Sprintf("must be a valid %s%s (%s); got %s", k.Want, when, errorText(k.Err), describeValue(k.Got)))
	case *kind.MinProperties:
		if fields := f.allowedFields(e.SchemaURL); k.Want == 1 && len(fields) > 0 {
			f.add(at, "must not be empty"+when+"; expected at least one of: "+strings.Join(fields, ", "))
		} else {
			f.add(at, fmt.Sprintf("must have at least %d %s%s; got %d", k.Want, english.Plural(k.Want, "field", "fields"), when, k.Got))
		}
	case *kind.MaxProperties:
		f.add(at, fmt.Sprintf("must have at most %d %s%s; got %d", k.Want, english.Plural(k.Want, "field", "fields"), when, k.Got))
	case *kind.MinItems:
		if k.Want == 1 {
			f.add(at, "must not be empty"+when)
		} else {
			f.add(at, fmt.Sprintf("must have at least %d items%s; got %d", k.Want, when, k.Got))
		}
	case *kind.MaxItems:
		f.add(at, fmt.Sprintf("must have at most %d %s%s; got %d", k.Want, english.Plural(k.Want, "item", "items"), when, k.Got))
	case *kind.UniqueItems:
		f.add(append(slices.Clip(at), itoa(k.Duplicates[1])), fmt.Sprintf("duplicate of item %d; items must be unique", k.Duplicates[0]))
	case *kind.Minimum:
		f.add(at, fmt.Sprintf("must be at least %s%s; got %s", ratString(k.Want), when, ratString(k.Got)))
	case *kind.Maximum:
		f.add(at, fmt.Sprintf("must be at most %s%s; got %s", ratString(k.Want), when, ratString(k.Got)))
	case *kind.ExclusiveMinimum:
		f.add(at, fmt.Sprintf("must be greater than %s%s; got %s", ratString(k.Want), when, ratString(k.Got)))
	case *kind.ExclusiveMaximum:
		f.add(at, fmt.Sprintf("must be less than %s%s; got %s", ratString(k.Want), when, ratString(k.Got)))
	case *kind.MultipleOf:
		f.add(at, fmt.Sprintf("must be a multiple of %s%s; got %s", ratString(k.Want), when, ratString(k.Got)))
	case *kind.Dependency:
		for _, m := range k.Missing {
			f.add(at, fmt.Sprintf("missing field %s, required when %s is present", quoteValue(m), quoteValue(k.Prop)))
		}
	case *kind.DependentRequired:
		for _, m := range k.Missing {
			f.add(at, fmt.Sprintf("missing field %s, required when %s is present", quoteValue(m), quoteValue(k.Prop)))
		}
	case *kind.PropertyNames:
		sub := flattener{v: f.v, root: k.Property}
		for _, c := range e.Causes {
			sub.walk(c)
		}
		var why []string
		for _, l := range sub.out {
			why = append(why, l.msg)
		}
		msg := "invalid field name " + quoteValue(k.Property)
		if len(why) > 0 {
			slices.Sort(why)
			msg += ": " + strings.Join(slices.Compact(why), "; ")
		}
		f.add(append(slices.Clip(at), k.Property), msg)
	case *kind.FalseSchema:
		f.add(at, "is not allowed here"+when)
	case *kind.Not:
		f.not(e)
	default:
		f.add(at, e.ErrorKind.LocalizedString(printer)+when)
	}
}

// not reports a failed "not". The one in our schemas forbids keywords of a compact schema; each
// forbidden keyword present gets a violation of its own, at its value.
func (f *flattener) not(e *jsonschema.ValidationError) {
	at := e.InstanceLocation
	if strings.HasPrefix(e.SchemaURL, idPrefix) && strings.HasSuffix(e.SchemaURL, "#/$defs/compactSchema") {
		// The instance there is a tool's schema: open JSON, read as decoded.
		if obj, ok := f.value(at).(map[string]any); ok {
			found := false
			forbidden := spec.CompactForbidden()
			for _, kw := range forbidden {
				if _, ok := obj[kw]; ok {
					found = true
					f.add(append(slices.Clip(at), kw), fmt.Sprintf("%s is not allowed in a compact schema, at any depth (none of %s)", quoteValue(kw), strings.Join(forbidden, ", ")))
				}
			}
			if found {
				return
			}
		}
	}
	f.add(at, "matches a schema it must not match")
}

// condition explains a violation found under the "then" of an if/then in one of our schemas, such as
// ` when safetyTier is read`, from the values the "if" tested. It is "" elsewhere.
func (f *flattener) condition(e *jsonschema.ValidationError) string {
	base, frag, ok := strings.Cut(e.SchemaURL, "#")
	if !ok {
		return ""
	}
	doc, ok := f.v.docs[base]
	if !ok {
		return ""
	}
	toks := fragmentTokens(frag)
	i := slices.Index(toks, "then") // our schemas nest no if/then inside another
	if i < 0 {
		return ""
	}
	// Below "then", our schemas descend only through properties: the value the "if" tested is as
	// many levels up from the error's location as there are "properties" steps.
	rest := toks[i+1:]
	if len(rest)%2 != 0 || len(rest)/2 > len(e.InstanceLocation) {
		return ""
	}
	loc := e.InstanceLocation[:len(e.InstanceLocation)-len(rest)/2]
	for j := 0; j < len(rest); j += 2 {
		if rest[j] != "properties" || rest[j+1] != e.InstanceLocation[len(loc)+j/2] {
			return ""
		}
	}
	// Schemas and instances are open JSON, read as decoded, keyword by keyword.
	cond, _ := lookup(doc, append(slices.Clip(toks[:i]), "if")).(map[string]any)
	props, _ := cond["properties"].(map[string]any)
	var parts []string
	obj, _ := f.value(loc).(map[string]any)
	for _, name := range sortedKeys(props) {
		if val, ok := obj[name]; ok {
			parts = append(parts, name+" is "+showAllowed(val))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " when " + strings.Join(parts, " and ")
}

// allowedFields returns the sorted names under "properties" of the embedded schema at schemaURL.
func (f *flattener) allowedFields(schemaURL string) []string {
	base, frag, _ := strings.Cut(schemaURL, "#")
	doc, ok := f.v.docs[base]
	if !ok {
		return nil
	}
	// A schema is open JSON, read as decoded, keyword by keyword.
	sch, _ := lookup(doc, fragmentTokens(frag)).(map[string]any)
	props, _ := sch["properties"].(map[string]any)
	return sortedKeys(props)
}

// value returns the part of the instance at ptr, or nil.
func (f *flattener) value(ptr []string) any {
	return lookup(f.root, ptr)
}

// patternNames says in words what the patterns of our schemas require.
var patternNames = map[string]string{
	"^(did:web:)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$":        "be a domain name in lower case, or did:web: followed by one",
	"^(env:[A-Za-z_][A-Za-z0-9_]*|file:.+|kms:arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)/.+)$": "name a key: env:VARIABLE, file:PATH or kms:ARN of a KMS key or alias",
	"^[A-Za-z0-9_-]+\\.\\.[A-Za-z0-9_-]{86}$":                                                        "be a detached compact JWS of ES256: HEADER..SIGNATURE in base64url",
	"^[A-Za-z0-9_-]{43}$":                                   "be 32 bytes in base64url without padding (43 characters)",
	"^did:web:":                                             "be a did:web DID",
	"^did:web:[a-z0-9.-]+$":                                 "be a root did:web DID, did:web:DOMAIN",
	"^https://[^/?#@]+":                                     "be an absolute https URL, such as https://example.com/privacy",
	"^[a-z][a-z0-9]*(_[a-z0-9]+)*$":                         "be ASCII snake case (lower-case letters and digits in words joined by single underscores, starting with a letter)",
	"^[A-Za-z0-9_-]{1,48}$":                                 "be a CloudFront function name stem: 1 to 48 letters, digits, '-' or '_' (publish adds -viewer-request and -viewer-response)",
	"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$":                  "be a tenant id (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
	"^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)?$":               "be empty or a tenant id (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
	"^sha256:[0-9a-f]{64}$":                                 "be sha256: followed by 64 lower-case hexadecimal digits",
	"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$":                      "be a server name of the form reverse-DNS/name, such as com.example/weather",
	"^https?://":                                            "start with https:// (or http://)",
	"^https://":                                             "start with https://",
	"^[a-f0-9]{64}$":                                        "be a SHA-256: 64 lower-case hexadecimal digits",
	"^[0-9]{4}-[0-9]{2}-[0-9]{2}$":                          "be an MCP protocol version: a date such as 2025-06-18",
	"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$":                         "be an HTTP header name: letters, digits and !#$%&'*+.^_`|~-, without spaces or colons",
	"^(any|[0-9]+x[0-9]+)$":                                 "be WIDTHxHEIGHT in pixels, such as 48x48, or any",
	"^(https?://|data:)":                                    "be an http or https URL, or a data: URI",
	"^urn:mcp:server:[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$":       "be urn:mcp:server: followed by a server name, such as urn:mcp:server:com.example/weather",
	"^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$":           "be urn:air:DOMAIN followed by segments of letters, digits, '.', '_' and '-', each after a colon, without '/', such as urn:air:example.com:mcp:weather",
	"^urn:air:[a-zA-Z0-9.-]+:mcp:[a-zA-Z0-9._-]+$":          "be urn:air:DOMAIN:mcp:NAME, NAME one segment of letters, digits, '.', '_' and '-' (no '/'), such as urn:air:example.com:mcp:weather",
	"^urn:air:[a-zA-Z0-9.-]+:tool-catalog:[a-zA-Z0-9._-]+$": "be urn:air:DOMAIN:tool-catalog:NAME, NAME the tenant or tools, such as urn:air:example.com:tool-catalog:tools",
	"^https?://[^/?#]+/tools$":                              "be the site's origin followed by /tools, such as https://example.com/tools",
	"^https?://[^/?#]+/tool-catalogue\\.json$":              "be the site's origin followed by /tool-catalogue.json, such as https://example.com/tool-catalogue.json",
	"^[A-Za-z0-9][A-Za-z0-9._+-]*$":                         "be a version such as 2026.11 or 3.2.0: letters, digits, '.', '_', '+' and '-', starting with a letter or digit",
	"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$":                    "be an S3 bucket name: 3 to 63 lower-case letters, digits, '.' and '-'",
	"^[a-z0-9-]+$":                                          "be a region name such as us-east-1",
	"^[A-Za-z0-9!_.*'()-]+(/[A-Za-z0-9!_.*'()-]+)*$":        "be a key prefix such as discovery/site, without leading or trailing slash",
	"^[A-Z0-9]+$":                                           "be a CloudFront distribution id such as E2EXAMPLE",
	`^"[^"]+"$`:                                             `be a strong ETag: a non-empty string in double quotes, such as "\"abc\""`,
	"^[0-9a-f]{64}$":                                        "be 64 lower-case hexadecimal digits",
	"\\.(br|gz)$":                                           "end in .br or .gz",
	`^"[^"]+-(br|gzip)"$`:                                   `be a variant's strong ETag: the document's with -br or -gzip inside its quotes, such as "\"abc-gzip\""`,
	"^/":                                                    `start with "/"`,
	"^/tool-catalogue/groups/[a-z][a-z0-9]*(_[a-z0-9]+)*\\.json$":                                      "be /tool-catalogue/groups/ followed by a group key and .json",
	"^groups/[a-z][a-z0-9]*(_[a-z0-9]+)*$":                                                             "be groups/ followed by a group key",
	"^[0-9]+(\\.[0-9]+)? ?(B|kB|KB|MB|GB|KiB|MiB|GiB)?$":                                               "be a size: a number of bytes, or a number with a unit (B, kB, MB, GB, KiB, MiB or GiB), such as 64MiB",
	"^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$":                                     "be a relative folder of letters, digits, '.', '_' and '-' written with '/', such as tenants/acme",
	"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$":                     "be a domain name in lower case, such as example.com",
	"^arn:aws:cloudfront::[0-9]{12}:key-value-store/[A-Za-z0-9-]+$":                                    "be the ARN of a CloudFront KeyValueStore: arn:aws:cloudfront::ACCOUNT:key-value-store/ID, with a 12-digit account, such as arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111",
	`^([^/.\\][^/\\]*|\.[^/.\\][^/\\]*|\.\.[^/\\]+)(/([^/.\\][^/\\]*|\.[^/.\\][^/\\]*|\.\.[^/\\]+))*$`: "be a relative key written with '/', without empty, '.' or '..' segments or backslashes",
}

// --- values and words

// typeWant says in words what a list of JSON types accepts: "a string", "an object or null".
func typeWant(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "null":
			words[i] = "null"
		case "object", "array", "integer":
			words[i] = "an " + t
		default:
			words[i] = "a " + t
		}
	}
	return strings.Join(words, " or ")
}

// enumWant says in words what an enum accepts: "one of pure, read, write, exec".
func enumWant(values []any) string {
	if len(values) == 1 {
		return showAllowed(values[0])
	}
	shown := make([]string, len(values))
	for i, x := range values {
		shown[i] = showAllowed(x)
	}
	return "one of " + strings.Join(shown, ", ")
}

// showAllowed renders an allowed value: a plain word as is, anything else as JSON.
func showAllowed(x any) string {
	if s, ok := x.(string); ok && isPlainWord(s) {
		return s
	}
	return compactJSON(x)
}

func isPlainWord(s string) bool {
	if s == "" || s == "true" || s == "false" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9' && i > 0,
			(r == '-' || r == '_' || r == '.' || r == '/' || r == '+') && i > 0:
		default:
			return false
		}
	}
	return true
}

// describeValue renders a value found in an instance: a scalar as JSON (long strings shortened),
// a container by its type.
func describeValue(x any) string {
	switch x := x.(type) {
	case map[string]any, []any:
		return KindOf(x)
	case string:
		return quoteValue(x)
	}
	return compactJSON(x)
}

// quoteValue quotes s as a JSON string, shortened to about 80 characters.
func quoteValue(s string) string {
	const max = 80
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b), `\u0026`, "&") // keep the message readable
}

func compactJSON(x any) string {
	switch x := x.(type) {
	case string:
		return quoteValue(x)
	case json.Number:
		return string(x)
	case map[string]any, []any:
		return KindOf(x)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Sprint(x)
	}
	return string(b)
}

// typeAmong reports whether x has the JSON type of one of values.
func typeAmong(x any, values []any) bool {
	t := TypeName(x)
	for _, w := range values {
		if TypeName(w) == t {
			return true
		}
	}
	return false
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func errorText(err error) string {
	if err == nil {
		return "invalid"
	}
	if l, ok := err.(interface{ LocalizedError(*message.Printer) string }); ok {
		return l.LocalizedError(printer)
	}
	return err.Error()
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func itoa(i int) string { return strconv.Itoa(i) }

// --- pointers

// pointer renders unescaped tokens as a JSON pointer.
func pointer(toks []string) string {
	var sb strings.Builder
	for _, t := range toks {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}

// fragmentTokens splits the fragment of a library schema location (a JSON pointer with each token
// percent-encoded) into unescaped tokens.
func fragmentTokens(frag string) []string {
	if frag == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts
}

// lookup returns the value at the unescaped tokens toks of doc, or nil.
func lookup(doc any, toks []string) any {
	for _, t := range toks {
		switch d := doc.(type) {
		case map[string]any:
			doc = d[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(d) {
				return nil
			}
			doc = d[i]
		default:
			return nil
		}
	}
	return doc
}

// finish renders leaves as violations, sorted and without duplicates.
func finish(leaves []leaf) []Violation {
	type item struct {
		toks []string
		v    Violation
	}
	// A value of the wrong type fails every rule about its value; say so once. (An if/then rule
	// can ask for a boolean const where the type rule already rejected a string.)
	typeErrs := map[string]bool{}
	for _, l := range leaves {
		if l.typ {
			typeErrs[pointer(l.ptr)] = true
		}
	}
	items := make([]item, 0, len(leaves))
	for _, l := range leaves {
		p := pointer(l.ptr)
		if !l.typ && l.want != "" && typeErrs[p] {
			continue
		}
		items = append(items, item{l.ptr, Violation{Pointer: p, Message: oneLine.Replace(l.msg)}})
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := comparePointers(a.toks, b.toks); c != 0 {
			return c
		}
		return strings.Compare(a.v.Message, b.v.Message)
	})
	out := make([]Violation, 0, len(items))
	for _, it := range items {
		if n := len(out); n > 0 && out[n-1] == it.v {
			continue
		}
		out = append(out, it.v)
	}
	return out
}

// oneLine keeps a message on one line when it quotes a value with line breaks (a regular
// expression in a library error, for one).
var oneLine = strings.NewReplacer("\n", `\n`, "\r", `\r`)

// comparePointers orders pointers token by token; tokens that are both array indexes compare as
// numbers, so /tools/2 comes before /tools/10.
func comparePointers(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareTokens(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func compareTokens(a, b string) int {
	if isIndex(a) && isIndex(b) && len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func isIndex(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
