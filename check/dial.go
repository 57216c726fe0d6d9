package check

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
)

// addressClass names the kind of a non-public address, or "" for a public
// one. A catalog may name any host, and the check runs where a hostile
// catalog should not reach: a CI runner on a company network, next to a
// cloud metadata service.
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
	return ""
}

// dialGuard refuses connections to non-public addresses, except to those
// of the classes the checked origin itself has.
type dialGuard struct {
	allowed map[string]bool
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
		return fmt.Errorf("refused to connect to %s: a %s address, and the checked origin is not one (Options.AllowPrivate allows it)", host, class)
	}
	return nil
}

// guardedClient is the default client of Run: the default transport, with
// a dialer that refuses the address classes the origin host does not have.
// The origin's host is resolved to learn its classes.
func guardedClient(ctx context.Context, host string) *http.Client {
	g := &dialGuard{allowed: map[string]bool{}}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host); err == nil {
		addrs = ips
	}
	for _, a := range addrs {
		if class := addressClass(a); class != "" {
			g.allowed[class] = true
		}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Each request is bounded by Options.Timeout, dialing included.
	d := &net.Dialer{Control: g.control}
	t.DialContext = d.DialContext
	return &http.Client{Transport: t}
}
