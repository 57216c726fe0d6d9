package configfile

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/schemas"
)

// TestConfigFileMatchesSchema: File has a field for every member the
// config schema describes, by the same name, and none it does not, so that
// a member renamed on one side only fails here rather than reading as
// empty.
func TestConfigFileMatchesSchema(t *testing.T) {
	data, ok := schemas.Source("config")
	if !ok {
		t.Fatal("no config schema")
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	defs, _ := schema["$defs"].(map[string]any)
	var fromSchema []string
	var walkSchema func(path string, v any, depth int)
	walkSchema = func(path string, v any, depth int) {
		m, _ := v.(map[string]any)
		if m == nil || depth > 8 {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			if ok && !strings.Contains(name, "/") {
				walkSchema(path, defs[name], depth+1)
			}
		}
		props, _ := m["properties"].(map[string]any)
		for k, p := range props {
			fromSchema = append(fromSchema, path+"/"+k)
			walkSchema(path+"/"+k, p, depth+1)
		}
		walkSchema(path+"/*", m["items"], depth+1)
		walkSchema(path+"/*", m["additionalProperties"], depth+1)
		for _, k := range []string{"then", "else"} {
			walkSchema(path, m[k], depth+1)
		}
	}
	walkSchema("", schema, 0)

	var fromType []string
	var walkType func(path string, t reflect.Type)
	walkType = func(path string, t reflect.Type) {
		switch t.Kind() {
		case reflect.Pointer:
			walkType(path, t.Elem())
		case reflect.Slice, reflect.Map:
			if t != reflect.TypeFor[json.Number]() {
				walkType(path+"/*", t.Elem())
			}
		case reflect.Struct:
			for f := range t.Fields() {
				tag := f.Tag.Get("json")
				switch {
				case tag == "-":
				case f.Anonymous:
					walkType(path, f.Type)
				case tag != "":
					fromType = append(fromType, path+"/"+tag)
					walkType(path+"/"+tag, f.Type)
				}
			}
		}
	}
	walkType("", reflect.TypeFor[File]())

	slices.Sort(fromSchema)
	slices.Sort(fromType)
	if diff := cmp.Diff(slices.Compact(fromSchema), slices.Compact(fromType)); diff != "" {
		t.Errorf("config schema members (-) and File fields (+):\n%s", diff)
	}
}
