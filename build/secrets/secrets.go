// Package secrets finds credential material in decoded JSON values and in
// JSON Schemas: vendor tokens, private keys, passwords in URLs, and values of
// members whose names say they hold a secret. A catalog is public the moment
// it is published, so whatever this package reports must never reach a
// document; its findings name where, never the secret itself.
//
// Three kinds are known by their shape alone. A Telegram bot token is a bot
// id of 8 to 10 digits, a colon and 35 characters starting with "A". A bare
// AWS secret access key is a run of exactly 40 characters of [A-Za-z0-9/+]
// that mixes lower case, upper case and digits, has 20 distinct
// characters, changes character class as often as random text does, and is
// not base64 of text: a Git commit, a path or an identifier is not one. In
// a schema, a string in the default, const, enum, examples or example of
// any schema is key material when it is hex of 32 characters or more (one
// case, letters and digits), or base64 of 40 or more that passes the
// guard of a bare AWS key, unless the schema says what its values are: a
// digest or an identifier, by a word (sha256, digest, hash, checksum,
// commit, revision, etag, fingerprint, uuid, id, ...) in the property's
// name, in its format, or at the start of its title or description. UUIDs
// with their dashes, colors and "sha256:…" digests are never key material.
//
// A query parameter (after "?", "&" or ";") is a credential when its name
// is one that Named accepts (access_token, api_key, client_secret,
// password, ...) or one that means a credential in a URL only (sig,
// signature, key, X-Amz-Signature, ...), and its value looks like one.
//
// A string is read as a client reads it: when it holds nothing as
// written, it is scanned again with its %XX decoded and the backslashes
// of a regular expression's escapes (\. \-) dropped, so that a key in a
// URL or in a schema's pattern is still found. Some credentials are
// members of JSON, as text or as a value: a JSON Web Key with a private
// "d" (or an "oct" key's "k"), a Docker config's "auth". A bare AWS key
// passes after words, or under a name, that say it is an identifier or a
// digest (request id, commit, ...); so do the hex and base64 values of a
// schema, and IPFS content ids, Ethereum addresses and "sha512-"
// digests; an enum of plain words on a secret property names kinds.
package secrets

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Finding is credential material found in a JSON value.
type Finding struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value, relative
	// to the value scanned ("" is the root). For an object key it is the
	// pointer of the member.
	Pointer string
	// Reason says what was found in one line. It never repeats the secret:
	// at most its first four characters followed by "…".
	Reason string
}

// Find scans v, a decoded JSON value (map[string]any, []any, string,
// json.Number, bool, nil), and reports credential material in string values
// and object keys, sorted by Pointer (byte order, then Reason).
//
// A string is reported at most once, under the most specific pattern it
// matches. Every pattern demands a vendor prefix, a structure that decodes,
// or enough length and character variety that prose mentioning "a GitHub
// token" or "sk-" does not trigger it. A string value is also reported when
// its member's name says it holds a secret (see Named) and the value
// looks like one: no spaces, letters and digits, not a placeholder.
//
// A long string that v holds several times over (as YAML aliases make
// them: the same bytes) is scanned once per call, so that aliases cannot
// multiply the cost of a scan.
func Find(v any) []Finding {
	var w secretWalker
	var path [32]secretPathSeg
	w.walk(v, path[:0])
	return sortSecretFindings(w.findings, false)
}

// FindInSchema scans a JSON Schema document (a tool's inputSchema or
// outputSchema) for secret values hidden in schema keywords. A schema is
// secret when the property (or pattern property, or definition) it describes
// has a name that holds a secret (see Named), when it says
// "format": "password" or "writeOnly": true (itself or directly in one of its
// allOf/anyOf/oneOf branches), or when it sits inside a secret schema: in an
// in-place applicator (allOf, anyOf, oneOf, not, if/then/else,
// dependentSchemas) or describing its elements (items, prefixItems,
// additionalProperties, contains, ...), but not under "properties", whose
// members are judged by their own names. Every non-empty string in the
// default, const, enum, examples or example of a secret schema is a finding.
// Local "$ref"s of a secret schema are followed, and a finding in the target
// is reported at the target's pointer. Booleans are valid schemas; values
// that are not schemas are skipped. One finding per pointer, sorted.
func FindInSchema(schema any) []Finding {
	w := schemaSecretWalker{root: schema}
	var path [32]secretPathSeg
	w.walk(schema, path[:0], "", "", "")
	w.expandRefs()
	return sortSecretFindings(w.findings, true)
}

func sortSecretFindings(fs []Finding, onePerPointer bool) []Finding {
	if len(fs) == 0 {
		return nil
	}
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Reason, b.Reason))
	})
	if onePerPointer {
		return slices.CompactFunc(fs, func(a, b Finding) bool { return a.Pointer == b.Pointer })
	}
	return slices.Compact(fs)
}

// secretPathSeg is one step of a JSON pointer: an object member (index < 0)
// or an array element.
type secretPathSeg struct {
	key   string
	index int
}

