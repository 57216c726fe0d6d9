package build

import (
	"cmp"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/source"
	"github.com/signpost-dev/signpost/internal/catalogtest"
	"github.com/signpost-dev/signpost/internal/fakecred"
)

// The cases below make every rule of Load fire once at least, each with a
// fake credential in the value the rule is about (or, where a rule is about
// a file or folder, in its name), and hold every diagnostic, written in
// every format, to secrets.Redact's promise: none repeats more than the
// first four characters of a credential. The credentials are assembled at
// run time (see internal/fakecred); none is real.

// leakToken is the credential most cases plant; leakID is one that is
// also a valid tenant id, for the rules about tenants and targets.
var (
	leakToken = "gh" + "p_" + fakecred.Chars("leak", 36, fakecred.Alnum)
	leakID    = "xo" + "xb-" + fakecred.Chars("id1", 12, fakecred.Digits) + "-" + fakecred.Chars("id2", 13, fakecred.Digits) + "-" + fakecred.Chars("id3", 24, fakecred.Lower+fakecred.Digits)
)

// leakCase is a catalog that makes rule fire with secret in it.
type leakCase struct {
	name, rule string
	files      map[string]string
	// folder, when set, is the name of the catalog folder inside the
	// temporary one; missing leaves it uncreated.
	folder  string
	missing bool
	// big names a file made larger than a catalog file may be.
	big string
	// canceled loads with a context canceled already.
	canceled bool
	// link names a symbolic link made to signpost.yaml.
	link string
	// tmpdir, when set, names TMPDIR: a folder of that name that does not
	// exist, so that Load has nowhere to hold the tools' bytes.
	tmpdir string
	secret string
}

// leakUnreachable are the rules Load cannot fire from a catalog, and why:
// each rule of the code is in leakCases or here (see TestLeakCasesCoverRules).
var leakUnreachable = map[string]string{
	"internal":  "the embedded schemas always compile",
	"file-size": "catalogfile.Read refuses a file over source.MaxFileSize before it is parsed (rule read)",
}

