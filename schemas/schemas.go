// Package schemas holds the JSON Schemas signpost validates with, embedded in the binary, and the
// validator around them.
//
// There are two kinds of schema. config and declarations describe the YAML files authors write;
// tool-descriptor, tool-list, compact-tool-descriptor, compact-tool-list and route-table describe the
// documents signpost publishes. [Source] returns a schema's text, which is what `signpost schema NAME`
// prints. A [Validator] checks a decoded JSON value against one of them and reports every problem as a
// [Violation]: a JSON pointer into the value and a one-line message for a person. [Validator.CheckSchema]
// checks that a tool's input or output schema is itself a usable JSON Schema.
//
// Nothing is ever loaded from the network or the disk: the schemas refer only to each other and to the
// JSON Schema meta-schemas built into the library.
package schemas

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/signpost-dev/signpost/internal/fastpath"
)

//go:embed *.schema.json
var files embed.FS

// idPrefix is the start of every embedded schema's $id; the name and ".schema.json" follow it.
const idPrefix = "https://signpost-dev.github.io/signpost/schemas/v1/"

const fileSuffix = ".schema.json"

// names is the sorted list of embedded schema names.
var names = func() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // cannot happen: the directory is embedded
	}
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), fileSuffix); ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}()

// Names returns the names of the embedded schemas, sorted.
func Names() []string {
	return slices.Clone(names)
}

// Source returns the bytes of the named schema exactly as embedded.
func Source(name string) ([]byte, bool) {
	if _, ok := slices.BinarySearch(names, name); !ok {
		return nil, false
	}
	b, err := files.ReadFile(name + fileSuffix)
	if err != nil {
		return nil, false
	}
	return b, true
}

// Violation is one way an instance fails a schema.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value in the instance, "" for the root;
	// for an unknown property, the pointer of that property's value.
	Pointer string
	// Message says, on one line for a person, what is wrong and, where possible, what is allowed.
	Message string
}

// Validator checks instances against the embedded schemas. Safe for concurrent use.
type Validator struct {
	schemas map[string]*jsonschema.Schema // by name
	docs    map[string]any                // decoded embedded schemas, by $id
	meta    map[string]*jsonschema.Schema // meta-schemas, by dialect URL without scheme or fragment
	meta20  *jsonschema.Schema            // the default dialect, draft 2020-12
}

// Meta-schema URLs, as the library knows them.
const (
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
	draft2019 = "https://json-schema.org/draft/2019-09/schema"
	draft07   = "http://json-schema.org/draft-07/schema"
)

// NewValidator compiles every embedded schema and the meta-schemas of the JSON Schema drafts that
// [Validator.CheckSchema] accepts. It fails only if an embedded schema is broken.
func NewValidator() (*Validator, error) {
	v := &Validator{
		schemas: map[string]*jsonschema.Schema{},
		docs:    map[string]any{},
		meta:    map[string]*jsonschema.Schema{},
	}

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	for _, name := range names {
		src, _ := Source(name)
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(src)))
		if err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", name, err)
		}
		id := idPrefix + name + fileSuffix
		var head struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal(src, &head); err != nil || head.ID != id {
			return nil, fmt.Errorf("schemas: %s: $id is %q, want %q", name, head.ID, id)
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", name, err)
		}
		v.docs[id] = doc
	}
	for _, name := range names {
		sch, err := c.Compile(idPrefix + name + fileSuffix)
		if err != nil {
			return nil, fmt.Errorf("schemas: compiling %s: %w", name, err)
		}
		v.schemas[name] = sch
	}

	// The meta-schemas get a compiler of their own, because they need a regular expression engine
	// that tolerates ECMA-262 syntax Go's regexp package does not have (see lenientRegexp).
	mc := jsonschema.NewCompiler()
	mc.AssertFormat()
	mc.UseLoader(refuseLoader{})
	mc.UseRegexpEngine(lenientRegexp)
	for _, u := range []string{draft2020, draft2019, draft07} {
		sch, err := mc.Compile(u)
		if err != nil {
			return nil, fmt.Errorf("schemas: compiling meta-schema %s: %w", u, err)
		}
		v.meta[dialectKey(u)] = sch
	}
	v.meta20 = v.meta[dialectKey(draft2020)]
	return v, nil
}

