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

// BrotliQuality is the brotli quality of a variant. On the tool list of
// 10,000 generated tools, 7 takes as long as gzip's best compression and
// makes 8% fewer bytes; 5 makes more bytes than gzip, and 9 and up take
// several times as long for 1–2% less.
const BrotliQuality = 7

// chunk is how much of a body is compressed between two looks at the
// context: a few milliseconds' work.
const chunk = 256 << 10

// Encode returns body, the concatenation of parts, compressed in coding
// (spec.EncodingGzip or spec.EncodingBrotli). gzip is at its best
// compression, with a header that holds no name, no time and no OS
// ("unknown"): the bytes depend on body alone. The parts are never joined.
// It returns ctx's error soon after ctx is done.
func Encode(ctx context.Context, coding string, parts ...[]byte) ([]byte, error) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	var buf bytes.Buffer
	buf.Grow(n/8 + 64)
	var w io.WriteCloser
	switch coding {
	case spec.EncodingGzip:
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return nil, err
		}
		w = zw
	case spec.EncodingBrotli:
		w = brotli.NewWriterLevel(&buf, BrotliQuality)
	default:
		return nil, fmt.Errorf("no content coding %q: signpost precompresses in %v", coding, spec.Encodings())
	}
	for _, p := range parts {
		for rest := p; len(rest) > 0; rest = rest[min(len(rest), chunk):] {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if _, err := w.Write(rest[:min(len(rest), chunk)]); err != nil {
				return nil, fmt.Errorf("compress in %s: %w", coding, err)
			}
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
