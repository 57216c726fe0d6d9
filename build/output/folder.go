package output

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/jsonenc"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/atomicfile"
)

// RouteTableFile is the route table's name in a build output folder.
const RouteTableFile = "routes.json"

// RouteTableFormat is the version of the route table's layout.
const RouteTableFormat = 1

// RouteTable lists, for every site of a build, every route with its object
// and headers. Serving and publishing need nothing else from a build.
type RouteTable struct {
	Format int          `json:"format"`
	Sites  []SiteRoutes `json:"sites"`
}

// SiteRoutes is the part of the route table for one site.
type SiteRoutes struct {
	Tenant string `json:"tenant"`
	Dir    string `json:"dir"`
	// Origin is the origin the site's documents name.
	Origin string `json:"origin,omitempty"`
	// Access is present for a gated site.
	Access *gate.Access `json:"access,omitempty"`
	Routes []Route      `json:"routes"`
}

// RouteTable returns the build's route table.
func (b *Build) RouteTable() RouteTable {
	rt := RouteTable{Format: RouteTableFormat, Sites: []SiteRoutes{}}
	for _, s := range b.Sites {
		sr := SiteRoutes{Tenant: s.Tenant, Dir: s.Dir, Origin: s.Origin, Routes: make([]Route, 0, len(s.Documents))}
		if s.Access != (gate.Access{}) {
			sr.Access = &s.Access
		}
		for _, d := range s.Documents {
			sr.Routes = append(sr.Routes, d.Route)
		}
		rt.Sites = append(rt.Sites, sr)
	}
	return rt
}

// Write writes the build to the folder out, atomically: everything goes to
// a temporary folder beside out, which replaces out only once complete. A
// failed Write leaves out as it was. out must be missing, empty, or a
// previous build (it holds a route table): Write never replaces a folder it
// did not create. A build whose files, all of them, take more than
// b.Limits is refused with a *LimitError, and nothing is written.
func (b *Build) Write(ctx context.Context, out string) error {
	files := slices.Clone(b.Files) // limit counts them in place
	for _, s := range b.Sites {
		// A site's tool documents, in one folder, are written one after
		// the other, in the order Compile held them.
		n := 0
		for _, d := range s.Documents {
			if _, isTool := spec.ToolIDOf(d.Route.Route); isTool {
				n++
			}
		}
		tools := content.NewSequence(n)
		for _, d := range s.Documents {
			var body atomicfile.Sized = d.Body
			if _, isTool := spec.ToolIDOf(d.Route.Route); isTool {
				body = tools.Of(d.Body)
			}
			files = append(files, File{Path: path.Join(s.Dir, d.Key), Content: body})
			for i, v := range d.Variants {
				files = append(files, File{Path: path.Join(s.Dir, v.Key), Body: d.Encoded[i]})
			}
		}
	}
	table, err := b.routeTableFile()
	if err != nil {
		return err
	}
	files, err = b.Limits.limit(append(files, table))
	if err != nil {
		return err
	}
	return writeTree(ctx, out, files)
}

