// Package gencatalog writes large catalogs for benchmarks and tests:
// generated declarations of realistic size and shape, the same bytes for
// the same options, so that figures measured on two machines, or before and
// after a change, describe the same input.
package gencatalog

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
)

// Options shape a generated catalog. The zero value is a catalog of no
// tools with two tenants.
type Options struct {
	// Tools is the number of tools. A tenth of them are recorded from MCP
	// servers, the rest declared; both come 100 to a file (10,000 tools are
	// 100 files of 100, as an organization with 100 MCP servers has them),
	// or each all in one file with OneFile.
	Tools   int
	OneFile bool
	// Servers is the number of declared MCP servers, each with both cards
	// at their default paths, in namespaces of 50.
	Servers int
	// NoTenants builds one site instead of one for each of acme and globex.
	NoTenants bool
	// Tenants, when above zero, declares that many tenants (t0000, t0001,
	// ...) instead of acme and globex, and scopes every tool to one of
	// them: a declared tool to each in turn, a recorded server's tools to
	// one tenant per server. Each tenant sees its share of the tools.
	Tenants int
	// Limits, when set, is the value of limits: in signpost.yaml, as YAML
	// ("{files: 1000000}"): a catalog far larger than 10,000 tools needs
	// more than the default limits.
	Limits string
	// Bucket, when set, declares the S3 target Target of that bucket, in
	// the region us-east-1, for publish to use.
	Bucket string
}

// Target is the name of the S3 target Options.Bucket declares.
const Target = "bench"

// TenantName is the id of the i-th tenant Options.Tenants declares.
func TenantName(i int) string { return fmt.Sprintf("t%04d", i) }

// Write writes the catalog of o into dir, which it creates.
func Write(dir string, o Options) error {
	r := rand.New(rand.NewPCG(uint64(o.Tools), 42))
	// Each file is written as it is made, so that a large catalog is
	// never held whole in memory: a benchmark that measures a child's
	// peak RSS would otherwise see its own (see benchrun.Result.SelfRSS).
	var werr error
	add := func(name string, data []byte) {
		if werr != nil {
			return
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			werr = fmt.Errorf("generate a catalog: %w", err)
		} else if err := os.WriteFile(p, data, 0o644); err != nil {
			werr = fmt.Errorf("generate a catalog: %w", err)
		}
	}

	config := "site: {origin: https://example.com, publisher: example.com}\n"
	switch {
	case o.Tenants > 0:
		names := make([]string, o.Tenants)
		for i := range names {
			names[i] = TenantName(i)
		}
		config += "tenants: [" + strings.Join(names, ", ") + "]\n"
	case !o.NoTenants:
		config += "tenants: [acme, globex]\n"
	}
	if o.Limits != "" {
		config += "limits: " + o.Limits + "\n"
	}
	if o.Bucket != "" {
		config += fmt.Sprintf("targets:\n  %s:\n    s3: {bucket: %s, region: us-east-1}\n", Target, o.Bucket)
	}
	add("signpost.yaml", []byte(config))

	tiers := []string{spec.TierPure, spec.TierRead, spec.TierWrite}
	replays := []string{spec.ReplayDeterministic, spec.ReplayIdempotent, spec.ReplayKeyed, spec.ReplayUnsafe}
	egresses := []string{spec.EgressNone, spec.EgressInternal, spec.EgressInternet}
	recorded := o.Tools / 10
	declared := o.Tools - recorded
	perFile, perRecording := 100, 100
	if o.OneFile {
		perFile, perRecording = max(declared, 1), max(recorded, 1)
	}
	for f := 0; f*perFile < declared; f++ {
		var b strings.Builder
		b.WriteString("tools:\n")
		for i := f * perFile; i < min(declared, (f+1)*perFile); i++ {
			schema, _ := json.Marshal(schemaOf(r))
			fmt.Fprintf(&b, "  - toolId: tool_%05d\n    title: Tool number %d\n    description: %s\n    source: host-extension\n    safetyTier: %s\n    replayPolicy: %s\n    egress: %s\n",
				i, i, text(r, 12+r.IntN(30)), tiers[r.IntN(3)], replays[r.IntN(4)], egresses[r.IntN(3)])
			switch {
			case o.Tenants > 0:
				fmt.Fprintf(&b, "    tenants: [%s]\n", TenantName(i%o.Tenants))
			case !o.NoTenants && r.IntN(5) == 0:
				fmt.Fprintf(&b, "    tenants: [%s]\n", []string{"acme", "globex"}[r.IntN(2)])
			}
			fmt.Fprintf(&b, "    inputSchema: %s\n", schema)
		}
		name := fmt.Sprintf("tools/team%03d.yaml", f)
		if o.OneFile {
			name = "tools/all.yaml"
		}
		add(name, []byte(b.String()))
	}
	for f := 0; f*perRecording < recorded; f++ {
		var tools []map[string]any
		for i := f * perRecording; i < min(recorded, (f+1)*perRecording); i++ {
			tools = append(tools, map[string]any{
				"name":        fmt.Sprintf("remoteTool%05d", i),
				"description": text(r, 10+r.IntN(20)),
				"inputSchema": schemaOf(r),
				"annotations": map[string]any{"readOnlyHint": true},
			})
		}
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"tools": tools}})
		add(fmt.Sprintf("imports/recorded/server%02d.json", f), data)
		imp := fmt.Appendf(nil, "mcp:\n  from: recorded/server%02d.json\n  server: com.example/server%02d\n  toolIdPrefix: s%02d\n", f, f, f)
		if o.Tenants > 0 {
			imp = fmt.Appendf(imp, "  tenants: [%s]\n", TenantName(f%o.Tenants))
		}
		add(fmt.Sprintf("imports/server%02d.yaml", f), imp)
	}
	if o.Servers > 0 {
		var b strings.Builder
		b.WriteString("servers:\n")
		for i := range o.Servers {
			fmt.Fprintf(&b, "  - name: com.example-team%02d/service-%04d\n    version: 1.%d.0\n    description: %s\n    remotes:\n      - {type: streamable-http, url: \"https://mcp.example.com/service-%04d\"}\n",
				i/50, i, i%10, text(r, 4+r.IntN(6)), i)
		}
		add("servers/generated.yaml", []byte(b.String()))
	}
	return werr
}

var words = strings.Fields(`the a returns lists creates updates account invoice customer order ticket
region forecast status service report page document query filter result for of with by in and from
when only each every current open closed pending approved amount currency date owner team project`)

// text returns a sentence of n words.
func text(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// schemaOf returns an input schema of 3 to 10 properties: enums, bounded
// integers, anyOf with null, arrays of a $ref'd item, nested objects.
func schemaOf(r *rand.Rand) map[string]any {
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
		p["description"] = text(r, 5+r.IntN(15))
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
