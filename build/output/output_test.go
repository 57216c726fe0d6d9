package output_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// writeExample writes the build of the example catalog into a new folder.
func writeExample(t *testing.T) (string, *output.Build) {
	t.Helper()
	b := buildtest.Example(t)
	out := filepath.Join(t.TempDir(), "site")
	if err := b.Write(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	return out, b
}

func TestOpen(t *testing.T) {
	out, _ := writeExample(t)
	s, err := output.Open(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sites) != 2 {
		t.Errorf("sites = %d, want 2", len(s.Sites))
	}
}

func TestOpenRejectsChangedSite(t *testing.T) {
	for name, change := range map[string]func(dir string) error{
		"edited object": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "tenants", "acme", "tools.json"), []byte("[]\n"), 0o644)
		},
		"missing object": func(dir string) error {
			return os.Remove(filepath.Join(dir, "tenants", "globex", "tools", "get_forecast.json"))
		},
		"no route table": func(dir string) error {
			return os.Remove(filepath.Join(dir, output.RouteTableFile))
		},
	} {
		t.Run(name, func(t *testing.T) {
			out, _ := writeExample(t)
			if err := change(out); err != nil {
				t.Fatal(err)
			}
			_, err := output.Open(context.Background(), out)
			if err == nil || !strings.Contains(err.Error(), "build") {
				t.Fatalf("Open = %v, want an error that says to rebuild", err)
			}
		})
	}
}

func TestBuildSite(t *testing.T) {
	out, _ := writeExample(t)
	o, err := output.Open(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	b := o
	if s, err := b.Site("globex"); err != nil || s.Tenant != "globex" || len(s.Documents) == 0 || s.Documents[0].Body.Len() == 0 {
		t.Errorf("Site(globex) = %v, %v; want globex's documents with their bodies", s, err)
	}
	for tenant, want := range map[string]string{
		"":        "the build has one site per tenant (acme, globex): choose one",
		"initech": `no tenant "initech" in the build: it has acme, globex`,
	} {
		_, err := b.Site(tenant)
		var te *output.TenantError
		if !errors.As(err, &te) || err.Error() != want {
			t.Errorf("Site(%q) = %v, want a output.TenantError %q", tenant, err, want)
		}
	}
	single := &output.Build{Sites: []*output.Site{{}}}
	if s, err := single.Site(""); err != nil || s != single.Sites[0] {
		t.Errorf("Site(\"\") of a build without tenants = %v, %v", s, err)
	}
	if _, err := single.Site("acme"); err == nil || err.Error() != "the build has no tenants" {
		t.Errorf("Site(acme) of a build without tenants = %v", err)
	}
}

func TestRouteTable(t *testing.T) {
	out, b := writeExample(t)
	rt, err := output.ReadRouteTable(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.RouteTable(), *rt); diff != "" {
		t.Errorf("route table read back differs:\n%s", diff)
	}
	for _, s := range rt.Sites {
		for _, r := range s.Routes {
			data, err := os.ReadFile(filepath.Join(out, s.Dir, r.Key))
			if err != nil {
				t.Fatal(err)
			}
			want := "application/json"
			switch {
			case r.Route == "/.well-known/ai-catalog.json":
				want = "application/ai-catalog+json"
			case strings.HasPrefix(r.Route, "/.well-known/mcp/server-cards/"):
				want = "application/mcp-server-card+json"
			case strings.HasPrefix(r.Route, "/.well-known/mcp/servers/"), strings.HasPrefix(r.Route, "/.well-known/mcp-server-card/"):
				want = "application/mcp-server+json"
			}
			if int64(len(data)) != r.Size || r.ContentType != want || r.CacheControl != "public, max-age=3600" {
				t.Errorf("%s %s: size %d, want Content-Type %s, route %+v", s.Tenant, r.Route, len(data), want, r)
			}
		}
	}
}

func TestWriteIsAtomic(t *testing.T) {
	out, b := writeExample(t)
	before := catalogtest.ReadTree(t, out)
	// A write that fails halfway (cancelled) leaves the previous output.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Write(ctx, out); err == nil {
		t.Fatal("cancelled write succeeded")
	}
	if diff := cmp.Diff(before, catalogtest.ReadTree(t, out)); diff != "" {
		t.Errorf("failed write changed the output:\n%s", diff)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("temporary folders left behind: %v", entries)
	}
}

