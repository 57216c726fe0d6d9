package content

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// check holds b to want in every way a body is read.
func check(t *testing.T, name string, b Body, want []byte) {
	t.Helper()
	if b.Len() != int64(len(want)) {
		t.Errorf("%s: Len %d, want %d", name, b.Len(), len(want))
	}
	if got, err := b.Bytes(); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s: Bytes %.60q (%v), want %.60q", name, got, err, want)
	}
	var buf bytes.Buffer
	if n, err := b.WriteTo(&buf); err != nil || n != int64(len(want)) || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s: WriteTo wrote %d bytes %.60q, %v", name, n, buf.Bytes(), err)
	}
	if got, err := io.ReadAll(b.Reader()); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s: Reader read %.60q, %v", name, got, err)
	}
	sum := sha256.Sum256(want)
	if got, err := b.SHA256(); err != nil || got != hex.EncodeToString(sum[:]) {
		t.Errorf("%s: SHA-256 %s, %v", name, got, err)
	}
	if !b.Equal(New(want)) {
		t.Errorf("%s: not Equal to its bytes in memory", name)
	}
}

func TestBody(t *testing.T) {
	whole := []byte(`[{"toolId":"a"},{"toolId":"b"}]` + "\n")
	splits := []Body{
		New(whole),
		New(whole[:1], whole[1:16], whole[16:17], whole[17:]),
		New(nil, whole[:5], []byte{}, whole[5:]),
		join(New(whole[:3]), Body{}, New(whole[3:20], whole[20:])),
	}
	for i, b := range splits {
		check(t, fmt.Sprintf("split %d", i), b, whole)
		for j, o := range splits {
			if !b.Equal(o) {
				t.Errorf("split %d differs from split %d", i, j)
			}
		}
	}
	other := New(whole[:len(whole)-2], []byte("}\n"))
	for _, pair := range [][2]Body{{splits[1], other}, {other, splits[0]}, {splits[0], New(whole[:10])}} {
		if pair[0].Equal(pair[1]) {
			t.Error("bodies of different bytes are Equal")
		}
	}
	check(t, "the zero Body", Body{}, nil)
	if b, _ := (Body{}).Bytes(); b != nil {
		t.Error("the zero Body's bytes are not nil")
	}
	check(t, "slice", splits[1].Slice(3, 18), whole[3:18])
	check(t, "empty slice", splits[2].Slice(7, 7), nil)
}

// A body held in a spill file reads as the bytes it was given, whether they
// are still pending in memory or written, and however it is sliced and
// joined with others.
func TestSpill(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSpill(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if entries, _ := os.ReadDir(dir); runtime.GOOS != "windows" && len(entries) != 0 {
		t.Errorf("the spill file has a name: %v", entries)
	}
	big := bytes.Repeat([]byte("0123456789"), spillBuffer/5) // written at once
	h, err := s.Hold(big[:100], big[100:])
	if err != nil {
		t.Fatal(err)
	}
	want, held := [][]byte{big}, []Body{h}
	for i := range 3000 { // 6 MB: written, then the last pending
		b := []byte(strings.Repeat(fmt.Sprintf("tool %d,", i), 1+i%300))
		h, err := s.Hold(b[:len(b)/3], nil, b[len(b)/3:]) // held in pieces, read as one
		if err != nil {
			t.Fatal(err)
		}
		b[0] = '!' // Hold keeps a copy
		b[0] = 't'
		want, held = append(want, b), append(held, h)
	}
	if s.written.Load() == 0 || len(s.pending) == 0 {
		t.Fatalf("%d bytes written, %d pending: want both", s.written.Load(), len(s.pending))
	}
	for i := range held {
		check(t, fmt.Sprintf("body %d", i), held[i], want[i])
	}
	// A list: every body, with a comma between, its parts far apart.
	var list []Body
	var flat []byte
	for i := len(held) - 1; i >= 0; i -= 7 {
		list = append(list, held[i].Slice(1, held[i].Len()), New([]byte(",")))
		flat = append(append(flat, want[i][1:]...), ',')
	}
	check(t, "list", join(list...), flat)
	// Bodies next to each other in the file join into one part.
	if j := join(held[10], held[11], held[12]); len(j.parts) != 1 {
		t.Errorf("three neighbours are %d parts, want 1", len(j.parts))
	}
	// In sequence, each body is read once, ahead, and the window let go
	// after the last.
	q := NewSequence(len(held))
	for i := range held {
		var buf bytes.Buffer
		if _, err := q.Of(held[i]).WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), want[i]) {
			t.Errorf("body %d in sequence: %.40q, %v", i, buf.Bytes(), err)
		}
		if q.Of(held[i]).Len() != int64(len(want[i])) {
			t.Errorf("body %d in sequence: Len %d", i, q.Of(held[i]).Len())
		}
	}
	if q.win.buf != nil {
		t.Errorf("after its last read, the sequence holds a window of %d bytes", len(q.win.buf))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := held[0].Bytes(); err == nil || !strings.Contains(err.Error(), "spill file") {
		t.Errorf("read after Close: %v, want an error naming the spill file", err)
	}
	if held[0].Equal(held[0]) {
		t.Error("a body that cannot be read back is Equal to itself")
	}
	if _, err := s.Hold(big); err == nil || !strings.Contains(err.Error(), "temporary folder") {
		t.Errorf("hold after Close: %v, want an error that says what to check", err)
	}
}

// Bodies held from many goroutines at once each read back as given.
func TestSpillConcurrent(t *testing.T) {
	s, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const workers, each = 8, 400
	held := make([][]Body, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				h, err := s.Hold(fmt.Appendf(nil, "%d/%d %s", w, i, strings.Repeat("x", i*7)))
				if err != nil {
					t.Error(err)
					return
				}
				held[w] = append(held[w], h)
				if got, err := h.Bytes(); err != nil || !bytes.HasPrefix(got, fmt.Appendf(nil, "%d/%d ", w, i)) {
					t.Errorf("%d/%d read back as %.20q, %v", w, i, got, err)
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for i, h := range held[w] {
			check(t, fmt.Sprintf("%d/%d", w, i), h, fmt.Appendf(nil, "%d/%d %s", w, i, strings.Repeat("x", i*7)))
		}
	}
}

// A write that fails (a full disk) fails that Hold and every one after,
// and the bodies held before it read as they were; a range past what the
// spill holds is an error, never a panic.
func TestSpillWriteFails(t *testing.T) {
	s, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Hold([]byte("held before"))
	if err != nil {
		t.Fatal(err)
	}
	s.f.Close() // every write fails from here on
	for _, b := range [][]byte{make([]byte, spillBuffer), []byte("after")} {
		if _, err := s.Hold(b); err == nil || !strings.Contains(err.Error(), "temporary folder full") {
			t.Errorf("Hold of %d bytes: %v, want the write's error", len(b), err)
		}
	}
	check(t, "the body held before", first, []byte("held before"))
	past := Body{parts: []part{{src: s.src, off: 1 << 30, n: 5}}}
	if _, err := past.Bytes(); err == nil {
		t.Error("a range past the spill read without an error")
	}
}

func TestNewSpillFolderMissing(t *testing.T) {
	_, err := NewSpill(t.TempDir() + "/missing")
	if err == nil || !strings.Contains(err.Error(), "TMPDIR") {
		t.Errorf("err %v; want one that says to set TMPDIR", err)
	}
}

// join is the body that is the concatenation of bodies, built as the
// lists are.
func join(bodies ...Body) Body {
	var b Builder
	for _, body := range bodies {
		b.Add(body)
	}
	return b.Body()
}
