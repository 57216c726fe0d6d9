package spec

import "strings"

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
// Accept-Encoding allow coding, as RFC 9110 (section 12.5.3) reads them: an
// element naming it with a q-value above zero allows it, one with q=0
// refuses it, and "*" speaks only for the codings no element names. An
// element the RFC's grammar does not allow (a q-value such as "abc", "2"
// or "0.0001", another parameter) says nothing. The viewer-request
// CloudFront Function applies the same rule.
func AcceptsEncoding(values []string, coding string) bool {
	var named, allowed, star bool
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			name, positive, ok := acceptElement(part)
			switch {
			case !ok:
			case strings.EqualFold(name, coding):
				named = true
				allowed = allowed || positive
			case name == "*":
				star = star || positive
			}
		}
	}
	if named {
		return allowed
	}
	return star
}

// acceptElement reads one element of Accept-Encoding: a coding, then
// optionally ";q=" and a q-value. It returns the coding and whether its
// q-value is above zero (no q-value is 1), and false for an element the
// grammar does not allow or an empty one.
func acceptElement(s string) (coding string, positive, ok bool) {
	coding, param, hasParam := strings.Cut(s, ";")
	if coding = strings.TrimSpace(coding); coding == "" {
		return "", false, false
	}
	if !hasParam {
		return coding, true, true
	}
	name, q, ok := strings.Cut(strings.TrimSpace(param), "=")
	if !ok || !strings.EqualFold(name, "q") {
		return "", false, false
	}
	positive, ok = qvalue(q)
	return coding, positive, ok
}

// qvalue reads a q-value as the RFC writes one: "0" or "1", then
// optionally a point and up to three digits, none but zeros after a 1. It
// returns whether the value is above zero, and false for any other text.
func qvalue(s string) (positive, ok bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		return false, false
	}
	for _, c := range frac {
		if c < '0' || c > '9' || (whole == "1" && c != '0') {
			return false, false
		}
		positive = positive || c != '0'
	}
	switch whole {
	case "0":
		return positive, true
	case "1":
		return true, true
	}
	return false, false
}
