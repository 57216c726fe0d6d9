package schemas

import (
	"encoding/json"
	"fmt"
)

// TypeName names the JSON type of a decoded JSON value as JSON Schema's
// "type" keyword does: "null", "boolean", "string", "number", "object" or
// "array". A value that is none of these (a Go value that no decoder makes)
// is named by its Go type.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "number"
	}
	return fmt.Sprintf("a Go %T", v)
}

// KindOf names the JSON type of v with its article, for messages: "an
// object", "a string", "null".
func KindOf(v any) string {
	switch n := TypeName(v); n {
	case "null":
		return n
	case "object", "array":
		return "an " + n
	case "boolean", "string", "number":
		return "a " + n
	default:
		return n
	}
}
