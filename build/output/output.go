// Package output is the format of a build: the documents of each site,
// with the route, object key and headers each is served with, and the
// build output folder that holds them, written whole with its route table
// (Build.Write) and read back verified (Open). Serving and publishing need
// nothing else from a build.
package output

import (
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/gate"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/atomicfile"
)

// Route is one entry of the route table: a logical route of the HTTP
// contract, the object that answers it, and the headers it is served with.
type Route struct {
	Route        string `json:"route"`
	View         string `json:"view"`
	Key          string `json:"key"`
	ContentType  string `json:"contentType"`
	CacheControl string `json:"cacheControl"`
	ETag         string `json:"etag"`
	SHA256       string `json:"sha256"`
	Size         int64  `json:"size"`
	// Variants are the object precompressed (see Build.Precompress), in
	// the order of spec.Encodings; none but for the documents of
	// spec.AlwaysPrecompressed in a build for a host that serves them.
	Variants []Variant `json:"variants,omitempty"`
	// Encoding is the content coding of the object at Key: empty for a
	// document itself, set on a variant made a document of its own
	// (Document.Objects) for a host that stores each object alone.
	Encoding string `json:"-"`
}

// Variant is a document's object in one content coding: served with
// Content-Encoding to a client whose Accept-Encoding allows it, with a
// strong ETag of its own (spec.VariantETag).
type Variant struct {
	Encoding string `json:"encoding"`
	Key      string `json:"key"`
	ETag     string `json:"etag"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size"`
}

// Document is one file of a built site.
type Document struct {
	Route
	Body content.Body
	// Encoded are the bodies of Route.Variants, in their order.
	Encoded [][]byte
}

// Objects returns the document and its variants, each as a document of its
// own: a variant's route, view, Content-Type and Cache-Control are the
// document's, its key, ETag, SHA-256 and size its own, and Encoding says
// its coding. What an object store holds of the document.
func (d *Document) Objects() []Document {
	out := []Document{*d}
	out[0].Variants, out[0].Encoded = nil, nil
	for i, v := range d.Variants {
		if i >= len(d.Encoded) {
			break
		}
		r := d.Route
		r.Key, r.ETag, r.SHA256, r.Size, r.Variants, r.Encoding = v.Key, v.ETag, v.SHA256, v.Size, nil, v.Encoding
		out = append(out, Document{Route: r, Body: content.New(d.Encoded[i])})
	}
	return out
}

// Variant returns the document's variant in coding and its body, and false
// when it has none.
func (d *Document) Variant(coding string) (Variant, []byte, bool) {
	for i, v := range d.Variants {
		if v.Encoding == coding && i < len(d.Encoded) {
			return v, d.Encoded[i], true
		}
	}
	return Variant{}, nil, false
}

// Site is the complete site of one tenant, or of the catalog when it
// declares no tenants.
type Site struct {
	Tenant string
	// Dir is the site's folder inside the build output (SiteDir).
	Dir string
	// Origin is the origin the site's documents name.
	Origin string
	// Access is who may read the site: everyone, or only the holders of a
	// token for its tenant.
	Access gate.Access
	// Documents are sorted by route, then view.
	Documents []Document
	// Tools counts the tools the site publishes.
	Tools int
	// Tokens are the measured token costs of the site's tools, summed: the
	// tokens of its lists' entries (zero for a site read back by Open).
	Tokens Tokens
}

// SiteDir is the folder of tenant's site in a build: tenants/ID, or
// public for the one site of a catalog without tenants.
func SiteDir(tenant string) string {
	if tenant == "" {
		return "public"
	}
	return "tenants/" + tenant
}

// Build is a compiled catalog: one site of documents per tenant and the
// files beside them, as build.Compile makes it and Open reads it back.
type Build struct {
	Sites []*Site
	// Files are written beside the sites and the route table, never
	// published as documents: the CloudFront Functions of an S3 target.
	Files []File
	// Limits bound every file Write writes. A host's layout of the build
	// keeps them.
	Limits Limits
}

// File is a file of the build output outside the sites: its Path is
// slash-separated and relative to the output folder.
type File = atomicfile.File

