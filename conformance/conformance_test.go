package conformance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// pair returns two builds of the example, compiled independently.
func pair(t *testing.T) (*Build, *Build) {
	t.Helper()
	a, err := FromOutput("first", buildtest.Example(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromOutput("second", buildtest.Example(t))
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func compare(t *testing.T, a, b *Build) *Report {
	t.Helper()
	r, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// kinds lists the kinds of the report's findings, each once, in order.
func kinds(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	return out
}

// find returns the first finding of kind, failing the test without one.
func find(t *testing.T, r *Report, kind string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Kind == kind {
			return f
		}
	}
	t.Fatalf("no %s finding in %s", kind, dump(r))
	return Finding{}
}

func dump(r *Report) string {
	var b strings.Builder
	_ = r.Write(&b, FormatText)
	return b.String()
}

// route returns the site and index of the route of the first site.
func route(t *testing.T, b *Build, path, view string) (*output.SiteRoutes, int) {
	t.Helper()
	s := &b.Table.Sites[0]
	for i, r := range s.Routes {
		if r.Route == path && r.View == view {
			return s, i
		}
	}
	t.Fatalf("no route %s %s", path, view)
	return nil, 0
}

// setBody replaces a document of the first site and records its new size and
// SHA-256 in the route table, as a consistent build would.
func setBody(t *testing.T, b *Build, path, view string, body []byte) {
	t.Helper()
	s, i := route(t, b, path, view)
	r := &s.Routes[i]
	b.Bodies[objectPath(s.Dir, r.Key)] = body
	sum := sha256.Sum256(body)
	r.Size, r.SHA256 = int64(len(body)), hex.EncodeToString(sum[:])
}

// editJSON decodes a document of the first site, edits it and sets it back.
func editJSON(t *testing.T, b *Build, path, view string, edit func(map[string]any)) {
	t.Helper()
	s, i := route(t, b, path, view)
	v, err := decodeJSON(b.Bodies[objectPath(s.Dir, s.Routes[i].Key)])
	if err != nil {
		t.Fatal(err)
	}
	edit(v.(map[string]any))
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	setBody(t, b, path, view, data)
}

func TestSameBuildsConform(t *testing.T) {
	a, b := pair(t)
	if r := compare(t, a, b); !r.Conformant || len(r.Findings) != 0 {
		t.Fatalf("two builds of the example do not conform:\n%s", dump(r))
	}
}

func TestReadConforms(t *testing.T) {
	ctx := context.Background()
	dirs := []string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
	for _, d := range dirs {
		if err := buildtest.Example(t).Write(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Read(ctx, "a", dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(ctx, "b", dirs[1])
	if err != nil {
		t.Fatal(err)
	}
	if r := compare(t, a, b); !r.Conformant {
		t.Fatalf("two written builds do not conform:\n%s", dump(r))
	}

	// A byte flipped on disk: the object no longer matches its route table,
	// and the documents differ at that byte.
	p := filepath.Join(dirs[1], b.Table.Sites[0].Dir, "tools.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	off := bytes.Index(data, []byte(`"description":"`)) + len(`"description":"`)
	data[off] ^= 0x20 // a letter of another case
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err = Read(ctx, "b", dirs[1])
	if err != nil {
		t.Fatal(err)
	}
	r := compare(t, a, b)
	if got, want := kinds(r), []string{KindObjectChanged, KindBytesDiffer}; !slices.Equal(got, want) {
		t.Fatalf("kinds %v, want %v:\n%s", got, want, dump(r))
	}
	if f := find(t, r, KindBytesDiffer); f.Offset == nil || *f.Offset != int64(off) || f.Route != "/tools" || f.File != b.Table.Sites[0].Dir+"/tools.json" {
		t.Errorf("bytes-differ finding %+v, want /tools at offset %d", f, off)
	}

	// A missing object, and one larger than recorded.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	b, _ = Read(ctx, "b", dirs[1])
	if f := find(t, compare(t, a, b), KindObjectUnreadable); !strings.Contains(f.Message, "missing") {
		t.Errorf("missing object: %+v", f)
	}
	if err := os.WriteFile(p, append(data, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ = Read(ctx, "b", dirs[1])
	if f := find(t, compare(t, a, b), KindObjectUnreadable); !strings.Contains(f.Message, "larger") {
		t.Errorf("larger object: %+v", f)
	}
}

func TestFlippedByte(t *testing.T) {
	a, b := pair(t)
	s, i := route(t, b, "/tools", "standard")
	body := bytes.Clone(b.Bodies[objectPath(s.Dir, s.Routes[i].Key)])
	off := bytes.Index(body, []byte(`"description":"`)) + len(`"description":"`)
	body[off] ^= 0x20
	setBody(t, b, "/tools", "standard", body)
	r := compare(t, a, b)
	if got := kinds(r); !slices.Equal(got, []string{KindBytesDiffer}) {
		t.Fatalf("kinds %v:\n%s", got, dump(r))
	}
	f := find(t, r, KindBytesDiffer)
	if f.Route != "/tools" || *f.Offset != int64(off) || f.Build != "" {
		t.Errorf("finding %+v", f)
	}
	if r.Conformant {
		t.Error("conformant with a finding")
	}
}

func TestReorderedRoutes(t *testing.T) {
	a, b := pair(t)
	s := &b.Table.Sites[0]
	s.Routes[3], s.Routes[4] = s.Routes[4], s.Routes[3]
	r := compare(t, a, b)
	if got := kinds(r); !slices.Equal(got, []string{KindRouteOrderDiffers}) {
		t.Fatalf("kinds %v:\n%s", got, dump(r))
	}
	if f := find(t, r, KindRouteOrderDiffers); f.Route != a.Table.Sites[0].Routes[3].Route || !strings.Contains(f.Message, "position 4") {
		t.Errorf("finding %+v", f)
	}

	a, b = pair(t)
	b.Table.Sites[0], b.Table.Sites[1] = b.Table.Sites[1], b.Table.Sites[0]
	if f := find(t, compare(t, a, b), KindRouteOrderDiffers); f.File != output.RouteTableFile || !strings.Contains(f.Message, "sites") {
		t.Errorf("finding %+v", f)
	}
}

func TestRouteTableDiffers(t *testing.T) {
	a, b := pair(t)
	s := &b.Table.Sites[0]
	gone := s.Routes[5]
	s.Routes = slices.Delete(s.Routes, 5, 6)
	s.Routes[0].CacheControl = "no-store"
	r := compare(t, a, b)
	if got := kinds(r); !slices.Equal(got, []string{KindRouteTableDiffers}) {
		t.Fatalf("kinds %v:\n%s", got, dump(r))
	}
	text := dump(r)
	for _, want := range []string{gone.Route + "): the route is only in first", `cacheControl is "public, max-age=3600" in first and "no-store" in second`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
}

func TestRouteTableBytes(t *testing.T) {
	a, b := pair(t)
	a.RouteTable = []byte(`{"format":1,"sites":[]}`)
	b.RouteTable = []byte(`{"format": 1, "sites": []}`)
	f := find(t, compare(t, a, b), KindBytesDiffer)
	if f.File != output.RouteTableFile || *f.Offset != 10 {
		t.Errorf("finding %+v", f)
	}
}

func TestUnsupportedVersion(t *testing.T) {
	a, b := pair(t)
	editJSON(t, b, "/tool-catalogue.json", "standard", func(m map[string]any) { m["catalogVersion"] = json.Number("2") })
	r := compare(t, a, b)
	f := find(t, r, KindUnsupportedVersion)
	if f.Build != "second" || f.Route != "/tool-catalogue.json" || f.Pointer != "/catalogVersion" || !strings.Contains(f.Message, "catalogVersion is 2") {
		t.Errorf("finding %+v", f)
	}
	for _, f := range r.Findings {
		if f.Kind == KindInvalidDocument && f.Pointer == "/catalogVersion" {
			t.Errorf("the version is reported twice: %+v", f)
		}
	}
}

func TestExternalRef(t *testing.T) {
	a, b := pair(t)
	tool := firstTool(t, b)
	editJSON(t, b, "/tools/"+tool, "standard", func(m map[string]any) {
		m["inputSchema"].(map[string]any)["properties"] = map[string]any{"x": map[string]any{"$ref": "https://schemas.example/x.json"}}
	})
	editJSON(t, b, "/tool-catalogue.json", "standard", func(m map[string]any) {
		m["tools"].([]any)[0].(map[string]any)["arguments"] = map[string]any{"type": "object", "properties": map[string]any{"y": map[string]any{"$ref": "#/$defs/gone"}}}
	})
	r := compare(t, a, b)
	var pointers []string
	for _, f := range r.Findings {
		if f.Kind == KindSchemaRef {
			pointers = append(pointers, f.Route+" "+f.Pointer)
		}
	}
	want := []string{"/tool-catalogue.json /tools/0/arguments/properties/y/$ref", "/tools/" + tool + " /inputSchema/properties/x/$ref"}
	if !slices.Equal(pointers, want) {
		t.Errorf("schema-ref findings at %q, want %q:\n%s", pointers, want, dump(r))
	}
}

// firstTool is the toolId of the first tool route of the first site.
func firstTool(t *testing.T, b *Build) string {
	for _, r := range b.Table.Sites[0].Routes {
		if id, ok := strings.CutPrefix(r.Route, "/tools/"); ok {
			return id
		}
	}
	t.Fatal("no tool")
	return ""
}

func TestBrokenSafety(t *testing.T) {
	a, b := pair(t)
	tool := firstTool(t, b)
	editJSON(t, b, "/tools/"+tool, "standard", func(m map[string]any) {
		ann := m["annotations"].(map[string]any)
		ann["readOnlyHint"] = !ann["readOnlyHint"].(bool)
	})
	r := compare(t, a, b)
	f := find(t, r, KindSafety)
	if f.Route != "/tools/"+tool || f.Pointer != "/annotations/readOnlyHint" || f.Build != "second" {
		t.Errorf("finding %+v", f)
	}

	// exec outside host extensions, in a descriptor and in the catalogue.
	a, b = pair(t)
	var mcpTool string
	editJSON(t, b, "/tool-catalogue.json", "standard", func(m map[string]any) {
		for _, x := range m["tools"].([]any) {
			tm := x.(map[string]any)
			if tm["source"] == "mcp" {
				tm["safetyTier"] = "exec"
				mcpTool = tm["name"].(string)
				return
			}
		}
	})
	editJSON(t, b, "/tools/"+mcpTool, "standard", func(m map[string]any) { m["safetyTier"] = "exec" })
	r = compare(t, a, b)
	var at []string
	for _, f := range r.Findings {
		if f.Kind == KindSafety && strings.HasSuffix(f.Pointer, "/safetyTier") {
			at = append(at, f.Route)
		}
	}
	if !slices.Equal(at, []string{"/tool-catalogue.json", "/tools/" + mcpTool}) {
		t.Errorf("exec findings at %v:\n%s", at, dump(r))
	}
	// The schema says so too.
	if !slices.Contains(kinds(r), KindInvalidDocument) {
		t.Errorf("no schema finding:\n%s", dump(r))
	}
}

func TestUnsafePaths(t *testing.T) {
	for _, key := range []string{"../x", "/etc/passwd", `tools\x.json`, "tools//x.json", "tools/./x.json", "x\x00.json", "C:x.json", ""} {
		t.Run(key, func(t *testing.T) {
			a, b := pair(t)
			s, i := route(t, b, "/tools", "standard")
			body := b.Bodies[objectPath(s.Dir, s.Routes[i].Key)]
			s.Routes[i].Key = key
			b.Bodies[objectPath(s.Dir, key)] = body
			f := find(t, compare(t, a, b), KindUnsafePath)
			if f.Build != "second" || f.Route != "/tools" || f.File != s.Dir+"/"+key {
				t.Errorf("finding %+v", f)
			}
		})
	}
}

func TestUnsafePathIsNotRead(t *testing.T) {
	ctx := context.Background()
	top := t.TempDir()
	dir := filepath.Join(top, "site")
	if err := buildtest.Example(t).Write(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "secret.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := output.ReadRouteTable(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rt.Sites[0].Routes[0].Key = "../../secret.json"
	data, _ := json.MarshalIndent(rt, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, output.RouteTableFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Read(ctx, "b", dir)
	if err != nil {
		t.Fatal(err)
	}
	p := objectPath(rt.Sites[0].Dir, "../../secret.json")
	if _, read := b.Bodies[p]; read || b.Unread[p] == "" {
		t.Errorf("the unsafe key was read: %v", b.Unread)
	}
}

func TestDuplicatePaths(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *output.SiteRoutes)
		want string
	}{
		{"same key", func(s *output.SiteRoutes) { s.Routes[1].Key = s.Routes[0].Key }, "also the object of"},
		{"case", func(s *output.SiteRoutes) { s.Routes[1].Key = strings.ToUpper(s.Routes[0].Key) }, "only in case"},
		{"route twice", func(s *output.SiteRoutes) { s.Routes = append(s.Routes, s.Routes[0]) }, "mapped twice"},
		{"file and folder", func(s *output.SiteRoutes) { s.Routes[1].Key = "tools.json/x.json" }, "also the folder of"},
		{"route table", func(s *output.SiteRoutes) { s.Routes[1].Key = "../" + output.RouteTableFile }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := pair(t)
			s := &b.Table.Sites[0]
			tt.edit(s)
			for _, r := range s.Routes {
				if _, ok := b.Bodies[objectPath(s.Dir, r.Key)]; !ok {
					b.Bodies[objectPath(s.Dir, r.Key)] = []byte("{}")
				}
			}
			r := compare(t, a, b)
			if tt.want == "" {
				find(t, r, KindUnsafePath)
				return
			}
			if f := find(t, r, KindDuplicatePath); !strings.Contains(f.Message, tt.want) || f.Build != "second" {
				t.Errorf("finding %+v, want %q", f, tt.want)
			}
		})
	}
}

func TestReassignedIdentity(t *testing.T) {
	a, b := pair(t)
	var name string
	editJSON(t, b, "/tool-catalogue.json", "standard", func(m map[string]any) {
		tm := m["tools"].([]any)[0].(map[string]any)
		name = tm["name"].(string)
		tm["descriptor"].(map[string]any)["id"] = "someone/else"
	})
	r := compare(t, a, b)
	var across, within bool
	for _, f := range r.Findings {
		if f.Kind != KindIdentityReassigned || !strings.Contains(f.Message, "tool "+name+" ") {
			continue
		}
		across = across || f.Build == ""
		within = within || f.Build == "second" // its group document still says the old one
	}
	if !across || !within {
		t.Errorf("identity findings across %t, within %t:\n%s", across, within, dump(r))
	}
}

func TestInvalidDocument(t *testing.T) {
	a, b := pair(t)
	setBody(t, b, "/tools", "compact", []byte("[1,"))
	f := find(t, compare(t, a, b), KindInvalidDocument)
	if f.Route != "/tools" || f.View != "compact" || !strings.HasPrefix(f.Message, "not JSON") {
		t.Errorf("finding %+v", f)
	}
	a, b = pair(t)
	editJSON(t, b, "/.well-known/mcp/catalog.json", "standard", func(m map[string]any) { m["surprise"] = true })
	if f := find(t, compare(t, a, b), KindInvalidDocument); !strings.Contains(f.Message, "mcp-catalog schema") {
		t.Errorf("finding %+v", f)
	}
}

func TestReportFormats(t *testing.T) {
	a, b := pair(t)
	s, i := route(t, b, "/tools", "standard")
	s.Routes[i].Key = "../x"
	r := compare(t, a, b)
	var js bytes.Buffer
	if err := r.Write(&js, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"first", "second", "conformant", "findings"} {
		if _, ok := decoded[k]; !ok {
			t.Errorf("no %q in %s", k, js.String())
		}
	}
	f := decoded["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"kind", "build", "file", "route", "message"} {
		if _, ok := f[k]; !ok {
			t.Errorf("no %q in finding %v", k, f)
		}
	}
	text := dump(r)
	if !strings.Contains(text, "unsafe-path: second: "+s.Dir+"/../x (/tools): key \"../x\": the path has a \"..\" segment") {
		t.Errorf("text:\n%s", text)
	}
	a, b = pair(t)
	js.Reset()
	if err := compare(t, a, b).Write(&js, FormatJSON); err != nil || !strings.Contains(js.String(), `"findings": []`) {
		t.Errorf("conformant JSON %s, %v", js.String(), err)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := pair(t)
	b.Table.Sites[0].Routes[0].Key = "../x"
	b.Table.Sites[1].Routes[1].Key = "/y"
	editJSON(t, b, "/tool-catalogue.json", "standard", func(m map[string]any) { m["catalogVersion"] = json.Number("9") })
	first := dump(compare(t, a, b))
	for range 5 {
		if again := dump(compare(t, a, b)); again != first {
			t.Fatalf("the report changed:\n%s\nthen\n%s", first, again)
		}
	}
}

func TestPathProblem(t *testing.T) {
	for _, ok := range []string{"tools.json", "tools/get_x.json", ".well-known/mcp/catalog.json", "tenants/acme"} {
		if msg := PathProblem(ok); msg != "" {
			t.Errorf("PathProblem(%q) = %q", ok, msg)
		}
	}
	for _, bad := range []string{"", "/a", "a/../b", "..", "a/", "a//b", `a\b`, "a\x00", "a\nb", "c:/x"} {
		if PathProblem(bad) == "" {
			t.Errorf("PathProblem(%q) is safe", bad)
		}
	}
}

func TestReadCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	if err := buildtest.Example(t).Write(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, "a", dir); err == nil {
		t.Error("Read of a cancelled context succeeded")
	}
	if _, err := Read(context.Background(), "a", t.TempDir()); err == nil || !strings.Contains(err.Error(), "signpost build") {
		t.Errorf("Read of a folder without a route table: %v", err)
	}
}

// TestRegistry holds two builds' registries to each other and to what
// their schema cannot say: a miscounted list, a latest that is not its
// version, a version under another's route, a key hosts would not find.
func TestRegistry(t *testing.T) {
	const (
		list     = "/v0.1/servers"
		versions = "/v0.1/servers/com.example%2Fweather/versions"
		latest   = "/v0.1/servers/com.example%2Fweather/versions/latest"
		version  = "/v0.1/servers/com.example%2Fweather/versions/2.3.1"
	)
	official := func(m map[string]any) map[string]any {
		return m["_meta"].(map[string]any)["io.modelcontextprotocol.registry/official"].(map[string]any)
	}
	for _, tc := range []struct {
		name, route, pointer, message string
		edit                          func(t *testing.T, b *Build)
	}{
		{"a miscounted list", list, "/metadata/count", "for 5 servers", func(t *testing.T, b *Build) {
			editJSON(t, b, list, "standard", func(m map[string]any) { m["metadata"].(map[string]any)["count"] = 4 })
		}},
		{"a list of an old version", list, "/servers/0", "not its server's latest", func(t *testing.T, b *Build) {
			editJSON(t, b, list, "standard", func(m map[string]any) { official(m["servers"].([]any)[0].(map[string]any))["isLatest"] = false })
		}},
		{"versions without their latest first", versions, "/servers/0", "latest first", func(t *testing.T, b *Build) {
			editJSON(t, b, versions, "standard", func(m map[string]any) { official(m["servers"].([]any)[0].(map[string]any))["isLatest"] = false })
		}},
		{"a version under another's route", version, "/server/version", `is "2.3.2"`, func(t *testing.T, b *Build) {
			editJSON(t, b, version, "standard", func(m map[string]any) { m["server"].(map[string]any)["version"] = "2.3.2" })
		}},
		{"a latest that is not its version", latest, "", "not the same document", func(t *testing.T, b *Build) {
			editJSON(t, b, latest, "standard", func(m map[string]any) { official(m)["updatedAt"] = "2030-01-01T00:00:00Z" })
		}},
		{"updated before published", version, "/_meta", "is before publishedAt", func(t *testing.T, b *Build) {
			editJSON(t, b, version, "standard", func(m map[string]any) { official(m)["publishedAt"] = "2030-01-01T00:00:00Z" })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := pair(t)
			tc.edit(t, b)
			r := compare(t, a, b)
			var got []Finding
			for _, f := range r.Findings {
				if f.Kind == KindInvalidDocument && f.Route == tc.route {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Pointer != tc.pointer || !strings.Contains(got[0].Message, tc.message) || got[0].Build != "second" {
				t.Errorf("findings %+v, want one at %s %q saying %q:\n%s", got, tc.route, tc.pointer, tc.message, dump(r))
			}
			if !slices.Contains(kinds(r), KindBytesDiffer) {
				t.Errorf("no bytes-differ finding:\n%s", dump(r))
			}
		})
	}

	// A key other than the registry's.
	a, b := pair(t)
	s, i := route(t, b, version, "standard")
	old := objectPath(s.Dir, s.Routes[i].Key)
	s.Routes[i].Key = "v0.1/weather-2.3.1.json"
	b.Bodies[objectPath(s.Dir, s.Routes[i].Key)] = b.Bodies[old]
	f := find(t, compare(t, a, b), KindUnsafePath)
	if f.Route != version || !strings.Contains(f.Message, "v0.1/servers/com.example/weather/versions/2.3.1.json") {
		t.Errorf("finding %+v", f)
	}
}