// routeTableFile is the route table as Write writes it: as
// json.MarshalIndent writes RouteTable, with a newline. The routes, tens
// of thousands in a large build, are written as they are encoded, never
// held whole.
func (b *Build) routeTableFile() (File, error) {
	// The sites' members but their routes, from encoding/json, each cut
	// where its routes go, in its "[]".
	heads := make([][]byte, len(b.Sites))
	for i, s := range b.Sites {
		head := SiteRoutes{Tenant: s.Tenant, Dir: s.Dir, Origin: s.Origin, Routes: []Route{}}
		if s.Access != (gate.Access{}) {
			head.Access = &s.Access
		}
		h, err := json.MarshalIndent(head, "    ", "  ")
		if err != nil {
			return File{}, fmt.Errorf("write %s: %w", RouteTableFile, err)
		}
		heads[i] = h
	}
	stream := func(w io.Writer) error {
		out := strconv.AppendInt([]byte("{\n  \"format\": "), RouteTableFormat, 10)
		out = append(out, ",\n  \"sites\": ["...)
		for i, s := range b.Sites {
			if i > 0 {
				out = append(out, ',')
			}
			open := bytes.LastIndex(heads[i], []byte("[]")) + 1
			out = append(append(out, "\n    "...), heads[i][:open]...)
			for j, d := range s.Documents {
				if j > 0 {
					out = append(out, ',')
				}
				out = appendRoute(out, d.Route)
				if len(out) >= 32<<10 {
					if _, err := w.Write(out); err != nil {
						return err
					}
					out = out[:0]
				}
			}
			if len(s.Documents) > 0 {
				out = append(out, "\n      "...)
			}
			out = append(out, heads[i][open:]...)
		}
		if len(b.Sites) > 0 {
			out = append(out, "\n  "...)
		}
		_, err := w.Write(append(out, "]\n}\n"...))
		return err
	}
	return File{Path: RouteTableFile, Stream: stream}, nil
}

// appendRoute appends r as an element of a site's routes in the route
// table file.
func appendRoute(b []byte, r Route) []byte {
	b = append(b, "\n        {"...)
	b = appendMembers(b, "\n          ", []struct{ name, value string }{
		{"route", r.Route}, {"view", r.View}, {"key", r.Key}, {"contentType", r.ContentType},
		{"cacheControl", r.CacheControl}, {"etag", r.ETag}, {"sha256", r.SHA256},
	})
	b = strconv.AppendInt(append(b, "\n          \"size\": "...), r.Size, 10)
	if len(r.Variants) > 0 {
		b = append(b, ",\n          \"variants\": ["...)
		for i, v := range r.Variants {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n            {"...)
			b = appendMembers(b, "\n              ", []struct{ name, value string }{
				{"encoding", v.Encoding}, {"key", v.Key}, {"etag", v.ETag}, {"sha256", v.SHA256},
			})
			b = strconv.AppendInt(append(b, "\n              \"size\": "...), v.Size, 10)
			b = append(b, "\n            }"...)
		}
		b = append(b, "\n          ]"...)
	}
	return append(b, "\n        }"...)
}

// appendMembers appends string members of an object as json.MarshalIndent
// writes them, each on a line of its own after indent, each followed by a
// comma.
func appendMembers(b []byte, indent string, members []struct{ name, value string }) []byte {
	for _, f := range members {
		b = append(append(append(append(b, indent...), '"'), f.name...), "\": "...)
		if strings.ContainsAny(f.value, "<>&") {
			// Escaped for HTML, as json.MarshalIndent escapes them.
			v, _ := json.Marshal(f.value)
			b = append(append(b, v...), ',')
		} else {
			b = append(jsonenc.AppendString(b, f.value), ',')
		}
	}
	return b
}

// writeTree writes files as the folder out, atomically (see
// atomicfile.WriteDir), once out is known to be replaceable.
func writeTree(ctx context.Context, out string, files []File) error {
	if err := checkReplaceable(out); err != nil {
		return err
	}
	if err := atomicfile.WriteDir(ctx, out, files); err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return err
		}
		if le, ok := errors.AsType[*LimitError](err); ok {
			return le // a Stream passed b.Limits: the message says it all
		}
		return fmt.Errorf("write build: %w", err)
	}
	return nil
}

// NotReplaceableError is the error of a write whose output folder is not
// one a build may replace: a file, or a folder that holds something other
// than a signpost build. Write never replaces a folder it did not create,
// so that a mistyped output folder cannot wipe out a source tree.
type NotReplaceableError struct {
	Dir string
	// File is set when Dir is a file rather than a non-empty folder.
	File bool
}

func (e *NotReplaceableError) Error() string {
	if e.File {
		return fmt.Sprintf("write build: %s exists and is not a folder", e.Dir)
	}
	return fmt.Sprintf("write build: %s is not empty and holds no %s, so it is not a signpost build", e.Dir, RouteTableFile)
}

