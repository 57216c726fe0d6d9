package main

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// TestDelay sends bytes through the proxy to an echo server and back: they
// arrive whole, a round trip later at the earliest, and Close returns with
// a connection still open.
func TestDelay(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	const rtt = 60 * time.Millisecond
	d, err := startDelay(l.Addr().String(), rtt)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", d.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	want := bytes.Repeat([]byte("signpost "), 30_000) // several chunks
	start := time.Now()
	go c.Write(want)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < rtt {
		t.Errorf("the bytes came back in %v, under the round trip of %v", took, rtt)
	}
	if !bytes.Equal(got, want) {
		t.Error("the bytes came back changed")
	}
	closed := make(chan struct{})
	go func() { d.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return with a connection open")
	}
}
