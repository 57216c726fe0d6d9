package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/fakecred"
)

// fakeToken is a GitHub token for the tests, made at run time so that no
// file holds one.
func fakeToken(seed string) string {
	return "gh" + "p_" + fakecred.Chars(seed, 36, fakecred.Alnum)
}

// leaksToken reports whether out repeats six characters or more of tok
// past its first four, which a redacted hint shows.
func leaksToken(out, tok string) bool {
	for i := 4; i+6 <= len(tok); i++ {
		if strings.Contains(out, tok[i:i+6]) {
			return true
		}
	}
	return false
}

// TestCommandLinesRedact runs import, and commands that fail, on input
// holding a credential wherever a line they print quotes it: a name, a
// reason, a name offered for a mistyped one, a file's name, an error. No
// line repeats the credential, and each quotes it redacted (cut to its
// first four characters and "…", with the word it is part of).
func TestCommandLinesRedact(t *testing.T) {
	tok := fakeToken("command-lines")
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	recording := write("rec.json", `{"tools": [
		{"name": "get_`+tok+`", "description": "Gets.", "inputSchema": {"type": "object"}},
		{"name": "leaky", "description": "Uses `+tok+`.", "inputSchema": {"type": "object"}},
		{"name": "`+tok+`"}
	]}`)
	empty := write(tok+".json", `{"tools": []}`)
	server := write("server.json", `[
		{"name": "com.example/`+tok+`", "version": "1.0.0", "description": "A.", "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/a"}]},
		{"name": "com.example/b", "version": "1.0.0", "description": "B.", "remotes": [{"type": "streamable-http", "url": "ftp://mcp.example.com/b?api_key=`+tok+`"}]}
	]`)
	openapi := write("api.yaml", `openapi: 3.1.0
info: {title: Items, version: "1.0"}
paths:
  /items:
    get: {operationId: list_`+tok+`, summary: List items, responses: {"200": {description: ok}}}
`)
	out := filepath.Join(dir, "out.yaml")
	// A name one character away from the recorded one, which the command
	// offers.
	mistyped := tok[:len(tok)-1] + "0"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"import mcp: names and reasons", []string{"import", "mcp", recording, "-o", out}},
		{"import mcp: a name offered for a mistyped one", []string{"import", "mcp", recording, "--classify", "read=get_" + mistyped}},
		{"import mcp: a file without tools", []string{"import", "mcp", empty}},
		{"import mcp: a file that cannot be read", []string{"import", "mcp", filepath.Join(dir, "missing-"+tok+".json")}},
		{"import server: names and reasons", []string{"import", "server", server, "-o", out}},
		{"import openapi: names", []string{"import", "openapi", openapi, "-o", out}},
		{"import openapi: a name offered for a mistyped one", []string{"import", "openapi", openapi, "--classify", "read=list_" + mistyped}},
		{"import openapi: a file that cannot be read", []string{"import", "openapi", filepath.Join(dir, "missing-"+tok+".yaml")}},
		{"an error: validate", []string{"validate", filepath.Join(dir, "missing-"+tok)}},
		{"an error: check", []string{"check", "http://127.0.0.1:1/?api_key=" + tok, "--timeout", "1s"}},
		{"an error: diff", []string{"diff", filepath.Join(dir, "old-"+tok), filepath.Join(dir, "new-"+tok)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			run(context.Background(), tc.args, &stdout, &stderr)
			// The lines are on stderr; stdout is the declarations.
			got := stderr.String()
			if leaksToken(got, tok) {
				t.Errorf("the output repeats the credential:\n%s", got)
			}
			if !strings.Contains(got, "…") {
				t.Errorf("the output does not quote the credential, redacted:\n%s", got)
			}
		})
	}
}
