package secrets

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// schemaSecretWalker walks the subschemas of a JSON Schema.
type schemaSecretWalker struct {
	root     any
	findings []Finding
	// pending holds the $ref targets secret schemas name, each with the
	// least of the labels that reached it; expanded, those already walked.
	// A target is walked once, however many secret properties name it.
	pending  map[string]string
	expanded map[string]bool
}

// walk visits schema node. label describes why it is secret ("" if it is
// not); name and kind say what its parent calls it ("property", ...).
func (w *schemaSecretWalker) walk(node any, path []secretPathSeg, label, name, kind string) {
	m, ok := node.(map[string]any)
	if !ok {
		return // true, false, or not a schema
	}
	if label == "" && kind != "" && Named(name) {
		label = "secret " + kind + " " + quoteSecretName(name)
	}
	if label == "" {
		label = schemaSecretDeclared(m, name, kind)
	}
	// Key material is looked for in the values of a schema that is not
	// secret, unless it says its values are digests or identifiers (asked
	// only when there is key material).
	declared := -1
	// One pass over the keywords, in any order: findings are sorted, and
	// $ref targets are expanded afterwards, whatever the order.
	for k, v := range m {
		switch k {
		case "const", "default", "enum", "example", "examples":
			if label != "" {
				// An enum of plain words lists kinds ("token": enum
				// [bearer, basic]), and its default is one of them.
				var words map[string]bool
				if k != "const" {
					words = plainWordEnum(m["enum"])
				}
				w.values(v, secretAppendKey(path, k), k+" value on "+label, words)
			} else {
				n := len(w.findings)
				w.keyValues(v, secretAppendKey(path, k), k)
				if len(w.findings) > n {
					if declared < 0 {
						declared = 0
						if schemaDeclaresDigest(m, name) {
							declared = 1
						}
					}
					on := ""
					if kind != "" {
						on = " on " + kind + " " + quoteSecretName(name)
					}
					for i := n; i < len(w.findings); i++ {
						w.findings[i].Reason = k + " value" + on + w.findings[i].Reason
					}
					if declared == 1 {
						w.findings = w.findings[:n]
					}
				}
			}
		case "$ref":
			if ref, ok := v.(string); ok && label != "" {
				w.followRef(ref, label)
			}
		case "not", "if", "then", "else", "additionalItems", "unevaluatedItems", "contains",
			"additionalProperties", "unevaluatedProperties", "contentSchema":
			// In place, or the elements of a secret: secret too.
			w.walk(v, secretAppendKey(path, k), label, "", "")
		case "propertyNames":
			// Names of members, not their values.
			w.walk(v, secretAppendKey(path, k), "", "", "")
		case "items", "allOf", "anyOf", "oneOf", "prefixItems":
			p := secretAppendKey(path, k)
			if a, ok := v.([]any); ok {
				for i, e := range a {
					w.walk(e, append(p, secretPathSeg{index: i}), label, "", "")
				}
			} else if k == "items" {
				w.walk(v, p, label, "", "")
			}
		case "properties":
			// Each property is judged by its own name.
			w.members(k, v, path, "", "property")
		case "patternProperties":
			w.members(k, v, path, label, "pattern property")
		case "$defs", "definitions":
			w.members(k, v, path, "", "definition")
		case "dependentSchemas", "dependencies":
			// In place; draft-07 arrays of names are not schemas.
			w.members(k, v, path, label, "")
		}
	}
}

func secretAppendKey(path []secretPathSeg, key string) []secretPathSeg {
	return append(path, secretPathSeg{key: key, index: -1})
}

// members walks v, the object of subschemas under keyword kw.
func (w *schemaSecretWalker) members(kw string, v any, path []secretPathSeg, label, kind string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	p := secretAppendKey(path, kw)
	for k, sub := range obj {
		w.walk(sub, secretAppendKey(p, k), label, k, kind)
	}
}

// schemaSecretDeclared returns a label when the schema itself says it holds
// a secret, directly or in one of its allOf/anyOf/oneOf branches (as in
// {"anyOf": [{"type": "string", "format": "password"}, {"type": "null"}]}).
func schemaSecretDeclared(m map[string]any, name, kind string) string {
	const (
		ownFormat = 1 << iota
		ownWriteOnly
		branchFormat
		branchWriteOnly
	)
	flags := 0
	for k, v := range m {
		switch k {
		case "format":
			if v == "password" {
				flags |= ownFormat
			}
		case "writeOnly":
			if v == true {
				flags |= ownWriteOnly
			}
		case "allOf", "anyOf", "oneOf":
			a, _ := v.([]any)
			for _, b := range a {
				if bm, ok := b.(map[string]any); ok {
					if bm["format"] == "password" {
						flags |= branchFormat
					}
					if bm["writeOnly"] == true {
						flags |= branchWriteOnly
					}
				}
			}
		}
	}
	var what string
	switch {
	case flags&ownFormat != 0:
		what = "format: password"
	case flags&ownWriteOnly != 0:
		what = "writeOnly: true"
	case flags&branchFormat != 0:
		what = "format: password"
	case flags != 0:
		what = "writeOnly: true"
	default:
		return ""
	}
	if kind == "" {
		return "schema with " + what
	}
	return kind + " " + quoteSecretName(name) + " with " + what
}