func leakCases(t *testing.T) []leakCase {
	tok, id := leakToken, leakID
	q := strconv.Quote
	const tf = "tools/t.yaml"
	tools := func(fields ...string) map[string]string {
		return map[string]string{ConfigFile: testConfig, tf: "tools:\n" + toolDecl(fields...)}
	}
	config := func(extra string) map[string]string {
		return map[string]string{ConfigFile: testConfig + extra, tf: "tools:\n" + toolDecl()}
	}
	recording := func(tl map[string]any) string {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"tools": []any{tl}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	mcp := func(rec string, lines ...string) map[string]string {
		imp := "mcp:\n  from: rec.json\n  toolIdPrefix: wx\n"
		for _, l := range lines {
			imp += "  " + l + "\n"
		}
		return map[string]string{ConfigFile: testConfig, "imports/wx.yaml": imp, "imports/rec.json": rec}
	}
	openapi := func(doc string, lines ...string) map[string]string {
		imp := "openapi:\n  from: api/api.yaml\n"
		for _, l := range lines {
			imp += "  " + l + "\n"
		}
		return map[string]string{ConfigFile: testConfig, "imports/api.yaml": imp, "imports/api/api.yaml": doc}
	}
	server := func(lines ...string) string {
		s := "  - name: com.example/weather\n    version: 1.0.0\n    description: Forecasts.\n"
		for _, l := range lines {
			s += "    " + l + "\n"
		}
		return s
	}
	deep := strings.Repeat("[", source.MaxDepth+2) + q(tok) + strings.Repeat("]", source.MaxDepth+2)
	laughs := "a: &a [" + q(tok) + ", " + q(tok) + ", " + q(tok) + ", " + q(tok) + ", " + q(tok) + ", " + q(tok) + ", " + q(tok) + ", " + q(tok) + ", " + q(tok) + ", " + q(tok) + "]\n"
	for i, prev := range []string{"a", "b", "c", "d", "e"} {
		name := string(rune('b' + i))
		laughs += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
	}
	api := "openapi: 3.1.0\ninfo: {title: Weather, version: '1'}\npaths:\n"
	return []leakCase{
		// The folder and its files.
		{name: "catalog folder missing", rule: "catalog-folder", folder: tok, missing: true},
		{name: "config missing", rule: "config-missing", folder: tok, files: map[string]string{tf: "tools:\n" + toolDecl()}},
		{name: "read a file too large", rule: "read", files: tools(), big: "tools/" + tok + ".yaml"},
		{name: "canceled", rule: "canceled", folder: tok, files: tools(), canceled: true},
		{name: "a link named as a declaration", rule: "not-regular", files: tools(), link: "tools/" + tok + ".yaml"},
		{name: "temporary folder missing", rule: "spill", files: tools(), tmpdir: tok},

		// Parsing.
		{name: "duplicate key", rule: "duplicate-key", files: map[string]string{ConfigFile: testConfig + tok + ": 1\n" + tok + ": 2\n"}},
		{name: "duplicate key in JSON", rule: "duplicate-key", files: map[string]string{ConfigFile: testConfig,
			tf: "tools:\n" + toolDecl("inputSchema", "{file: in.json}"), "tools/in.json": `{"type": "object", ` + q(tok) + `: 1, ` + q(tok) + `: 2}`}},
		{name: "!!int", rule: "yaml-type", files: tools("title", "!!int "+tok)},
		{name: "!!float", rule: "yaml-type", files: tools("title", "!!float "+tok)},
		{name: "unknown anchor", rule: "yaml-syntax", files: tools("title", "*"+tok)},
		{name: "syntax", rule: "yaml-syntax", files: tools("title", tok+": ["+tok)},
		{name: "key not a string", rule: "yaml-key", files: tools("title", "{["+tok+"]: x}")},
		{name: "merge key", rule: "yaml-merge", files: tools("title", "{<<: {"+tok+": x}}")},
		{name: "too deep", rule: "too-deep", files: tools("title", deep)},
		{name: "aliases", rule: "alias-limit", files: tools("title", "x", "examples", "{"+strings.ReplaceAll(strings.TrimSuffix(laughs, "\n"), "\n", ", ")+"}")},
		{name: "JSON syntax", rule: "json-syntax", files: map[string]string{ConfigFile: testConfig,
			tf: "tools:\n" + toolDecl("inputSchema", "{file: in.json}"), "tools/in.json": `{"type": "object", "description": ` + q(tok) + ` "x"}`}},

		// signpost.yaml.
		{name: "config empty", rule: "config", files: map[string]string{ConfigFile: "# " + tok + "\n", tf: "tools:\n" + toolDecl()}},
		{name: "config credential", rule: "credential", files: map[string]string{ConfigFile: "site: {origin: https://example.com, publisher: example.com, displayName: " + q(tok) + "}\n"}},
		{name: "displayName not I-JSON", rule: "ai-catalog", files: map[string]string{ConfigFile: "site: {origin: https://example.com, publisher: example.com, displayName: \"" + tok + "\\uFFFF\"}\n"}},
		{name: "config schema", rule: "schema", files: config("toolCatalog: {compactView: " + q(tok) + "}\n")},
		{name: "origin", rule: "origin", files: map[string]string{ConfigFile: "site: {origin: " + q("https://example.com/"+tok) + ", publisher: example.com}\n"}},
		{name: "tenant origin", rule: "origin", files: config("tenants: [{id: acme, origin: " + q("https://example.com/"+tok) + "}]\n")},
		{name: "tenant twice", rule: "tenant", files: config("tenants: [" + id + ", " + id + "]\n"), secret: id},
		{name: "limits", rule: "limits", files: map[string]string{ConfigFile: testConfig + "limits: {value: 1KiB}\n",
			tf: "tools:\n" + toolDecl("toolId", q(tok), "description", q(strings.Repeat("Forecast. ", 200)))}},
		{name: "signing", rule: "signing", files: config("discovery: {aiCatalog: false}\nsigning: {key: " + q("file:../"+tok) + "}\n")},
		{name: "target", rule: "target", files: config("targets:\n  " + id + ":\n    githubPages: {}\n    netlify: {}\n"), secret: id},

		// Declaration files.
		{name: "declarations", rule: "declarations", files: map[string]string{ConfigFile: testConfig, "tools/" + tok + ".yaml": "# nothing\n"}},
		{name: "tool schema", rule: "schema", files: tools("safetyTier", q(tok))},
		{name: "schema file absolute", rule: "file", files: tools("inputSchema", "{file: "+q("/"+tok+".json")+"}")},
		{name: "tool name", rule: "tool-name", files: tools("name", q(tok))},
		{name: "toolId format", rule: "toolid-format", files: tools("toolId", "Bad-Id", "title", q(tok))},
		{name: "toolId unique", rule: "toolid-unique", files: map[string]string{ConfigFile: testConfig, tf: "tools:\n" + toolDecl("title", q(tok)) + toolDecl("title", q(tok))}},
		{name: "toolId credential", rule: "credential", files: tools("toolId", q(tok))},
		{name: "exec source", rule: "exec-source", files: tools("source", "mcp", "name", "run", "safetyTier", "exec", "title", q(tok))},
		{name: "tenant unknown", rule: "tenant", files: map[string]string{ConfigFile: testConfig + "tenants: [acme]\n", tf: "tools:\n" + toolDecl("tenants", "["+id+"]")}, secret: id},
		{name: "tenant none", rule: "tenant", files: tools("tenants", "["+id+"]"), secret: id},
		{name: "irreversible", rule: "irreversible", files: tools("irreversible", "true", "title", q(tok))},
		{name: "idempotency key", rule: "idempotency-key", files: tools("safetyTier", "write", "replayPolicy", "keyed", "idempotencyKey", q(tok))},
		{name: "response schema", rule: "response-schema", files: tools("outputSchema", "{type: string, description: "+q(tok)+"}")},
		{name: "machine path", rule: "machine-path", files: tools("description", q("Reads /home/"+tok+"/x."))},
		{name: "invisible text", rule: "invisible-text", files: tools("description", q("Reads "+tok+"\u202e."))},
		{name: "schema root", rule: "schema-root", files: tools("inputSchema", "{type: string, description: "+q(tok)+"}")},
		{name: "JSON Schema", rule: "json-schema", files: tools("inputSchema", "{type: object, properties: {x: {type: "+q(tok)+"}}}")},
		{name: "schema $ref", rule: "schema-ref", files: tools("inputSchema", "{type: object, properties: {x: {$ref: "+q("#/$defs/"+tok)+"}}}")},
		{name: "schema credential", rule: "credential", files: tools("inputSchema", "{type: object, properties: {password: {type: string, default: "+q(tok)+"}}}")},

		// mcp: imports.
		{name: "mcp recording", rule: "mcp-recording", files: mcp(`{"jsonrpc": "2.0", "id": 1, "result": {"tools": [` + q(tok) + `]}}`)},
		{name: "mcp tool", rule: "mcp-tool", files: mcp(recording(map[string]any{"name": tok, "inputSchema": map[string]any{"type": "object"}}))},
		{name: "mcp schema", rule: "mcp-schema", files: mcp(recording(map[string]any{"name": tok, "description": "Forecast.", "inputSchema": tok}))},
		{name: "mcp classify", rule: "mcp-classify", files: mcp(recording(map[string]any{"name": "get", "description": "Forecast.", "inputSchema": map[string]any{"type": "object"}}),
			"classify:", "  "+q(tok)+": {safetyTier: read}")},
		{name: "mcp file", rule: "file", files: map[string]string{ConfigFile: testConfig, "imports/wx.yaml": "mcp:\n  from: " + q(tok+".json") + "\n"}},

		// openapi: imports.
		{name: "openapi document", rule: "openapi-document", files: openapi("openapi: 3.1.0\ninfo: {title: " + q(tok) + "}\npaths: {/x: {get: {operationId: [" + q(tok) + "]}}}\n")},
		{name: "openapi operation", rule: "openapi-operation", files: openapi(api + "  /x: {get: {operationId: " + q(tok) + "}}\n")},
		{name: "openapi classify", rule: "openapi-classify", files: openapi(api+"  /x: {get: {operationId: get, summary: Get.}}\n", "classify:", "  "+q(tok)+": {safetyTier: read}")},
		{name: "openapi file", rule: "file", files: map[string]string{ConfigFile: testConfig, "imports/api.yaml": "openapi:\n  from: " + q(tok+".txt") + "\n"}},

		// Servers.
		{name: "server", rule: "server", files: map[string]string{ConfigFile: testConfig, "servers.yaml": "servers:\n" + server() + server("title: "+q(tok))}},
		{name: "server decoded", rule: "server", files: map[string]string{ConfigFile: testConfig, "servers.yaml": "servers:\n" + server("remotes:", "  - {type: sse, url: "+q("https://mcp.example.com/"+tok)+", headers: [{name: "+q(tok)+", value: x}]}")}},
		{name: "server unknown", rule: "server-unknown", files: map[string]string{ConfigFile: testConfig, "servers.yaml": "servers:\n" + server(),
			tf: "tools:\n" + toolDecl("source", "mcp", "name", "get", "server", q("com.example/"+tok))}},
		{name: "server limits", rule: "limits", files: map[string]string{ConfigFile: testConfig + "limits: {value: 1KiB}\n", "servers.yaml": "servers:\n" + server("_meta: {com.example/notes: "+q(tok+strings.Repeat(" weather", 200))+"}")}},
	}
}

// leaks reports whether out repeats more than four characters of secret in
// a row: secrets.Redact leaves a credential's first four.
func leaks(out, secret string) bool {
	for i := 0; i+5 <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+5]) {
			return true
		}
	}
	return false
}

