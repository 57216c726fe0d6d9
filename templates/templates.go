// Package templates holds the text signpost writes out for its users,
// embedded so that the binary is all a team needs: the CloudFront Functions
// that route the HTTP contract to S3 objects (cloudfront/), and later the
// starter catalog, CI workflows and host configurations.
package templates

import "embed"

// CloudFront holds cloudfront/viewer-request.js.tmpl and
// cloudfront/viewer-response.js.tmpl, text/template sources of the
// cloudfront-js-2.0 functions.
//
//go:embed cloudfront/*.js.tmpl
var CloudFront embed.FS
