package diff

import (
	"encoding/json"
	"testing"
)

func TestSchemaBreak(t *testing.T) {
	const base = `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["place"]}`
	for _, c := range []struct {
		name, field, old, new, want string
	}{
		{"same", "inputSchema", base, base, ""},
		{"annotations only", "inputSchema", base, `{"type":"object","description":"x","properties":{"place":{"type":"string","title":"Place"},"days":{"type":"integer","minimum":1}},"required":["place"]}`, ""},
		{"optional property added", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1},"units":{"type":"string"}},"required":["place"]}`, ""},
		{"property now required", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["place","days"]}`, "refuses inputs it accepted: property days now required"},
		{"required dropped", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1}}}`, ""},
		{"bound raised", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":2}},"required":["place"]}`, "refuses inputs it accepted: /properties/days: minimum 1 -> 2"},
		{"bound lowered", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":0}},"required":["place"]}`, ""},
		{"type widened", "inputSchema", base, `{"type":"object","properties":{"place":{"type":["string","null"]},"days":{"type":"number","minimum":1}},"required":["place"]}`, ""},
		{"type narrowed", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"integer"},"days":{"type":"integer","minimum":1}},"required":["place"]}`, "refuses inputs it accepted: /properties/place: type string no longer accepted"},
		{"enum narrowed", "inputSchema", `{"type":"object","properties":{"u":{"enum":["a","b"]}}}`, `{"type":"object","properties":{"u":{"enum":["a"]}}}`, `refuses inputs it accepted: /properties/u: "b" no longer allowed`},
		{"enum widened", "inputSchema", `{"type":"object","properties":{"u":{"enum":["a"]}}}`, `{"type":"object","properties":{"u":{"enum":["a","b"]}}}`, ""},
		{"closed", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["place"],"additionalProperties":false}`, "refuses inputs it accepted: additional properties no longer accepted"},
		{"unknown keyword", "inputSchema", base, `{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["place"],"oneOf":[{"required":["place"]}]}`, "refuses inputs it accepted: oneOf changed"},
		{"none declared", "inputSchema", ``, `{"type":"object"}`, ""},
		{"output property added", "outputSchema", `{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}`, `{"type":"object","properties":{"s":{"type":"string"},"w":{"type":"number"}},"required":["s"]}`, ""},
		{"output no longer required", "outputSchema", `{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}`, `{"type":"object","properties":{"s":{"type":"string"}}}`, "may return what it did not: property s no longer always there"},
		{"output type widened", "outputSchema", `{"type":"object","properties":{"s":{"type":"string"}}}`, `{"type":"object","properties":{"s":{"type":["string","null"]}}}`, "may return what it did not: /properties/s: type null now possible"},
		{"output schema added", "outputSchema", ``, `{"type":"object"}`, ""},
		{"output schema dropped", "outputSchema", `{"type":"object"}`, ``, "may return what it did not: no longer constrained"},
		{"not JSON", "inputSchema", `{`, base, "a schema is not JSON"},
	} {
		if got := SchemaBreak(c.field, json.RawMessage(c.old), json.RawMessage(c.new)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
