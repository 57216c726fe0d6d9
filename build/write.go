package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/signpost-dev/signpost/build/gate"
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
func (b *Output) RouteTable() RouteTable {
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
// did not create.
func (b *Output) Write(ctx context.Context, out string) error {
	files := b.Files
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			files = append(files, File{Path: path.Join(s.Dir, d.Key), Parts: d.Body.Parts()})
		}
	}
	table, err := jsonFile(RouteTableFile, b.RouteTable())
	if err != nil {
		return err
	}
	return writeTree(ctx, out, append(files, table))
}

// jsonFile encodes v as an indented JSON file of the build output.
func jsonFile(name string, v any) (File, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return File{}, fmt.Errorf("write %s: %w", name, err)
	}
	return File{Path: name, Body: append(data, '\n')}, nil
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

// ReadRouteTable reads the route table of the build output folder dir.
func ReadRouteTable(ctx context.Context, dir string) (*RouteTable, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, RouteTableFile))
	if err != nil {
		return nil, fmt.Errorf("read route table: %w (is %s a signpost build? run `signpost build` first)", err, dir)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rt RouteTable
	if err := dec.Decode(&rt); err != nil {
		return nil, fmt.Errorf("read route table %s: %w", filepath.Join(dir, RouteTableFile), err)
	}
	if rt.Format != RouteTableFormat {
		return nil, fmt.Errorf("read route table %s: format %d, this signpost reads format %d: rebuild the site", filepath.Join(dir, RouteTableFile), rt.Format, RouteTableFormat)
	}
	return &rt, nil
}
