package output

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"slices"

	"github.com/signpost-dev/signpost/build/compress"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/spec"
	"golang.org/x/sync/errgroup"
)

// Precompress gives the documents that grow with the catalog their
// variants, one per coding of spec.Encodings: those of the routes that
// spec.AlwaysPrecompressed names, whatever their size, and no other. This
// is the one rule of which documents have variants: hosts and serve serve
// what it made. A build for a host that serves them has them
// (hosts.VariantServer: S3 behind CloudFront, whose viewer-request
// function picks them by route alone, and Cloudflare's Worker), and so
// does a publish; a build for any other host, or for none, has none: its
// host compresses every document on its own, as CloudFront and Cloudflare
// do the others (and signpost serve compresses at start what has none). A
// body that several sites share is compressed once. The work is spread
// over every CPU, the largest documents first; Precompress returns ctx's
// error soon after ctx is done.
func (b *Build) Precompress(ctx context.Context) error {
	type job struct {
		sum    string
		coding string
		size   int64
		body   content.Body
	}
	var jobs []job
	queued := map[string]bool{} // bodies, each compressed once
	for _, s := range b.Sites {
		for _, d := range s.Documents {
			if !spec.AlwaysPrecompressed(d.Route.Route) {
				continue
			}
			if queued[d.SHA256] {
				continue
			}
			queued[d.SHA256] = true
			for _, coding := range spec.Encodings() {
				jobs = append(jobs, job{d.SHA256, coding, d.Size, d.Body})
			}
		}
	}
	slices.SortStableFunc(jobs, func(x, y job) int { return cmp.Compare(y.size, x.size) })
	encoded := make([][]byte, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		g.Go(func() error {
			var err error
			encoded[i], err = compress.Encode(gctx, j.coding, j.body.Reader(), j.size)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	type variant struct {
		v    Variant
		body []byte
	}
	made := make(map[[2]string]variant, len(jobs))
	for i, j := range jobs {
		sum := sha256.Sum256(encoded[i])
		made[[2]string{j.sum, j.coding}] = variant{Variant{Encoding: j.coding, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(encoded[i]))}, encoded[i]}
	}
	for _, s := range b.Sites {
		for i := range s.Documents {
			d := &s.Documents[i]
			if !spec.AlwaysPrecompressed(d.Route.Route) {
				d.Variants, d.Encoded = nil, nil
				continue
			}
			d.Variants, d.Encoded = make([]Variant, 0, len(spec.Encodings())), make([][]byte, 0, len(spec.Encodings()))
			for _, coding := range spec.Encodings() {
				m := made[[2]string{d.SHA256, coding}]
				m.v.Key, m.v.ETag = spec.VariantKey(d.Key, coding), spec.VariantETag(m.v.SHA256, coding)
				d.Variants = append(d.Variants, m.v)
				d.Encoded = append(d.Encoded, m.body)
			}
		}
	}
	return nil
}

// WithoutVariants returns the build with no document's variants: the
// layout of a host that compresses on its own and cannot serve them. b is
// left as it is.
func (b *Build) WithoutVariants() *Build {
	out := &Build{Files: b.Files, Limits: b.Limits}
	for _, s := range b.Sites {
		c := *s
		c.Documents = slices.Clone(s.Documents)
		for i := range c.Documents {
			c.Documents[i].Variants, c.Documents[i].Encoded = nil, nil
		}
		out.Sites = append(out.Sites, &c)
	}
	return out
}