// load loads the catalog of c, as Load and as LoadConfig.
func (c leakCase) load(t *testing.T) (load, config Diagnostics) {
	dir := filepath.Join(t.TempDir(), c.folder)
	if !c.missing {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		catalogtest.WriteFiles(t, dir, c.files)
	}
	if c.link != "" {
		if err := os.Symlink(filepath.Join(dir, ConfigFile), filepath.Join(dir, filepath.FromSlash(c.link))); err != nil {
			t.Fatal(err)
		}
	}
	if c.big != "" {
		name := filepath.Join(dir, filepath.FromSlash(c.big))
		if err := os.WriteFile(name, []byte("tools:\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(name, source.MaxFileSize+1); err != nil {
			t.Fatal(err)
		}
	}
	if c.tmpdir != "" {
		t.Setenv("TMPDIR", filepath.Join(t.TempDir(), c.tmpdir))
	}
	ctx := context.Background()
	if c.canceled {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		cancel()
	}
	_, load = Load(ctx, dir)
	_, config = LoadConfig(ctx, dir)
	return load, config
}

// TestDiagnosticsRedactCredentials: whatever rule fires, no diagnostic of
// Load or LoadConfig, written in any format, repeats the credential the
// catalog holds.
func TestDiagnosticsRedactCredentials(t *testing.T) {
	for _, c := range leakCases(t) {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			secret := cmp.Or(c.secret, leakToken)
			diags, config := c.load(t)
			if !slices.ContainsFunc(diags, func(d Diagnostic) bool { return d.Rule == c.rule }) {
				var b strings.Builder
				_ = diags.Write(&b, FormatText)
				t.Errorf("rule %s did not fire; diagnostics:\n%s", c.rule, b.String())
			}
			for _, ds := range []Diagnostics{diags, config} {
				for _, format := range []string{FormatText, FormatJSON, FormatGitHub} {
					var b strings.Builder
					if err := ds.Write(&b, format); err != nil {
						t.Fatal(err)
					}
					if leaks(b.String(), secret) {
						t.Errorf("%s diagnostics repeat the credential:\n%s", format, b.String())
					}
				}
				for _, d := range ds {
					if leaks(d.String(), secret) || leaks(d.Message, secret) || leaks(d.File, secret) {
						t.Errorf("diagnostic repeats the credential: %q", d.String())
					}
				}
			}
		})
	}
}

