package main

import (
	"net"
	"sync"
	"time"
)

// delay is a proxy on 127.0.0.1 in front of a server there that holds
// every chunk of bytes for half a round trip in each direction: the server
// as if it were rtt away, with no limit on bandwidth. A publish's figures
// through it show what its uploads in flight do against the wait of a real
// link, which a server on the same machine hides.
type delay struct {
	listener net.Listener
	target   string
	half     time.Duration

	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

// startDelay starts a proxy in front of target (host:port on 127.0.0.1)
// that adds rtt to every round trip.
func startDelay(target string, rtt time.Duration) (*delay, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &delay{listener: l, target: target, half: rtt / 2, conns: map[net.Conn]bool{}}
	d.wg.Go(d.serve)
	return d, nil
}

// Addr is the proxy's host:port.
func (d *delay) Addr() string { return d.listener.Addr().String() }

// Close stops the proxy and closes every connection through it.
func (d *delay) Close() {
	d.mu.Lock()
	d.closed = true
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.listener.Close()
	d.wg.Wait()
}

// track records c, or closes it when the proxy is closing; it reports
// whether c was recorded.
func (d *delay) track(c net.Conn) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		c.Close()
		return false
	}
	d.conns[c] = true
	return true
}

// untrack forgets c, closed.
func (d *delay) untrack(c net.Conn) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

func (d *delay) serve() {
	for {
		c, err := d.listener.Accept()
		if err != nil {
			return // closed
		}
		if !d.track(c) {
			continue // closing: the listener's next Accept fails
		}
		d.wg.Go(func() {
			up, err := net.DialTimeout("tcp", d.target, 10*time.Second)
			if err != nil {
				c.Close()
				return
			}
			if !d.track(up) {
				c.Close()
				return
			}
			var pair sync.WaitGroup
			pair.Go(func() { d.pipe(up, c) })
			d.pipe(c, up)
			pair.Wait()
		})
	}
}

// chunk is bytes read from one side, due on the other at a time.
type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies src to dst, each chunk half a round trip after it was read,
// and closes both when either side ends.
func (d *delay) pipe(dst, src net.Conn) {
	chunks := make(chan chunk, 256)
	var written sync.WaitGroup
	written.Go(func() {
		for c := range chunks {
			time.Sleep(time.Until(c.due))
			if _, err := dst.Write(c.b); err != nil {
				break
			}
		}
		for range chunks { // drain after a failed write
		}
	})
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			chunks <- chunk{append([]byte(nil), buf[:n]...), time.Now().Add(d.half)}
		}
		if err != nil {
			break
		}
	}
	close(chunks)
	written.Wait()
	dst.Close()
	src.Close()
	d.untrack(dst)
	d.untrack(src)
}
