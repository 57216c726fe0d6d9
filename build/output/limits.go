package output

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
)

// Limits bound what Build.Write writes, every file of the output folder
// counted: the sites' documents, the route table and the Files beside them
// (a host's report, functions and settings among them). They are the
// catalog's limits.build and limits.files, as build.Compile sets them; a
// zero field bounds nothing.
type Limits struct {
	// Build bounds the bytes of all files together.
	Build int64
	// Files bounds the number of files.
	Files int64
}

// LimitError reports a document, or a build, larger than one of the
// catalog's limits: found by build.Compile, or by Build.Write before a
// build or a host's layout of it is in place. Nothing is written.
type LimitError struct {
	Limit string // "document", "build" or "files"
	Max   int64
	Size  int64  // the size found: at least this many bytes, or files
	What  string // the route of the document, or "the build"
}

func (e *LimitError) Error() string {
	if e.Limit == "files" {
		return FilesMessage(fmt.Sprintf("%s has %d files,", e.What, e.Size), e.Max)
	}
	what := e.What
	if strings.HasPrefix(what, "/") {
		what = "the document at " + what
	}
	size, limit := SizePair(e.Size, e.Max)
	return LimitMessage(fmt.Sprintf("%s is %s,", what, size), e.Limit, limit, "")
}

// SizePair writes two sizes for a message that compares them: rounded, or
// in bytes when rounding would make them read the same ("1 GiB, larger
// than 1 GiB").
func SizePair(a, b int64) (string, string) {
	sa, sb := english.Bytes(a), english.Bytes(b)
	if sa == sb && a != b {
		return fmt.Sprintf("%d bytes", a), fmt.Sprintf("%d bytes", b)
	}
	return sa, sb
}

// LimitMessage says that what is larger than the limit called name, of
// the size limit as written, and how to fix it; detail, when set, says
// what makes it so.
func LimitMessage(what, name, limit, detail string) string {
	if detail != "" {
		detail = "; " + detail
	}
	return fmt.Sprintf("%s larger than limits.%s in %s (%s)%s: shared schemas and YAML aliases count each time they are used; declare less, or raise the limit",
		what, name, spec.ConfigFile, limit, detail)
}

// FilesMessage says that what is more files than the file limit, max, and
// how to fix it.
func FilesMessage(what string, max int64) string {
	return fmt.Sprintf("%s more than limits.files in %s (%d): each site writes a document for each tool it shows, and one more for its compact view; publish fewer tools to fewer tenants, or raise the limit",
		what, spec.ConfigFile, max)
}

// limit holds files, all that Write writes, to l: their number and the
// bytes of their bodies and contents now, and the bytes of each Stream as it
// is written, so that a file made as it is written stops at the limit
// rather than after it. It returns files, their Streams counted.
func (l Limits) limit(files []File) ([]File, error) {
	if l.Files > 0 && int64(len(files)) > l.Files {
		return nil, &LimitError{Limit: "files", Max: l.Files, Size: int64(len(files)), What: "the build"}
	}
	if l.Build <= 0 {
		return files, nil
	}
	var known int64
	streams := false
	for _, f := range files {
		known += int64(len(f.Body))
		if f.Content != nil {
			known += f.Content.Len()
		}
		streams = streams || f.Stream != nil
	}
	if known > l.Build {
		return nil, &LimitError{Limit: "build", Max: l.Build, Size: known, What: "the build"}
	}
	if !streams {
		return files, nil
	}
	m := &meter{max: l.Build}
	m.n.Store(known)
	for i, f := range files {
		if stream := f.Stream; stream != nil {
			files[i].Stream = func(w io.Writer) error { return stream(meterWriter{w, m}) }
		}
	}
	return files, nil
}

// meter counts the bytes of a build as its Streams write them, all of them
// at once.
type meter struct {
	n   atomic.Int64
	max int64
}

// meterWriter is a Stream's writer, refusing what takes its meter past the
// limit.
type meterWriter struct {
	w io.Writer
	m *meter
}

func (mw meterWriter) Write(p []byte) (int, error) {
	if n := mw.m.n.Add(int64(len(p))); n > mw.m.max {
		return 0, &LimitError{Limit: "build", Max: mw.m.max, Size: n, What: "the build"}
	}
	return mw.w.Write(p)
}
