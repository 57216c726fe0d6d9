// Package content holds a document's bytes as the concatenation of parts
// that other documents may share, each held in memory or in a spill file:
// a build of a large catalog joins tens of thousands of descriptors into
// its lists, and holding each list as a copy of them doubled the build's
// memory; holding the descriptors themselves in memory made a build of
// 100,000 tools need a gigabyte.
package content

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Body is the bytes of a document: the concatenation of its parts. A
// document assembled from other documents' bytes, such as a tool list (every
// descriptor, joined by commas) or the tool catalogue (every entry), holds
// their parts instead of a copy, so that a build of a large catalog does not
// hold each of its lists twice. A part is a slice in memory or a range of a
// Spill. A document read from a build folder has one part. The zero Body is
// empty.
type Body struct {
	parts []part
}

// part is n bytes of src at off. A list of 100,000 tools is 200,000 parts:
// each is three words.
type part struct {
	src    *source
	off, n int64
}

// source is where parts' bytes are: a slice in memory, or a spill file.
type source struct {
	mem   []byte
	spill *Spill
}

// bytes returns p's bytes when they are in memory, and false when they are
// in a spill file.
func (p part) bytes() ([]byte, bool) {
	if p.src.spill != nil {
		return nil, false
	}
	return p.src.mem[p.off : p.off+p.n], true
}

// New returns the body that is the concatenation of parts, in memory. It
// keeps the slices: the caller must not modify them afterwards.
func New(parts ...[]byte) Body {
	b := Body{parts: make([]part, 0, len(parts))}
	for _, p := range parts {
		if len(p) > 0 {
			b.parts = append(b.parts, part{src: &source{mem: p}, n: int64(len(p))})
		}
	}
	return b
}

// Builder assembles a body from others, one after the other, sharing their
// parts: a list of 100,000 descriptors is one array of parts, not one of
// bodies and then one of parts. The zero Builder is empty.
type Builder struct {
	parts []part
}

// Grow makes room for n more parts.
func (b *Builder) Grow(n int) { b.parts = slices.Grow(b.parts, n) }

// Add appends body.
func (b *Builder) Add(body Body) {
	for _, p := range body.parts {
		b.parts = appendPart(b.parts, p)
	}
}

// AddBytes appends p, in memory; the caller must not modify it afterwards.
func (b *Builder) AddBytes(p []byte) { b.Add(New(p)) }

// Body returns the body built. The Builder must not be used after.
func (b *Builder) Body() Body { return Body{parts: b.parts} }

// appendPart appends p to parts, as one with the last when it is the range
// of the same source that follows it.
func appendPart(parts []part, p part) []part {
	if n := len(parts); n > 0 {
		if last := &parts[n-1]; last.src == p.src && last.off+last.n == p.off {
			last.n += p.n
			return parts
		}
	}
	return append(parts, p)
}

// Slice returns the bytes of b from offset from to offset to, sharing its
// parts. It panics if they are not 0 <= from <= to <= b.Len(), as slicing
// a slice does.
func (b Body) Slice(from, to int64) Body {
	if from < 0 || from > to || to > b.Len() {
		panic(fmt.Sprintf("content: slice [%d:%d] of a body of %d bytes", from, to, b.Len()))
	}
	var out Body
	var at int64 // where the part starts
	for _, p := range b.parts {
		lo, hi := max(from-at, 0), min(to-at, p.n)
		at += p.n
		if lo < hi {
			out.parts = append(out.parts, part{src: p.src, off: p.off + lo, n: hi - lo})
		}
	}
	return out
}

// Len returns the size of the body in bytes.
func (b Body) Len() int64 {
	var n int64
	for _, p := range b.parts {
		n += p.n
	}
	return n
}

// Bytes returns the body as one slice: its only part when it is in memory,
// or its parts read and joined into a new slice. The caller must not modify
// it.
func (b Body) Bytes() ([]byte, error) {
	if len(b.parts) == 0 {
		return nil, nil
	}
	if len(b.parts) == 1 {
		if data, ok := b.parts[0].bytes(); ok {
			return data, nil
		}
	}
	return b.AppendTo(make([]byte, 0, b.Len()))
}

// AppendTo appends the body's bytes to dst.
func (b Body) AppendTo(dst []byte) ([]byte, error) {
	for _, p := range b.parts {
		if data, ok := p.bytes(); ok {
			dst = append(dst, data...)
			continue
		}
		n := len(dst)
		dst = slices.Grow(dst, int(p.n))[:n+int(p.n)]
		if err := p.src.spill.read(dst[n:], p.off); err != nil {
			return dst[:n], err
		}
	}
	return dst, nil
}

// WriteTo writes the body's bytes to w, in order.
func (b Body) WriteTo(w io.Writer) (int64, error) {
	return b.writeTo(w, &window{})
}

