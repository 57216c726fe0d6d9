package schemas

import (
	"encoding/json"
	"math/big"
)

// Validating a schema against the draft 2020-12 meta-schema costs the library about 15µs per schema
// node, mostly allocation, and a build checks thousands of input schemas. Nearly all of them use a
// handful of keywords in the obvious way, so CheckSchema first runs plainValid2020, a direct reading
// of the 2020-12 meta-schemas for those keywords. It answers true only when the meta-schema is sure
// to accept the schema; for anything it does not know, and for every schema that would fail, the
// library validates as before, so every verdict against a schema and every message still comes from
// the meta-schema. TestFastPathAgrees and FuzzFastPath hold the two to that. In a build without
// fast paths (package fastpath) the library validates every schema.
//
// It also answers true only for a value checkValue accepts (nested at most maxDepth levels, numbers
// that are JSON numbers), so that a schema it accepts is walked once, not twice: the values it does
// not read as schemas (enum, const, default, unknown keywords) are walked by badValue.

// plainValid2020 reports whether x is certainly valid against the draft 2020-12 meta-schema, as
// compiled by NewValidator (formats asserted, patterns checked by lenientRegexp), and passes
// checkValue. false means "ask checkValue and the meta-schema", not "invalid".
func plainValid2020(x any) bool { return plainSchema(x, 0) }

// plainSchema is plainValid2020 of x at depth in the instance. A schema is open JSON: it, and every
// keyword's value below, is read as decoded.
func plainSchema(x any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch x := x.(type) {
	case bool:
		return true
	case map[string]any:
		for k, val := range x {
			if !plainKeyword(k, val, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// plainKeyword checks the value of one keyword of a schema object, at depth in the instance,
// following the properties of the 2020-12 meta-schema and its vocabulary meta-schemas. Keywords
// the meta-schemas do not mention are unconstrained.
func plainKeyword(k string, val any, depth int) bool {
	switch k {
	// applicator, unevaluated, content
	case "items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return plainSchema(val, depth)
	case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
		m, ok := val.(map[string]any)
		if !ok {
			return false
		}
		for name, e := range m {
			if k == "patternProperties" {
				if _, err := lenientRegexp(name); err != nil {
					return false
				}
			}
			if !plainSchema(e, depth+1) {
				return false
			}
		}
		return true
	case "allOf", "anyOf", "oneOf", "prefixItems":
		a, ok := val.([]any)
		if !ok || len(a) == 0 {
			return false
		}
		for _, e := range a {
			if !plainSchema(e, depth+1) {
				return false
			}
		}
		return true
	case "dependencies":
		m, ok := val.(map[string]any)
		if !ok {
			return false
		}
		for _, e := range m {
			if !plainSchema(e, depth+1) && !isStringSet(e) {
				return false
			}
		}
		return true
	}
	// The other keywords' values are not schemas: they are read here, and
	// walked as checkValue walks them.
	if !plainValue(k, val) {
		return false
	}
	_, msg := badValue(val, depth)
	return msg == ""
}

// plainValue checks the value of a keyword whose value is not a schema.
func plainValue(k string, val any) bool {
	switch k {
	// meta-data, format-annotation, content, core
	case "title", "description", "$comment", "format", "contentEncoding", "contentMediaType":
		_, ok := val.(string)
		return ok
	case "default", "const":
		return true
	case "examples", "enum":
		_, ok := val.([]any)
		return ok
	case "deprecated", "readOnly", "writeOnly", "uniqueItems":
		_, ok := val.(bool)
		return ok

	// validation
	case "type":
		switch t := val.(type) {
		case string:
			return simpleType(t)
		case []any:
			if len(t) == 0 {
				return false
			}
			for i, e := range t {
				s, ok := e.(string)
				if !ok || !simpleType(s) {
					return false
				}
				for _, prev := range t[:i] {
					if prev == s {
						return false
					}
				}
			}
			return true
		}
		return false
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return isNumber(val)
	case "multipleOf":
		r := rat(val)
		return r != nil && r.Sign() > 0
	case "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains", "maxProperties", "minProperties":
		return isNonNegativeInteger(val)
	case "pattern":
		s, ok := val.(string)
		if !ok {
			return false
		}
		_, err := lenientRegexp(s)
		return err == nil
	case "required":
		return isStringSet(val)
	case "dependentRequired":
		m, ok := val.(map[string]any)
		if !ok {
			return false
		}
		for _, e := range m {
			if !isStringSet(e) {
				return false
			}
		}
		return true

	// core
	case "$ref", "$dynamicRef", "$recursiveRef":
		s, ok := val.(string)
		return ok && isPlainFragmentRef(s)
	case "$anchor", "$dynamicAnchor", "$recursiveAnchor":
		s, ok := val.(string)
		return ok && isAnchor(s)
	case "$schema":
		// The dialects CheckSchema accepts are all absolute URIs.
		s, ok := val.(string)
		return ok && (dialectKey(s) == dialectKey(draft2020) || dialectKey(s) == dialectKey(draft2019) || dialectKey(s) == dialectKey(draft07))
	case "$id", "$vocabulary":
		return false // rare; the meta-schema decides
	}
	return true
}

func simpleType(s string) bool {
	switch s {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

func isNumber(x any) bool {
	switch x.(type) {
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// rat returns a number's value, or nil for anything else.
func rat(x any) *big.Rat {
	var s string
	switch x := x.(type) {
	case json.Number:
		s = string(x)
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		b, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		s = string(b)
	default:
		return nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

// isNonNegativeInteger is the meta-schema's nonNegativeInteger, for the usual spellings: digits only
// (a json.Number such as 2.0 or 1e2 is left to the meta-schema), or a Go integer.
func isNonNegativeInteger(x any) bool {
	switch x := x.(type) {
	case json.Number:
		if x == "" {
			return false
		}
		for i := 0; i < len(x); i++ {
			if x[i] < '0' || x[i] > '9' {
				return false
			}
		}
		return true
	case int:
		return x >= 0
	case int64:
		return x >= 0
	case uint, uint64, uint32, uint16, uint8:
		return true
	}
	return false
}

// isStringSet is the meta-schema's stringArray: an array of distinct strings.
func isStringSet(x any) bool {
	a, ok := x.([]any)
	if !ok {
		return false
	}
	if len(a) > 16 {
		seen := make(map[string]bool, len(a))
		for _, e := range a {
			s, ok := e.(string)
			if !ok || seen[s] {
				return false
			}
			seen[s] = true
		}
		return true
	}
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return false
		}
		for _, prev := range a[:i] {
			if prev == s {
				return false
			}
		}
	}
	return true
}

// isPlainFragmentRef accepts the references almost every schema uses, "#" followed by a JSON pointer
// of plain characters, which are certainly valid URI references. Anything else goes to the
// meta-schema.
func isPlainFragmentRef(s string) bool {
	if s == "" || s[0] != '#' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '/', c == '_', c == '-', c == '.', c == '~', c == '$':
		default:
			return false
		}
	}
	return true
}

// isAnchor is the meta-schema's anchorString: ^[A-Za-z_][-A-Za-z0-9._]*$.
func isAnchor(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}
