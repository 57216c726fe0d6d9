package diag

import (
	"fmt"
	"sync"

	"github.com/signpost-dev/signpost/build/diag/records"
	"github.com/signpost-dev/signpost/build/source"
)

// RuleSchema is the rule of a value that fails its schema.
const RuleSchema = "schema"

// Sink is the one way out of a load for its diagnostics, safe to report to
// from several goroutines at once. It is a records.Log of diagnostics,
// which redacts every diagnostic as it comes in (see Diagnostic.Redacted)
// and gives them back sorted, each once; besides, it leaves out what a
// check made after a schema finds in a value that failed it, which the
// schema error already says (see source.Covered).
type Sink struct {
	log records.Log[Diagnostic]
	mu  sync.Mutex
	// failed holds the pointers of each file's values that failed their
	// schema.
	failed map[*source.File][]string
}

// Add reports d.
func (s *Sink) Add(d Diagnostic) {
	s.log.Add(d)
}

// At reports a problem with the value at ptr of src, unless that value, or
// one it is inside, failed its schema (see SchemaError): the schema's
// diagnostic says it already.
func (s *Sink) At(sev Severity, src *source.File, ptr, rule, format string, args ...any) {
	s.mu.Lock()
	covered := source.Covered(src.Value, s.failed[src], ptr)
	s.mu.Unlock()
	if !covered {
		s.log.Add(Diagnostic{Pos: src.Pos(ptr), Severity: sev, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
}

// SchemaError reports that the value at ptr of src fails its schema, as
// msg says, and leaves out what other checks find in it from then on.
func (s *Sink) SchemaError(src *source.File, ptr, msg string) {
	s.mu.Lock()
	if s.failed == nil {
		s.failed = map[*source.File][]string{}
	}
	s.failed[src] = append(s.failed[src], ptr)
	s.mu.Unlock()
	s.log.Add(Diagnostic{Pos: src.Pos(ptr), Severity: Error, Rule: RuleSchema, Message: msg})
}

// Failed reports whether a value of src failed its schema.
func (s *Sink) Failed(src *source.File) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.failed[src]) > 0
}

// File reports a problem with a file or folder as a whole, at its path.
func (s *Sink) File(path, rule, format string, args ...any) {
	s.Add(Diagnostic{Pos: source.Pos{File: path}, Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// Problems reports what parsing src found.
func (s *Sink) Problems(src *source.File, ps []source.Problem) {
	for _, p := range ps {
		d := Diagnostic{Pos: source.Pos{File: src.Path, Line: p.Line, Col: p.Col}, Severity: Error, Rule: p.Rule, Message: p.Msg}
		if p.Line == 0 {
			d.Pos = src.Pos(p.Pointer)
		}
		s.Add(d)
	}
}

// Diagnostics returns what was reported so far, sorted, each once.
func (s *Sink) Diagnostics() Diagnostics {
	return s.log.Records()
}

// Close returns what was reported, sorted, each once; whatever is reported
// from then on (by work a canceled load left running) is dropped.
func (s *Sink) Close() Diagnostics {
	return s.log.Close()
}
