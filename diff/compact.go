package diff

import (
	"bytes"
	"encoding/json"
	"strings"
)

// compactFields says which fields of two compact descriptors differ, and
// for inputSchema which of its properties were added, removed or changed.
// It returns none when either is not a JSON object.
func compactFields(old, new []byte) []CompactField {
	var b, a map[string]json.RawMessage
	if json.Unmarshal(old, &b) != nil || json.Unmarshal(new, &a) != nil {
		return []CompactField{}
	}
	out := []CompactField{}
	for _, k := range unionKeys(b, a) {
		if bytes.Equal(b[k], a[k]) {
			continue
		}
		f := CompactField{Field: k}
		if k == "inputSchema" {
			f.PropertiesAdded, f.PropertiesRemoved, f.PropertiesChanged = propertyChanges(b[k], a[k])
		}
		out = append(out, f)
	}
	return out
}

// propertyChanges compares the properties of two schemas. Documents are
// compact JSON with sorted keys, so equal values have equal bytes.
func propertyChanges(old, new json.RawMessage) (added, removed, changed []string) {
	var b, a struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(old, &b) != nil || json.Unmarshal(new, &a) != nil {
		return nil, nil, nil
	}
	for _, k := range unionKeys(b.Properties, a.Properties) {
		bv, inB := b.Properties[k]
		av, inA := a.Properties[k]
		switch {
		case !inB:
			added = append(added, k)
		case !inA:
			removed = append(removed, k)
		case !bytes.Equal(bv, av):
			changed = append(changed, k)
		}
	}
	return added, removed, changed
}

// describeCompact words the fields of a compact descriptor that changed:
// "description, inputSchema (properties added: a; removed: b)"; "" for
// none.
func describeCompact(fields []CompactField) string {
	var parts []string
	for _, f := range fields {
		var props []string
		for _, p := range []struct {
			what  string
			names []string
		}{{"properties added", f.PropertiesAdded}, {"removed", f.PropertiesRemoved}, {"changed", f.PropertiesChanged}} {
			if len(p.names) > 0 {
				props = append(props, p.what+": "+strings.Join(p.names, ", "))
			}
		}
		if len(props) > 0 && len(f.PropertiesAdded) == 0 {
			props[0] = "properties " + props[0]
		}
		if len(props) > 0 {
			parts = append(parts, f.Field+" ("+strings.Join(props, "; ")+")")
			continue
		}
		parts = append(parts, f.Field)
	}
	return strings.Join(parts, ", ")
}
