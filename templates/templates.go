// Package templates holds the text signpost writes out for its users: the
// CloudFront Functions that route the HTTP contract to S3 objects
// (cloudfront/, embedded) and the GitHub Pages workflow (github/). The
// starter catalog of signpost init and the other CI workflows will live here
// too.
package templates

import "embed"

// CloudFront holds cloudfront/viewer-request.js.tmpl and
// cloudfront/viewer-response.js.tmpl, text/template sources of the
// cloudfront-js-2.0 functions.
//
//go:embed cloudfront/*.js.tmpl
var CloudFront embed.FS