// checkReplaceable returns a *NotReplaceableError unless out is missing, an
// empty folder or a previous build.
func checkReplaceable(out string) error {
	fi, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write build: %w", err)
	}
	if !fi.IsDir() {
		return &NotReplaceableError{Dir: out, File: true}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("write build: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, RouteTableFile)); err != nil {
		return &NotReplaceableError{Dir: out}
	}
	return nil
}

// ReadRouteTable reads the route table of the build output folder dir. The
// table of a large build is hundreds of megabytes: it is decoded a route at
// a time, never held whole, and ReadRouteTable returns ctx's error at the
// route it is at when ctx is done.
func ReadRouteTable(ctx context.Context, dir string) (*RouteTable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, RouteTableFile)
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read route table: %w (is %s a signpost build? run `signpost build` first)", err, dir)
	}
	defer f.Close()
	rt, err := decodeRouteTable(ctx, json.NewDecoder(f))
	if err != nil {
		return nil, fmt.Errorf("read route table %s: %w", name, err)
	}
	if rt.Format != RouteTableFormat {
		return nil, fmt.Errorf("read route table %s: format %d, this signpost reads format %d: rebuild the site", name, rt.Format, RouteTableFormat)
	}
	return rt, nil
}

// decodeRouteTable decodes a RouteTable from dec as json.Decoder.Decode
// does with DisallowUnknownFields, each route on its own, looking at ctx
// before each.
func decodeRouteTable(ctx context.Context, dec *json.Decoder) (*RouteTable, error) {
	dec.DisallowUnknownFields()
	var rt RouteTable
	err := decodeObject(dec, "RouteTable", func(key string) error {
		switch {
		case strings.EqualFold(key, "format"):
			return dec.Decode(&rt.Format)
		case strings.EqualFold(key, "sites"):
			return decodeArray(dec, "sites", &rt.Sites, func() error {
				var s SiteRoutes
				err := decodeObject(dec, "SiteRoutes", func(key string) error {
					switch {
					case strings.EqualFold(key, "tenant"):
						return dec.Decode(&s.Tenant)
					case strings.EqualFold(key, "dir"):
						return dec.Decode(&s.Dir)
					case strings.EqualFold(key, "origin"):
						return dec.Decode(&s.Origin)
					case strings.EqualFold(key, "access"):
						return dec.Decode(&s.Access)
					case strings.EqualFold(key, "routes"):
						return decodeArray(dec, "routes", &s.Routes, func() error {
							if err := ctx.Err(); err != nil {
								return err
							}
							var r Route
							if err := dec.Decode(&r); err != nil {
								return err
							}
							s.Routes = append(s.Routes, r)
							return nil
						})
					}
					return fmt.Errorf("json: unknown field %q", key)
				})
				rt.Sites = append(rt.Sites, s)
				return err
			})
		}
		return fmt.Errorf("json: unknown field %q", key)
	})
	return &rt, err
}

// decodeObject reads a JSON object from dec, calling member for each key
// with dec at its value; null is an object without members. what names the
// object in an error.
func decodeObject(dec *json.Decoder, what string, member func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		return nil
	case json.Delim('{'):
	default:
		return fmt.Errorf("json: cannot unmarshal %v into %s: want an object", tok, what)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := member(key); err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing brace
	return err
}

// decodeArray reads a JSON array from dec into *list, as encoding/json
// does (null is a nil slice, [] an empty one, and either replaces what
// *list held), calling element for each element with dec at it.
func decodeArray[T any](dec *json.Decoder, what string, list *[]T, element func() error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case nil:
		*list = nil
		return nil
	case json.Delim('['):
		*list = []T{}
	default:
		return fmt.Errorf("json: cannot unmarshal %v into %s: want an array", tok, what)
	}
	for dec.More() {
		if err := element(); err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing bracket
	return err
}

