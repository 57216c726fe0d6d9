// Package check crawls a published site as a discovery client would and
// reports, rule by rule, which requirements of the discovery specs it meets.
//
// Run fetches both discovery catalogs, every server card they point at,
// the tool list and every tool in both views, and a toolId and a view that
// cannot exist, each without and with an Origin header and once more with
// If-None-Match. It replays what the MCP registry's clients send
// (check/registry): VS Code's probe, list, search and lookups, Copilot CLI's
// lookups (a name no registry lists among them) and the preflight of VS
// Code's renderer, the one request that is not a GET, and says what each
// client would see. Each https origin it read from is also offered a TLS 1.0
// and a TLS 1.1 handshake, with the client's dialer and trust, which it
// must refuse (transport.tls-minimum). It applies the rules of Rules, those that read one tool
// document, card or registry document as soon as it arrives (so that its body is let go, and
// the bodies held at once stay within Options.MaxHeldBytes), and returns a
// Report, which writes itself as text or JSON. It works on any origin, whoever
// built the site, so it knows the specs only through build/spec and the
// schemas, never through the code that builds or publishes a site.
package check
