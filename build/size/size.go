// Package size measures what a catalog would publish before it is encoded:
// sizes as signpost.yaml writes them (64MiB, 1.5 GB), and a lower bound of
// the encoded size of a declared value, each value measured once however
// many declarations share it. The limits of signpost.yaml are held to it.
package size

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/signpost-dev/signpost/build/source"
)

var sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?) ?(B|kB|KB|MB|GB|KiB|MiB|GiB)?$`)

// Parse reads a size as signpost.yaml writes it: a number of bytes, or
// a number with a unit (kB, MB, GB are powers of 1000; KiB, MiB, GiB powers
// of 1024), such as 64MiB or 1.5 GB.
func Parse(v any) (int64, error) {
	switch x := v.(type) {
	case string:
		m := sizeRE.FindStringSubmatch(strings.TrimSpace(x))
		if m == nil {
			return 0, fmt.Errorf("size %q is not a number of bytes or a number with a unit (B, kB, MB, GB, KiB, MiB, GiB)", x)
		}
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, fmt.Errorf("size %q: %v", x, err)
		}
		mult := map[string]float64{"": 1, "B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[2]]
		return sizeOf(n*mult, x)
	case fmt.Stringer: // json.Number
		n, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			return 0, fmt.Errorf("size %s is not a number", x)
		}
		return sizeOf(n, x.String())
	}
	return 0, errors.New("a size is a number of bytes or a string such as 64MiB")
}

func sizeOf(n float64, written string) (int64, error) {
	switch {
	case n < 1:
		return 0, fmt.Errorf("size %s is less than one byte", written)
	case n > math.MaxInt64/2:
		return 0, fmt.Errorf("size %s is too large", written)
	}
	return int64(n), nil
}

// Meter estimates the encoded size of declared values. The estimate is a
// lower bound of what the encoder writes (every string at least its bytes
// and quotes, no escapes), so a limit it reports exceeded is exceeded. A
// value's size is computed once per identity: a schema file used by many
// tools is measured once and counted for each of them.
//
// A Meter holds every object it measured, so that no other object takes
// its address and its size while it is in use: use one for values that are
// alive together (the declarations of one file and the schema files they
// name), not for a whole load.
type Meter struct {
	mu   sync.Mutex
	memo map[uintptr]measured
}

// measured is an object a Meter measured, and its size.
type measured struct {
	object map[string]any
	size   int64
}

// Measure returns the estimated size of v, and whether it is within limit.
// When it is not, the size is where the count stopped, past limit, and
// pointer is the value within v whose size carried the total past it.
func (z *Meter) Measure(v any, limit int64) (n int64, pointer string, ok bool) {
	m, isMap := v.(map[string]any)
	var key uintptr
	if isMap && m != nil {
		key = reflect.ValueOf(m).Pointer()
		z.mu.Lock()
		m, seen := z.memo[key]
		z.mu.Unlock()
		if seen && m.size <= limit {
			return m.size, "", true
		}
	}
	w := sizeWalk{limit: limit}
	if n = w.walk(v); n > limit {
		// Measured again in key order, so that the pointer does not depend
		// on the order of map iteration.
		w = sizeWalk{limit: limit, sorted: true}
		n = w.walk(v)
		return n, source.JoinPointer("", w.over...), false
	}
	if key != 0 {
		z.mu.Lock()
		if z.memo == nil {
			z.memo = map[uintptr]measured{}
		}
		z.memo[key] = measured{m, n}
		z.mu.Unlock()
	}
	return n, "", true
}

// sizeWalk adds up the encoded size of a value until it passes limit, and,
// when it tracks its path, remembers where it did. A value is walked
// without its path first, which allocates nothing, and again with it only
// when it is over the limit.
type sizeWalk struct {
	limit, total int64
	sorted       bool     // walk object members in key order, tracking the path
	path         []string // of the value being walked, when sorted
	over         []string
}

func (w *sizeWalk) walk(v any) int64 {
	start := w.total
	switch x := v.(type) {
	case string:
		w.add(int64(len(x)) + 2)
	case map[string]any:
		w.add(2 + int64(len(x))) // braces, colons and commas
		if w.sorted {
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if w.total > w.limit {
					break
				}
				w.add(int64(len(k)) + 2)
				w.path = append(w.path, k)
				w.walk(x[k])
				w.path = w.path[:len(w.path)-1]
			}
			break
		}
		for k, e := range x {
			if w.total > w.limit {
				break
			}
			w.add(int64(len(k)) + 2)
			w.walk(e)
		}
	case []any:
		w.add(2 + int64(len(x)))
		for i, e := range x {
			if w.total > w.limit {
				break
			}
			if w.sorted {
				w.path = append(w.path, strconv.Itoa(i))
			}
			w.walk(e)
			if w.sorted {
				w.path = w.path[:len(w.path)-1]
			}
		}
	case fmt.Stringer:
		w.add(int64(len(x.String())))
	default:
		w.add(4) // true, null: false is longer
	}
	return w.total - start
}

func (w *sizeWalk) add(n int64) {
	w.total += n
	if w.sorted && w.total > w.limit && w.over == nil {
		w.over = append([]string{}, w.path...) // not nil, even at the root
	}
}