// TestLeakCasesCoverRules: every rule the loader's code names has a case
// in leakCases, or a reason in leakUnreachable, so that a new rule cannot
// go untested. The rules are read from the code: the string literal that
// a report in build, build/source or build/diag passes as the rule, or a
// constant Rule... of theirs names.
func TestLeakCasesCoverRules(t *testing.T) {
	rules := codeRules(t, ".", "source", "diag")
	if len(rules) < 30 {
		t.Fatalf("found %d rules in the code, fewer than the loader has: %v", len(rules), rules)
	}
	covered := map[string]bool{}
	for _, c := range leakCases(t) {
		covered[c.rule] = true
	}
	for _, r := range rules {
		_, unreachable := leakUnreachable[r]
		if !covered[r] && !unreachable {
			t.Errorf("rule %q has no case in leakCases: add one that makes it fire with a credential in the value it is about", r)
		}
	}
	for r := range covered {
		if !slices.Contains(rules, r) {
			t.Errorf("leakCases tests rule %q, which the code does not name", r)
		}
	}
	for r := range leakUnreachable {
		if !slices.Contains(rules, r) {
			t.Errorf("leakUnreachable names rule %q, which the code does not name", r)
		}
	}
}

// ruleCalls are the functions and methods that take a rule, and at which
// place; ruleTypes the types whose literals hold one, and at which place
// when the fields are not named. A field named Rule holds one in any
// literal.
var (
	ruleCalls = map[string]int{"errorf": 1, "report": 2, "File": 1, "fail": 1}
	ruleTypes = map[string]int{"finding": 1, "SchemaProblem": 1}
)

