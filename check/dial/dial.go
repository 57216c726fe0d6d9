// Package dial is how the checker connects where a site or a catalog
// says: the default client of a check (Guarded), which refuses the
// non-public address classes the checked origin does not have itself and
// uses no proxy; the client of a caller that connects where a catalog
// says (NewClient, which live uses for an MCP server's endpoint); curl's
// --resolve (ParseResolve, Open); and the handshakes of TLS 1.0 and 1.1
// that the rule transport.tls-minimum offers an origin, made the way the
// check's client connects (Handshaker).
package dial

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// addressClass names the kind of a non-public address, or "" for a public
// one. A catalog may name any host, and the check runs where a hostile
// catalog should not reach: a CI runner on a company network, next to a
// cloud metadata service. Every range of IANA's special-purpose address
// registries that is not globally reachable is non-public, and so is an
// IPv6 address that embeds a non-public IPv4 one (NAT64, 6to4).
func addressClass(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case a.IsUnspecified():
		return "unspecified"
	}
	for _, r := range specialPurpose {
		if r.prefix.Contains(a) {
			return r.class
		}
	}
	if a.Is6() {
		b := a.As16()
		var v4 netip.Addr
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[12:16]))
		case netip.MustParsePrefix("2002::/16").Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[2:6]))
		}
		if v4.IsValid() {
			return addressClass(v4)
		}
	}
	return ""
}

// specialPurpose are the ranges of IANA's IPv4 and IPv6 special-purpose
// address registries that are not globally reachable, beyond those the
// netip predicates know, with the class a refusal names.
var specialPurpose = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "special-purpose"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "special-purpose"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001::/23"), "special-purpose"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "special-purpose"},
}

// dialGuard refuses connections to non-public addresses, except to those
// of the classes the checked origin itself has.
type dialGuard struct {
	allowed map[string]bool
	// hint ends a refusal: how to allow the address.
	hint string
}

// control is the net.Dialer Control of the check's client: it runs once the
// address is resolved and before any packet is sent.
func (g *dialGuard) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	if class := addressClass(a); class != "" && !g.allowed[class] {
		return fmt.Errorf("refused to connect to %s: a %s address%s", host, class, g.hint)
	}
	return nil
}

// Guarded is the default client of check.Run: the default transport, with
// a dialer that refuses the address classes the origin host does not have,
// and no proxy: through a proxy the guard would see the proxy's address,
// not the one a catalog names. The origin's host is resolved to learn its
// classes (resolve, as Options.Resolve, answers first).
func Guarded(ctx context.Context, host string, resolve map[string]string) *http.Client {
	g := &dialGuard{allowed: map[string]bool{}, hint: ", and the checked origin is not one (Options.AllowPrivate allows it)"}
	var addrs []netip.Addr
	for hostPort, to := range resolve {
		if h, _, err := net.SplitHostPort(hostPort); err == nil && strings.EqualFold(h, host) {
			if a, err := netip.ParseAddr(to); err == nil {
				addrs = append(addrs, a)
			}
		}
	}
	if len(addrs) == 0 {
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
		} else if ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host); err == nil {
			addrs = ips
		}
	}
	for _, a := range addrs {
		if class := addressClass(a); class != "" {
			g.allowed[class] = true
		}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	// Each request is bounded by Options.Timeout, dialing included.
	d := &net.Dialer{Control: g.control}
	t.DialContext = resolving(d.DialContext, resolve)
	return &http.Client{Transport: t}
}

// NewClient is an HTTP client under the address rule of check.Run's default
// client, for a caller outside the crawl that connects where a catalog
// says (an MCP server's endpoint): it refuses every non-public address (see
// addressClass), the URL's own host's included, and uses no proxy, unless
// allowPrivate, which gives the default transport, proxy included. It
// follows redirects as net/http does: a caller that must not sets
// CheckRedirect.
func NewClient(allowPrivate bool) *http.Client {
	if allowPrivate {
		return Open(nil)
	}
	g := &dialGuard{allowed: map[string]bool{}, hint: ": a catalog may name any host, and a non-public one is reached only when allowed (AllowPrivate)"}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	d := &net.Dialer{Control: g.control}
	t.DialContext = d.DialContext
	return &http.Client{Transport: t}
}

// Open is the client of check.Run with Options.AllowPrivate: the default
// transport, proxy included, with Options.Resolve.
func Open(resolve map[string]string) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	var d net.Dialer
	t.DialContext = resolving(d.DialContext, resolve)
	return &http.Client{Transport: t}
}

// dialFunc is the DialContext of a transport.
type dialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// resolving dials a "host:port" of resolve at the address it names, on the
// same port, as curl's --resolve does; every other address as dial does.
func resolving(dial dialFunc, resolve map[string]string) dialFunc {
	if len(resolve) == 0 {
		return dial
	}
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		if to, ok := resolve[strings.ToLower(address)]; ok {
			_, port, _ := net.SplitHostPort(address)
			address = net.JoinHostPort(to, port)
		}
		return dial(ctx, network, address)
	}
}

// ParseResolve reads entries of the form HOST:PORT:ADDRESS (curl's
// --resolve; an IPv6 address may be bracketed) into the map of
// check.Options.Resolve.
func ParseResolve(entries []string) (map[string]string, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, e := range entries {
		host, rest, ok := strings.Cut(e, ":")
		port, addr, ok2 := strings.Cut(rest, ":")
		addr = strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]")
		if !ok || !ok2 || host == "" {
			return nil, fmt.Errorf("resolve %q: want HOST:PORT:ADDRESS, such as example.com:443:127.0.0.1", e)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("resolve %q: the port %q is not a number from 1 to 65535", e, port)
		}
		a, err := netip.ParseAddr(addr)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("resolve %q: %q is not an IP address", e, addr)
		}
		m[strings.ToLower(net.JoinHostPort(host, port))] = a.String()
	}
	return m, nil
}