// refuseLoader is the compilers' URL loader. Embedded schemas are added as resources and the
// library serves its own meta-schemas before asking a loader, so any URL that reaches it is one
// signpost must not fetch.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("signpost loads no schema from outside the binary; %q is neither an embedded schema nor a built-in meta-schema", url)
}

// Validate checks instance (values as produced by decoding JSON with UseNumber: map[string]any,
// []any, string, json.Number, bool, nil) against the named schema and returns every violation,
// sorted by Pointer (token by token, array indexes in numeric order) then Message, deduplicated.
// Unknown name: a violation saying so. A valid instance gives nil.
func (v *Validator) Validate(name string, instance any) []Violation {
	sch, ok := v.schemas[name]
	if !ok {
		return []Violation{{Message: fmt.Sprintf("unknown schema %q; known: %s", name, strings.Join(names, ", "))}}
	}
	return v.validate(sch, instance, nil)
}

// CheckSchema checks that schema is a usable JSON Schema for a tool: a JSON object; its $schema, if
// present, names draft 2020-12 (the default), 2019-09 or draft-07, with http or https and with or
// without a trailing #; and it is valid against that draft's meta-schema. draft-04 and draft-06 are
// rejected with a message on converting to 2020-12. Violations point into the schema document.
func (v *Validator) CheckSchema(schema any) []Violation {
	// A tool's schema is open JSON: it is read as decoded.
	obj, ok := schema.(map[string]any)
	if !ok {
		return []Violation{{Message: "a tool's schema must be a JSON object, got " + TypeName(schema)}}
	}
	meta := v.meta20
	if raw, ok := obj["$schema"]; ok {
		s, ok := raw.(string)
		if !ok {
			return []Violation{{Pointer: "/$schema", Message: "must be a string, got " + TypeName(raw)}}
		}
		var msg string
		if meta, msg = v.dialect(s); meta == nil {
			return []Violation{{Pointer: "/$schema", Message: msg}}
		}
	}
	if meta == v.meta20 {
		return v.validate(meta, schema, plainValid2020)
	}
	return v.validate(meta, schema, nil)
}

// dialect returns the meta-schema that $schema value s names, or nil and a message saying why s is
// not accepted.
func (v *Validator) dialect(s string) (*jsonschema.Schema, string) {
	key := dialectKey(s)
	if m := v.meta[key]; m != nil {
		return m, ""
	}
	const convert = `convert the schema to draft 2020-12 (remove "$schema" or set it to "https://json-schema.org/draft/2020-12/schema")`
	switch key {
	case "json-schema.org/draft-04/schema":
		return nil, fmt.Sprintf(`draft-04 schemas are not supported; %s: exclusiveMinimum and exclusiveMaximum are numbers, not booleans that modify minimum and maximum; "id" is spelled "$id"; "definitions" becomes "$defs" and an array-valued "items" becomes "prefixItems"`, convert)
	case "json-schema.org/draft-06/schema":
		return nil, fmt.Sprintf(`draft-06 schemas are not supported; %s: "definitions" becomes "$defs", an array-valued "items" becomes "prefixItems" and "dependencies" becomes "dependentRequired" or "dependentSchemas"; parts kept from draft-04 need exclusiveMinimum and exclusiveMaximum as numbers, not booleans, and "$id" instead of "id"`, convert)
	}
	return nil, fmt.Sprintf(`unsupported $schema %s; use "https://json-schema.org/draft/2020-12/schema" (the default), "https://json-schema.org/draft/2019-09/schema" or "http://json-schema.org/draft-07/schema#"`, quoteValue(s))
}

// dialectKey normalizes a $schema value: no scheme (http and https are equivalent), no empty
// fragment.
func dialectKey(s string) string {
	s = strings.TrimSuffix(s, "#")
	if t, ok := strings.CutPrefix(s, "https://"); ok {
		return t
	}
	if t, ok := strings.CutPrefix(s, "http://"); ok {
		return t
	}
	return "\x00" + s // never equal to a known key
}

