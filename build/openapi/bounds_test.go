package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// within runs f, and fails the test when it takes longer than budget.
func within(t *testing.T, budget time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		t.Logf("took %v", time.Since(start))
	case <-time.After(budget):
		t.Fatalf("not done after %v", budget)
	}
}

// sharedComponent is a document whose ops operations each take, as their
// body, one component of about kb KiB.
func sharedComponent(kb, ops int) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n")
	for i := range ops {
		fmt.Fprintf(&b, "  /p%05d:\n    post:\n      operationId: op%05d\n      summary: S\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Big'}}}}\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Big'}}}}}\n", i, i)
	}
	b.WriteString("components:\n  schemas:\n    Big:\n      type: object\n      properties:\n")
	for i := range kb * 1024 / 40 {
		fmt.Fprintf(&b, "        f%d: {type: string, description: d%d}\n", i, i)
	}
	return []byte(b.String())
}

// TestSharedComponentBounded: a large component that every operation
// takes is measured once, and the document is refused, naming the
// operation and the bound, once its operations' schemas pass the bound,
// before they are built; within it, each operation gets the component.
func TestSharedComponentBounded(t *testing.T) {
	data := sharedComponent(100, 2000) // 2,000 operations × 2 × ~110 KiB: 430 MiB expanded
	var err error
	within(t, 10*time.Second, func() {
		_, err = Options{MaxSchemas: 8 << 20}.Parse(context.Background(), "api.yaml", data)
	})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want an *Error", err)
	}
	want := `the schemas of the operations up to "op00036" are at least 8440271 bytes, more than the 8388608 bytes an OpenAPI document's operations may have together`
	if !strings.Contains(e.Msg, want) || !strings.Contains(e.Msg, "components/schemas/Big, of 113 KiB") {
		t.Errorf("message %q, want it to contain %q and name the component", e.Msg, want)
	}
	if e.Pointer != "/paths/~1p00036/post" {
		t.Errorf("pointer %q", e.Pointer)
	}

	// The default bound holds the same document too.
	within(t, 10*time.Second, func() {
		_, err = Parse(context.Background(), "api.yaml", data)
	})
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "more than the 67108864 bytes") {
		t.Errorf("default bound: %v", err)
	}

	d, err := Parse(context.Background(), "api.yaml", sharedComponent(1, 3))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range d.Operations {
		defs, _ := o.Tool.InputSchema["$defs"].(map[string]any)
		if big, _ := defs["Big"].(map[string]any); len(big["properties"].(map[string]any)) != 25 {
			t.Errorf("%s: $defs %v", o.Name, asJSON(t, defs))
		}
		if got := asJSON(t, o.Tool.InputSchema["properties"]); got != `{"body":{"$ref":"#/$defs/Big"}}` {
			t.Errorf("%s: input properties %s", o.Name, got)
		}
		if out := o.Tool.OutputSchema; out["type"] != "object" || len(out["properties"].(map[string]any)) != 25 || out["$defs"] != nil {
			t.Errorf("%s: output %s", o.Name, asJSON(t, out))
		}
	}
}

// chain is a document whose one operation takes the first of n component
// schemas, each an alias of the next (props: each an object whose one
// property is the next).
func chain(n int, props bool) []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    post:\n      operationId: a\n      summary: S\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/S0'}}}}\n      responses: {'200': {description: ok}}\ncomponents:\n  schemas:\n")
	for i := range n {
		if props {
			fmt.Fprintf(&b, "    S%d: {type: object, properties: {next: {$ref: '#/components/schemas/S%d'}}}\n", i, i+1)
		} else {
			fmt.Fprintf(&b, "    S%d: {$ref: '#/components/schemas/S%d'}\n", i, i+1)
		}
	}
	fmt.Fprintf(&b, "    S%d: {type: object}\n", n)
	return []byte(b.String())
}

// TestRefChains: a chain of $refs through component schemas is read in
// time linear in its length (the library, given every $ref, resolved and
// validated each again for each component that reaches it).
func TestRefChains(t *testing.T) {
	for _, props := range []bool{false, true} {
		t.Run(fmt.Sprintf("props=%v", props), func(t *testing.T) {
			var (
				d   *Document
				err error
			)
			within(t, 10*time.Second, func() {
				d, err = Parse(context.Background(), "api.yaml", chain(5000, props))
			})
			if err != nil {
				t.Fatal(err)
			}
			in := op(t, d, "a").Tool.InputSchema
			if defs := in["$defs"].(map[string]any); len(defs) != 5001 {
				t.Errorf("%d $defs, want 5001", len(defs))
			}
			if got := asJSON(t, in["properties"]); got != `{"body":{"$ref":"#/$defs/S0"}}` {
				t.Errorf("properties %s", got)
			}
		})
	}
}

