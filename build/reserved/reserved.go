// Package reserved is the tool catalogue's reserved arguments: the
// arguments the catalogue adds to a tool's input schema (the caller-owned
// idempotency key of a keyed tool that names none of its own, the
// confirmation of an irreversible one), each named so as not to take one
// of the tool's own arguments, and whether an argument a keyed tool names
// can hold its key.
package reserved

import (
	"fmt"
	"maps"
	"slices"

	"github.com/signpost-dev/signpost/internal/english"
)

// The reserved arguments of the tool catalogue, before any underscores.
const (
	// IdempotencyKey carries the caller-owned key of a keyed tool that
	// does not name its own.
	IdempotencyKey = "idempotencyKey"
	// Confirmation confirms a call to an irreversible tool.
	Confirmation = "confirm"
)

// Add returns a copy of the input schema root with the reserved arguments
// added to its properties and required: key, the idempotency key the
// catalogue adds ("" for none), and confirm, the confirmation ("" for
// none). root is left as it is: it may be a schema file other tools share.
// nil when there is nothing to add, or no root.
func Add(root map[string]any, key, confirm string) map[string]any {
	add := map[string]any{}
	if key != "" {
		add[key] = map[string]any{
			"type": "string", "minLength": 1, "maxLength": 255,
			"description": "Caller-owned idempotency key: the same key for every retry of one intended call, a new one for each new call.",
		}
	}
	if confirm != "" {
		add[confirm] = map[string]any{
			"type": "boolean", "const": true,
			"description": "Set to true to confirm the call after previewing it: its effect cannot be undone.",
		}
	}
	if len(add) == 0 || root == nil {
		return nil
	}
	props, _ := root["properties"].(map[string]any)
	out := maps.Clone(root)
	newProps := maps.Clone(props)
	if newProps == nil {
		newProps = map[string]any{}
	}
	req, _ := root["required"].([]any)
	newReq := slices.Clone(req)
	for _, name := range slices.Sorted(maps.Keys(add)) {
		newProps[name] = add[name]
		newReq = append(newReq, name)
	}
	out["properties"], out["required"] = newProps, newReq
	return out
}

// KeyProblem says why the argument name of the input schema root cannot
// hold a keyed tool's idempotency key, or returns "".
func KeyProblem(root map[string]any, name string) string {
	props, _ := root["properties"].(map[string]any)
	prop, ok := props[name].(map[string]any)
	if !ok {
		return fmt.Sprintf("is not an argument of the tool: inputSchema has %s", describeProperties(props))
	}
	if typ, _ := prop["type"].(string); typ != "string" {
		return `must be a string argument ("type": "string")`
	}
	req, _ := root["required"].([]any)
	if !slices.Contains(req, any(name)) {
		return "must be required: a keyed call without its key is not safe to retry; add it to required"
	}
	return ""
}

func describeProperties(props map[string]any) string {
	if len(props) == 0 {
		return "no properties"
	}
	return "properties " + english.Some(slices.Sorted(maps.Keys(props)), 8)
}

// Free is name with as many leading underscores as it takes not to be one
// of the tool's own arguments, the properties of its input schema.
func Free(name string, props map[string]any) string {
	for {
		if _, taken := props[name]; !taken {
			return name
		}
		name = "_" + name
	}
}
