package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestLimitCompileMemory: a build sets a soft memory limit from the loaded
// heap and puts the previous one back, unless GOMEMLIMIT is set.
func TestLimitCompileMemory(t *testing.T) {
	current := func() int64 { return debug.SetMemoryLimit(-1) } // -1 reads it
	before := current()

	t.Setenv("GOMEMLIMIT", "")
	restore := limitCompileMemory()
	during := current()
	restore()
	if during == math.MaxInt64 || during < 32<<20 {
		t.Errorf("limit during a compile = %d, want a finite limit over 32 MiB", during)
	}
	if got := current(); got != before {
		t.Errorf("limit after restore = %d, want %d as before", got, before)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = limitCompileMemory()
	if got := current(); got != before {
		t.Errorf("with GOMEMLIMIT set, limit = %d, want %d untouched", got, before)
	}
	restore()
}
