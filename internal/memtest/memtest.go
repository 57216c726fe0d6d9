// Package memtest measures memory for benchmarks and tests: the peak of
// the live heap while a function runs, which a budget in bytes is held to.
package memtest

import (
	"runtime/metrics"
	"sync"
	"time"
)

// PeakHeap samples the live heap every millisecond while f runs and
// returns its peak in bytes.
func PeakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var mu sync.Mutex
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			mu.Lock()
			peak = max(peak, sample[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak
}
