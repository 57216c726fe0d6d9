package build

import (
	"context"
	"errors"
	"fmt"
	"github.com/signpost-dev/signpost/build/output"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/memtest"
)

// aliasedEnum is a catalog of one tool whose enum uses one anchored string
// of n bytes copies times: a few megabytes of YAML that would publish
// gigabytes.
func aliasedEnum(n, copies int) map[string]string {
	values := "&s " + strings.Repeat("x", n) + strings.Repeat(", *s", copies-1)
	return map[string]string{
		"signpost.yaml": testConfig,
		"tools.yaml":    "tools:\n" + toolDecl("inputSchema", "\n      type: object\n      properties:\n        mode:\n          type: string\n          enum: ["+values+"]"),
	}
}

// sharedSchema is a catalog of n tools that all use one schema file of
// about size bytes.
func sharedSchema(n, size int) map[string]string {
	var props []string
	for i := 0; len(props)*100 < size; i++ {
		props = append(props, fmt.Sprintf(`"field_%d": {"type": "string", "description": "%s"}`, i, strings.Repeat("padding ", 8)))
	}
	var tools strings.Builder
	tools.WriteString("tools:\n")
	for i := range n {
		tools.WriteString(toolDecl("toolId", fmt.Sprintf("tool_%04d", i), "inputSchema", "{file: shared.json}"))
	}
	return map[string]string{
		"signpost.yaml": testConfig,
		"tools.yaml":    tools.String(),
		"shared.json":   `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`,
	}
}

func TestLimitAliasedEnum(t *testing.T) {
	// 300 copies of a 1 MiB string: the fourth, the third alias, carries
	// the tool past 4 MiB.
	checkDiags(t, aliasedEnum(1<<20, 300),
		`tools.yaml:13:1048607: tool "get_forecast" is larger than limits.value in signpost.yaml (4 MiB): shared schemas and YAML aliases count each time they are used; declare less, or raise the limit`)
}

func TestLimitSharedSchema(t *testing.T) {
	// 4,000 tools of 22 KiB each: under the value limit, but the tool
	// catalogue, which joins them, is not under the document limit.
	checkDiags(t, sharedSchema(4000, 20<<10),
		`tools.yaml:2:5: the document /tool-catalogue.json would be at least 88 MiB, larger than limits.document in signpost.yaml (64 MiB); the largest of its tools, "tool_0000", is 23 KiB, and 4000 tools use its input schema, shared.json: shared schemas and YAML aliases count each time they are used; declare less, or raise the limit`)
}

// TestSharedSchemaReadOnce: a schema file that files declared at the same
// time name is read once, and its tools share it: the message counts them
// all.
func TestSharedSchemaReadOnce(t *testing.T) {
	files := sharedSchema(0, 4<<10)
	files["signpost.yaml"] = testConfig + "limits: {document: 100kB}\n"
	for i := range 40 {
		files[fmt.Sprintf("tools/%02d.yaml", i)] = "tools:\n" + toolDecl("toolId", fmt.Sprintf("tool_%04d", i), "inputSchema", "{file: ../shared.json}")
	}
	delete(files, "tools.yaml")
	for range 5 {
		_, got := loadDiags(t, files)
		if len(got) != 1 || !strings.Contains(got[0], "and 40 tools use its input schema, shared.json") {
			t.Fatalf("diagnostics:\n%s\nwant one that counts the 40 tools of shared.json", strings.Join(got, "\n"))
		}
	}
}

