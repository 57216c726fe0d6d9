package build

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/spec"
)

// catalogueOf compiles files and returns the one site's tool catalogue and
// the standard descriptor of toolID, decoded.
func catalogueOf(t *testing.T, files map[string]string, toolID string) (map[string]any, map[string]any) {
	t.Helper()
	cat, diags := loadDiags(t, files)
	if len(diags) > 0 {
		t.Fatalf("diagnostics:\n%s", strings.Join(diags, "\n"))
	}
	out, err := Compile(context.Background(), cat)
	if err != nil {
		t.Fatal(err)
	}
	var catalogue, desc map[string]any
	for _, d := range out.Sites[0].Documents {
		switch {
		case d.Route.Route == spec.RouteToolCatalogue:
			catalogue = decode(t, bodyOf(t, d))
		case d.Route.Route == spec.ToolRoute(toolID) && d.View == spec.ViewStandard:
			desc = decode(t, bodyOf(t, d))
		}
	}
	return catalogue, desc
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func entryOf(catalogue map[string]any, name string) map[string]any {
	for _, e := range catalogue["tools"].([]any) {
		if e.(map[string]any)["name"] == name {
			return e.(map[string]any)
		}
	}
	return nil
}

// TestReservedArguments: a keyed tool gets a required idempotency key and
// an irreversible one a required confirmation; a name the tool already
// uses gets leading underscores; the descriptor and the catalogue show the
// same arguments.
func TestReservedArguments(t *testing.T) {
	schema := "{type: object, required: [idempotencyKey], properties: {idempotencyKey: {type: integer}, _idempotencyKey: {type: string}, confirm: {type: boolean}}}"
	cat, desc := catalogueOf(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("safetyTier", "write", "replayPolicy", "keyed", "irreversible", "true", "inputSchema", schema),
	}, "get_forecast")
	e := entryOf(cat, "get_forecast")
	want := map[string]any{
		"idempotencyKey": map[string]any{"argument": "__idempotencyKey", "owner": "catalogue", "required": true},
		"confirmation":   map[string]any{"argument": "_confirm", "preview": true, "required": true},
	}
	if diff := cmp.Diff(want, e["reserved"]); diff != "" {
		t.Errorf("reserved (-want +got):\n%s", diff)
	}
	args := e["arguments"].(map[string]any)
	if diff := cmp.Diff(desc["inputSchema"], args); diff != "" {
		t.Errorf("catalogue arguments differ from the descriptor's inputSchema:\n%s", diff)
	}
	props := args["properties"].(map[string]any)
	for _, name := range []string{"__idempotencyKey", "_confirm", "idempotencyKey", "_idempotencyKey", "confirm"} {
		if props[name] == nil {
			t.Errorf("argument %s missing", name)
		}
	}
	if got := args["required"]; !cmp.Equal(got, []any{"idempotencyKey", "__idempotencyKey", "_confirm"}) {
		t.Errorf("required = %v", got)
	}
}

func TestDeclaredIdempotencyKey(t *testing.T) {
	keyed := func(key, schema string) map[string]string {
		return map[string]string{
			"signpost.yaml": testConfig,
			"t.yaml":        "tools:\n" + toolDecl("safetyTier", "write", "replayPolicy", "keyed", "idempotencyKey", key, "inputSchema", schema),
		}
	}
	cat, _ := catalogueOf(t, keyed("requestId", "{type: object, required: [requestId], properties: {requestId: {type: string}}}"), "get_forecast")
	if diff := cmp.Diff(map[string]any{"idempotencyKey": map[string]any{"argument": "requestId", "owner": "tool", "required": true}}, entryOf(cat, "get_forecast")["reserved"]); diff != "" {
		t.Errorf("reserved (-want +got):\n%s", diff)
	}
	checkDiags(t, keyed("requestId", "{type: object, properties: {id: {type: string}}}"),
		`t.yaml:8:21: idempotencyKey "requestId" is not an argument of the tool: inputSchema has properties id`)
	checkDiags(t, keyed("requestId", "{type: object, required: [requestId], properties: {requestId: {type: integer}}}"),
		`t.yaml:8:21: idempotencyKey "requestId" must be a string argument ("type": "string")`)
	checkDiags(t, keyed("requestId", "{type: object, properties: {requestId: {type: string}}}"),
		`t.yaml:8:21: idempotencyKey "requestId" must be required: a keyed call without its key is not safe to retry; add it to required`)
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("idempotencyKey", "id", "irreversible", "true"),
	},
		"t.yaml:8:21: idempotencyKey names the key of a keyed tool, and this one is replayPolicy deterministic: remove it, or make the tool keyed",
		"t.yaml:9:19: irreversible is for tools that change state (safetyTier write or exec); this one is read: remove irreversible, or raise its tier",
	)
}

// TestResponseSchema: a non-object response schema is dropped with a
// warning; an object one is the catalogue's response.
func TestResponseSchema(t *testing.T) {
	files := map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml":        "tools:\n" + toolDecl("outputSchema", "{type: array, items: {type: string}}"),
	}
	cat, diags := loadDiags(t, files)
	if diff := cmp.Diff([]string{`t.yaml:8:19: warning: outputSchema is not a JSON-object schema ("type": "object" at its root): the tool is published without one, as for a stream or any other response`}, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if withSchemas(t, cat.Tools[0]).OutputSchema != nil {
		t.Error("the non-object output schema was kept")
	}
	deep := "{type: object, properties: {a: " + strings.Repeat("{type: object, properties: {a: ", 16) + "{type: string}" + strings.Repeat("}}", 16) + "}}"
	checkDiags(t, map[string]string{"signpost.yaml": testConfig, "t.yaml": "tools:\n" + toolDecl("outputSchema", deep)},
		"t.yaml:8:542: outputSchema nests more than 32 levels deep here: flatten it, or describe less of the response")
}

// TestGroups: a tool's group is declared, else its server's name, else its
// source; keys are snake case, and two names sharing one get digests.
func TestGroups(t *testing.T) {
	cat, _ := catalogueOf(t, map[string]string{
		"signpost.yaml": testConfig,
		"t.yaml": "tools:\n" + toolDecl("toolId", "a", "group", "Billing Ops") + toolDecl("toolId", "b", "group", "billing_ops") +
			toolDecl("toolId", "c", "server", "com.example/weather") + toolDecl("toolId", "d") + toolDecl("toolId", "e", "group", "Billing-Ops"),
	}, "a")
	var got []string
	for _, g := range cat["groups"].([]any) {
		m := g.(map[string]any)
		var names []string
		for _, n := range m["tools"].([]any) {
			names = append(names, n.(string))
		}
		got = append(got, m["key"].(string)+" "+m["name"].(string)+": "+strings.Join(names, ","))
	}
	slices.Sort(got)
	want := []string{
		"billing_ops billing_ops: b",
		"billing_ops_b39a5bd4 Billing Ops: a",
		"billing_ops_d3e94702 Billing-Ops: e",
		"host_extension host-extension: d",
		"weather weather: c",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}