// TestAliasCycles: component schemas that are each a $ref to the next, in
// a cycle, never reach a schema: the document is refused, saying so (the
// library said "found unresolved ref"), in time linear in the cycle.
func TestAliasCycles(t *testing.T) {
	doc := func(schemas string) []byte {
		return []byte("openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    post:\n      operationId: a\n      summary: S\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}\n      responses: {'200': {description: ok}}\ncomponents:\n  schemas:\n" + schemas)
	}
	var long strings.Builder
	long.WriteString("    A: {$ref: '#/components/schemas/S0'}\n")
	for i := range 5000 {
		fmt.Fprintf(&long, "    S%d: {$ref: '#/components/schemas/S%d'}\n", i, (i+1)%5000)
	}
	for _, c := range []struct{ name, schemas, want string }{
		{"self", "    A: {$ref: '#/components/schemas/A'}\n",
			"invalid OpenAPI document: the $refs components/schemas/A → components/schemas/A form a cycle that never reaches a schema: give one of them a schema of its own"},
		{"two", "    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n    C: {$ref: '#/components/schemas/A'}\n",
			"invalid OpenAPI document: the $refs components/schemas/A → components/schemas/B → components/schemas/A form a cycle"},
		{"long", long.String(),
			"the $refs components/schemas/S0 → components/schemas/S1 → components/schemas/S2 → components/schemas/S3 → … → components/schemas/S4997 → components/schemas/S4998 → components/schemas/S4999 → components/schemas/S0 form a cycle"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			within(t, 10*time.Second, func() {
				_, err = Parse(context.Background(), "api.yaml", doc(c.schemas))
			})
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Msg, c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestSharedRequestBodyBounded: a large schema written once in
// components/requestBodies, not in components/schemas, is read by the
// library again at each use: the document is refused before, once that
// passes MaxExpanded, saying how to fix it (the library took more than 10 s).
func TestSharedRequestBodyBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  /p%05d:\n    post:\n      operationId: op%05d\n      summary: S\n      requestBody: {$ref: '#/components/requestBodies/Big'}\n      responses: {'200': {description: ok}}\n", i, i)
	}
	b.WriteString("components:\n  requestBodies:\n    Big:\n      content:\n        application/json:\n          schema:\n            type: object\n            properties:\n")
	for i := range 100 * 1024 / 40 {
		fmt.Fprintf(&b, "              f%d: {type: string, description: d%d}\n", i, i)
	}
	var err error
	within(t, 10*time.Second, func() {
		_, err = Options{MaxSchemas: 8 << 20}.Parse(context.Background(), "api.yaml", []byte(b.String()))
	})
	var e *Error
	want := "the document, with each $ref to a component written out where it is used, is larger than the 16 MiB the OpenAPI library is given: #/components/requestBodies/Big, of 113 KiB, is used 2000 times; put its schema in components/schemas and refer to it there, which costs nothing at each use"
	if !errors.As(err, &e) || e.Msg != want {
		t.Errorf("error %v\nwant %s", err, want)
	}

	// Moved to components/schemas, the same schema is read once.
	data := strings.Replace(b.String(), "components:\n  requestBodies:\n    Big:\n      content:\n        application/json:\n          schema:\n", "components:\n  requestBodies:\n    Big:\n      content:\n        application/json:\n          schema: {$ref: '#/components/schemas/Big'}\n  schemas:\n    Big:\n", 1)
	data = strings.ReplaceAll(data, "\n            ", "\n      ")
	within(t, 10*time.Second, func() {
		_, err = Options{MaxSchemas: 8 << 20}.Parse(context.Background(), "api.yaml", []byte(data))
	})
	if !errors.As(err, &e) || !strings.Contains(e.Msg, `the schemas of the operations up to "op00072" are at least 8.1 MiB, more than the 8 MiB`) {
		t.Errorf("error %v", err)
	}
}

// FuzzParse: any document is read or refused without a panic (a marker
// or a $ref the bundle cannot follow included), and the schemas of its
// tools encode.
func FuzzParse(f *testing.F) {
	f.Add(params)
	f.Add(string(chain(3, false)))
	f.Add(string(chain(3, true)))
	f.Add(string(sharedComponent(1, 2)))
	f.Add("openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    post:\n      operationId: a\n      summary: S\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/A/properties/b', description: d}}}}\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}}\ncomponents:\n  schemas:\n    A: {type: object, properties: {b: {$ref: '#/components/schemas/A'}, x-signpost-component-ref: 1}}\n")
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := Parse(context.Background(), "api.yaml", []byte(doc))
		if err != nil {
			return
		}
		for _, o := range d.Operations {
			if o.Tool == nil {
				continue
			}
			for _, s := range []map[string]any{o.Tool.InputSchema, o.Tool.OutputSchema} {
				if s == nil {
					continue
				}
				if _, err := json.Marshal(s); err != nil {
					t.Fatalf("%s: %v", o.Name, err)
				}
			}
		}
	})
}
