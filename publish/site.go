// Package publish puts a built site in front of clients. It starts from a
// build output folder and its route table alone, never from declarations,
// so what is served or uploaded is exactly what was built and reviewed.
package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/signpost-dev/signpost/build"
)

// Site is a verified build output folder: its route table, each of whose
// objects is present with the bytes the table records.
type Site struct {
	Dir    string
	Routes build.RouteTable
	bodies map[string][]byte // by siteKey
}

// siteKey is where an object of a site is in the build folder.
func siteKey(dir, key string) string { return path.Join(dir, key) }

// Open reads the route table of the build output folder dir and checks every
// object it names: present, inside the folder, and of the recorded size and
// SHA-256. A site that fails the check was changed after the build, or the
// build was interrupted; it must not be published.
func Open(ctx context.Context, dir string) (*Site, error) {
	rt, err := build.ReadRouteTable(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open site: %w", err)
	}
	defer root.Close()
	bodies := map[string][]byte{}
	for _, s := range rt.Sites {
		for _, r := range s.Routes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			key := siteKey(s.Dir, r.Key)
			data, err := root.ReadFile(filepath.FromSlash(key))
			if err != nil {
				return nil, fmt.Errorf("open site: route %s: %w (rebuild the site)", r.Route, err)
			}
			sum := sha256.Sum256(data)
			if int64(len(data)) != r.Size || hex.EncodeToString(sum[:]) != r.SHA256 {
				return nil, fmt.Errorf("open site: %s changed since the build (size %d, route table says %d): rebuild the site", key, len(data), r.Size)
			}
			bodies[key] = data
		}
	}
	return &Site{Dir: dir, Routes: *rt, bodies: bodies}, nil
}
