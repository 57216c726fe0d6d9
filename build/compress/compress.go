// Package compress makes the precompressed variants of a document: gzip
// and brotli, the same bytes for the same body on every machine, so that a
// build's variants are as reproducible as its documents.
package compress

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/signpost-dev/signpost/build/spec"
)

// BrotliLevel is brotli's level, and GzipLevel gzip's, chosen by measure on
// the lists of 10,000 generated tools, in CPU time on one core. On the tool
// list (17.6 MB), brotli level 4 of the package's newer encoder
// (brotli.NewWriterV2: its matches reach back at most 2^20 bytes, though
// its stream declares a window of 2^24) makes 13.6% of the bytes in
// 0.20 s; its classic encoder at quality 5 with a window of 2^19, the
// setting before it, made 14.1% in 0.28 s, and level 3 makes 14.6% in
// 0.12 s, too near 15%. gzip 6 makes 14.6% in 0.36 s, its best (9) 14.4%
// in 0.46 s. brotli allocates about 23 MB for a large list, gzip 9 MB. A
// client that accepts brotli receives less than 15% of the list.
const (
	BrotliLevel = 4
	GzipLevel   = 6
)

// chunk is how much of a body an encoder is given at a time, between two
// looks at the context (a few tens of milliseconds' work): every write but
// the last is exactly chunk bytes, however the body is read, so that the
// bytes depend on the body alone. brotli makes 5% fewer bytes given 1 MiB
// at a time than given 256 KiB (the classic encoder's measure; the newer
// one cuts what it is given into blocks of 64 KiB, so the size of a write
// changes nothing but how often the context is looked at).
const chunk = 1 << 20

// Encode returns body, size bytes, compressed in coding
// (spec.EncodingGzip or spec.EncodingBrotli). gzip's header holds no name,
// no time and no OS ("unknown"): the bytes depend on body alone, not on
// how it is held or read. At most chunk bytes of it are in memory at a
// time. It returns ctx's error soon after ctx is done.
func Encode(ctx context.Context, coding string, body io.Reader, size int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(size/6) + 64)
	var w io.WriteCloser
	switch coding {
	case spec.EncodingGzip:
		zw, err := gzip.NewWriterLevel(&buf, GzipLevel)
		if err != nil {
			return nil, err
		}
		w = zw
	case spec.EncodingBrotli:
		// A new writer for each body, so that no state of another body
		// can change this one's bytes.
		w = brotli.NewWriterV2(&buf, BrotliLevel)
	default:
		return nil, fmt.Errorf("no content coding %q: signpost precompresses in %v", coding, spec.Encodings())
	}
	stage := make([]byte, max(min(size, chunk), 512))
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := io.ReadFull(body, stage)
		if n > 0 {
			if _, err := w.Write(stage[:n]); err != nil {
				return nil, fmt.Errorf("compress in %s: %w", coding, err)
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compress in %s: %w", coding, err)
	}
	return buf.Bytes(), nil
}

// Decode returns data decoded from coding, at most limit bytes of it: a
// test's and a tool's check that a variant is its document.
func Decode(coding string, data []byte, limit int64) ([]byte, error) {
	var r io.Reader
	switch coding {
	case spec.EncodingGzip:
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		r = zr
	case spec.EncodingBrotli:
		r = brotli.NewReader(bytes.NewReader(data))
	default:
		return nil, fmt.Errorf("no content coding %q", coding)
	}
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("decodes to more than %d bytes", limit)
	}
	return out, nil
}
