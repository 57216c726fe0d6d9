package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
)

// BenchmarkServe drives the handler behind a real listener on 127.0.0.1
// with concurrent keep-alive clients (b.RunParallel, GOMAXPROCS of them)
// and reports requests per second for one tool document and for the list.
func BenchmarkServe(b *testing.B) {
	_, site := exampleServer(b)
	h, err := NewHandler(b.Context(), site, nil)
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	live := &Live{}
	live.Set(h)
	go func() { done <- serveListener(ctx, ln, live) }()
	defer func() {
		cancel()
		<-done
	}()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	for _, path := range []string{"/tools/get_forecast", "/tools"} {
		b.Run(path, func(b *testing.B) {
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Get(base + path)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
