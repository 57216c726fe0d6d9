package build

import (
	"context"
	"strings"
	"testing"
)

// CheckDeclarations says what Load says of the file, named as the caller
// shows it, and nothing of signpost.yaml.
func TestCheckDeclarations(t *testing.T) {
	ctx := context.Background()
	decl := "tools:\n  - toolId: a_tool\n    description: \"Reads\u200b it.\"\n    source: host-extension\n    safetyTier: read\n    replayPolicy: idempotent\n    egress: none\n  - toolId: a_tool\n    description: Again.\n    source: host-extension\n    safetyTier: read\n    replayPolicy: idempotent\n    egress: none\n"
	ds, err := CheckDeclarations(ctx, nil, "sub/tools.yaml", "out/tools.yaml", []byte(decl))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, d.String())
	}
	want := []string{
		`out/tools.yaml:3:18: description holds U+200B, a character a reader cannot see or that changes what they see: published text must show what it says; remove it`,
		`out/tools.yaml:8:13: toolId "a_tool" is already used by the tool at out/tools.yaml:2:5: toolIds must be unique`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A broken signpost.yaml is the catalog's to report, not the file's.
	ds, err = CheckDeclarations(ctx, []byte("site: {origin: ftp://x}\n"), "tools.yaml", "tools.yaml", []byte("tools: []\n"))
	if err != nil || len(ds) != 0 {
		t.Errorf("config problems: %v, %v", ds, err)
	}

	for _, rel := range []string{"../x.yaml", "x.json", "signpost.yaml", ".hidden/x.yaml", "/abs.yaml"} {
		if _, err := CheckDeclarations(ctx, nil, rel, rel, nil); err == nil {
			t.Errorf("CheckDeclarations(%q): no error", rel)
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := CheckDeclarations(canceled, nil, "tools.yaml", "tools.yaml", []byte("tools: []\n")); err == nil {
		t.Error("canceled: no error")
	}
}