func TestLimitsSettable(t *testing.T) {
	files := sharedSchema(40, 4<<10)
	tests := []struct {
		limits string
		want   []string
	}{
		{"{}", nil},
		{"{value: 1KiB}", []string{`shared.json:1:1647: tool "tool_0000" and 39 others are each larger than limits.value in signpost.yaml (1 KiB): …`}},
		{"{document: 100kB}", []string{`tools.yaml:2:5: the document /tool-catalogue.json would be at least 196 KiB, larger than limits.document in signpost.yaml (98 KiB); the largest of its tools, "tool_0000", is 4.8 KiB, and 40 tools use its input schema, shared.json: …`}},
		{"{document: 200000, build: 0.25MiB}", []string{`tools.yaml:2:5: the build would be at least 958 KiB, larger than limits.build in signpost.yaml (256 KiB); …`}},
		{"{files: 80}", []string{`signpost.yaml:2:17: the build would write 87 files, more than limits.files in signpost.yaml (80): each site writes a document for each tool it shows, and one more for its compact view; publish fewer tools to fewer tenants, or raise the limit`}},
		{"{files: 87}", nil},
		{"{files: 0}", []string{`signpost.yaml:2:17: must be at least 1; got 0`}},
		{"{files: 10kB}", []string{`signpost.yaml:2:17: must be an integer, got string`}},
		{"{document: 64 megabytes}", []string{`signpost.yaml:2:20: must be a size: a number of bytes, or a number with a unit (B, kB, MB, GB, KiB, MiB or GiB), such as 64MiB; got "64 megabytes"`}},
		{"{document: 0}", []string{`signpost.yaml:2:20: must be at least 1; got 0`}},
		{"{pages: 1}", []string{`signpost.yaml:2:17: unknown field "pages"; allowed: build, document, files, value`}},
	}
	for _, tc := range tests {
		t.Run(tc.limits, func(t *testing.T) {
			files["signpost.yaml"] = testConfig + "limits: " + tc.limits + "\n"
			_, got := loadDiags(t, files)
			if len(got) != len(tc.want) {
				t.Fatalf("diagnostics:\n%s\nwant %d", strings.Join(got, "\n"), len(tc.want))
			}
			for i, w := range tc.want {
				prefix, rest, _ := strings.Cut(w, "…")
				if !strings.HasPrefix(got[i], prefix) || !strings.HasSuffix(got[i], rest) {
					t.Errorf("diagnostic %d = %s\nwant %s", i, got[i], w)
				}
			}
		})
	}
}

func TestLimitServer(t *testing.T) {
	meta := "&m " + strings.Repeat("y", 1<<20) + strings.Repeat(", *m", 9)
	checkDiags(t, map[string]string{
		"signpost.yaml": testConfig,
		"servers.yaml": "servers:\n  - name: com.example/weather\n    version: 1.0.0\n    description: Weather.\n" +
			"    remotes: [{type: streamable-http, url: https://mcp.example.com/mcp}]\n" +
			"    _meta: {com.example/blob: [" + meta + "]}\n",
	}, `servers.yaml:6:1048621: the server's declaration is larger than limits.value in signpost.yaml (4 MiB): shared schemas and YAML aliases count each time they are used; declare less, or raise the limit`)
}

func TestCompileLimits(t *testing.T) {
	dir := catalogtest.ExampleDir(t)
	ctx := context.Background()
	tests := []struct {
		limits Limits
		want   string
	}{
		{Limits{Document: 2000}, "the document at /tools/"},
		{Limits{Document: 20 << 10}, "the document at /tools is "},
		{Limits{Build: 40 << 10}, "the build is "},
		{Limits{Build: 100 << 10}, "the build is "},
		{Limits{Files: 100}, "the build has 1"},
	}
	for _, tc := range tests {
		cat, diags := Load(ctx, dir)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		cat.Config.Limits = tc.limits
		b, err := Compile(ctx, cat)
		var le *LimitError
		if !errors.As(err, &le) || b != nil {
			t.Fatalf("Compile with %+v = %v, %v; want a *LimitError", tc.limits, b, err)
		}
		if !strings.HasPrefix(err.Error(), tc.want) || le.Size <= le.Max {
			t.Errorf("Compile with %+v: %v (%+v)\nwant it to start with %q", tc.limits, err, le, tc.want)
		}
	}
	// The example fits the defaults with room to spare.
	cat, _ := Load(ctx, dir)
	if _, err := Compile(ctx, cat); err != nil {
		t.Fatal(err)
	}
}

