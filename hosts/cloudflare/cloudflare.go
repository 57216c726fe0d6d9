package cloudflare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"text/template"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/hosts"
	"github.com/signpost-dev/signpost/templates"
)

// The files of a site's folder.
const (
	// ConfigFile is the Worker's wrangler configuration.
	ConfigFile = "wrangler.jsonc"
	// WorkerFile is the Worker's code.
	WorkerFile = "worker.js"
	// AssetsDir is the folder of the Worker's static assets: the documents
	// at their object keys, and the manifest.
	AssetsDir = "assets"
	// ManifestFile is the headers manifest, in AssetsDir: for every route
	// and view, its asset's key, Content-Type, Cache-Control and ETag,
	// and its precompressed variants' codings, keys and ETags; and the
	// index of the MCP registry's list, which a search reads. Its
	// name is in signpost's reserved namespace, which the Worker never
	// serves.
	ManifestFile = spec.ReservedPrefix + "headers.json"
)

// ManifestFormat is the version of the manifest's layout: 2 adds the
// index of the MCP registry's list, 3 the variants.
const ManifestFormat = 3

// CompatibilityDate is the Workers compatibility date every Worker is
// built with: fixed, so that the same catalog builds the same bytes.
const CompatibilityDate = "2026-06-01"

// WranglerVersion is the version of wrangler, Cloudflare's CLI, that the
// build is tested with (wrangler dev) and that the workflow of signpost
// init deploys with. The Makefile's WRANGLER_VERSION is the same.
const WranglerVersion = "4.164.0"

// DefaultName is the name of the Worker of a target without one, and
// the stem of its tenants' Workers.
const DefaultName = "signpost"

// Cloudflare's limits on a Worker's static assets.
const (
	// FreeAssets and PaidAssets are the most assets one version of a
	// Worker may have on the Workers Free and Paid plans.
	FreeAssets = 20_000
	PaidAssets = 100_000
	// MaxAssetSize is the largest asset Cloudflare accepts, in bytes.
	MaxAssetSize = 25 << 20
	// maxName is the longest Worker name.
	maxName = 63
)

// workerTemplate is the Worker's template, with the registry's script it
// includes, filled in by Code. Parsed once; read-only after.
var workerTemplate = template.Must(template.Must(template.New("cloudflare").
	ParseFS(templates.Cloudflare, "cloudflare/*.js.tmpl")).
	ParseFS(templates.Registry, "registry/*.js.tmpl"))

// Code returns the source of the Worker of the site whose folder is dir
// (for its header comment). It names no document: its size does not depend
// on the catalog.
func Code(dir string) []byte {
	data := struct {
		Site, Manifest string
		Registry       map[string]string
	}{jsString(dir), jsString("/" + ManifestFile), hosts.RegistryScript()}
	var buf bytes.Buffer
	if err := workerTemplate.ExecuteTemplate(&buf, "worker.js.tmpl", data); err != nil {
		panic("cloudflare: worker.js.tmpl: " + err.Error())
	}
	return buf.Bytes()
}

// jsString returns s as a JavaScript string literal (see cloudfront's).
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// WorkerName is the name of the Worker of the site of tenant ("" without
// tenants), for a target named name ("" for DefaultName).
func WorkerName(name, tenant string) string {
	if name == "" {
		name = DefaultName
	}
	if tenant != "" {
		name += "-" + tenant
	}
	return name
}

// manifestEntry is what the manifest holds of one route in one view.
type manifestEntry struct {
	Key          string `json:"key"`
	ContentType  string `json:"contentType"`
	CacheControl string `json:"cacheControl"`
	ETag         string `json:"etag"`
	// Variants are the document's precompressed variants, in the order
	// the Worker prefers them (spec.Encodings); none when it has none.
	Variants []manifestVariant `json:"variants,omitempty"`
}

// manifestVariant is what the manifest holds of a variant: the Worker
// sends its asset with its Content-Encoding and ETag.
type manifestVariant struct {
	Encoding string `json:"encoding"`
	Key      string `json:"key"`
	ETag     string `json:"etag"`
}

// manifest is the layout of the headers manifest.
type manifest struct {
	Format int `json:"format"`
	// Routes maps a route to its views.
	Routes map[string]map[string]manifestEntry `json:"routes"`
	// Registry is the index of the MCP registry's list, which the
	// Worker's search reads; none without a registry.
	Registry []hosts.RegistryEntry `json:"registry,omitempty"`
	// Link is the Link header of every document response
	// (output.Site.Link); none without an ARD manifest.
	Link string `json:"link,omitempty"`
}

