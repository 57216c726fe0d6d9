// Package jsonfiles holds the JSON files a catalog's declarations name
// (schema files, recordings of MCP tools) while a load uses them: each is
// read and parsed once however many declarations name it at the same
// time, which then share its value, and its value is let go when the last
// of them is done with it.
package jsonfiles

import (
	"sync"

	"github.com/signpost-dev/signpost/build/diag"
	"github.com/signpost-dev/signpost/build/source"
)

// Files are the JSON files of one load. Read, Display and Sink are set
// before the first Use.
type Files struct {
	// Read reads a file by its slash path in the catalog folder.
	Read func(rel string) ([]byte, error)
	// Display is the path diagnostics name a file by.
	Display func(rel string) string
	// Sink takes each file's parse problems, and says which files have a
	// value that failed its schema: those keep their value for the reports.
	Sink *diag.Sink

	mu    sync.Mutex
	files map[string]*file
}

// file is one JSON file (see Files.Use).
type file struct {
	mu       sync.Mutex
	read     bool         // read since the load began, or since released
	released bool         // its value let go: the next user reads it again
	src      *source.File // nil when it cannot be read or parsed
	err      error        // why it cannot be read
	users    int          // callers of Use that have not called done
}

// Use returns the file rel parsed, nil when it cannot be read (err says
// why) or does not parse (its problems are in Sink). The caller calls done
// once it needs the file's Value no more (what it took out of the value
// stays its own): when no other caller uses the file then, its value is
// let go, unless a value of it failed its schema, and a later caller reads
// the file again. A caller that never calls done keeps the value for the
// whole load.
func (fs *Files) Use(rel string) (src *source.File, done func(), err error) {
	fs.mu.Lock()
	f := fs.files[rel]
	if f == nil {
		if fs.files == nil {
			fs.files = map[string]*file{}
		}
		f = &file{}
		fs.files[rel] = f
	}
	fs.mu.Unlock()
	f.mu.Lock()
	if !f.read || f.released {
		f.read, f.released, f.src = true, false, nil
		var data []byte
		if data, f.err = fs.Read(rel); f.err == nil {
			s, ps := source.ParseJSON(fs.Display(rel), rel, data)
			fs.Sink.Problems(s, ps)
			if len(ps) == 0 {
				f.src = s
			}
		}
	}
	f.users++
	src, err = f.src, f.err
	f.mu.Unlock()
	return src, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.users--; f.users == 0 && f.src != nil && !fs.Sink.Failed(f.src) {
			f.src.Value, f.released = nil, true
		}
	}, err
}

// Sources returns the parsed files, for the end of the load. Not to be
// called while Use may be.
func (fs *Files) Sources() []*source.File {
	var out []*source.File
	for _, f := range fs.files {
		if f.src != nil {
			out = append(out, f.src)
		}
	}
	return out
}