// SortDocuments orders documents by route, then view, as a Site holds them.
func SortDocuments(docs []Document) {
	slices.SortFunc(docs, func(a, b Document) int {
		if c := strings.Compare(a.Route.Route, b.Route.Route); c != 0 {
			return c
		}
		return strings.Compare(a.View, b.View)
	})
}

// NewDocument makes the document that answers route in view, with its
// size, SHA-256 and ETag. Its object key is the route without its leading
// slash, except for the tool catalog, whose keys spec.ToolKey and
// spec.ListKey choose, and the registry, whose keys spec.RegistryKey
// chooses. Its error is one of reading body back from its spill file.
func NewDocument(route, view, contentType string, body content.Body) (Document, error) {
	hexSum, err := body.SHA256()
	if err != nil {
		return Document{}, fmt.Errorf("hash %s: %w", spec.Request(route, view), err)
	}
	return Document{
		Route: Route{
			Route:        route,
			View:         view,
			Key:          keyOf(route, view),
			ContentType:  contentType,
			CacheControl: spec.CacheControl,
			ETag:         `"` + hexSum[:32] + `"`,
			SHA256:       hexSum,
			Size:         body.Len(),
		},
		Body: body,
	}, nil
}

// Documents collects the documents a step makes one at a time, and the
// first error of making one (reading a body back from its spill file):
// each document is one call, its error looked at once, at the end.
type Documents struct {
	List []Document
	Err  error
}

// Add makes the document of route in view (NewDocument) and adds it to
// List, unless making one before it failed.
func (d *Documents) Add(route, view, contentType string, body content.Body) {
	if d.Err != nil {
		return
	}
	doc, err := NewDocument(route, view, contentType, body)
	if err != nil {
		d.Err = err
		return
	}
	d.List = append(d.List, doc)
}

// keyOf is the object key of the document of route in view (see
// NewDocument).
func keyOf(route, view string) string {
	if route == spec.RouteTools {
		return spec.ListKey(view)
	}
	if spec.IsRegistryRoute(route) {
		if k, ok := spec.RegistryKey(route); ok {
			return k
		}
	}
	if id, ok := spec.ToolIDOf(route); ok {
		return spec.ToolKey(id, view)
	}
	return strings.TrimPrefix(route, "/")
}

// EntrySize is RouteEntrySize of the document NewDocument makes of route in
// view, with contentType and a body of size bytes: a line of the route
// table counted before the body is made.
func EntrySize(route, view, contentType string, size int64) int64 {
	return RouteEntrySize(Route{Route: route, View: view, Key: keyOf(route, view), ContentType: contentType,
		CacheControl: spec.CacheControl, ETag: etagShape, SHA256: sha256Shape, Size: size})
}

// An ETag and a SHA-256 as the route table writes them: hexadecimal digits
// of a fixed length, which JSON never escapes.
const (
	sha256Shape = "0000000000000000000000000000000000000000000000000000000000000000"
	etagShape   = `"` + "00000000000000000000000000000000" + `"`
)

// Bytes counts the bytes of the site's documents of one route and view.
func (s *Site) Bytes(route, view string) int64 {
	for _, d := range s.Documents {
		if d.Route.Route == route && d.View == view {
			return d.Size
		}
	}
	return 0
}

// Link is the Link header every document response of the site carries,
// spec.DiscoveryLink, when the site publishes an ARD manifest
// (spec.RouteARD) beside its AI catalog; "" otherwise. It is read from
// the documents, so a site read back by Open has it too.
func (s *Site) Link() string {
	var ard, ai bool
	for _, d := range s.Documents {
		ard = ard || d.Route.Route == spec.RouteARD
		ai = ai || d.Route.Route == spec.RouteAICatalog
	}
	if ard && ai {
		return spec.DiscoveryLink
	}
	return ""
}

// Tokens are the measured token costs of a tool's descriptors, in
// tokens.Encoding.
type Tokens struct {
	Standard int `json:"standard"`
	Compact  int `json:"compact,omitempty"`
}
