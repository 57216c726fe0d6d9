package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/refs"
)

// SchemaBreak says whether a tool's schema changing from old to new breaks
// its callers, and why: "" when every caller keeps working. field is
// "inputSchema" or "outputSchema". An input schema breaks a caller when it
// refuses an input the old one accepted; an output schema, when it allows
// an output the old one did not, which a caller may not handle. Only what
// can be shown compatible is: a keyword this does not reason about that
// differs is breaking, and so is a value that is not JSON. Annotations
// (title, description, default, examples, ...) never break. nil is the
// schema of a tool that declares none: an input schema of {"type":
// "object"}, an output schema that allows anything.
func SchemaBreak(field string, old, new json.RawMessage) string {
	o, errO := decodeSchema(old, field)
	n, errN := decodeSchema(new, field)
	if errO != nil || errN != nil {
		return "a schema is not JSON"
	}
	if field == "outputSchema" {
		if why := (comparer{}).subsumes(o, n, "", 0); why != "" {
			return "may return what it did not: " + why
		}
		return ""
	}
	if why := (comparer{wNew: true}).subsumes(n, o, "", 0); why != "" {
		return "refuses inputs it accepted: " + why
	}
	return ""
}

// comparer words what it finds: wNew says that the schema that must
// accept more is the new one (an input schema), else the old one (an
// output schema).
type comparer struct{ wNew bool }

// say is now when w is the new side, else then.
func (c comparer) say(now, then string) string {
	if c.wNew {
		return now
	}
	return then
}

// change words a value that went from n's to w's, old first.
func (c comparer) change(kw string, w, n any) string {
	if c.wNew {
		return kw + " " + describeChange(n, w)
	}
	return kw + " " + describeChange(w, n)
}

func decodeSchema(raw json.RawMessage, field string) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		if field == "outputSchema" {
			return true, nil
		}
		return map[string]any{"type": "object"}, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// annotationKeywords never change what a schema accepts.
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "example": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$schema": true,
	"$id": true, "$anchor": true,
}

// reasonedKeywords are those subsumes reasons about; any other keyword
// must be the same on both sides.
var reasonedKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"enum": true, "const": true, "items": true, "format": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true, "uniqueItems": true, "multipleOf": true,
}

// subsumes says why schema w may refuse an instance schema n accepts, or
// "" when it provably accepts every one; at names the place, a JSON
// pointer.
func (c comparer) subsumes(w, n any, at string, depth int) string {
	if depth > refs.MaxDepth {
		return atPlace(at) + "nested too deep to compare"
	}
	if reflect.DeepEqual(w, n) {
		return ""
	}
	wb, wIsBool := w.(bool)
	nb, nIsBool := n.(bool)
	wm, wIsMap := w.(map[string]any)
	nm, nIsMap := n.(map[string]any)
	switch {
	case wIsBool && wb, wIsMap && acceptsAll(wm):
		return ""
	case nIsBool && !nb:
		return ""
	case wIsBool || !wIsMap:
		return atPlace(at) + c.say("accepts nothing", "was nothing")
	case nIsBool || !nIsMap:
		// n accepts anything; w does not.
		return atPlace(at) + c.say("now constrained", "no longer constrained")
	}
	// Keywords beside those reasoned about must be the same.
	for _, k := range slices.Sorted(maps.Keys(union(wm, nm))) {
		if annotationKeywords[k] || reasonedKeywords[k] {
			continue
		}
		if !reflect.DeepEqual(wm[k], nm[k]) {
			return atPlace(at) + k + " changed"
		}
	}
	if why := c.typesCover(wm, nm, at); why != "" {
		return why
	}
	if why := c.valuesCover(wm, nm, at); why != "" {
		return why
	}
	for _, b := range []struct {
		kw    string
		lower bool // w's bound must be at most n's
	}{
		{"minimum", true}, {"exclusiveMinimum", true}, {"minLength", true}, {"minItems", true}, {"minProperties", true},
		{"maximum", false}, {"exclusiveMaximum", false}, {"maxLength", false}, {"maxItems", false}, {"maxProperties", false},
	} {
		if why := c.boundCovers(wm, nm, b.kw, b.lower, at); why != "" {
			return why
		}
	}
	for _, k := range []string{"format", "pattern", "multipleOf"} {
		if v, ok := wm[k]; ok && !reflect.DeepEqual(v, nm[k]) {
			return atPlace(at) + c.change(k, v, nm[k])
		}
	}
	if u, ok := wm["uniqueItems"].(bool); ok && u && nm["uniqueItems"] != true {
		return atPlace(at) + c.change("uniqueItems", true, nm["uniqueItems"])
	}
	if why := c.itemsCover(wm, nm, at, depth); why != "" {
		return why
	}
	return c.objectCovers(wm, nm, at, depth)
}

// acceptsAll reports whether a schema object holds nothing but
// annotations.
func acceptsAll(m map[string]any) bool {
	for k := range m {
		if !annotationKeywords[k] {
			return false
		}
	}
	return true
}

