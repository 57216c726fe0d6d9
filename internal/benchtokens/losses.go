package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// maxEnum is the most values an enum may have and be kept by the compact
// view (build/compact: a longer one is replaced by its values' type).
const maxEnum = 16

// maxDepth is how deep the schemas are compared: the compact view cuts
// nesting at 8.
const maxDepth = 8

// losses holds a compact descriptor to its standard one and names what a
// model needs to choose and call the tool that it lost: the toolId, a
// required argument (at any depth the compact view keeps), an enum of at
// most 16 values, the description. What the compact view may only widen
// (the branches of an anyOf or oneOf, united) is not held to more than
// its union keeps.
func losses(standard, compact []byte) ([]string, checked) {
	var std, cpt struct {
		ToolID      string `json:"toolId"`
		Description string `json:"description"`
		InputSchema any    `json:"inputSchema"`
	}
	if err := json.Unmarshal(standard, &std); err != nil {
		return []string{fmt.Sprintf("a standard descriptor does not decode: %v", err)}, checked{}
	}
	if err := json.Unmarshal(compact, &cpt); err != nil {
		return []string{fmt.Sprintf("tool %s: its compact descriptor does not decode: %v", std.ToolID, err)}, checked{}
	}
	var out []string
	if cpt.ToolID != std.ToolID {
		out = append(out, fmt.Sprintf("tool %s: the compact descriptor's toolId is %q", std.ToolID, cpt.ToolID))
	}
	if strings.TrimSpace(std.Description) != "" && strings.TrimSpace(cpt.Description) == "" {
		out = append(out, fmt.Sprintf("tool %s: the compact descriptor has no description", std.ToolID))
	}
	w := walker{tool: std.ToolID, root: std.InputSchema}
	w.walk("", std.InputSchema, cpt.InputSchema, 0, 0)
	return append(out, w.out...), w.checked
}

// checked counts what losses held a compact descriptor to.
type checked struct{ required, enums int }

func (c checked) add(d checked) checked {
	return checked{c.required + d.required, c.enums + d.enums}
}

type walker struct {
	tool string
	root any // the standard input schema, for its local $refs
	out  []string
	checked
}

func (w *walker) lost(path, what string) {
	if path == "" {
		path = "the input"
	} else {
		path = "argument " + path
	}
	w.out = append(w.out, fmt.Sprintf("tool %s: %s: %s", w.tool, path, what))
}

// walk holds the standard schema s at path to the compact schema c.
// refs counts the $refs followed, against a cycle.
func (w *walker) walk(path string, s, c any, depth, refs int) {
	sm, ok := s.(map[string]any)
	if !ok || depth >= maxDepth || refs > 32 {
		return
	}
	if ref, ok := sm["$ref"].(string); ok {
		if target, ok := pointer(w.root, ref); ok {
			w.walk(path, target, c, depth, refs+1)
		}
	}
	cm, _ := c.(map[string]any)
	if enum, ok := sm["enum"].([]any); ok && len(enum) <= maxEnum {
		w.enums++
		kept := values(cm["enum"])
		if v, ok := cm["const"]; ok {
			kept = append(kept, encode(v))
		}
		for _, v := range enum {
			if !slices.Contains(kept, encode(v)) {
				w.lost(path, "the enum value "+encode(v)+" is lost")
			}
		}
	}
	if req, ok := sm["required"].([]any); ok {
		kept := values(cm["required"])
		props, _ := cm["properties"].(map[string]any)
		for _, r := range req {
			w.required++
			name, _ := r.(string)
			if _, ok := props[name]; !ok || !slices.Contains(kept, encode(r)) {
				w.lost(path, "the required argument "+strconv.Quote(name)+" is lost")
			}
		}
	}
	if props, ok := sm["properties"].(map[string]any); ok {
		cprops, _ := cm["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			w.walk(join(path, k), props[k], cprops[k], depth+1, refs)
		}
	}
	if items, ok := sm["items"].(map[string]any); ok {
		w.walk(path+"[]", items, cm["items"], depth+1, refs)
	}
	if all, ok := sm["allOf"].([]any); ok {
		for _, b := range all {
			w.walk(path, b, c, depth+1, refs)
		}
	}
	// anyOf: [X, {"type": "null"}] is X that may be null.
	for _, k := range []string{"anyOf", "oneOf"} {
		branches, _ := sm[k].([]any)
		var kept []any
		for _, b := range branches {
			if bm, ok := b.(map[string]any); !ok || len(bm) != 1 || bm["type"] != "null" {
				kept = append(kept, b)
			}
		}
		if len(kept) == 1 {
			w.walk(path, kept[0], c, depth+1, refs)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// values are the JSON encodings of the array v's values.
func values(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, x := range a {
		out = append(out, encode(x))
	}
	return out
}

func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// pointer resolves a local $ref ("#" or "#/a/b") in root.
func pointer(root any, ref string) (any, bool) {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	v := root
	if rest == "" {
		return v, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
