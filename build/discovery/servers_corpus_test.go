//go:build corpus

package discovery

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// srvTOfficial compiles #/$defs/ServerCard of the official MCP Server Card
// v1 schema, kept in ../shared/reference.
func srvTOfficial(t testing.TB) *jsonschema.Schema {
	t.Helper()
	const officialURL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(corpus.Reference(t, "server-card/schema.json")))
	if err != nil {
		t.Fatalf("the official server card schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(srvTNoLoader{})
	if err := c.AddResource(officialURL, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(officialURL + "#/$defs/ServerCard")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestCorpusServerCardsOfficial holds the v1 cards of a full and a minimal
// server to the official schema, which refuses the draft card.
func TestCorpusServerCardsOfficial(t *testing.T) {
	official := srvTOfficial(t)
	s, ps := srvTDeclare(srvTJSON(t, srvTFull))
	if ps != nil {
		t.Fatal(ps)
	}
	srvTValid(t, official, "v1 card against the official schema", V1Card(s))
	if err := official.Validate(srvTRoundTrip(t, DraftCard(s))); err == nil {
		t.Error("the draft card has no $schema, yet the official schema accepts it")
	}
	min, _ := srvTDeclare(srvTWith(t, `{}`))
	srvTValid(t, official, "minimal v1 card against the official schema", V1Card(min))
}

// TestCorpusServerCardExamples runs the official Server Card v1 examples: a valid
// one must become a server item, decode without problems, and give back a v1
// card equal to it; an invalid one must be rejected, and the test says by
// which stage.
func TestCorpusServerCardExamples(t *testing.T) {
	official := srvTOfficial(t)
	fragment := srvTLoadSchemas(t).byName["servers-fragment"]
	b := corpus.Read(t, "server-card-examples.json")
	var examples []struct {
		Path     string          `json:"path"`
		Expect   string          `json:"expect"`
		Document json.RawMessage `json:"document"`
	}
	if err := json.Unmarshal(b, &examples); err != nil {
		t.Fatal(err)
	}
	// Which stage rejects each invalid example, and why.
	wantRejected := map[string]string{
		"examples/ServerCard/invalid/bad-name-pattern.json":      `fragment schema: /name: pattern; Declare: /name: name "no-slash-in-name" must be reverse-DNS/name, such as com.example/weather: letters, digits, '.' and '-', one '/', then letters, digits, '.', '_' and '-'`,
		"examples/ServerCard/invalid/date-versioned-schema.json": "declFromCard: /$schema: $schema \"https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json\" is not the v1 server card schema https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
		"examples/ServerCard/invalid/missing-name.json":          `fragment schema: : required; Declare: : missing required field "name"`,
		"examples/ServerCard/invalid/missing-schema.json":        `declFromCard: : missing required field "$schema": a v1 server card names https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json`,
		"examples/ServerCard/invalid/wrong-schema-name.json":     "declFromCard: /$schema: $schema \"https://static.modelcontextprotocol.io/schemas/v1/server.schema.json\" is not the v1 server card schema https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
	}
	valid := 0
	for _, ex := range examples {
		t.Run(filepath.Base(ex.Path), func(t *testing.T) {
			doc := srvTJSON(t, string(ex.Document))
			officialErr := official.Validate(doc)
			if (officialErr == nil) != (ex.Expect == "valid") {
				t.Fatalf("official schema verdict %v disagrees with %q", officialErr, ex.Expect)
			}
			var why []string
			decl, ps := declFromCard(doc)
			for _, p := range ps {
				why = append(why, "declFromCard: "+p.Pointer+": "+p.Message)
			}
			if ps == nil {
				if err := fragment.Validate(decl.Raw); err != nil {
					var kws []string
					for _, c := range srvTLeaves(err.(*jsonschema.ValidationError)) {
						kws = append(kws, srvTPointer(c.InstanceLocation)+": "+srvTKeyword(c))
					}
					slices.Sort(kws)
					why = append(why, "fragment schema: "+strings.Join(kws, ", "))
				}
				s, ps := Declare(&decl)
				for _, p := range ps {
					why = append(why, "Declare: "+p.Pointer+": "+p.Message)
				}
				if ex.Expect == "valid" && len(why) == 0 {
					valid++
					if diff := cmp.Diff(doc, srvTRoundTrip(t, V1Card(s))); diff != "" {
						t.Errorf("v1 card differs from the example (-example +card):\n%s", diff)
					}
				}
			}
			got := strings.Join(why, "; ")
			if ex.Expect == "valid" {
				if got != "" {
					t.Errorf("valid example rejected: %s", got)
				}
				return
			}
			t.Logf("rejected by %s", got)
			if diff := cmp.Diff(wantRejected[ex.Path], got); diff != "" {
				t.Errorf("rejection (-want +got):\n%s", diff)
			}
		})
	}
	if valid != 2 {
		t.Errorf("%d valid examples round-tripped, want 2", valid)
	}
}

// srvTLeaves returns the innermost errors of a validation error.
func srvTLeaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, srvTLeaves(c)...)
	}
	return out
}

// srvTPointer joins the tokens of an instance location into a JSON pointer.
func srvTPointer(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString("/" + source.EscapePointer(t))
	}
	return b.String()
}

// srvTKeyword names the keyword that failed.
func srvTKeyword(e *jsonschema.ValidationError) string {
	kp := e.ErrorKind.KeywordPath()
	if len(kp) == 0 {
		return "?"
	}
	return kp[len(kp)-1]
}
