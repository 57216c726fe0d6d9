//go:build corpus

package build

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpusOfficialCards holds the v1 server cards of the example's build
// to the official MCP Server Card v1 schema, kept in ../shared/reference.
func TestCorpusOfficialCards(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(corpus.Reference(t, "server-card/schema.json")))
	if err != nil {
		t.Fatalf("the official server card schema: %v", err)
	}
	const url = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	official, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	out, b := buildTo(t, exampleDir)
	n := 0
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			if d.ContentType != spec.ContentTypeServerCardV1 {
				continue
			}
			file := filepath.Join(out, s.Dir, d.Key)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			card, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if err := official.Validate(card); err != nil {
				t.Errorf("%s does not match the official server card schema: %v", file, err)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("no v1 server card checked against the official schema")
	}
}
