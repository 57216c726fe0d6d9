package diff

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/diag/records"
	"github.com/signpost-dev/signpost/build/secrets"
)

// A Change quotes what the two sides publish: names, descriptions, URLs.
// A catalog folder's are held to build/secrets before they are published,
// but a built site is read as it is, and may hold a credential: every
// string of a Change is redacted before it is given out. Its risks leave
// through a records.Log, redacted and sorted; the rest is redacted in
// place (Change.redact).

// Redacted is r with every credential its strings hold cut to its first
// four characters and "…" (see secrets.Redact).
func (r Risk) Redacted() Risk {
	redactStrings(reflect.ValueOf(&r).Elem())
	return r
}

// Compare orders risks by kind, in the order of RiskKinds, then by what
// they are about (toolId, server, tenant, route, target), then by
// message and values: zero only for the same risk.
func (r Risk) Compare(s Risk) int {
	return cmp.Or(
		cmp.Compare(slices.Index(riskKinds, r.Kind), slices.Index(riskKinds, s.Kind)),
		strings.Compare(r.Kind, s.Kind),
		strings.Compare(r.ToolID, s.ToolID),
		strings.Compare(r.Server, s.Server),
		strings.Compare(r.Tenant, s.Tenant),
		strings.Compare(r.Route, s.Route),
		strings.Compare(r.Target, s.Target),
		strings.Compare(r.Message, s.Message),
		strings.Compare(r.Old, s.Old),
		strings.Compare(r.New, s.New),
	)
}

// risk records r.
func (c *Change) risk(r Risk) {
	if c.risks == nil {
		c.risks = new(records.Log[Risk])
	}
	c.risks.Add(r)
}

// sortRisks sets c.Risks to the risks recorded, redacted, sorted (see
// Risk.Compare) and each once.
func (c *Change) sortRisks() {
	c.Risks = []Risk{}
	if c.risks != nil {
		c.Risks = append(c.Risks, c.risks.Records()...)
	}
}

// redact cuts every credential the strings of c hold, in place.
func (c *Change) redact() {
	redactStrings(reflect.ValueOf(c).Elem())
}

// redactStrings applies secrets.Redact to every string v holds, in place:
// v is a settable struct, slice or string of a Change.
func redactStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				redactStrings(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			redactStrings(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			redactStrings(v.Elem())
		}
	case reflect.String:
		if s := v.String(); s != "" {
			if r := secrets.Redact(s); r != s {
				v.SetString(r)
			}
		}
	}
}