// TestRouteTableFile: the route table is written as json.MarshalIndent
// writes it, for a build with tenants and gates, one without sites, and
// values encoding/json escapes.
func TestRouteTableFile(t *testing.T) {
	odd := output.Route{Route: "/tools/a<b>&c", View: "standard", Key: "tools/a\u2028.json", ContentType: "application/json",
		CacheControl: "public, max-age=3600", ETag: `"0123"`, SHA256: "ab", Size: 12}
	gated := &output.Site{Tenant: "acme", Dir: "tenants/acme", Origin: "https://acme.example", Access: gate.Access{Token: true, PublicDiscovery: true},
		Documents: []output.Document{{Route: odd}, {Route: odd}}}
	for name, b := range map[string]*output.Build{
		"example":  buildtest.Example(t),
		"no sites": {},
		"odd":      {Sites: []*output.Site{gated, {Dir: "public"}}},
	} {
		dir := filepath.Join(t.TempDir(), "site")
		if err := b.Write(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, output.RouteTableFile))
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(b.RouteTable(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(append(want, '\n')), string(got)); diff != "" {
			t.Errorf("%s: route table (-json.MarshalIndent +written):\n%s", name, diff)
		}
	}
}

// TestReadRouteTableAsEncodingJSON: the route table is read, a route at a
// time, as json.Decoder reads it whole with DisallowUnknownFields: the same
// table, or an error where it gives one.
func TestReadRouteTableAsEncodingJSON(t *testing.T) {
	route := `{"route":"/tools","view":"standard","key":"tools.json","contentType":"application/json","cacheControl":"c","etag":"\"e\"","sha256":"s","size":3}`
	for name, table := range map[string]string{
		"example":          "",
		"no sites":         `{"format":1,"sites":[]}`,
		"null sites":       `{"format":1,"sites":null}`,
		"null routes":      `{"format":1,"sites":[{"tenant":"","dir":"public","routes":null}]}`,
		"gated":            `{"format":1,"sites":[{"tenant":"acme","dir":"tenants/acme","origin":"https://a.example","access":{"token":true},"routes":[` + route + `,` + route + `]}]}`,
		"keys in any case": `{"FORMAT":1,"Sites":[{"DIR":"public","routes":[` + route + `]}]}`,
		"twice":            `{"format":1,"sites":[{"dir":"a","routes":[` + route + `]}],"sites":[{"dir":"b","routes":[]}]}`,
		"unknown member":   `{"format":1,"sites":[],"extra":true}`,
		"unknown in site":  `{"format":1,"sites":[{"dir":"public","hosts":[]}]}`,
		"unknown in route": `{"format":1,"sites":[{"dir":"public","routes":[{"route":"/tools","zone":"x"}]}]}`,
		"sites not a list": `{"format":1,"sites":{}}`,
		"route not object": `{"format":1,"sites":[{"dir":"public","routes":[3]}]}`,
		"truncated":        `{"format":1,"sites":[{"dir":"public","routes":[` + route,
		"not an object":    `[1]`,
		"format as string": `{"format":"1","sites":[]}`,
		"other format":     `{"format":2,"sites":[]}`,
		"empty":            ``,
	} {
		dir := t.TempDir()
		if name == "example" {
			dir, _ = writeExample(t)
		} else if err := os.WriteFile(filepath.Join(dir, output.RouteTableFile), []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, output.RouteTableFile))
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		var want output.RouteTable
		wantErr := dec.Decode(&want)
		if wantErr == nil && want.Format != output.RouteTableFormat {
			wantErr = errors.New("format")
		}
		got, err := output.ReadRouteTable(context.Background(), dir)
		switch {
		case (err != nil) != (wantErr != nil):
			t.Errorf("%s: error %v, encoding/json's %v", name, err, wantErr)
		case err == nil:
			if diff := cmp.Diff(want, *got); diff != "" {
				t.Errorf("%s: (-encoding/json +read):\n%s", name, diff)
			}
		case !strings.Contains(err.Error(), "read route table "+filepath.Join(dir, output.RouteTableFile)+": "):
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

// countdown is a context whose Err is nil the first n times it is asked,
// then context.Canceled; asked counts the times.
type countdown struct {
	context.Context
	n, asked int
}

func (c *countdown) Err() error {
	if c.asked++; c.asked > c.n {
		return context.Canceled
	}
	return nil
}

// TestReadRouteTableStops: a large route table is read a route at a time,
// and reading it stops at the route where its context ends, not after the
// whole table.
func TestReadRouteTableStops(t *testing.T) {
	b := &output.Build{Sites: []*output.Site{{Dir: "public"}}}
	for i := range 20_000 {
		b.Sites[0].Documents = append(b.Sites[0].Documents, output.Document{Route: output.Route{
			Route: fmt.Sprintf("/tools/t%05d", i), View: "standard", Key: fmt.Sprintf("tools/t%05d", i), ContentType: "application/json",
			CacheControl: "public, max-age=3600", ETag: `"0123"`, SHA256: "ab", Size: 0}})
	}
	dir := filepath.Join(t.TempDir(), "site")
	if err := b.Write(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	ctx := &countdown{Context: context.Background(), n: 100}
	if _, err := output.ReadRouteTable(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadRouteTable with its context ended at the 100th route: %v", err)
	}
	if ctx.asked != 101 {
		t.Errorf("the context was asked %d times, want 101: before the file, then before each route until it ended", ctx.asked)
	}
	rt, err := output.ReadRouteTable(context.Background(), dir)
	if err != nil || len(rt.Sites[0].Routes) != 20_000 {
		t.Fatalf("ReadRouteTable: %v", err)
	}
}

// TestEntrySize: a route table line counted before its document is made
// is the line of the document made.
func TestEntrySize(t *testing.T) {
	for _, d := range []output.Document{
		buildtest.Document(t, "/tools", "standard", "application/json", []byte("[]\n")),
		buildtest.Document(t, "/tools", "compact", "application/json", []byte(`{"tools":[]}`+"\n")),
		buildtest.Document(t, "/tools/get_forecast", "compact", "application/json", bytes.Repeat([]byte("x"), 12345)),
		buildtest.Document(t, "/.well-known/mcp/server-cards/a<b>.json", "standard", "application/mcp-server-card+json", []byte("{}\n")),
		buildtest.Document(t, "/tool-catalogue/groups/weather.json", "standard", "application/json", nil),
	} {
		if got, want := output.EntrySize(d.Route.Route, d.View, d.ContentType, d.Size), output.RouteEntrySize(d.Route); got != want {
			t.Errorf("%s %s: EntrySize %d, RouteEntrySize of the document %d", d.Route.Route, d.View, got, want)
		}
	}
}

// TestWriteLimits: Write holds every file it writes, the route table and
// the Files beside the sites included, to the build's limits, and refuses
// a build past one with a *LimitError, leaving the output as it was and no
// temporary folder.
func TestWriteLimits(t *testing.T) {
	out, b := writeExample(t)
	before := catalogtest.ReadTree(t, out)
	var total, table int64
	for name, body := range before {
		total += int64(len(body))
		if name == output.RouteTableFile {
			table = int64(len(body))
		}
	}
	files := int64(len(before))
	for _, c := range []struct {
		name   string
		limits output.Limits
		want   string // the message; "" for a build that fits
	}{
		{"exactly", output.Limits{Build: total, Files: files}, ""},
		{"one file too many", output.Limits{Files: files - 1}, fmt.Sprintf("the build has %d files, more than limits.files in signpost.yaml (%d): ", files, files-1)},
		// The route table, written as it is made, takes the build past.
		{"the route table one byte past", output.Limits{Build: total - 1}, fmt.Sprintf("larger than limits.build in signpost.yaml (%d bytes): ", total-1)},
		// The documents alone do, before anything is written.
		{"the documents past", output.Limits{Build: total - table - 1}, fmt.Sprintf("the build is %d bytes, larger than limits.build in signpost.yaml (%d bytes): ", total-table, total-table-1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			lb := *b
			lb.Limits = c.limits
			err := lb.Write(context.Background(), out)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if _, ok := errors.AsType[*output.LimitError](err); !ok || !strings.Contains(err.Error(), c.want) || !strings.HasSuffix(err.Error(), "raise the limit") {
				t.Fatalf("error %v (%T), want a *LimitError with %q", err, err, c.want)
			}
			if diff := cmp.Diff(before, catalogtest.ReadTree(t, out)); diff != "" {
				t.Errorf("refused write changed the output:\n%s", diff)
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
				t.Errorf("temporary folders left behind: %v", entries)
			}
		})
	}
}

// TestDocumentsKeepTheFirstError: a body that cannot be read back ends the
// collection; what came before it stays, what comes after is not made.
func TestDocumentsKeepTheFirstError(t *testing.T) {
	spill, err := content.NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lost, err := spill.Hold(bytes.Repeat([]byte("x"), 2<<20)) // written, not pending
	if err != nil {
		t.Fatal(err)
	}
	if err := spill.Close(); err != nil {
		t.Fatal(err)
	}
	var docs output.Documents
	docs.Add("/a.json", spec.ViewStandard, spec.ContentTypeJSON, content.New([]byte("{}\n")))
	docs.Add("/b.json", spec.ViewStandard, spec.ContentTypeJSON, lost)
	docs.Add("/c.json", spec.ViewStandard, spec.ContentTypeJSON, content.New([]byte("[]\n")))
	if docs.Err == nil || !strings.Contains(docs.Err.Error(), "/b.json") {
		t.Fatalf("Err = %v, want the error of reading /b.json back", docs.Err)
	}
	if len(docs.List) != 1 || docs.List[0].Route.Route != "/a.json" {
		t.Errorf("List = %v, want /a.json alone", docs.List)
	}
}
