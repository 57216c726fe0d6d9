package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/signpost-dev/signpost/build"
)

// limitCompileMemory sets a soft memory limit for the rest of a build of
// cat from the heap the loaded catalog holds and the documents Load
// expects the build to make, and returns the function that puts the
// previous limit back. It does nothing when GOMEMLIMIT is set: the user's
// choice stands.
//
// The documents' bytes are on disk (build.Catalog holds them in a spill
// file), but each compiled document keeps its route, key, hashes and parts
// in the heap, about perDocument bytes; and the collector's default pacing
// lets the heap grow to twice what is live before it collects, so a large
// catalog's build would otherwise peak near twice what it needs. The limit
// is what Compile is expected to hold and a quarter more, and never less
// than three times Load's heap (the limit before the documents' bytes went
// to disk), for what a site holds besides its documents, which a build of
// a thousand small sites has a thousand times: the collector runs sooner
// when, and only when, the heap nears it; the runtime keeps the limit soft
// (it never spends more than about half the CPU on collection to hold it).
func limitCompileMemory(cat *build.Catalog) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC() // so that the live heap below is Load's, not an earlier cycle's
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return func() {}
	}
	live := int64(sample[0].Value.Uint64())
	expected := live + perDocument*cat.EstimatedSize().Files
	prev := debug.SetMemoryLimit(max(expected+expected/4, 3*live) + 32<<20)
	return func() { debug.SetMemoryLimit(prev) }
}

// perDocument is about what a compiled document holds in the heap besides
// its bytes, measured on 100,000 generated tools in two sites (464,125
// files: Compile's live heap at its peak was 250 MB more than Load's).
const perDocument = 512

// precompressRoom is what each CPU's compressor allocates of a large
// document at a time (build/compress: brotli's buffers, for matches
// within 2^20 bytes, gzip's, and their output, about 25 MB), with margin.
const precompressRoom = 48 << 20

// roomToPrecompress raises the soft memory limit of limitCompileMemory, if
// one is set, for the variants a build makes after Compile: the compiled
// documents are live then, the limit is near, and without room every few
// megabytes a compressor allocates would cost a collection of them all
// (on 10,000 tools, 380 collections and 10 s of CPU). The room is half the
// live heap (the variants keep about a fifth of what they compress) and
// precompressRoom per CPU. It does nothing when GOMEMLIMIT is set or the
// limit is higher already; the build's limit is put back when it ends.
func roomToPrecompress() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := int64(sample[0].Value.Uint64())
	want := live + live/2 + int64(runtime.GOMAXPROCS(0))*precompressRoom + 32<<20
	if debug.SetMemoryLimit(-1) < want {
		debug.SetMemoryLimit(want)
	}
}
