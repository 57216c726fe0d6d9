package catalogtest

import (
	"fmt"
	"strings"
)

// AnchorSchema is a tool input schema, as JSON, with n $anchor definitions
// under $defs and n properties, each a $ref to a different one of them: the
// schema that showed $ref resolution walking the whole schema per $ref.
func AnchorSchema(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d":{"$anchor":"a%d","type":"string"}`, i, i)
	}
	b.WriteString(`},"properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"$ref":"#a%d"}`, i, i)
	}
	b.WriteString(`}}`)
	return b.String()
}