// values reports every non-empty string in v, a keyword's value at path,
// but the plain words of the schema's enum (words).
func (w *schemaSecretWalker) values(v any, path []secretPathSeg, reason string, words map[string]bool) {
	switch x := v.(type) {
	case string:
		if x != "" && !words[x] {
			w.findings = append(w.findings, Finding{Pointer: secretPointer(path), Reason: reason})
		}
	case []any:
		for i, e := range x {
			w.values(e, append(path, secretPathSeg{index: i}), reason, words)
		}
	case map[string]any:
		for k, e := range x {
			w.values(e, secretAppendKey(path, k), reason, nil)
		}
	}
}

// plainWordEnum returns the values of enum, a schema's "enum", when they
// are all plain words (see isPlainWord), else nil.
func plainWordEnum(enum any) map[string]bool {
	a, ok := enum.([]any)
	if !ok || len(a) == 0 {
		return nil
	}
	words := make(map[string]bool, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok || !isPlainWord(s) {
			return nil
		}
		words[s] = true
	}
	return words
}

// isPlainWord reports whether s is a word that names a kind, not a
// secret: 2 to 32 lower-case letters, perhaps words joined by "-" or "_"
// (client_credentials), and none of the passwords everybody tries first.
func isPlainWord(s string) bool {
	if len(s) < 2 || len(s) > 32 || s[0] == '-' || s[0] == '_' || s[len(s)-1] == '-' || s[len(s)-1] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || (c == '-' || c == '_') && s[i-1] != '-' && s[i-1] != '_') {
			return false
		}
	}
	switch s {
	case "password", "passwd", "changeme", "letmein", "admin", "root", "guest", "qwerty", "secret",
		"welcome", "monkey", "dragon", "master", "hunter", "iloveyou", "sunshine", "shadow", "trustno":
		return false
	}
	return true
}

// keyValues reports every string in v, a keyword's value at path, that is
// key material (see secretKeyMaterial), with a reason that its caller
// completes by prefixing what holds the value.
func (w *schemaSecretWalker) keyValues(v any, path []secretPathSeg, kw string) {
	switch x := v.(type) {
	case string:
		if what := secretKeyMaterial(x); what != "" {
			w.findings = append(w.findings, Finding{Pointer: secretPointer(path), Reason: " looks like " + what + " (" + secretHint(x) + ")"})
		}
	case []any:
		for i, e := range x {
			w.keyValues(e, append(path, secretPathSeg{index: i}), kw)
		}
	case map[string]any:
		if _, ok := x["kty"].(string); ok {
			return // a JSON Web Key: its public members look random; Find reports a private one
		}
		for k, e := range x {
			w.keyValues(e, secretAppendKey(path, k), kw)
		}
	}
}

// followRef records the target of a local "$ref" ("#" or
// "#/json/pointer") of a secret schema, to be walked as a secret schema by
// expandRefs. References to other documents and to anchors are left to the
// reference checks.
func (w *schemaSecretWalker) followRef(ref, label string) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	if frag != "" && frag[0] != '/' {
		return
	}
	if w.expanded[frag] {
		return
	}
	if old, ok := w.pending[frag]; !ok || label < old {
		if w.pending == nil {
			w.pending = map[string]string{}
		}
		w.pending[frag] = label
	}
}

// expandRefs walks the recorded $ref targets, in rounds: each target once,
// with the least label that reached it, in key order, so that the findings
// do not depend on the order of map iteration.
func (w *schemaSecretWalker) expandRefs() {
	for len(w.pending) > 0 {
		round := w.pending
		w.pending = nil
		for _, frag := range slices.Sorted(maps.Keys(round)) {
			if w.expanded == nil {
				w.expanded = map[string]bool{}
			}
			w.expanded[frag] = true
			w.walkTarget(frag, round[frag])
		}
	}
}

// walkTarget walks the value at the JSON pointer frag of the root as a
// secret schema.
func (w *schemaSecretWalker) walkTarget(frag, label string) {
	var path []secretPathSeg
	node := w.root
	if frag != "" {
		for _, seg := range strings.Split(frag[1:], "/") {
			seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
			switch x := node.(type) {
			case map[string]any:
				v, ok := x[seg]
				if !ok {
					return
				}
				node = v
				path = append(path, secretPathSeg{key: seg, index: -1})
			case []any:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != seg {
					return
				}
				node = x[i]
				path = append(path, secretPathSeg{index: i})
			default:
				return
			}
		}
	}
	w.walk(node, path, label, "", "")
}