// Site is one site laid out for Cloudflare.
type Site struct {
	// Worker is the Worker's name.
	Worker string
	// Documents are the site's documents in the same order, each with
	// output.Route.Key, and its variants' keys, changed to their paths in
	// the site's folder, below AssetsDir; their other fields stay the
	// route table's, their variants (those of spec.AlwaysPrecompressed)
	// included.
	Documents []output.Document
	// Files are the folder's other files: ConfigFile, WorkerFile and
	// the manifest, at their paths in the site's folder.
	Files []output.File
	// Gaps are what Cloudflare cannot serve of the contract.
	Gaps []Gap
}

// Layout lays the site s out for the Worker name (see WorkerName),
// deterministically. It fails for a site the Worker cannot serve or
// Cloudflare cannot take: a route that cannot be a document's path (see
// hosts.DocumentKey), a key outside the assets folder, a document or
// manifest larger than MaxAssetSize, more assets than PaidAssets (the
// documents, their variants and the manifest), or a name longer than a
// Worker's.
func Layout(s *output.Site, name string) (*Site, error) {
	worker := WorkerName(name, s.Tenant)
	if len(worker) > maxName {
		return nil, fmt.Errorf("the Cloudflare Worker of %s would be named %s, longer than the %d characters Cloudflare accepts: choose a shorter cloudflare.name", s.Dir, worker, maxName)
	}
	out := &Site{Worker: worker, Documents: make([]output.Document, 0, len(s.Documents))}
	m := manifest{Format: ManifestFormat, Routes: map[string]map[string]manifestEntry{}, Link: s.Link()}
	assets := 1 // the manifest
	for _, d := range s.Documents {
		if err := servable(s.Dir, d); err != nil {
			return nil, err
		}
		views := m.Routes[d.Route.Route]
		if views == nil {
			views = map[string]manifestEntry{}
			m.Routes[d.Route.Route] = views
		}
		e := manifestEntry{Key: d.Key, ContentType: d.ContentType, CacheControl: d.CacheControl, ETag: d.ETag}
		f := d
		f.Key = path.Join(AssetsDir, d.Key)
		f.Variants, f.Encoded = nil, nil
		// The documents that grow with the catalog have variants
		// (output.Build.Precompress), each an asset of the Worker;
		// Cloudflare compresses the others at its edge.
		if len(d.Variants) > 0 {
			f.Variants, f.Encoded = make([]output.Variant, len(d.Variants)), d.Encoded
			for i, v := range d.Variants {
				e.Variants = append(e.Variants, manifestVariant{Encoding: v.Encoding, Key: v.Key, ETag: v.ETag})
				f.Variants[i] = v
				f.Variants[i].Key = path.Join(AssetsDir, v.Key)
			}
		}
		views[d.View] = e
		out.Documents = append(out.Documents, f)
		assets += 1 + len(f.Variants)
	}
	entries, _, err := hosts.SiteRegistryIndex(s)
	if err != nil {
		return nil, fmt.Errorf("the Cloudflare manifest of %s: %w", s.Dir, err)
	}
	m.Registry = entries
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("the Cloudflare manifest of %s: %w", s.Dir, err)
	}
	body = append(body, '\n')
	if len(body) > MaxAssetSize {
		return nil, fmt.Errorf("the Cloudflare manifest of %s is %d bytes; Cloudflare accepts assets of at most %d: split the catalog into tenants", s.Dir, len(body), MaxAssetSize)
	}
	if assets > PaidAssets {
		return nil, fmt.Errorf("the Cloudflare Worker of %s would have %d assets (its documents, their precompressed variants and the manifest); Cloudflare accepts at most %d: split the catalog into tenants", s.Dir, assets, PaidAssets)
	}
	if assets > FreeAssets {
		out.Gaps = append(out.Gaps, Gap{
			Kind:        KindAssetCount,
			Route:       EveryRoute,
			Requirement: fmt.Sprintf("%d assets (the documents, their precompressed variants and the manifest) in one Worker", assets),
			Served:      fmt.Sprintf("at most %d assets on the Workers Free plan: wrangler deploy refuses the site", FreeAssets),
			Fix:         fmt.Sprintf("deploy on the Workers Paid plan, which accepts %d; or split the catalog into tenants", PaidAssets),
		})
	}
	out.Files = []output.File{
		{Path: ConfigFile, Body: config(s.Dir, worker)},
		{Path: WorkerFile, Body: Code(s.Dir)},
		{Path: path.Join(AssetsDir, ManifestFile), Body: body},
	}
	return out, nil
}

