package diag

import (
	"strings"
	"sync"
	"testing"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

var token = "gh" + "p_" + fakecred.Chars("diag", 36, fakecred.Alnum)

// TestWriteRedacts: a diagnostic made anywhere, not through a Sink, is
// redacted on the way out, in every format.
func TestWriteRedacts(t *testing.T) {
	ds := Diagnostics{{Pos: source.Pos{File: "tools/" + token + ".yaml", Line: 2, Col: 3}, Severity: Error, Rule: "r", Message: `duplicate key "` + token + `"`}}
	want := map[string]string{
		FormatText:   `tools/ghp_…:2:3: duplicate key "ghp_…"` + "\n",
		FormatGitHub: `::error file=tools/ghp_…,line=2,col=3,title=signpost r::duplicate key "ghp_…"` + "\n",
		FormatJSON:   `"message": "duplicate key \"ghp_…\""`,
	}
	for format, w := range want {
		var b strings.Builder
		if err := ds.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), w) || strings.Contains(b.String(), token[:6]) {
			t.Errorf("%s: got %q, want %q", format, b.String(), w)
		}
	}
	if got := ds[0].String(); strings.Contains(got, token[:6]) {
		t.Errorf("String() = %q", got)
	}
	if ds[0].Message != `duplicate key "`+token+`"` {
		t.Error("Write changed the diagnostics it wrote")
	}
}

// TestPathRedactedByName: a folder whose name reads like a query is not a
// URL holding a credential; a file named like a credential is cut.
func TestPathRedactedByName(t *testing.T) {
	for path, want := range map[string]string{
		"/tmp/TestX_api_key=3290412263/001/servers.yaml": "/tmp/TestX_api_key=3290412263/001/servers.yaml",
		"cat/" + token + "/t.yaml":                       "cat/ghp_…/t.yaml",
	} {
		if got := (Diagnostic{Pos: source.Pos{File: path}}).Redacted().File; got != want {
			t.Errorf("%s redacted to %s, want %s", path, got, want)
		}
	}
}

// TestSink: what a sink gives back is redacted, sorted and without
// duplicates; a check's finding inside a value that failed its schema is
// left out; and nothing is taken after Close.
func TestSink(t *testing.T) {
	src, ps := source.ParseYAML("t.yaml", "t.yaml", []byte("a: {b: 1}\nc: 2\n"+token+": 1\n"+token+": 2\n"))
	var s Sink
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { s.Problems(src, ps) })
	}
	wg.Wait()
	s.SchemaError(src, "/c", "must be a string")
	s.At(Error, src, "/c", "rule", "covered by the schema error")
	s.At(Warning, src, "/a/b", "rule", "about %s", token)
	s.File("t.yaml", "read", "cannot read")
	got := s.Close()
	s.At(Error, src, "/c", "late", "after Close")
	var lines []string
	for _, d := range got {
		lines = append(lines, d.Rule+" "+d.String())
	}
	want := []string{
		"read t.yaml: cannot read",
		"rule t.yaml:1:8: warning: about ghp_…",
		"schema t.yaml:2:4: must be a string",
		`duplicate-key t.yaml:4:1: duplicate key "ghp_…" (first at line 3)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if !s.Failed(src) {
		t.Error("Failed is false after a schema error")
	}
	if ds := s.Diagnostics(); len(ds) != 0 {
		t.Errorf("a closed sink holds %v", ds)
	}
}

// TestWriteControlCharacters: a file name or message with terminal controls
// is written escaped in every format a terminal shows.
func TestWriteControlCharacters(t *testing.T) {
	ds := Diagnostics{{Pos: source.Pos{File: "tools/\x1b[2Jx.yaml", Line: 1}, Severity: Error, Rule: "r", Message: "name \x1b]0;owned\x07 \u202e"}}
	for _, format := range []string{FormatText, FormatGitHub} {
		var b strings.Builder
		if err := ds.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(b.String(), "\x1b\x07\u202e") {
			t.Errorf("%s: raw control characters written: %q", format, b.String())
		}
	}
}
