package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// wantReport is what report writes for testdata/events.json, the events of
// go test -json ./... in testdata/sample: the failed test's lines, the
// packages' lines, and the skips at the end.
const wantReport = `    a_test.go:11: got 1, want 2
--- FAIL: TestFail/bad (0.00s)
--- FAIL: TestFail (0.00s)
FAIL
FAIL	example.com/sample/a	0.039s
ok  	example.com/sample/b	0.039s

2 skipped:
  example.com/sample/a TestSkip: needs a server: not in -short mode
  example.com/sample/a TestFail/skipped: no node
`

func TestReport(t *testing.T) {
	events, err := os.ReadFile(filepath.Join("testdata", "events.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report(bytes.NewReader(events), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != wantReport {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), wantReport)
	}
}

// TestReportNoSkips: without a skip, no list; words that are not events
// (go test's own) pass as they are.
func TestReportNoSkips(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"p","Output":"PASS\n"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.010s\n"}
{"Action":"pass","Package":"p","Elapsed":0.01}
go: warning: something
`
	var out bytes.Buffer
	if err := report(bytes.NewBufferString(in), &out); err != nil {
		t.Fatal(err)
	}
	if want := "ok  \tp\t0.010s\ngo: warning: something\n"; out.String() != want {
		t.Errorf("report:\n%q\nwant:\n%q", out.String(), want)
	}
}

// TestRun runs go test on testdata/sample, one package at a time for the
// order of their lines: go test's exit code, and the report of its events.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code, err := run(ctx, filepath.Join("testdata", "sample"), []string{"-count=1", "-p=1", "./..."}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`\t[0-9.]+s\n`).ReplaceAllString(stdout.String(), "\t0.039s\n")
	got = regexp.MustCompile(`\([0-9.]+s\)`).ReplaceAllString(got, "(0.00s)")
	if want := wantReport; code != 1 || got != want {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 1 and:\n%s", code, got, stderr.String(), want)
	}
}
