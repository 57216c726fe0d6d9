// Package netlify lays a build out for Netlify and says what Netlify cannot
// serve of the HTTP contract.
//
// Netlify serves the files of a folder with the headers a _headers file
// sets per path, and rewrites requests as a _redirects file says, matching
// query parameters too. So a site built for Netlify is the normal build's
// folder as it is, each document at its object key, with five files
// beside the documents, all from the route table alone:
//
//   - _redirects rewrites each route and view to its document's key (the
//     compact view by the view=compact query parameter, which must come
//     first: the first rule that matches wins), answers the tool lists' own
//     keys, the error document's and the functions' source with a 404, as
//     the CloudFront functions do (see hosts.DocumentKey), and answers
//     every path that is no file with the JSON error document, status 404.
//     The tools are rewritten by two placeholder rules, one per view
//     (/tools/:id to /tools/:id.json), not forced, so that a tool's own key
//     is served as it is.
//   - _headers puts the CORS headers on every response, and each route's
//     exact Content-Type and Cache-Control on both its route and its key,
//     since a rule may be matched against the path requested or the one a
//     rewrite serves: no path has two rules that set one header. The tools
//     and the tool catalogue's groups, whose number grows with the tools',
//     have one placeholder rule each (/tools/:id, which is one segment:
//     a tool's route and its keys, not /tools), so that both files have
//     the same size for one tool or ten thousand.
//   - netlify/functions/signpost-documents.mjs, a Netlify Function that
//     serves every route with a document whose media type is not
//     application/json (the cards and the AI catalog) with all its headers,
//     the route table's ETag and 304, the preflight and the 405. netlify
//     dev's proxy writes its static server's Content-Type (by extension;
//     application/octet-stream for an unknown one) over that of _headers,
//     so no file name gets those types sent; a function's response is its
//     own there and when deployed. No rule names its routes.
//   - netlify/functions/signpost-not-found.mjs, a Netlify Function at the
//     keys of the tools and groups (/tools/*.json), run only where no file
//     is (preferStatic): the rewrite of a toolId the site does not have
//     lands on it, and it answers the JSON 404. Netlify stops at the first
//     rule that matches, so the catch-all rule never answers a rewrite
//     whose file is missing: Netlify would send its own 404 page, and
//     netlify dev a text/plain 404 (a 200, were the rule forced).
//   - netlify/functions/signpost-registry.mjs, a Netlify Function at
//     /v0.1/servers and below that holds the MCP registry's documents and
//     answers them as signpost serve does, search included, with the
//     registry's script of templates/registry (the Cloudflare Worker's
//     too). No rule names a registry route.
//   - signpost-404.json (ErrorFile), the error document, served with
//     no-store: no dot first, since netlify deploy uploads no such file
//     but .well-known.
//
// Netlify answers preflights and methods other than GET and HEAD itself on
// the other routes, and sends ETags of its own; the report lists the first
// two as gaps.
package netlify
