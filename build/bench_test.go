package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/gencatalog"
	"github.com/signpost-dev/signpost/internal/memtest"
)

// generateCatalog writes the generated catalog of n tools in files of 100,
// with two tenants (see package gencatalog).
func generateCatalog(tb testing.TB, dir string, n int) {
	tb.Helper()
	if err := gencatalog.Write(dir, gencatalog.Options{Tools: n}); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkBuild10k loads, validates, compiles and writes a generated
// catalog of 10,000 tools with two tenants, with the compact view on and
// off. Goal: under 1 s per build and under 300 MB of heap at peak on a
// 2-core machine; the compact view adds at most 20%.
func BenchmarkBuild10k(b *testing.B) {
	dir := b.TempDir()
	generateCatalog(b, filepath.Join(dir, "catalog"), 10_000)
	ctx := context.Background()
	for _, compact := range []bool{false, true} {
		b.Run(fmt.Sprintf("compact=%v", compact), func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				p := memtest.PeakHeap(func() {
					cat, diags := Load(ctx, filepath.Join(dir, "catalog"))
					if diags.HasErrors() {
						b.Fatalf("generated catalog invalid: %v", diags[:min(5, len(diags))])
					}
					cat.Config.CompactView = compact
					out, err := Compile(ctx, cat)
					if err != nil {
						b.Fatal(err)
					}
					if err := out.Write(ctx, filepath.Join(dir, "site")); err != nil {
						b.Fatal(err)
					}
				})
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// The phases of a build, measured apart: parsing and validation dominate
// the CPU, writing is dominated by the filesystem's cost per file.
func BenchmarkLoad10k(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "catalog")
	generateCatalog(b, dir, 10_000)
	for b.Loop() {
		if _, diags := Load(context.Background(), dir); diags.HasErrors() {
			b.Fatal(diags[0])
		}
	}
}

func BenchmarkCompile10k(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "catalog")
	generateCatalog(b, dir, 10_000)
	cat, _ := Load(context.Background(), dir)
	for _, compact := range []bool{false, true} {
		b.Run(fmt.Sprintf("compact=%v", compact), func(b *testing.B) {
			cat.Config.CompactView = compact
			for b.Loop() {
				if _, err := Compile(context.Background(), cat); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWrite10k(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "catalog")
	generateCatalog(b, dir, 10_000)
	cat, _ := Load(context.Background(), dir)
	out, _ := Compile(context.Background(), cat)
	for b.Loop() {
		if err := out.Write(context.Background(), filepath.Join(dir, "..", "site")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildManyAnchors loads and compiles, with the compact view on, a
// catalog whose one tool's input schema has 50,000 properties, each a $ref
// to a different $anchor: what a pull request can make CI do. Goal: under
// 1 s.
func BenchmarkBuildManyAnchors(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "catalog")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	files := map[string][]byte{
		"signpost.yaml": []byte("site: {origin: https://example.com, publisher: example.com}\n"),
		"tools.yaml": []byte("tools:\n  - toolId: many_anchors\n    title: Many anchors\n    description: Takes fifty thousand strings.\n" +
			"    source: host-extension\n    safetyTier: pure\n    replayPolicy: deterministic\n    egress: none\n    inputSchema: {file: big.json}\n"),
		"big.json": []byte(catalogtest.AnchorSchema(50_000)),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		cat, diags := Load(ctx, dir)
		if diags.HasErrors() {
			b.Fatalf("catalog invalid: %v", diags[:min(5, len(diags))])
		}
		if !cat.Config.CompactView {
			b.Fatal("compact view is off")
		}
		if _, err := Compile(ctx, cat); err != nil {
			b.Fatal(err)
		}
	}
}
