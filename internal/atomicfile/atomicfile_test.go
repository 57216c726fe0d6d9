package atomicfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// TestWriteDirStopsInAStream: a file streamed as it is written (a route
// table of hundreds of megabytes) stops where its context ends: WriteDir
// returns the context's error at once, leaves the old folder, and removes
// what it wrote.
func TestWriteDirStopsInAStream(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(context.Background(), dir, []File{{Path: "a", Body: []byte("old")}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	written := 0
	endless := func(w io.Writer) error {
		for range 8 << 10 { // 256 MiB, were it not stopped
			if written += len(chunk); written == 64<<20 {
				cancel()
			}
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	}
	err := WriteDir(ctx, dir, []File{{Path: "b", Body: []byte("1")}, {Path: "routes.json", Stream: endless}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteDir = %v, want canceled", err)
	}
	if written > 65<<20 {
		t.Errorf("the stream wrote %d bytes, %d after its context ended", written, written-64<<20)
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

// parts is Content of slices, as a document's body assembled from others.
type parts [][]byte

func (ps parts) Len() int64 {
	var n int64
	for _, p := range ps {
		n += int64(len(p))
	}
	return n
}

func (ps parts) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range ps {
		m, err := w.Write(p)
		if n += int64(m); err != nil {
			return n, err
		}
	}
	return n, nil
}

func TestWriteDirContent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	big := bytes.Repeat([]byte("x"), 300<<10) // more than the write buffer
	files := []File{
		{Path: "body", Body: []byte("whole")},
		{Path: "one-part", Content: parts{[]byte("alone")}},
		{Path: "parts", Body: []byte("["), Content: parts{[]byte("1"), []byte(","), nil, big, []byte("]\n")}},
		{Path: "empty", Content: parts{nil, {}}},
	}
	if err := WriteDir(context.Background(), dir, files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		want := append([]byte{}, f.Body...)
		if f.Content != nil {
			for _, p := range f.Content.(parts) {
				want = append(want, p...)
			}
		}
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", f.Path, len(got), err, len(want))
		}
	}
}

// TestWriteDirStream: a file's Stream writes after its Body and Content, and
// a Stream that fails fails the write, leaving the folder as it was.
func TestWriteDirStream(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	big := bytes.Repeat([]byte("y"), 300<<10)
	stream := func(w io.Writer) error {
		for range 3 {
			if _, err := w.Write(big); err != nil {
				return err
			}
		}
		return nil
	}
	if err := WriteDir(context.Background(), dir, []File{{Path: "s", Body: []byte("<"), Content: parts{[]byte("-")}, Stream: stream}}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "s"))
	if want := append([]byte("<-"), bytes.Repeat(big, 3)...); err != nil || !bytes.Equal(got, want) {
		t.Errorf("streamed file: %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	failing := func(w io.Writer) error { return errors.New("cannot encode") }
	err = WriteDir(context.Background(), dir, []File{{Path: "other", Body: []byte("x")}, {Path: "s", Stream: failing}})
	if err == nil || !strings.Contains(err.Error(), "cannot encode") {
		t.Fatalf("WriteDir with a failing stream = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed write replaced the folder: %v", err)
	}
}

// TestCreateFile: the file WriteDir creates for a document is the one
// os.WriteFile would create: its bytes, mode 0644 (less the umask), an
// earlier file of that name cut, and an error a caller can test.
func TestCreateFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "doc.json")
	if err := os.WriteFile(name, []byte("a much longer earlier content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := createFileDirect(name, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(name); err != nil || string(got) != "{}\n" {
		t.Errorf("content = %q, %v; want %q", got, err, "{}\n")
	}
	want := filepath.Join(dir, "fresh.json")
	if err := os.WriteFile(want, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "created.json")
	if err := createFileDirect(fresh, nil); err != nil {
		t.Fatal(err)
	}
	a, _ := os.Stat(want)
	b, _ := os.Stat(fresh)
	if a.Mode() != b.Mode() || b.Size() != 0 {
		t.Errorf("a new empty file: mode %v, size %d; os.WriteFile makes mode %v", b.Mode(), b.Size(), a.Mode())
	}
	err := createFileDirect(filepath.Join(dir, "missing", "doc.json"), []byte("{}"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "open" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("in a missing folder: %v; want an open *os.PathError that is fs.ErrNotExist", err)
	}
}
