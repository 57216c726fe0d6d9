// Package recorded reads recorded MCP tools/list results, the files a
// catalog imports tools from: it finds the Tool objects in every shape a
// recording takes and decodes the members the catalog reads by name, and
// reads a tool's input and output schema (JSON Schema, read as it is) the
// way the catalog publishes them. The loader and signpost import mcp both read
// recordings through it, so that what one accepts the other does.
package recorded

import (
	"fmt"

	"github.com/signpost-dev/signpost/build/source"
)

// Tool is one MCP Tool object in a recording, with its pointer.
type Tool struct {
	Pointer string         // where the Tool object is in the recording
	Object  map[string]any // the Tool object as recorded
	// Name, Title and Description are the tool's members, "" when one
	// is absent or not a string.
	Name, Title, Description string
}

// tool decodes the Tool object at ptr.
func tool(ptr string, obj map[string]any) Tool {
	str := func(k string) string {
		s, _ := obj[k].(string)
		return s
	}
	return Tool{Pointer: ptr, Object: obj, Name: str("name"), Title: str("title"), Description: str("description")}
}

// Tools finds the Tool objects in a recorded tools/list: a bare
// array of tools, a result {"tools": [...]}, a JSON-RPC response carrying
// one, or an array of such pages.
func Tools(v any) ([]Tool, string) {
	const want = "expected an array of MCP tools, a tools/list result {\"tools\": [...]}, a JSON-RPC response carrying one, or an array of such pages"
	var out []Tool
	var page func(ptr string, v any, nested bool) string
	page = func(ptr string, v any, nested bool) string {
		switch x := v.(type) {
		case []any:
			for i, e := range x {
				p := source.JoinPointer(ptr, fmt.Sprint(i))
				obj, ok := e.(map[string]any)
				switch {
				case ok && obj["name"] != nil && obj["tools"] == nil && obj["result"] == nil:
					out = append(out, tool(p, obj))
				case ok && !nested:
					if msg := page(p, obj, true); msg != "" {
						return msg
					}
				default:
					return fmt.Sprintf("%s is not an MCP tool: %s", pointerOrRoot(p), want)
				}
			}
			return ""
		case map[string]any:
			if e, ok := x["error"]; ok {
				return fmt.Sprintf("the recording is a JSON-RPC error, not a tools/list result: %v", e)
			}
			if r, ok := x["result"].(map[string]any); ok {
				return page(source.JoinPointer(ptr, "result"), r, true)
			}
			tools, ok := x["tools"].([]any)
			if !ok {
				return fmt.Sprintf("%s has no \"tools\" array: %s", pointerOrRoot(ptr), want)
			}
			for i, e := range tools {
				p := source.JoinPointer(ptr, "tools", fmt.Sprint(i))
				obj, ok := e.(map[string]any)
				if !ok {
					return fmt.Sprintf("%s is not an MCP tool object", p)
				}
				out = append(out, tool(p, obj))
			}
			return ""
		}
		return want
	}
	msg := page("", v, false)
	return out, msg
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "the document"
	}
	return p
}

// SchemaKind is how an MCP tool records one of its schemas.
type SchemaKind int

// The kinds of a recorded schema.
const (
	Absent    SchemaKind = iota // no such field
	NotObject                   // a value that is not a JSON object
	Untyped                     // an object without "type": the result has "type": "object" added
	Typed                       // an object with "type", taken as it is
)

// Schema reads an MCP tool's input or output schema as both the
// loader and the importer take it: a schema without a type gets
// "type": "object" (MCP arguments and structured results are always
// objects) in a copy, so the recording itself is never changed.
func Schema(obj map[string]any, field string) (map[string]any, SchemaKind) {
	v, ok := obj[field]
	if !ok {
		return nil, Absent
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, NotObject
	}
	if _, typed := m["type"]; typed {
		return m, Typed
	}
	c := make(map[string]any, len(m)+1)
	for k, x := range m {
		c[k] = x
	}
	c["type"] = "object"
	return c, Untyped
}

// Server is who served a recording, as a live import saves it beside the
// tools: the serverInfo (name, title, version) and the instructions of the
// server's initialize result. A plain tools/list result has neither.
type Server struct {
	Name, Title, Version, Instructions string
}

// ServerOf reads the serverInfo and instructions members of a recording
// that is an object; a member that is absent or not of its type reads as
// "".
func ServerOf(v any) Server {
	m, _ := v.(map[string]any)
	info, _ := m["serverInfo"].(map[string]any)
	str := func(m map[string]any, k string) string {
		s, _ := m[k].(string)
		return s
	}
	return Server{Name: str(info, "name"), Title: str(info, "title"), Version: str(info, "version"), Instructions: str(m, "instructions")}
}
