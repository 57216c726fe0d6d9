// Package records is the one way out of signpost for what a command says
// about its input: a diagnostic of the declarations, a finding of check, a
// line of import or diff. Each is a Record, and leaves through a Log,
// which redacts it as it comes in (Record.Redacted) and gives them back
// sorted (Record.Compare), each once, whatever order the work that made
// them ran in.
//
// The package knows no kind of record: each says what redacting it means
// and in what order it sorts. It uses the standard library alone, so that
// a package that must not depend on the compiler (check) may use it.
package records

import (
	"slices"
	"sync"
)

// Record is what a Log holds: a value that can say itself with every
// credential it repeats cut (Redacted, see secrets.Redact) and that sorts
// against another of its kind (Compare: negative when it comes first,
// zero for the same record, which the Log keeps once).
type Record[T any] interface {
	Redacted() T
	Compare(T) int
}

// Log collects records, safe to add to from several goroutines at once.
// The zero Log is empty and ready to use; a Log must not be copied once
// used.
type Log[T Record[T]] struct {
	mu      sync.Mutex
	records []T
	closed  bool
}

// Add records r, redacted; after Close it is dropped.
func (l *Log[T]) Add(r T) {
	r = r.Redacted()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.records = append(l.records, r)
	}
}

// Records returns what was added so far, sorted, each once.
func (l *Log[T]) Records() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Sort(slices.Clone(l.records))
}

// Close returns what was added, sorted, each once; whatever is added from
// then on (by work a canceled command left running) is dropped.
func (l *Log[T]) Close() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.records
	l.records, l.closed = nil, true
	return Sort(rs)
}

// Sort orders rs by Record.Compare and drops the records that compare
// equal to the one before, in place: the order a Log gives, for a list
// made elsewhere.
func Sort[T Record[T]](rs []T) []T {
	slices.SortFunc(rs, T.Compare)
	return slices.CompactFunc(rs, func(a, b T) bool { return a.Compare(b) == 0 })
}
