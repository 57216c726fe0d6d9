package definition

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build/jcs"
)

// This file is the canonical JSON (RFC 8785) of a tool's definition as a
// client that recomputes its digest reads it (Digest): the value
// parsed as a JSON parser of ECMAScript parses it, then written as JCS
// writes it (package jcs: names, strings and numbers). Unlike an AI
// catalog, which must be valid JCS input and is refused otherwise (jcs.Append),
// a definition is taken as it is: a number is the IEEE 754 double it reads
// as, whatever its size (a schema's maximum of 2^64-1 included), and
// invalid UTF-8 is U+FFFD, so that every definition has a digest a client
// can recompute.

// AppendCanonical appends the canonical JSON of v: nil, booleans, strings,
// json.Number, []any and map[string]any, which is all a descriptor decodes
// into. It fails on a number that is not a finite double and on a value
// of another type.
func AppendCanonical(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return jcs.AppendString(b, x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return b, fmt.Errorf("number %s is not a finite IEEE 754 double", x)
		}
		out, err := jcs.AppendFloat(b, f)
		if err != nil {
			return b, fmt.Errorf("number %s is not a finite IEEE 754 double", x)
		}
		return out, nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendCanonical(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, jcs.CompareNames)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jcs.AppendString(b, k), ':')
			var err error
			if b, err = AppendCanonical(b, x[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, fmt.Errorf("a value of type %T is not JSON", v)
}
