package refs

import (
	"fmt"
	"strings"

	"github.com/signpost-dev/signpost/schemas"
)

// Resolver resolves the local $refs of one schema: "#", "#/json/pointer"
// with ~0 ~1 and %-escapes, or "#anchor" naming a $anchor. It walks the
// schema once, on the first anchor it is asked for, to index the anchors the
// way Check does, so that resolving every $ref of a schema takes time linear
// in the schema's size. A Resolver is not safe for concurrent use, and the
// schema must not change while it is in use.
type Resolver struct {
	root    any
	anchors *refChecker // the walked schema; nil until an anchor is resolved
}

// NewResolver returns a Resolver of the $refs in root, a decoded JSON value
// as for Check. It does no work until Resolve needs it.
func NewResolver(root any) *Resolver {
	return &Resolver{root: root}
}

// Resolve returns the subschema ref names within the Resolver's root.
//
// ok is false when ref is not local, does not resolve, or names a value that
// is not an object or a boolean. An anchor is looked up among the schema
// positions of the root, within MaxDepth; when it is defined twice (an error
// Check reports), the definition with the smallest pointer wins. Resolve does
// not check whether a pointer target sits at a schema position; Check does.
func (r *Resolver) Resolve(ref string) (target any, ok bool) {
	kind, frag, _ := splitLocalRef(ref)
	switch kind {
	case refToRoot, refToPointer:
		v, _, _, fail := lookupRefPointer(r.root, frag, false)
		if fail != "" || !isSchemaValue(v) {
			return nil, false
		}
		return v, true
	case refToAnchor:
		if r.anchors == nil {
			m, isMap := r.root.(map[string]any)
			if !isMap {
				return nil, false
			}
			r.anchors = newRefChecker(m)
			r.anchors.unordered = true
			r.anchors.indexAnchors()
			// Only the nodes and the index are needed from here on.
			r.anchors.kids, r.anchors.anchors, r.anchors.problems = nil, nil, nil
		}
		id, found := r.anchors.anchorNode[frag]
		if !found {
			return nil, false
		}
		return r.anchors.nodes[id].value, true
	}
	return nil, false
}

// localRefKind classifies a $ref string.
type localRefKind uint8

const (
	refEmpty     localRefKind = iota // ""
	refExternal                      // does not start with "#"
	refMalformed                     // starts with "#" but cannot be used
	refToRoot                        // "#"
	refToPointer                     // "#/…"
	refToAnchor                      // "#name"
)

// splitLocalRef classifies ref and returns its %-decoded fragment, or for
// refMalformed the rest of a message saying what is wrong.
func splitLocalRef(ref string) (kind localRefKind, frag, fail string) {
	switch {
	case ref == "":
		return refEmpty, "", ""
	case ref[0] != '#':
		return refExternal, "", ""
	}
	frag, ok := percentDecode(ref[1:])
	switch {
	case !ok:
		return refMalformed, "", "has a malformed %-escape; write \"%25\" for a literal \"%\""
	case frag == "":
		return refToRoot, "", ""
	case frag[0] == '/':
		return refToPointer, frag, ""
	case isAnchorName(frag):
		return refToAnchor, frag, ""
	}
	return refMalformed, "", "is neither a JSON pointer fragment (\"#/…\") nor an anchor name (\"#name\"); write one of those"
}

// percentDecode decodes the %XX escapes of a URI fragment.
func percentDecode(s string) (string, bool) {
	n := strings.Count(s, "%")
	if n == 0 {
		return s, true
	}
	b := make([]byte, 0, len(s)) // not len(s)-2*n: a "%" may lack its two digits
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			return "", false
		}
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// isAnchorName reports whether s matches ^[A-Za-z_][A-Za-z0-9._-]*$.
func isAnchorName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', c == '_':
		case i > 0 && ('0' <= c && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// refPosition says where a value sits relative to the schema structure.
type refPosition uint8

const (
	posSchema    refPosition = iota // a schema position
	posKeyword                      // the whole value of a keyword that holds schemas (e.g. "/$defs")
	posData                         // inside enum, const, default or examples
	posOther                        // inside any other keyword's value
	posMisshapen                    // inside a keyword that holds schemas, but not at one (wrong type)
)

// lookupRefPointer returns the value at pointer in doc. With classify, it also
// says where that value sits, assuming doc is a schema, and the keyword that
// decides it. On failure, fail says which step failed.
func lookupRefPointer(doc any, pointer string, classify bool) (v any, pos refPosition, kw, fail string) {
	if pointer == "" {
		return doc, posSchema, "", ""
	}
	if pointer[0] != '/' {
		return nil, 0, "", fmt.Sprintf("%q is not a JSON pointer: it must start with \"/\"", pointer)
	}
	v, pos = doc, posSchema
	for i := 1; ; {
		j := strings.IndexByte(pointer[i:], '/')
		if j < 0 {
			j = len(pointer)
		} else {
			j += i
		}
		tok, ok := unescapeRefToken(pointer[i:j])
		if !ok {
			return nil, 0, "", fmt.Sprintf("%q is not a valid JSON pointer token: \"~\" must be followed by 0 or 1", pointer[i:j])
		}
		where := pointer[:i-1]
		if where == "" {
			where = "the schema"
		}
		var next any
		switch x := v.(type) {
		case map[string]any:
			var found bool
			if next, found = x[tok]; !found {
				return nil, 0, "", fmt.Sprintf("%s has no member %q", where, tok)
			}
		case []any:
			n, isIndex := ArrayIndex(tok)
			if !isIndex {
				return nil, 0, "", fmt.Sprintf("%s is an array and %q is not an index", where, tok)
			}
			if n >= len(x) {
				return nil, 0, "", fmt.Sprintf("%s has no element %d (it has %d)", where, n, len(x))
			}
			next = x[n]
		default:
			return nil, 0, "", fmt.Sprintf("%s is %s, so it has no member %q", where, schemas.KindOf(v), tok)
		}
		if classify {
			switch pos {
			case posSchema: // v is an object: a boolean has no members
				kw = tok
				_, isMap := next.(map[string]any)
				_, isList := next.([]any)
				switch KeywordKind(tok) {
				case Schema:
					pos = posIf(isSchemaValue(next), posSchema, posMisshapen)
				case SchemaMap, Dependencies:
					pos = posIf(isMap, posKeyword, posMisshapen)
				case SchemaList:
					pos = posIf(isList, posKeyword, posMisshapen)
				case Items:
					pos = posIf(isList, posKeyword, posIf(isSchemaValue(next), posSchema, posMisshapen))
				case Data:
					pos = posData
				default:
					pos = posOther
				}
			case posKeyword:
				pos = posIf(isSchemaValue(next), posSchema, posMisshapen)
			}
		}
		v = next
		if j == len(pointer) {
			return v, pos, kw, ""
		}
		i = j + 1
	}
}

func posIf(cond bool, yes, no refPosition) refPosition {
	if cond {
		return yes
	}
	return no
}

func unescapeRefToken(s string) (string, bool) {
	if strings.IndexByte(s, '~') < 0 {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1') {
			return "", false
		}
		if s[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		i++
	}
	return b.String(), true
}

// ArrayIndex parses an RFC 6901 array index: "0" or digits without a leading zero.
func ArrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func isSchemaValue(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}