// TestLimitsExact holds the example to limits at exactly its largest
// document, its total size and its files: Load's estimates never refuse
// what fits, and Compile refuses a byte or a file more.
func TestLimitsExact(t *testing.T) {
	ctx := context.Background()
	dir := catalogtest.ExampleDir(t)
	build := func(lim Limits) error {
		cat, diags := Load(ctx, dir)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		cat.Config.Limits = lim
		_, err := Compile(ctx, cat)
		return err
	}
	if err := build(Limits{}); err != nil {
		t.Fatal(err)
	}
	cat, _ := Load(ctx, dir)
	out, _ := Compile(ctx, cat)
	var largest, total int64
	files := int64(1) // the route table
	for _, s := range out.Sites {
		files += int64(len(s.Documents))
		for _, d := range s.Documents {
			largest = max(largest, d.Size)
			// The document, and its line of the route table.
			bare := d.Route
			bare.Variants = nil
			total += d.Size + output.RouteEntrySize(bare)
		}
	}
	if err := build(Limits{Document: largest, Build: total, Files: files}); err != nil {
		t.Errorf("limits at the example's own sizes: %v", err)
	}
	if err := build(Limits{Files: files - 1}); err == nil {
		t.Errorf("file limit one under the build's files: built")
	}
	if err := build(Limits{Document: largest - 1}); err == nil {
		t.Errorf("document limit one byte under the largest document: built")
	}
	if err := build(Limits{Build: total - 1}); err == nil {
		t.Errorf("build limit one byte under the build: built")
	}
}

// BenchmarkAmplified loads catalogs of a few megabytes that would publish
// gigabytes: one 4 MiB string used 300 times in an enum (1.2 GiB), and
// 4,000 tools sharing one schema file of 295 KiB (1.2 GiB for the list
// alone). Goal: each refused in under a second, under 500 MB of heap at
// peak.
func BenchmarkAmplified(b *testing.B) {
	for _, c := range []struct {
		name  string
		files map[string]string
	}{
		{"alias", aliasedEnum(4<<20, 300)},
		{"shared-schema", sharedSchema(4000, 295<<10)},
	} {
		dir := catalogtest.Write(b, c.files)
		b.Run(c.name, func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				peak = max(peak, memtest.PeakHeap(func() {
					if _, diags := Load(context.Background(), dir); len(diags) != 1 || diags[0].Rule != "limits" {
						b.Fatalf("diagnostics: %v", diags)
					}
				}))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// TestLimitMessageRounding: sizes that round to the same figure are written
// in bytes, so that a message never reads "1 GiB, larger than 1 GiB".
func TestLimitMessageRounding(t *testing.T) {
	e := &LimitError{Limit: "build", Max: 1 << 30, Size: 1<<30 + 1000, What: "the build"}
	want := "the build is 1073742824 bytes, larger than limits.build in signpost.yaml (1073741824 bytes)"
	if !strings.HasPrefix(e.Error(), want) {
		t.Errorf("message %q, want it to start %q", e.Error(), want)
	}
	e = &LimitError{Limit: "build", Max: 1 << 30, Size: 3 << 30, What: "the build"}
	if want := "the build is 3 GiB, larger than limits.build in signpost.yaml (1 GiB)"; !strings.HasPrefix(e.Error(), want) {
		t.Errorf("message %q, want it to start %q", e.Error(), want)
	}
}

// TestRouteEntrySize: the route table's lines, as the build limit counts
// them, are the route table written, but for each site's few members.
func TestRouteEntrySize(t *testing.T) {
	ctx := context.Background()
	cat, diags := Load(ctx, catalogtest.ExampleDir(t))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out, err := Compile(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	if err := out.Write(ctx, dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, output.RouteTableFile))
	if err != nil {
		t.Fatal(err)
	}
	var counted int64
	for _, s := range out.Sites {
		for _, d := range s.Documents {
			counted += output.RouteEntrySize(d.Route)
		}
	}
	if rest := fi.Size() - counted; rest < 0 || rest > 512*int64(len(out.Sites)) {
		t.Errorf("routes.json is %d bytes; its routes count %d", fi.Size(), counted)
	}
}
