// Package content holds a document's bytes as the concatenation of parts
// that other documents may share: a build of a large catalog joins tens of
// thousands of descriptors into its lists, and holding each list as a copy
// of them doubled the build's memory.
package content

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// Body is the bytes of a document: the concatenation of its parts. A
// document assembled from other documents' bytes, such as a tool list (every
// descriptor, joined by commas) or the tool catalogue (every entry), holds
// their slices instead of a copy, so that a build of a large catalog does
// not hold each of its lists twice. A document read from a build folder has
// one part. The zero Body is empty.
type Body struct {
	parts [][]byte
}

// New returns the body that is the concatenation of parts. It keeps the
// slices: the caller must not modify them afterwards.
func New(parts ...[]byte) Body { return Body{parts: parts} }

// Len returns the size of the body in bytes.
func (b Body) Len() int64 {
	var n int64
	for _, p := range b.parts {
		n += int64(len(p))
	}
	return n
}

// Bytes returns the body as one slice: its only part when it has one, or
// its parts joined into a new slice. The caller must not modify it.
func (b Body) Bytes() []byte {
	switch len(b.parts) {
	case 0:
		return nil
	case 1:
		return b.parts[0]
	}
	out := make([]byte, 0, b.Len())
	for _, p := range b.parts {
		out = append(out, p...)
	}
	return out
}

// Parts returns the body's parts, in order, for writers that take them
// without joining them. The caller must not modify them.
func (b Body) Parts() [][]byte { return b.parts }

// WriteTo writes the body's parts to w, in order.
func (b Body) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range b.parts {
		m, err := w.Write(p)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Equal reports whether b and o hold the same bytes, however they are
// split into parts.
func (b Body) Equal(o Body) bool {
	if b.Len() != o.Len() {
		return false
	}
	x, y := b.parts, o.parts
	var p, q []byte
	for {
		for len(p) == 0 && len(x) > 0 {
			p, x = x[0], x[1:]
		}
		for len(q) == 0 && len(y) > 0 {
			q, y = y[0], y[1:]
		}
		if len(p) == 0 || len(q) == 0 {
			return len(p) == len(q)
		}
		n := min(len(p), len(q))
		if !bytes.Equal(p[:n], q[:n]) {
			return false
		}
		p, q = p[n:], q[n:]
	}
}

// SHA256 returns the hex SHA-256 of the body.
func (b Body) SHA256() string {
	if len(b.parts) == 1 {
		sum := sha256.Sum256(b.parts[0])
		return hex.EncodeToString(sum[:])
	}
	h := sha256.New()
	b.WriteTo(h) // a hash never fails to write
	return hex.EncodeToString(h.Sum(nil))
}
