package drift

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	in := func(s string) json.RawMessage { return json.RawMessage(s) }
	declared := []Tool{
		{Name: "a", Description: "A.", InputSchema: in(`{"type":"object","properties":{"x":{"type":"string"}}}`), Annotations: in(`{"readOnlyHint":true}`)},
		{Name: "b", Description: "B.", InputSchema: in(`{"type":"object"}`)},
		{Name: "c", Description: "C.", InputSchema: in(`{"type":"object"}`)},
	}
	live := []Tool{
		// Keys in another order, a default written out: the same.
		{Name: "a", Description: "A.", InputSchema: in(`{"properties":{"x":{"type":"string"}},"type":"object"}`), Annotations: in(`{"readOnlyHint":true,"idempotentHint":false}`)},
		{Name: "b2", Description: "B.", InputSchema: in(`{"type":"object"}`)},
		{Name: "d", Description: "D.", InputSchema: in(`{"type":"object"}`)},
	}
	var got []string
	for _, c := range Compare(declared, live) {
		got = append(got, c.Kind+" "+c.Message())
	}
	want := []string{
		"renamed tool b renamed b2 (same description and schemas)",
		"removed tool c removed",
		"added tool d added",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without the server's annotations on the declared side, they are not
	// compared.
	if cs := Compare([]Tool{{Name: "a", Description: "A."}}, []Tool{{Name: "a", Description: "A.", Annotations: in(`{"destructiveHint":true}`)}}); len(cs) != 0 {
		t.Errorf("annotations compared without a baseline: %+v", cs)
	}
}

// TestReportRedacts: a credential a server or the catalog quotes is not
// repeated, in any format.
func TestReportRedacts(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	r := &Report{Format: Format, Servers: []Server{{Name: "com.example/x", Endpoint: "https://x.example/mcp", Status: StatusDrift,
		Changes: []Change{{Kind: KindDescription, Tool: "t", Old: "Uses " + secret, New: "Uses nothing."}}},
		{Name: "com.example/y", Endpoint: "https://y.example/mcp", Status: StatusUnreachable, Reason: "401: token " + secret + " expired"}}}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text":   func(b *bytes.Buffer) error { return r.WriteText(b) },
		"json":   func(b *bytes.Buffer) error { return r.WriteJSON(b) },
		"github": func(b *bytes.Buffer) error { return r.WriteGitHub(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), secret[4:12]) {
			t.Errorf("%s repeats the credential:\n%s", name, b.String())
		}
	}
	if r.Servers[0].Changes[0].Old != "Uses "+secret {
		t.Error("Redacted changed the report it copied")
	}
}