func (b Body) writeTo(w io.Writer, win *window) (int64, error) {
	var n int64
	for i, p := range b.parts {
		data, ok := p.bytes()
		if !ok {
			var err error
			if data, err = win.of(b.parts[i:]); err != nil {
				return n, err
			}
		}
		m, err := w.Write(data)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Sequence reads bodies one after the other, such as the thousands of tool
// documents of a site written to one folder in the order Compile held
// them: once the reads follow one another in the spill file, each reads
// ahead what the next bodies will need, so that a window of the file is
// one read, not one read per document. It is safe for concurrent use,
// though only reads in sequence gain. Its window, 320 KiB, is let go after
// its last read: a build of a thousand sites writes a thousand sequences.
type Sequence struct {
	mu   sync.Mutex
	win  window
	end  int64 // where the last read of the sequence ended
	left int   // reads to go
}

// NewSequence returns a sequence of n reads.
func NewSequence(n int) *Sequence { return &Sequence{left: n} }

// Of returns b as read in the sequence.
func (q *Sequence) Of(b Body) Sequenced { return Sequenced{b, q} }

// Sequenced is a body read in a Sequence.
type Sequenced struct {
	body Body
	q    *Sequence
}

// Len returns the size of the body in bytes.
func (s Sequenced) Len() int64 { return s.body.Len() }

// WriteTo writes the body's bytes to w, in order.
func (s Sequenced) WriteTo(w io.Writer) (int64, error) {
	q := s.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.left--; q.left <= 0 {
		defer func() { q.win = window{} }() // the last read: let the window go
	}
	for _, p := range s.body.parts {
		if p.src.spill != nil {
			// Read ahead when this body starts near where the last
			// ended: just after it, or a little before (a site writes
			// a tool's compact document before its standard one, held
			// the other way round).
			d := p.off - q.end
			q.win.ahead = p.src == q.win.src && d > -windowSize/4 && d < windowSize
			q.end = p.off + p.n
			break
		}
	}
	return s.body.writeTo(w, &q.win)
}

// Reader returns a reader of the body's bytes.
func (b Body) Reader() io.Reader { return &reader{parts: b.parts} }

type reader struct {
	parts []part
	at    int64 // read of parts[0]
	win   window
}

func (r *reader) Read(dst []byte) (int, error) {
	for len(r.parts) > 0 && r.at == r.parts[0].n {
		r.parts, r.at = r.parts[1:], 0
	}
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	data, ok := r.parts[0].bytes()
	if !ok {
		var err error
		if data, err = r.win.of(r.parts); err != nil {
			return 0, err
		}
	}
	n := copy(dst, data[r.at:])
	r.at += int64(n)
	return n, nil
}

// windowSize is the most a window reads ahead.
const windowSize = 256 << 10

// window is bytes of a spill file read at once: a list's parts, held in
// the spill file about in the order the list joins them, are read a window
// at a time, not each with a read of its own.
type window struct {
	src *source
	off int64
	buf []byte
	// ahead makes a read take windowSize bytes after the part, up to
	// the end of what the spill file holds, and a quarter of that before
	// it: the reads are in sequence.
	ahead bool
}

// of returns the bytes of parts[0], a range of a spill file: from the
// window when it holds them, else read with those of the parts after it
// that follow it within windowSize, in one read.
func (w *window) of(parts []part) ([]byte, error) {
	p := parts[0]
	if w.src == p.src && p.off >= w.off && p.off+p.n <= w.off+int64(len(w.buf)) {
		return w.buf[p.off-w.off:][:p.n], nil
	}
	end := p.off + p.n
	for _, q := range parts[1:] {
		if q.src.spill == nil {
			continue
		}
		if q.src != p.src || q.off < p.off || q.off+q.n > p.off+windowSize {
			break
		}
		end = max(end, q.off+q.n)
	}
	start := p.off
	if w.ahead {
		start = max(p.off-windowSize/4, 0)
		end = max(end, min(p.off+windowSize, p.src.spill.size()))
	}
	if int64(cap(w.buf)) < end-start {
		w.buf = make([]byte, end-start)
	}
	w.src, w.buf = nil, w.buf[:end-start]
	if err := p.src.spill.read(w.buf, start); err != nil {
		return nil, err
	}
	w.src, w.off = p.src, start
	return w.buf[p.off-start:][:p.n], nil
}

// Equal reports whether b and o hold the same bytes, however they are
// split into parts and wherever they are held. A body that cannot be read
// back from its spill file equals no other: a comparison that cannot be
// made is a difference, never hidden.
func (b Body) Equal(o Body) bool {
	switch n := b.Len(); {
	case n != o.Len():
		return false
	case n == 0:
		return true
	}
	if len(b.parts) == 1 && len(o.parts) == 1 {
		x, inX := b.parts[0].bytes()
		y, inY := o.parts[0].bytes()
		if inX && inY {
			return bytes.Equal(x, y)
		}
	}
	x, y := b.Reader(), o.Reader()
	size := min(b.Len(), 32<<10)
	bx, by := make([]byte, size), make([]byte, size)
	for {
		n, errx := io.ReadFull(x, bx)
		m, erry := io.ReadFull(y, by)
		if !bytes.Equal(bx[:n], by[:m]) || !ended(errx) || !ended(erry) {
			return false
		}
		if errx != nil {
			return erry != nil
		}
	}
}

// ended reports whether err, of io.ReadFull, is none or the end of what
// was read.
func ended(err error) bool {
	return err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// SHA256 returns the hex SHA-256 of the body.
func (b Body) SHA256() (string, error) {
	if len(b.parts) == 1 {
		if data, ok := b.parts[0].bytes(); ok {
			sum := sha256.Sum256(data)
			return hex.EncodeToString(sum[:]), nil
		}
	}
	h := sha256.New()
	if _, err := b.WriteTo(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Spill is a file that holds bytes a build would otherwise keep in memory
// until it writes or uploads them: the tools' schemas from the moment they
// are checked, their descriptors and catalogue entries from the moment they
// are encoded. It is written once and read many times, by any number of
// goroutines at once, and is never rewritten: a Body of it stays valid for
// the life of the Spill.
//
// The file has no name (see createSpillFile): nothing is left behind
// however the process ends. Its descriptor is closed by Close, or once
// nothing refers to the Spill or a Body of it.
type Spill struct {
	f   *os.File
	src *source // of the spill's parts
	// Held bytes are written spillBuffer at a time: written counts those
	// in the file, pending holds those after them. A read of pending
	// bytes, or of a range that ends in them, takes mu; a read of written
	// bytes does not.
	mu      sync.Mutex
	pending []byte
	written atomic.Int64
	err     error // of the first write that failed: each Hold after fails too
}

// spillBuffer is how much a Spill holds in memory before it writes: a
// write of a megabyte, not one of each tool's few kilobytes.
const spillBuffer = 1 << 20

// NewSpill makes an empty spill file in dir, or in the system's temporary
// folder when dir is "".
func NewSpill(dir string) (*Spill, error) {
	f, err := createSpillFile(dir)
	if err != nil {
		return nil, fmt.Errorf("make a file to hold the build's bytes on disk: %w (set TMPDIR, or TMP on Windows, to a writable folder)", err)
	}
	s := &Spill{f: f}
	s.src = &source{spill: s}
	runtime.AddCleanup(s, func(f *os.File) { f.Close() }, f)
	return s, nil
}

// Close closes the file, which removes it. A Body of s cannot be read
// after.
func (s *Spill) Close() error {
	if err := s.f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("close the build's spill file: %w", err)
	}
	return nil
}

// Hold writes parts, one after the other, at the end of the file and
// returns the body of those bytes: a caller that holds several pieces at
// once need not join them first. The caller may reuse the parts afterwards.
// No bytes are an empty Body.
func (s *Spill) Hold(parts ...[]byte) (Body, error) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n == 0 {
		return Body{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return Body{}, s.err
	}
	off := s.written.Load() + int64(len(s.pending))
	if len(s.pending)+n > spillBuffer {
		if err := s.flush(); err != nil {
			return Body{}, err
		}
	}
	for _, p := range parts {
		if n >= spillBuffer {
			if err := s.write(p); err != nil {
				return Body{}, err
			}
			continue
		}
		if s.pending == nil {
			s.pending = make([]byte, 0, spillBuffer)
		}
		s.pending = append(s.pending, p...)
	}
	return Body{parts: []part{{src: s.src, off: off, n: int64(n)}}}, nil
}

// flush writes the pending bytes. s.mu is held. Bytes it fails to write
// stay pending, so that the bodies already made of them can be read.
func (s *Spill) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	if err := s.write(s.pending); err != nil {
		return err
	}
	s.pending = s.pending[:0]
	return nil
}

// write writes b after the written bytes. s.mu is held.
func (s *Spill) write(b []byte) error {
	if _, err := s.f.WriteAt(b, s.written.Load()); err != nil {
		s.err = fmt.Errorf("write the build's bytes to its spill file: %w (is the temporary folder full?)", err)
		return s.err
	}
	s.written.Add(int64(len(b)))
	return nil
}

// size returns how many bytes the spill holds.
func (s *Spill) size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written.Load() + int64(len(s.pending))
}

// read fills dst with the bytes of the file at off.
func (s *Spill) read(dst []byte, off int64) error {
	if off+int64(len(dst)) > s.written.Load() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if w := s.written.Load(); off+int64(len(dst)) > w {
			if off < 0 || off+int64(len(dst)) > w+int64(len(s.pending)) {
				return fmt.Errorf("read the build's bytes back from its spill file: %d bytes at %d, past the %d it holds", len(dst), off, w+int64(len(s.pending)))
			}
			k := max(w-off, 0) // of dst in the file; the rest pending
			copy(dst[k:], s.pending[off+k-w:])
			dst = dst[:k]
		}
	}
	if len(dst) == 0 {
		return nil
	}
	if _, err := s.f.ReadAt(dst, off); err != nil {
		return fmt.Errorf("read the build's bytes back from its spill file: %w", err)
	}
	return nil
}