// codeRules returns the rules named in the non-test Go files of dirs.
func codeRules(t *testing.T, dirs ...string) []string {
	t.Helper()
	found := map[string]bool{}
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			found[s] = true
		}
	}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					var fn string
					switch f := n.Fun.(type) {
					case *ast.SelectorExpr:
						fn = f.Sel.Name
					case *ast.Ident:
						fn = f.Name
					}
					if at, ok := ruleCalls[fn]; ok && at < len(n.Args) {
						add(n.Args[at])
					}
				case *ast.CompositeLit:
					var typ string
					switch x := n.Type.(type) {
					case *ast.Ident:
						typ = x.Name
					case *ast.SelectorExpr:
						typ = x.Sel.Name
					}
					for i, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Rule" || k.Name == "rule") {
								add(kv.Value)
							}
						} else if at, ok := ruleTypes[typ]; ok && i == at {
							add(e)
						}
					}
				case *ast.ValueSpec:
					// const RuleSchema = "schema"
					for i, name := range n.Names {
						if strings.HasPrefix(name.Name, "Rule") && i < len(n.Values) {
							add(n.Values[i])
						}
					}
				case *ast.AssignStmt:
					// rule := "json-syntax", rule = "duplicate-key"
					for i, lhs := range n.Lhs {
						if id, ok := lhs.(*ast.Ident); ok && id.Name == "rule" && i < len(n.Rhs) {
							add(n.Rhs[i])
						}
					}
				}
				return true
			})
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for r := range found {
			if !yield(r) {
				return
			}
		}
	})
}