// validate runs sch on instance and turns the result into sorted, deduplicated violations. If plain
// is not nil and says instance certainly passes, nothing else is run: plain answers true only for
// values checkValue accepts (see plainValid2020). In a build without fast paths (package fastpath)
// plain is never asked.
func (v *Validator) validate(sch *jsonschema.Schema, instance any, plain func(any) bool) (out []Violation) {
	defer func() {
		// The checks below keep the library's known panics away; this is the last line of defence.
		if r := recover(); r != nil {
			out = []Violation{{Message: fmt.Sprintf("cannot validate this value: %v", r)}}
		}
	}()
	if fastpath.Enabled && plain != nil && plain(instance) {
		return nil
	}
	if viol := checkValue(instance); viol != nil {
		return []Violation{*viol}
	}
	err := sch.Validate(instance)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Violation{{Message: err.Error()}}
	}
	f := flattener{v: v, root: instance}
	f.walk(verr)
	return finish(f.out)
}

// maxDepth bounds the nesting of an instance. The library validates recursively, and a cyclic Go
// value would otherwise exhaust the stack. The loader accepts far less nesting than this.
const maxDepth = 1000

// checkValue rejects what the library would panic on or recurse into without end: nesting beyond
// maxDepth (which includes cyclic values), numbers that are not finite, and json.Number values that
// are not numbers. Other Go types are reported by the library itself as invalid JSON values.
func checkValue(x any) *Violation {
	path, msg := badValue(x, 0)
	if msg == "" {
		return nil
	}
	slices.Reverse(path)
	return &Violation{Pointer: pointer(path), Message: msg}
}

// badValue returns what is wrong with x and where, as the reversed list of tokens leading there.
func badValue(x any, depth int) ([]string, string) {
	if depth > maxDepth {
		return nil, fmt.Sprintf("nested more than %d levels deep", maxDepth)
	}
	switch x := x.(type) {
	case map[string]any:
		for k, e := range x {
			if path, msg := badValue(e, depth+1); msg != "" {
				return append(path, k), msg
			}
		}
	case []any:
		for i, e := range x {
			if path, msg := badValue(e, depth+1); msg != "" {
				return append(path, itoa(i)), msg
			}
		}
	case json.Number:
		if !IsJSONNumber(string(x)) {
			return nil, fmt.Sprintf("%q is not a JSON number", string(x))
		}
	case float64:
		if x-x != 0 { // NaN or infinite
			return nil, fmt.Sprintf("%v is not a JSON number", x)
		}
	case float32:
		if x-x != 0 {
			return nil, fmt.Sprintf("%v is not a JSON number", x)
		}
	}
	return nil, ""
}

// IsJSONNumber reports whether s follows the JSON number grammar (RFC 8259,
// section 6).
func IsJSONNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// lenientRegexp is the regular expression engine of the meta-schemas, which assert that every
// "pattern" is a regular expression. JSON Schema patterns are ECMA-262 expressions; Go's RE2 syntax
// lacks some of their features (lookaround, backreferences, \u escapes, repeat counts above 1000). A
// pattern is rejected only when Go fails on a mistake that ECMA-262 rejects as well: unbalanced
// parentheses or brackets, a trailing backslash, or a repetition operator with nothing to repeat.
//
// The meta-schemas mostly ask only whether a pattern is valid, which parsing answers; compiling
// (costly for a pattern such as [a-z]{1,39}) waits until something is matched.
func lenientRegexp(s string) (jsonschema.Regexp, error) {
	_, err := syntax.Parse(s, syntax.Perl)
	if err == nil {
		return &lazyRegexp{src: s}, nil
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		switch se.Code {
		case syntax.ErrMissingParen, syntax.ErrUnexpectedParen, syntax.ErrTrailingBackslash,
			syntax.ErrMissingRepeatArgument, syntax.ErrInvalidRepeatOp:
			return nil, se
		case syntax.ErrMissingBracket:
			// "[]" and "[^]" are complete classes in ECMA-262 but open ones in Go.
			if !strings.Contains(s, "[]") && !strings.Contains(s, "[^]") {
				return nil, se
			}
		}
	}
	return uncheckedRegexp(s), nil
}

// lazyRegexp is a pattern that parses in Go, compiled the first time it is matched.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func (r *lazyRegexp) String() string { return r.src }

func (r *lazyRegexp) MatchString(s string) bool {
	r.once.Do(func() { r.re, _ = regexp.Compile(r.src) })
	return r.re != nil && r.re.MatchString(s)
}

// uncheckedRegexp stands for a pattern Go cannot parse but ECMA-262 may accept. The meta-schemas
// only ask whether a pattern is valid, so it never has to match.
type uncheckedRegexp string

func (r uncheckedRegexp) String() string { return string(r) }

func (uncheckedRegexp) MatchString(string) bool { return true }
