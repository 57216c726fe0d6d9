//go:build corpus

package openapi

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signpost-dev/signpost/build/refs"
	"github.com/signpost-dev/signpost/internal/corpus"
)

// TestCorpus reads the real documents of the corpus: every operation is a
// tool or left out with its reason, and every schema is self-contained.
func TestCorpus(t *testing.T) {
	want := map[string][2]int{ // tools, left out
		"api-with-examples.yaml": {2, 0},
		"callback-example.yaml":  {1, 0},
		"link-example.yaml":      {6, 0},
		"petstore-expanded.yaml": {4, 0},
		"petstore.yaml":          {3, 0},
		"uspto.yaml":             {3, 0},
	}
	got := map[string][2]int{}
	for name := range want {
		d, err := Parse(context.Background(), name, corpus.Read(t, "openapi/"+name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var n [2]int
		for _, o := range d.Operations {
			if o.Tool == nil {
				n[1]++
				if o.LeftOut == "" {
					t.Errorf("%s %s: left out without a reason", name, o.Name)
				}
				continue
			}
			n[0]++
			for _, s := range []map[string]any{o.Tool.InputSchema, o.Tool.OutputSchema} {
				if s == nil {
					continue
				}
				if s["type"] != "object" {
					t.Errorf("%s %s: schema root %v", name, o.Name, s["type"])
				}
				if ps := refs.Check(s); len(ps) > 0 {
					t.Errorf("%s %s: %v", name, o.Name, ps)
				}
			}
		}
		got[name] = n
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools and left out per document (-want +got):\n%s", diff)
	}
}
