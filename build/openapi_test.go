package build

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/toolid"
)

const petsAPI = `openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      summary: List pets
      tags: [pets]
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {$ref: '#/components/schemas/Page'}}
    post:
      operationId: list-pets
      summary: Add a pet
      requestBody:
        required: true
        content:
          application/json: {schema: {$ref: '#/components/schemas/Pet'}}
      responses:
        "201": {description: created}
  /pets/{id}:
    delete:
      summary: Delete a pet
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "204": {description: gone}
    get:
      operationId: getPet
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: ok}
    head:
      operationId: oldHead
      summary: Old
      deprecated: true
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: ok}
components:
  schemas:
    Pet: {type: object, properties: {name: {type: string}}}
    Page: {type: object, properties: {items: {type: array, items: {$ref: '#/components/schemas/Pet'}}}}
`

// TestOpenAPIImport loads the operations of an OpenAPI document that a
// declaration file names: the document itself is not a declaration file,
// unclassified operations are writes unless readGet makes GET and HEAD
// reads, and those that cannot be tools are warnings.
func TestOpenAPIImport(t *testing.T) {
	cat := checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"api/pets.yaml": petsAPI,
		"pets.yaml": `openapi:
  from: api/pets.yaml
  toolIdPrefix: pets
  readGet: true
  default: {egress: internal}
  classify:
    getPet: {description: Fetch one pet.}
    list-pets: {safetyTier: write, replayPolicy: keyed}
`,
	},
		`api/pets.yaml:34:5: warning: operation "oldHead" is not published: deprecated: the API advises against calling it; hide it with status: hidden under classify.oldHead to silence this`,
	)
	got := map[string]string{}
	for id, tl := range toolsByID(cat) {
		got[id] = strings.Join([]string{tl.Name, tl.Source, tl.Group, tl.SafetyTier, tl.ReplayPolicy, tl.Egress, tl.Description}, "|")
	}
	want := map[string]string{
		// listPets and list-pets both snake to list_pets: neither is
		// canonical, so both get the digest of the API's title and name.
		"pets_list_pets_" + toolid.Digest("Pets\x00listPets"):  "listPets|openapi|pets|read|idempotent|internal|List pets",
		"pets_list_pets_" + toolid.Digest("Pets\x00list-pets"): "list-pets|openapi|openapi|write|keyed|internal|Add a pet",
		"pets_delete_pets_id": "DELETE /pets/{id}|openapi|openapi|write|unsafe|internal|Delete a pet",
		"pets_get_pet":        "getPet|openapi|openapi|read|idempotent|internal|Fetch one pet.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	list := withSchemas(t, toolsByID(cat)["pets_list_pets_"+toolid.Digest("Pets\x00listPets")])
	out, _ := decodeSchema(t, list.OutputSchema).(map[string]any)
	if defs, _ := out["$defs"].(map[string]any); defs["Pet"] == nil || out["type"] != "object" {
		t.Errorf("outputSchema = %s, want the Page component with Pet in $defs", list.OutputSchema)
	}
}

func TestOpenAPIImportErrors(t *testing.T) {
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"api.yaml":      "openapi: 3.0.0\ninfo: {title: T}\npaths: {}\n",
		"pets.json":     `{"openapi": "3.0.0", "info": {"title": "P", "version": "1"}, "paths": {}}`,
		"a.yaml":        "openapi: {from: api.yaml}\n",
		"b.yaml":        "openapi: {from: ../outside.yaml}\n",
		"c.yaml":        "openapi: {from: api.txt}\n",
		"d.yaml":        "openapi: {from: pets.json, classify: {getPet: {safetyTier: read}}}\n",
		"e.yaml":        "openapi: {from: pets.json, readGet: yes}\n",
	},
		`api.yaml:1:1: invalid OpenAPI document: invalid info: value of version must be a non-empty string`,
		`b.yaml:1:17: file "../outside.yaml" is outside the catalog folder: keep schemas and recordings inside it`,
		`c.yaml:1:17: file "api.txt" is not an OpenAPI document: name a .json, .yaml or .yml file`,
		`d.yaml:1:47: classify names "getPet", which pets.json does not hold: name an operation by its operationId, or METHOD /path without one; check the spelling (operations: none)`,
		`e.yaml:1:37: must be a boolean, got string`,
	)
}
