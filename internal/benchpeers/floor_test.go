package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/internal/s3test"
)

// TestFloorPuts holds the floor to what the report says of it: one PUT per
// file of the folder, every one accepted by a real S3 server, a key that
// S3 escapes (a space, a plus) among them.
func TestFloorPuts(t *testing.T) {
	if err := s3test.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	srv, err := s3test.StartLogged()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	if err := srv.CreateBucket(ctx, "floor"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{"tools/a.json": `{"a":1}`, "tools/b c+d.json": `{"b":2}`, "index.html": "<p>"}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, mark, err := srv.Operations(0)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := readFloorObjects(dir, "site/")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(files) {
		t.Fatalf("read %d objects, want %d", len(objs), len(files))
	}
	if err := floorPut(ctx, srv.Endpoint, "floor", objs, 2); err != nil {
		t.Fatal(err)
	}
	ops, _, err := srv.Operations(mark)
	if err != nil {
		t.Fatal(err)
	}
	if ops["PutObject"] != len(files) || len(ops) != 1 {
		t.Errorf("the server answered %v, want %d PutObject and nothing else", ops, len(files))
	}
	// A body that is not what its hash says is refused.
	objs[0].sha256 = objs[1].sha256
	if err := floorPut(ctx, srv.Endpoint, "floor", objs[:1], 1); err == nil {
		t.Error("a PUT whose payload hash is not its body's succeeded")
	}
}
