package source

import (
	"strconv"
	"strings"
)

// Covered reports whether a problem at ptr of root concerns a value that
// already failed its schema, at one of the pointers bad, so that a check
// made after the schema says nothing twice, and nothing about a value it
// could not read. It does when ptr is one of bad, is below one whose value
// is not an object (a wrong value, wrong throughout), or is below one and
// names a value root does not have (a field the schema says is missing).
// A problem elsewhere in an object that failed, at one of its fields the
// schema had nothing against, is not covered: it is reported too.
func Covered(root any, bad []string, ptr string) bool {
	for _, b := range bad {
		if ptr == b {
			return true
		}
		if !strings.HasPrefix(ptr, b+"/") {
			continue
		}
		if _, isObject := ValueAt(root, b).(map[string]any); !isObject {
			return true
		}
		if _, found := lookup(root, ptr); !found {
			return true
		}
	}
	return false
}

// ValueAt is the value at ptr of root, or nil.
func ValueAt(root any, ptr string) any {
	v, _ := lookup(root, ptr)
	return v
}

// lookup finds the value at ptr of root.
func lookup(v any, ptr string) (any, bool) {
	for _, seg := range SplitPointer(ptr) {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