// IsOutput reports whether dir is a build output folder (it holds a route
// table) rather than a catalog folder.
func IsBuild(ctx context.Context, dir string) bool {
	if ctx.Err() != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, RouteTableFile))
	return err == nil
}

// Open reads the build output folder dir: its route table, and every object
// the table names, checked to be present, inside the folder, and of the
// recorded size and SHA-256. A folder that fails the check was changed after
// the build, or the build was interrupted; it must not be served or
// published. The result holds the sites' documents, not the Files beside
// them, so that serving or comparing a built site starts from exactly what
// was built and reviewed.
func Open(ctx context.Context, dir string) (*Build, error) {
	rt, err := ReadRouteTable(ctx, dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open site: %w", err)
	}
	defer root.Close()
	b := &Build{}
	for _, sr := range rt.Sites {
		docs := make([]Document, 0, len(sr.Routes))
		for _, r := range sr.Routes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			key := path.Join(sr.Dir, r.Key)
			data, err := root.ReadFile(filepath.FromSlash(key))
			if err != nil {
				return nil, fmt.Errorf("open site: route %s: %w (rebuild the site)", r.Route, err)
			}
			sum := sha256.Sum256(data)
			if int64(len(data)) != r.Size || hex.EncodeToString(sum[:]) != r.SHA256 {
				return nil, fmt.Errorf("open site: %s changed since the build (size %d, route table says %d): rebuild the site", key, len(data), r.Size)
			}
			d := Document{Route: r, Body: content.New(data)}
			for _, v := range r.Variants {
				vkey := path.Join(sr.Dir, v.Key)
				encoded, err := root.ReadFile(filepath.FromSlash(vkey))
				if err != nil {
					return nil, fmt.Errorf("open site: route %s, %s: %w (rebuild the site)", r.Route, v.Encoding, err)
				}
				sum := sha256.Sum256(encoded)
				if int64(len(encoded)) != v.Size || hex.EncodeToString(sum[:]) != v.SHA256 {
					return nil, fmt.Errorf("open site: %s changed since the build (size %d, route table says %d): rebuild the site", vkey, len(encoded), v.Size)
				}
				d.Encoded = append(d.Encoded, encoded)
			}
			docs = append(docs, d)
		}
		s := &Site{Tenant: sr.Tenant, Dir: sr.Dir, Origin: sr.Origin, Documents: docs}
		if sr.Access != nil {
			s.Access = *sr.Access
		}
		b.Sites = append(b.Sites, s)
	}
	return b, nil
}

// Site returns the site of tenant: the only site when tenant is empty and
// the build has one, or the tenant's. The error is a *TenantError.
func (b *Build) Site(tenant string) (*Site, error) {
	var tenants []string
	for _, s := range b.Sites {
		if s.Tenant == tenant && (tenant != "" || len(b.Sites) == 1) {
			return s, nil
		}
		tenants = append(tenants, s.Tenant)
	}
	return nil, &TenantError{Tenant: tenant, Tenants: tenants}
}

// TenantError is the error of Output.Site: tenant names no single site of the
// build.
type TenantError struct {
	Tenant  string   // the tenant asked for, "" for none
	Tenants []string // the build's tenants, [""] for a build without tenants
}

func (e *TenantError) Error() string {
	switch {
	case e.Tenant == "" && len(e.Tenants) > 1:
		return fmt.Sprintf("the build has one site per tenant (%s): choose one", strings.Join(e.Tenants, ", "))
	case len(e.Tenants) == 1 && e.Tenants[0] == "":
		return "the build has no tenants"
	case len(e.Tenants) == 0:
		return "the build has no sites"
	}
	return fmt.Sprintf("no tenant %q in the build: it has %s", e.Tenant, strings.Join(e.Tenants, ", "))
}

// RouteEntrySize is the number of bytes route r takes in the route table,
// its separator included: what a build counts of routes.json in its limit.
func RouteEntrySize(r Route) int64 {
	var buf [1024]byte
	return int64(len(appendRoute(buf[:0], r))) + 1
}