// secretPointer builds the RFC 6901 pointer of path; it is only called when
// there is something to report, so walking allocates nothing.
func secretPointer(path []secretPathSeg) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
			continue
		}
		for i := 0; i < len(s.key); i++ {
			switch c := s.key[i]; c {
			case '~':
				b.WriteString("~0")
			case '/':
				b.WriteString("~1")
			default:
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

type secretWalker struct {
	findings []Finding
	// first and scanned hold what scanSecretString said of each long
	// string, by the address and length of its bytes: the first one
	// without a map, which most values never need.
	first   secretStringKey
	firstIs secretScanned
	scanned map[secretStringKey]secretScanned
}

// secretCacheMin is the length from which a string's scan is remembered:
// shorter ones cost less to scan again than to look up.
const secretCacheMin = 512

// secretStringKey identifies the bytes of a string: strings that share them
// (copies of one string, as YAML aliases give) have the same key.
type secretStringKey struct {
	data *byte
	n    int
}

type secretScanned struct {
	m  secretMatch
	ok bool
}

// scan is scanSecretString, remembered for long strings.
func (w *secretWalker) scan(s string) (secretMatch, bool) {
	if len(s) < secretCacheMin {
		return scanSecretString(s)
	}
	k := secretStringKey{unsafe.StringData(s), len(s)}
	if k == w.first {
		return w.firstIs.m, w.firstIs.ok
	}
	if r, ok := w.scanned[k]; ok {
		return r.m, r.ok
	}
	m, ok := scanSecretString(s)
	switch {
	case w.first.data == nil:
		w.first, w.firstIs = k, secretScanned{m, ok}
	case w.scanned == nil:
		w.scanned = map[secretStringKey]secretScanned{k: {m, ok}}
	default:
		w.scanned[k] = secretScanned{m, ok}
	}
	return m, ok
}

func (w *secretWalker) add(path []secretPathSeg, reason string) {
	w.findings = append(w.findings, Finding{Pointer: secretPointer(path), Reason: reason})
}

// walk scans v, found at path. path is not kept, so it can live on the
// caller's stack.
func (w *secretWalker) walk(v any, path []secretPathSeg) {
	switch x := v.(type) {
	case string:
		if m, ok := w.scan(x); ok && !(m.shape && secretDeclaredPath(path)) {
			w.add(path, m.reason(""))
		}
	case map[string]any:
		if member, ok := findJWKObject(x); ok {
			w.add(append(path, secretPathSeg{key: member, index: -1}), `looks like the private "`+member+`" of a JSON Web Key`)
		}
		for k, val := range x {
			p := append(path, secretPathSeg{key: k, index: -1})
			if m, ok := w.scan(k); ok {
				w.add(p, m.reason("object key "))
			}
			if s, ok := val.(string); ok {
				if m, ok := w.scan(s); ok {
					if !(m.shape && secretDeclaredPath(p)) {
						w.add(p, m.reason(""))
					}
				} else if LooksLikeCredential(s) && Named(k) {
					w.add(p, "value of member "+quoteSecretName(k)+" looks like a credential")
				} else if isAuthName(k) && basicUserPass(s) {
					w.add(p, `value of member "`+k+`" holds a user name and password`)
				}
			} else {
				w.walk(val, p)
			}
		}
	case []any:
		for i, val := range x {
			w.walk(val, append(path, secretPathSeg{index: i}))
		}
	}
}

// secretDeclaredPath reports whether the name that path gives a value
// declares it an identifier or a digest: the last member name on path
// that is not a JSON Schema keyword (the property of an example, the
// member of a value), as "requestId" in
// /properties/requestId/examples/0.
func secretDeclaredPath(path []secretPathSeg) bool {
	for i := len(path) - 1; i >= 0; i-- {
		seg := path[i]
		if seg.index >= 0 || secretSchemaValueKeywords[seg.key] {
			continue
		}
		return secretHasDeclaredWord(seg.key)
	}
	return false
}

// secretSchemaValueKeywords are the JSON Schema keywords under which a
// schema holds values, and "properties", under which it names them.
var secretSchemaValueKeywords = map[string]bool{
	"default": true, "const": true, "enum": true, "examples": true, "example": true, "properties": true,
}

// secretMatch is what scanSecretString found: a noun phrase naming the kind
// of credential, and whether it is the whole string.
type secretMatch struct {
	what  string
	whole bool
	// shape is set when only the shape of the string says it is a
	// credential (a bare AWS secret access key): a name around it that
	// declares an identifier or a digest (see secretHasDeclaredWord)
	// says otherwise.
	shape bool
	// member is set when the secret is the value of a member of JSON text
	// (a JSON Web Key's "d", a registry's "auth"), which other values
	// surround: Redact cuts every long run of key characters.
	member bool
}

func (m secretMatch) reason(prefix string) string {
	if m.whole {
		return prefix + "looks like " + m.what
	}
	return prefix + "contains " + m.what
}

// secretHint is the redacted hint a reason may carry: the first four
// characters of the secret and an ellipsis.
func secretHint(s string) string {
	n := 0
	for i := range s {
		if n == 4 {
			return s[:i] + "…"
		}
		n++
	}
	return s + "…"
}
