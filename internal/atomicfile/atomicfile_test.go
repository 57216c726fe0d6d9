package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteDirReplaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx := context.Background()
	if err := WriteDir(ctx, dir, []File{{Path: "a/b.json", Body: []byte("1")}, {Path: "c", Body: []byte("2")}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(ctx, dir, []File{{Path: "d", Body: []byte("3")}}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil || len(entries) != 1 {
		t.Fatalf("beside the folder: %v %v, want the folder alone", entries, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old content is still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "d")); err != nil || string(b) != "3" {
		t.Errorf("d = %q, %v", b, err)
	}
}

func TestWriteDirCancelledLeavesOld(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(context.Background(), dir, []File{{Path: "a", Body: []byte("old")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteDir(ctx, dir, []File{{Path: "a", Body: []byte("new")}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteDir = %v, want canceled", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "old" {
		t.Errorf("a = %q, want the old content", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("a temporary folder was left: %v", entries)
	}
}

func TestWriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "f.yaml")
	for _, body := range []string{"one", "two"} {
		if err := WriteFile(context.Background(), p, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != body {
			t.Errorf("f.yaml = %q, want %q", b, body)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
		t.Errorf("a temporary file was left: %v", entries)
	}
}
