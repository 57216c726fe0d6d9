// Package templates holds the text signpost writes out for its users: the
// CloudFront Functions that route the HTTP contract to S3 objects
// (cloudfront/), the Cloudflare Worker that serves it from static assets
// (cloudflare/), the Netlify Functions of a site built for Netlify
// (netlify/), the script of the MCP registry that the last two include
// (registry/), and the starter catalog repository of signpost init with
// its GitHub Actions workflow, which publishes to S3, GitHub Pages,
// Cloudflare or Netlify (init/; files named github/ and gitignore there
// are written as .github/ and .gitignore, since embedding skips
// dot-names). aws/ is documentation: a CloudFormation example of S3
// behind CloudFront, not embedded.
package templates

import "embed"

// CloudFront holds cloudfront/viewer-request.js.tmpl and
// cloudfront/viewer-response.js.tmpl, text/template sources of the
// cloudfront-js-2.0 functions.
//
//go:embed cloudfront/*.js.tmpl
var CloudFront embed.FS

// Cloudflare holds cloudflare/worker.js.tmpl, the text/template source of
// the Worker of a site built for Cloudflare.
//
//go:embed cloudflare/*.js.tmpl
var Cloudflare embed.FS

// Netlify holds netlify/documents.mjs.tmpl, the text/template source of the
// Netlify Function that serves a site's documents whose media type is not
// application/json.
//
//go:embed netlify/*.mjs.tmpl
var Netlify embed.FS

// Registry holds registry/registry.js.tmpl, the text/template source of
// the MCP registry's routes at an edge: a template "registry.js.tmpl"
// that the Cloudflare Worker and the Netlify Function of the registry
// both include, so that one script answers the registry on every host
// that runs code.
//
//go:embed registry/*.js.tmpl
var Registry embed.FS

// Init holds the starter catalog repository that signpost init writes, as
// text/template sources under init/: each file's path below init/, without
// .tmpl, is where it goes in the new repository, except that github/ is
// written as .github/ (embed leaves out names that start with a dot). The
// templates use the delimiters <% and %>, since GitHub Actions expressions
// already use {{ }}.
//
//go:embed init
var Init embed.FS
