package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/signpost-dev/signpost/build/output"
)

// Build is one build as Compare sees it: the route table, as bytes and
// decoded, and the bytes of every object it names.
type Build struct {
	// Name names the build in findings, for example the folder it was read
	// from.
	Name string
	// RouteTable is routes.json exactly as written; nil for a build that was
	// never written (FromOutput), whose table is then compared as decoded only.
	RouteTable []byte
	// Table is the decoded route table.
	Table output.RouteTable
	// Bodies holds each object's bytes by its path in the folder (the site's
	// dir, "/", the route's key). An object Read could not or would not read
	// has no entry, and its reason is in Unread.
	Bodies map[string][]byte
	// Unread says why an object the table names was not read: its path is
	// unsafe, it is missing, or it is larger than the table says.
	Unread map[string]string
}

// FromOutput returns a compiled build as Compare sees it, as it would be
// written.
func FromOutput(name string, out *output.Build) (*Build, error) {
	b := &Build{Name: name, Table: out.RouteTable(), Bodies: map[string][]byte{}, Unread: map[string]string{}}
	for _, s := range out.Sites {
		for _, d := range s.Documents {
			body, err := d.Body.Bytes()
			if err != nil {
				return nil, err
			}
			b.Bodies[objectPath(s.Dir, d.Key)] = body
		}
	}
	return b, nil
}

// objectPath is where the route table puts the object key of the site in
// dir, as written in findings: not cleaned, so that an unsafe key stays
// visible as it is.
func objectPath(dir, key string) string { return dir + "/" + key }

// Read reads the build output folder dir: its route table, and each object the
// table names whose path is safe (see PathProblem), at most as many bytes as
// the table records for it and one more. Nothing else in the folder is read,
// and no path outside it. What cannot be read is recorded in Unread, for
// Compare to report; the error is for a folder without a readable route
// table.
func Read(ctx context.Context, name, dir string) (*Build, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, output.RouteTableFile))
	if err != nil {
		return nil, fmt.Errorf("read build %s: %w (is it a signpost build?)", name, err)
	}
	b := &Build{Name: name, RouteTable: raw, Bodies: map[string][]byte{}, Unread: map[string]string{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b.Table); err != nil {
		return nil, fmt.Errorf("read build %s: %s: %w", name, output.RouteTableFile, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("read build %s: %w", name, err)
	}
	defer root.Close()
	for _, s := range b.Table.Sites {
		for _, r := range s.Routes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			p := objectPath(s.Dir, r.Key)
			if _, seen := b.Bodies[p]; seen {
				continue
			}
			if _, seen := b.Unread[p]; seen {
				continue
			}
			if PathProblem(s.Dir) != "" || PathProblem(r.Key) != "" {
				b.Unread[p] = "its path is unsafe"
				continue
			}
			data, err := readObject(ctx, root, p, r.Size)
			if err != nil {
				b.Unread[p] = err.Error()
				continue
			}
			b.Bodies[p] = data
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

// readObject reads the object at the slash-separated path p of root, at most
// size bytes and one more.
func readObject(ctx context.Context, root *os.Root, p string, size int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := root.Open(filepath.FromSlash(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("it is missing")
	}
	if err != nil {
		return nil, fmt.Errorf("it cannot be read: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("it is not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, max(size, 0)+1))
	if err != nil {
		return nil, fmt.Errorf("it cannot be read: %w", err)
	}
	if int64(len(data)) > size {
		return nil, fmt.Errorf("it is larger than the %d bytes the route table records", size)
	}
	return data, nil
}
