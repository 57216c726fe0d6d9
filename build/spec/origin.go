package spec

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// IsLoopbackHost reports whether host, a URL's host name without port or
// brackets, always names this machine: localhost and the names below it
// (RFC 6761), in any case, and the addresses 127.0.0.0/8 and ::1. These are
// the only hosts that may be served over plain http.
func IsLoopbackHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Redact returns raw, a URL as an author wrote it, fit to repeat in a
// message: user information (user:password@), which is a credential, is
// replaced by "…@". Anything that does not look like a URL with user
// information is returned as it is.
func Redact(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return raw
	}
	return scheme + "://…@" + rest[at+1:]
}

// ParseOrigin parses a site origin: a scheme and a host (and port) only,
// https, or plain http for a loopback host (see IsLoopbackHost). The error
// says what is wrong in words fit for the author of the origin.
func ParseOrigin(origin string) (*url.URL, error) { return parseBase("origin", origin) }

// ParseEndpoint parses the endpoint of S3-compatible storage by the rule of
// ParseOrigin; its errors call it an endpoint.
func ParseEndpoint(endpoint string) (*url.URL, error) { return parseBase("endpoint", endpoint) }

// parseBase applies ParseOrigin's rule to origin, named what in errors.
func parseBase(what, origin string) (*url.URL, error) {
	if !strings.Contains(origin, "://") {
		// A host written without its scheme, the most common slip.
		if u, err := url.Parse("https://" + origin); err == nil && u.Host != "" && u.User == nil && (u.Path == "" || u.Path == "/") && u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" {
			return nil, fmt.Errorf("%s %q must be an absolute https %s such as https://%s (a scheme is missing)", what, origin, what, u.Host)
		}
	}
	u, err := url.Parse(origin)
	origin = Redact(origin) // from here on, only for messages
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%s %q is not a URL like https://example.com", what, origin)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, fmt.Errorf("%s %q must be scheme and host only, like https://example.com", what, origin)
	}
	switch u.Scheme {
	case "https":
		return u, nil
	case "http":
		if IsLoopbackHost(u.Hostname()) {
			return u, nil
		}
		return nil, fmt.Errorf("%s %q must use https: plain http is only for loopback hosts", what, origin)
	}
	return nil, fmt.Errorf("%s %q must use https", what, origin)
}
