// Package cloudflare lays a build out for Cloudflare, as a Worker with
// static assets per site, and says what Cloudflare cannot serve of the HTTP
// contract.
//
// Each site's folder (public/, or tenants/ID/ for each tenant, each its
// own Worker at its own origin) is deployable as it is with wrangler
// deploy: wrangler.jsonc names the Worker, its fixed compatibility date and
// the assets folder; assets/ holds the documents at their object keys and
// the headers manifest, written from the route table; worker.js, from the
// template in templates/cloudflare, runs first on every request. The
// Worker's code names no document, so its size is the same for any
// catalog: it refuses paths that cannot be a document's (a "." or ".."
// segment, signpost's own .signpost-* names), looks the path and view up in
// the manifest, answers preflights, other methods, unknown paths and
// If-None-Match itself, and serves every asset with the Content-Type,
// Cache-Control and ETag of the route table and the CORS headers of
// build/spec, errors included: a document's precompressed variant, beside
// it in assets/, when the client prefers its coding, sent as it is. The MCP registry's paths it answers as
// signpost serve does, with the registry's script (templates/registry,
// which Netlify's registry function includes too) and the index of the
// registry's list in the manifest, search included.
//
// A Worker can do everything the contract asks, so a site's gaps are only
// those of Cloudflare's limits on assets; the zone settings a deployment
// needs (its minimum TLS version) are in the report's notes.
package cloudflare
