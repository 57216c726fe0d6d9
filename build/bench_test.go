package build

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/memtest"
)

// generateCatalog writes a catalog of n tools: declared tools spread over
// files of 100, with schemas of realistic size and shape (nested objects,
// enums, $defs and $ref, anyOf with null), a tenth of them recorded from MCP
// servers. The same n gives the same catalog.
func generateCatalog(tb testing.TB, dir string, n int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 42))
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("signpost.yaml", []byte("site: {origin: https://example.com, publisher: example.com}\ntenants: [acme, globex]\n"))
	tiers := []string{spec.TierPure, spec.TierRead, spec.TierWrite}
	replays := []string{spec.ReplayDeterministic, spec.ReplayIdempotent, spec.ReplayKeyed, spec.ReplayUnsafe}
	egresses := []string{spec.EgressNone, spec.EgressInternal, spec.EgressInternet}
	recorded := n / 10
	declared := n - recorded
	for f := 0; f*100 < declared; f++ {
		var b strings.Builder
		b.WriteString("tools:\n")
		for i := f * 100; i < min(declared, (f+1)*100); i++ {
			schema, _ := json.Marshal(genSchema(r))
			fmt.Fprintf(&b, "  - toolId: tool_%05d\n    title: Tool number %d\n    description: %s\n    source: host-extension\n    safetyTier: %s\n    replayPolicy: %s\n    egress: %s\n",
				i, i, genText(r, 12+r.IntN(30)), tiers[r.IntN(3)], replays[r.IntN(4)], egresses[r.IntN(3)])
			if r.IntN(5) == 0 {
				fmt.Fprintf(&b, "    tenants: [%s]\n", []string{"acme", "globex"}[r.IntN(2)])
			}
			fmt.Fprintf(&b, "    inputSchema: %s\n", schema)
		}
		write(fmt.Sprintf("tools/team%03d.yaml", f), []byte(b.String()))
	}
	for f := 0; f*500 < recorded; f++ {
		var tools []map[string]any
		for i := f * 500; i < min(recorded, (f+1)*500); i++ {
			tools = append(tools, map[string]any{
				"name":        fmt.Sprintf("remoteTool%05d", i),
				"description": genText(r, 10+r.IntN(20)),
				"inputSchema": genSchema(r),
				"annotations": map[string]any{"readOnlyHint": true},
			})
		}
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"tools": tools}})
		write(fmt.Sprintf("imports/recorded/server%02d.json", f), data)
		write(fmt.Sprintf("imports/server%02d.yaml", f), fmt.Appendf(nil, "mcp:\n  from: recorded/server%02d.json\n  server: com.example/server%02d\n  toolIdPrefix: s%02d\n", f, f, f))
	}
}

var words = strings.Fields(`the a returns lists creates updates account invoice customer order ticket
region forecast status service report page document query filter result for of with by in and from
when only each every current open closed pending approved amount currency date owner team project`)

func genText(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.ToUpper(w[0][:1]) + strings.Join(w, " ")[1:] + "."
}

func genSchema(r *rand.Rand) map[string]any {
	props := map[string]any{}
	var required []any
	for i := range 3 + r.IntN(8) {
		name := fmt.Sprintf("%s_%d", words[r.IntN(len(words))], i)
		var p map[string]any
		switch r.IntN(6) {
		case 0:
			p = map[string]any{"type": "string", "enum": []any{"open", "closed", "pending"}, "default": "open"}
		case 1:
			p = map[string]any{"type": "integer", "minimum": 1, "maximum": 100}
		case 2:
			p = map[string]any{"anyOf": []any{map[string]any{"type": "string", "format": "date"}, map[string]any{"type": "null"}}}
		case 3:
			p = map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/item"}}
		case 4:
			p = map[string]any{"type": "object", "properties": map[string]any{
				"id": map[string]any{"type": "string", "pattern": "^[a-z0-9-]+$"}, "note": map[string]any{"type": "string", "maxLength": 500}}}
		default:
			p = map[string]any{"type": "boolean"}
		}
		p["description"] = genText(r, 5+r.IntN(15))
		props[name] = p
		if r.IntN(2) == 0 {
			required = append(required, name)
		}
	}
	s := map[string]any{
		"type": "object", "properties": props, "additionalProperties": false,
		"$defs": map[string]any{"item": map[string]any{"type": "object", "properties": map[string]any{
			"sku": map[string]any{"type": "string"}, "quantity": map[string]any{"type": "integer", "minimum": 1}}, "required": []any{"sku"}}},
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
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