func (c comparer) typesCover(w, n map[string]any, at string) string {
	wt, ok := w["type"]
	if !ok {
		return ""
	}
	nt, ok := n["type"]
	if !ok {
		return atPlace(at) + c.change("type", wt, nil)
	}
	wl, nl := typeList(wt), typeList(nt)
	for _, t := range nl {
		if !slices.Contains(wl, t) && !(t == "integer" && slices.Contains(wl, "number")) {
			return atPlace(at) + "type " + t + c.say(" no longer accepted", " now possible")
		}
	}
	return ""
}

func typeList(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// valuesCover compares enum and const: every value n allows must be one w
// allows.
func (c comparer) valuesCover(w, n map[string]any, at string) string {
	allowed, constrained := allowedValues(w)
	if !constrained {
		return ""
	}
	values, bounded := allowedValues(n)
	if !bounded {
		return atPlace(at) + c.say("now limited to ", "no longer limited to ") + describeValue(allowed)
	}
	for _, v := range values {
		if !slices.ContainsFunc(allowed, func(a any) bool { return reflect.DeepEqual(a, v) }) {
			return atPlace(at) + describeValue(v) + c.say(" no longer allowed", " now possible")
		}
	}
	return ""
}

// allowedValues is what enum and const allow (both, when both are given:
// the const, if the enum has it), and whether they constrain at all.
func allowedValues(m map[string]any) ([]any, bool) {
	c, hasConst := m["const"]
	e, hasEnum := m["enum"].([]any)
	switch {
	case hasConst && hasEnum:
		if slices.ContainsFunc(e, func(v any) bool { return reflect.DeepEqual(v, c) }) {
			return []any{c}, true
		}
		return nil, true
	case hasConst:
		return []any{c}, true
	case hasEnum:
		return e, true
	}
	return nil, false
}

// boundCovers compares one bound: w's must not be tighter than n's.
func (c comparer) boundCovers(w, n map[string]any, kw string, lower bool, at string) string {
	wv, ok := number(w[kw])
	if !ok {
		if _, present := w[kw]; present {
			return atPlace(at) + kw + " is not a number"
		}
		return ""
	}
	nv, ok := number(n[kw])
	if !ok {
		return atPlace(at) + c.change(kw, w[kw], n[kw])
	}
	if (lower && wv > nv) || (!lower && wv < nv) {
		return atPlace(at) + c.change(kw, w[kw], n[kw])
	}
	return ""
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func (c comparer) itemsCover(w, n map[string]any, at string, depth int) string {
	wi, ok := w["items"]
	if !ok {
		return ""
	}
	if _, list := wi.([]any); list {
		if !reflect.DeepEqual(wi, n["items"]) {
			return atPlace(at) + "items changed"
		}
		return ""
	}
	ni, ok := n["items"]
	if !ok {
		ni = true
	}
	if _, list := ni.([]any); list {
		return atPlace(at) + "items changed"
	}
	return c.subsumes(wi, ni, at+"/items", depth+1)
}

// objectCovers compares properties, required and additionalProperties.
// A property that only w names is compared with n's additional
// properties only when n declares them: a schema that says nothing of
// other properties does not invite them, so that a new optional property
// of an input, or one an output drops, is not taken for a break.
func (c comparer) objectCovers(w, n map[string]any, at string, depth int) string {
	wp, _ := w["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	wa, wHasA := w["additionalProperties"]
	na, nHasA := n["additionalProperties"]
	if !wHasA {
		wa = true
	}
	if !nHasA {
		na = true
	}
	for _, r := range strs(w["required"]) {
		if !slices.Contains(strs(n["required"]), r) {
			return atPlace(at) + "property " + r + c.say(" now required", " no longer always there")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(union(wp, np))) {
		wv, inW := wp[k]
		nv, inN := np[k]
		ptr := at + "/properties/" + escape(k)
		switch {
		case inW && inN:
			if why := c.subsumes(wv, nv, ptr, depth+1); why != "" {
				return why
			}
		case inN:
			// n allows the property; w only as one of its additional
			// properties.
			if why := c.subsumes(wa, nv, ptr, depth+1); why != "" {
				return atPlace(at) + "property " + k + c.say(" no longer accepted", " was not possible")
			}
		case nHasA:
			// w names a property n leaves to its additional properties.
			if why := c.subsumes(wv, na, ptr, depth+1); why != "" {
				return why
			}
		}
	}
	if !nHasA && !wHasA {
		return ""
	}
	if why := c.subsumes(wa, na, at+"/additionalProperties", depth+1); why != "" {
		return atPlace(at) + "additional properties" + c.say(" no longer accepted", " now possible")
	}
	return ""
}

func strs(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func union(a, b map[string]any) map[string]any {
	u := make(map[string]any, len(a)+len(b))
	for k := range a {
		u[k] = nil
	}
	for k := range b {
		u[k] = nil
	}
	return u
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// atPlace is the start of a reason about the schema at a pointer.
func atPlace(at string) string {
	if at == "" {
		return ""
	}
	return at + ": "
}

func describeValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func describeChange(old, new any) string {
	if old == nil {
		return describeValue(new) + " added"
	}
	return describeValue(old) + " -> " + describeValue(new)
}
