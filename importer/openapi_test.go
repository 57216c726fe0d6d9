package importer

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/toolid"
)

const shopAPI = `openapi: 3.0.3
info: {title: Shop, version: "1"}
paths:
  /items:
    get:
      operationId: listItems
      summary: List items
      tags: [catalog]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  token: {type: string, default: sk_live_abcdefghijklmnopqrstuvwx}
    post:
      operationId: list-items
      summary: Add an item
      responses:
        "201": {description: created}
    head:
      operationId: headItems
      summary: Check items
      responses:
        "200": {description: ok}
  /items/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: ok}
    delete:
      operationId: deleteItem
      description: Deletes an item.
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "204": {description: gone}
`

func importShop(t *testing.T, opts OpenAPIOptions) *ToolImport {
	t.Helper()
	imp, err := OpenAPI(context.Background(), OpenAPIDocument{Label: "shop.yaml", Data: []byte(shopAPI)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

func summarize(imp *ToolImport) map[string]string {
	got := map[string]string{}
	for _, tl := range imp.Tools {
		if tl.Status != Imported {
			got[tl.Name] = "left out: " + tl.Reason
			continue
		}
		d := tl.Declaration
		group, _ := d["group"].(string)
		got[tl.Name] = strings.Join([]string{d["toolId"].(string), d["safetyTier"].(string), d["replayPolicy"].(string), d["egress"].(string), group}, " ")
	}
	return got
}

func TestOpenAPIClassification(t *testing.T) {
	listID := func(name string) string { return "shop_list_items_" + toolid.Digest("Shop\x00"+name) }
	// By default the method decides: GET and HEAD read, the rest write.
	want := map[string]string{
		"listItems":       listID("listItems") + " read idempotent internet catalog",
		"list-items":      listID("list-items") + " write unsafe internet ",
		"headItems":       "shop_head_items read idempotent internet ",
		"deleteItem":      "shop_delete_item write unsafe internet ",
		"GET /items/{id}": "left out: no summary or description: a catalog tool needs a description; declare the tool by hand with one",
	}
	imp := importShop(t, OpenAPIOptions{ToolIDPrefix: "shop"})
	if diff := cmp.Diff(want, summarize(imp)); diff != "" {
		t.Errorf("default (-want +got):\n%s", diff)
	}
	// --classify wins over the method.
	want["listItems"] = listID("listItems") + " read idempotent internal catalog"
	want["headItems"] = "shop_head_items write unsafe internal "
	want["list-items"] = listID("list-items") + " write unsafe internal "
	want["deleteItem"] = "shop_delete_item write unsafe internal "
	imp = importShop(t, OpenAPIOptions{ToolIDPrefix: "shop", Egress: "internal", Classify: map[string]string{"headItems": "write"}})
	if diff := cmp.Diff(want, summarize(imp)); diff != "" {
		t.Errorf("classified (-want +got):\n%s", diff)
	}
	// A tool --classify makes read is idempotent, one it makes pure
	// deterministic, whatever its method.
	want["listItems"] = listID("listItems") + " pure deterministic internal catalog"
	want["deleteItem"] = "shop_delete_item read idempotent internal "
	imp2 := importShop(t, OpenAPIOptions{ToolIDPrefix: "shop", Egress: "internal", Classify: map[string]string{"headItems": "write", "listItems": "pure", "deleteItem": "read"}})
	if diff := cmp.Diff(want, summarize(imp2)); diff != "" {
		t.Errorf("classified (-want +got):\n%s", diff)
	}
	// The credential-looking default is removed, with a note.
	for _, tl := range imp.Tools {
		if tl.Name == "listItems" && !strings.Contains(tl.Reason, "removed a credential-looking default") {
			t.Errorf("listItems notes = %q", tl.Reason)
		}
	}
}

func TestMethodSafety(t *testing.T) {
	got := map[string]string{}
	for _, m := range []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"} {
		tier, replay := MethodSafety(m)
		got[m] = tier + " " + replay
	}
	want := map[string]string{
		"GET": "read idempotent", "HEAD": "read idempotent", "OPTIONS": "read idempotent",
		"PUT": "write idempotent", "DELETE": "write unsafe", "POST": "write unsafe", "PATCH": "write unsafe", "TRACE": "write unsafe",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOpenAPIUnknownAndErrors(t *testing.T) {
	imp := importShop(t, OpenAPIOptions{Classify: map[string]string{"listItem": "read"}})
	if len(imp.Unknown) != 1 || imp.Unknown[0].Name != "listItem" || len(imp.Unknown[0].Like) == 0 || imp.Unknown[0].Like[0] != "listItems" {
		t.Errorf("unknown = %+v", imp.Unknown)
	}
	imp, err := OpenAPI(context.Background(), OpenAPIDocument{Label: "bad.yaml", Data: []byte("openapi: 3.0.0\ninfo: [\n")}, OpenAPIOptions{})
	if err != nil || len(imp.Errors) != 1 || imp.Errors[0] != "bad.yaml: line 2, column 7: invalid YAML: the [ here is never closed: end it with ] (or separate its items with commas)" {
		t.Errorf("errors = %q, %v", imp.Errors, err)
	}
	if _, err := OpenAPI(context.Background(), OpenAPIDocument{}, OpenAPIOptions{Egress: "space"}); err == nil || !strings.Contains(err.Error(), `unknown egress "space"`) {
		t.Errorf("bad egress: %v", err)
	}
}

func TestOpenAPIToolsYAML(t *testing.T) {
	imp := importShop(t, OpenAPIOptions{})
	out, err := OpenAPIToolsYAML(imp, OpenAPIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, w := range []string{
		"# shop.yaml (Shop, OpenAPI 3.0.3): 5 operations, 4 imported (1 with changes), 1 left out\n",
		"# left out: GET /items/{id}: no summary or description",
		"  # operation listItems, from shop.yaml#/paths/~1items/get\n  # import notes: outputSchema at /properties/token/default: removed a credential-looking default",
		"    group: catalog\n    source: openapi\n    safetyTier: read\n    replayPolicy: idempotent\n",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("declarations lack %q:\n%s", w, s)
		}
	}
	again, _ := OpenAPIToolsYAML(importShop(t, OpenAPIOptions{}), OpenAPIOptions{})
	if string(again) != s {
		t.Error("the same import gave different bytes")
	}
}

func TestSourceLabel(t *testing.T) {
	for in, want := range map[string]string{"api.yaml": "api.yaml", "specs/./api.yaml": "specs/api.yaml", "/home/me/api.yaml": "api.yaml", "../api.yaml": "api.yaml", "-": "stdin"} {
		if got := SourceLabel(in); got != want {
			t.Errorf("SourceLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
