package spec

import (
	"strconv"
	"strings"
)

// Content codings of a document's precompressed variants: the same bytes,
// compressed once by the build, served with Content-Encoding to a client
// whose Accept-Encoding allows them.
const (
	EncodingGzip   = "gzip"
	EncodingBrotli = "br"
)

// Encodings are the content codings a build precompresses, in the order a
// host prefers them when a request accepts both: brotli, then gzip.
func Encodings() []string { return []string{EncodingBrotli, EncodingGzip} }

// VariantKey returns the object key of the variant in coding of the
// document at key: the key with ".br" or ".gz" appended.
func VariantKey(key, coding string) string {
	if coding == EncodingGzip {
		return key + ".gz"
	}
	return key + "." + coding
}

// VariantETag returns the ETag of a variant in coding whose bytes have the
// SHA-256 sum (hex): another representation, another strong validator,
// made of its own bytes as a document's is of its own (the first 32 hex
// digits), with "-" and the coding inside its quotes ("…-gzip"). Not of
// the document's: the same document compressed by another encoder is
// other bytes, which must not share a strong ETag.
func VariantETag(sum, coding string) string {
	return `"` + sum[:min(len(sum), 32)] + "-" + coding + `"`
}

// AlwaysPrecompressed reports whether the document at route has its
// variants, whatever its size, in a build for a host that serves them: the
// tool list, the tool catalogue and its groups, the two discovery catalogs
// and the registry's list. These are the documents that grow with the
// catalog, a fixed number per site (and one per group), and the only ones
// with variants: an edge that cannot know a document's size (a CloudFront
// Function) picks their variants by route alone, and compresses every other
// document itself, as Cloudflare's does.
func AlwaysPrecompressed(route string) bool {
	switch route {
	case RouteTools, RouteToolCatalogue, RouteMCPCatalog, RouteAICatalog, RouteRegistry:
		return true
	}
	_, group := GroupKeyOf(route)
	return group
}

// AcceptsEncoding reports whether the values of a request's
// Accept-Encoding allow coding: named, or "*", with a q-value above zero.
func AcceptsEncoding(values []string, coding string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.TrimSpace(name)
			if !strings.EqualFold(name, coding) && name != "*" {
				continue
			}
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}
