package output_test

import (
	"testing"

	"github.com/signpost-dev/signpost/build/compress"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/buildtest"
)

// TestPrecompressChoosesByRoute checks which documents Precompress gives
// variants: every document of spec.AlwaysPrecompressed, however small,
// each variant decoding to its document; no other, however large, since
// no host sends another document's variant (CloudFront's function picks
// them by route alone, and each is an asset of Cloudflare's Worker).
func TestPrecompressChoosesByRoute(t *testing.T) {
	b := buildtest.Example(t)
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	var always, others int
	var largest int64 // of the other documents
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			if !spec.AlwaysPrecompressed(d.Route.Route) {
				others++
				largest = max(largest, d.Size)
				if len(d.Variants) != 0 || len(d.Encoded) != 0 {
					t.Errorf("%s?view=%s (%d bytes) has %d variants, want none", d.Route.Route, d.View, d.Size, len(d.Variants))
				}
				continue
			}
			always++
			if len(d.Variants) != len(spec.Encodings()) || len(d.Encoded) != len(d.Variants) {
				t.Errorf("%s?view=%s (%d bytes) has %d variants, want %d", d.Route.Route, d.View, d.Size, len(d.Variants), len(spec.Encodings()))
				continue
			}
			for i, v := range d.Variants {
				got, err := compress.Decode(v.Encoding, d.Encoded[i], d.Size)
				if err != nil || !content.New(got).Equal(d.Body) {
					t.Errorf("%s: its %s variant does not decode to the document (%v)", d.Route.Route, v.Encoding, err)
				}
			}
		}
	}
	// The example has documents of both kinds, and other documents larger
	// than the 4 KiB from which a build once precompressed any document.
	if always == 0 || others == 0 || largest < 4<<10 {
		t.Fatalf("the example has %d documents with variants and %d without, the largest of them %d bytes: want some of each, one over 4 KiB", always, others, largest)
	}
}
