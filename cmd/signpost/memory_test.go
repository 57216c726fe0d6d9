package main

import (
	"context"
	"math"
	"runtime/debug"
	"testing"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/internal/catalogtest"
)

// TestLimitCompileMemory: a build sets a soft memory limit from the loaded
// heap and the documents Load expects, and puts the previous one back,
// unless GOMEMLIMIT is set.
func TestLimitCompileMemory(t *testing.T) {
	current := func() int64 { return debug.SetMemoryLimit(-1) } // -1 reads it
	before := current()
	cat, diags := build.Load(context.Background(), catalogtest.ExampleDir(t))
	if diags.HasErrors() {
		t.Fatalf("the example has errors: %v", diags)
	}

	t.Setenv("GOMEMLIMIT", "")
	restore := limitCompileMemory(cat)
	during := current()
	restore()
	if least := 32<<20 + perDocument*cat.EstimatedSize().Files; during == math.MaxInt64 || during < least {
		t.Errorf("limit during a compile = %d, want a finite limit over %d (32 MiB and the documents)", during, least)
	}
	if got := current(); got != before {
		t.Errorf("limit after restore = %d, want %d as before", got, before)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = limitCompileMemory(cat)
	if got := current(); got != before {
		t.Errorf("with GOMEMLIMIT set, limit = %d, want %d untouched", got, before)
	}
	restore()
}
