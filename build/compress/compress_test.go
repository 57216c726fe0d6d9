package compress

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/signpost-dev/signpost/build/spec"
)

// A variant decodes to its body, and the same body makes the same bytes:
// gzip's header holds no time, name or OS.
func TestEncodeDeterministic(t *testing.T) {
	body := bytes.Repeat([]byte(`{"toolId":"get_weather","description":"Get the weather."},`), 5000)
	for _, coding := range spec.Encodings() {
		a, err := Encode(context.Background(), coding, bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Encode(context.Background(), coding, bytes.NewReader(body), int64(len(body)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two encodings of the same body differ", coding)
		}
		if len(a) >= len(body)/10 {
			t.Errorf("%s: %d bytes of %d", coding, len(a), len(body))
		}
		got, err := Decode(coding, a, int64(len(body)))
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: decodes to %d bytes (%v), want the body's %d", coding, len(got), err, len(body))
		}
		if _, err := Decode(coding, a, int64(len(body)-1)); err == nil {
			t.Errorf("%s: decoding past the limit did not fail", coding)
		}
	}
	gz, _ := Encode(context.Background(), spec.EncodingGzip, bytes.NewReader(body), int64(len(body)))
	// ID1 ID2 CM FLG, MTIME (4 bytes of zero), XFL 0 (level 6), OS 255.
	if want := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}; !bytes.Equal(gz[:10], want) {
		t.Errorf("gzip header % x; want % x", gz[:10], want)
	}
}

// The bytes of a body depend on the body alone, not on how it is cut into
// parts or read: a list's parts are its descriptors, of any size.
func TestEncodeParts(t *testing.T) {
	var body []byte
	for i := 0; len(body) < 3*chunk+12345; i++ {
		body = fmt.Appendf(body, `{"toolId":"tool_%d","description":"Tool number %d of the list."},`, i, i*7919%100003)
	}
	cuts := [][][]byte{
		{body},
		{body[:1], body[1 : chunk+1], body[chunk+1:]},
		{body[:chunk-3], body[chunk-3 : 2*chunk+9], nil, body[2*chunk+9:]},
	}
	var small [][]byte
	for rest := body; len(rest) > 0; rest = rest[min(len(rest), 1777):] {
		small = append(small, rest[:min(len(rest), 1777)])
	}
	cuts = append(cuts, small)
	for _, coding := range spec.Encodings() {
		want, err := Encode(context.Background(), coding, bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatal(err)
		}
		for i, parts := range cuts[1:] {
			got, err := Encode(context.Background(), coding, partsReader(parts), int64(len(body)))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, cut %d: %d bytes (%v), want the %d of the body whole", coding, i+1, len(got), err, len(want))
			}
		}
	}
}

func TestEncodeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Encode(ctx, spec.EncodingGzip, bytes.NewReader(make([]byte, 1<<20)), 1<<20); err != context.Canceled {
		t.Errorf("err %v; want context.Canceled", err)
	}
	if _, err := Encode(context.Background(), "zstd", bytes.NewReader(nil), 0); err == nil {
		t.Error("an unknown coding encoded")
	}
}

// partsReader reads parts one after the other, each in reads of half what
// is asked.
func partsReader(parts [][]byte) io.Reader {
	rs := make([]io.Reader, len(parts))
	for i, p := range parts {
		rs[i] = iotest.HalfReader(bytes.NewReader(p))
	}
	return io.MultiReader(rs...)
}