// servable refuses a document the Worker cannot serve, or Cloudflare
// cannot take: its route must be the tool list, a tool, or a path
// hosts.DocumentKey accepts (no "." or ".." segment, nothing of
// signpost's own); its key must stay inside the assets folder.
func servable(dir string, d output.Document) error {
	_, toolOK := spec.ToolIDOf(d.Route.Route)
	_, docOK := hosts.DocumentKey(d.Route.Route)
	// A registry route is found in the manifest as its canonical route.
	registryKey, registryOK := spec.RegistryKey(d.Route.Route)
	registryOK = registryOK && registryKey == d.Key
	if !(d.Route.Route == spec.RouteTools || toolOK || docOK || registryOK) {
		return fmt.Errorf("the Cloudflare Worker of %s cannot serve %s: it serves /tools, /tools/{toolId} and paths of letters, digits, '.', '_', '-' and '~' ending in .json, with no \".\" or \"..\" segment and no %s name", dir, d.Route.Route, spec.ReservedPrefix)
	}
	for _, seg := range strings.Split(d.Key, "/") {
		if seg == "" || seg == "." || seg == ".." || spec.IsReservedName(seg) {
			return fmt.Errorf("the Cloudflare layout of %s cannot put %s at the key %q: its keys stay below the assets folder, out of %s names", dir, d.Route.Route, d.Key, spec.ReservedPrefix)
		}
	}
	if d.Body.Len() > MaxAssetSize {
		return fmt.Errorf("%s of %s is %d bytes; Cloudflare accepts assets of at most %d: lower limits.document in %s", d.Route.Route, dir, d.Body.Len(), MaxAssetSize, build.ConfigFile)
	}
	return nil
}

// config is the Worker's wrangler.jsonc.
func config(dir, worker string) []byte {
	type assets struct {
		Directory      string `json:"directory"`
		Binding        string `json:"binding"`
		RunWorkerFirst bool   `json:"run_worker_first"`
	}
	c := struct {
		Name              string `json:"name"`
		Main              string `json:"main"`
		CompatibilityDate string `json:"compatibility_date"`
		NoBundle          bool   `json:"no_bundle"`
		Assets            assets `json:"assets"`
	}{worker, WorkerFile, CompatibilityDate, true, assets{AssetsDir, "ASSETS", true}}
	body, _ := json.MarshalIndent(c, "", "  ")
	head := "// Generated by signpost: the Cloudflare Worker of the site " + jsString(dir) + ".\n" +
		"// Do not edit: rebuild the site instead. Deploy this folder with wrangler deploy.\n"
	return append(append([]byte(head), body...), '\n')
}

// Write writes the build b for Cloudflare to the folder out, atomically,
// as output.Build.Write does: one folder per site as in the normal layout
// (public/, or tenants/ID/ for each tenant), each a Worker that wrangler
// deploy uploads as it is (see Layout); the route table, whose keys are the
// assets' paths in those folders; ReportFile, the gaps of each site; and
// the build's Files beside them. name is the target's cloudflare.name ("" for
// DefaultName). It returns the sites as laid out, one for each of b.Sites.
// A failed Write leaves out as it was.
//
// The route table keeps the contract's headers, so the folder also serves
// and publishes exactly as a normal build does.
func Write(ctx context.Context, b *output.Build, out, name string) ([]*Site, error) {
	_, sites, err := write(ctx, b, out, name)
	return sites, err
}

// Host is the Cloudflare layout (see Write), as a hosts.Host. Name is the
// target's cloudflare.name ("" for DefaultName).
type Host struct{ Name string }

// ServesVariants says that the Worker sends a document's precompressed
// variants (hosts.VariantServer): a build for Cloudflare makes them, those
// of the documents that grow with the catalog.
func (Host) ServesVariants() bool { return true }

// Write writes b for Cloudflare and returns what Cloudflare cannot serve.
func (h Host) Write(ctx context.Context, b *output.Build, out string) (*hosts.Report, error) {
	rep, _, err := write(ctx, b, out, h.Name)
	return rep, err
}

// write is Write, returning the report too.
func write(ctx context.Context, b *output.Build, out, name string) (*hosts.Report, []*Site, error) {
	sites, err := LayoutAll(b, name)
	if err != nil {
		return nil, nil, err
	}
	laid := &output.Build{Files: slices.Clone(b.Files), Limits: b.Limits}
	for i, s := range b.Sites {
		laid.Sites = append(laid.Sites, &output.Site{Tenant: s.Tenant, Dir: s.Dir, Origin: s.Origin, Access: s.Access, Documents: sites[i].Documents, Tools: s.Tools})
		for _, f := range sites[i].Files {
			laid.Files = append(laid.Files, output.File{Path: path.Join(s.Dir, f.Path), Body: f.Body})
		}
	}
	rep, err := Report(b, sites)
	if err != nil {
		return nil, nil, err
	}
	if err := rep.WriteBeside(ctx, laid, ReportFile, out); err != nil {
		return nil, nil, err
	}
	return rep, sites, nil
}

// LayoutAll lays out every site of b (see Layout).
func LayoutAll(b *output.Build, name string) ([]*Site, error) {
	sites := make([]*Site, len(b.Sites))
	for i, s := range b.Sites {
		var err error
		if sites[i], err = Layout(s, name); err != nil {
			return nil, err
		}
	}
	return sites, nil
}
