package build

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"golang.org/x/sync/errgroup"
)

// RouteTableFile is the route table's name in a build output folder.
const RouteTableFile = "routes.json"

// writeWorkers is how many files Write creates at once.
const writeWorkers = 8

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
	Tenant string  `json:"tenant"`
	Dir    string  `json:"dir"`
	Routes []Route `json:"routes"`
}

// RouteTable returns the build's route table.
func (b *Build) RouteTable() RouteTable {
	rt := RouteTable{Format: RouteTableFormat, Sites: []SiteRoutes{}}
	for _, s := range b.Sites {
		sr := SiteRoutes{Tenant: s.Tenant, Dir: s.Dir, Routes: make([]Route, 0, len(s.Documents))}
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
func (b *Build) Write(ctx context.Context, out string) error {
	files := b.Files
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			files = append(files, File{Path: path.Join(s.Dir, d.Key), Body: d.Body})
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

// writeTree writes files into a temporary folder beside out, a few at once
// (creating files waits on the filesystem more than on the CPU), then puts
// the folder in out's place. On failure out is left as it was.
func writeTree(ctx context.Context, out string, files []File) error {
	if err := checkReplaceable(out); err != nil {
		return err
	}
	parent, base := filepath.Dir(out), filepath.Base(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("write build: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return fmt.Errorf("write build: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("write build: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writeWorkers)
	for _, f := range files {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			if err := writeFile(filepath.Join(tmp, filepath.FromSlash(f.Path)), f.Body); err != nil {
				return fmt.Errorf("write %s: %w", f.Path, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := swapDir(tmp, out); err != nil {
		return err
	}
	done = true
	return nil
}

func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// checkReplaceable refuses to replace a folder that is not a build output,
// so that a mistyped --out cannot wipe out a source tree.
func checkReplaceable(out string) error {
	fi, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write build: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("write build: %s exists and is not a folder: choose another --out", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("write build: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, RouteTableFile)); err != nil {
		return fmt.Errorf("write build: %s is not empty and holds no %s, so it is not a signpost build: choose an empty or new folder for --out", out, RouteTableFile)
	}
	return nil
}

// swapDir puts the complete folder tmp in the place of out. Between the two
// renames out is briefly missing, never half-written.
func swapDir(tmp, out string) error {
	var old string
	if _, err := os.Lstat(out); err == nil {
		old = filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".old-"+randomSuffix())
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("replace %s: %w", out, err)
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			_ = os.Rename(old, out)
		}
		return fmt.Errorf("replace %s: %w", out, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove previous build %s: %w", old, err)
		}
	}
	return nil
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ReadRouteTable reads the route table of the build output folder dir.
func ReadRouteTable(dir string) (*RouteTable, error) {
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
