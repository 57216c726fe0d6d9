package conformance

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/signpost-dev/signpost/internal/terminal"
)

// Kinds of finding, in the order reports list them.
const (
	KindUnsupportedVersion = "unsupported-version" // a tool catalogue of another catalogVersion
	KindSchemaRef          = "schema-ref"          // a $ref of a tool's schema that is not local and resolvable
	KindInvalidDocument    = "invalid-document"    // a document or the route table fails its schema, or is not JSON
	KindSafety             = "safety-inconsistent" // annotations not derived from the safety fields, or exec outside host extensions
	KindIdentityReassigned = "identity-reassigned" // a catalogue tool name with another descriptor reference
	KindUnsafePath         = "unsafe-path"         // a route table key or dir that could leave the folder or mean two files
	KindDuplicatePath      = "duplicate-path"      // two routes on one file, or one route twice
	KindObjectUnreadable   = "object-unreadable"   // an object the route table names is missing, unsafe to read or too large
	KindObjectChanged      = "object-changed"      // an object whose size or SHA-256 is not the route table's
	KindRouteTableDiffers  = "route-table-differs" // the route tables hold different sites, routes or headers
	KindRouteOrderDiffers  = "route-order-differs" // the route tables hold the same routes in another order
	KindBytesDiffer        = "bytes-differ"        // a document, or routes.json, differs byte for byte
)

// Kinds returns the kinds of finding in report order.
func Kinds() []string {
	return slices.Clone(kindOrder)
}

var kindOrder = []string{
	KindUnsupportedVersion, KindSchemaRef, KindInvalidDocument, KindSafety, KindIdentityReassigned,
	KindUnsafePath, KindDuplicatePath, KindObjectUnreadable, KindObjectChanged,
	KindRouteTableDiffers, KindRouteOrderDiffers, KindBytesDiffer,
}

// Finding is one reason two builds do not conform.
type Finding struct {
	Kind string `json:"kind"`
	// Build names the build it is about; empty when it is about both (a
	// difference between them).
	Build string `json:"build,omitempty"`
	// File is the path in the build folder: routes.json, or an object's
	// site dir and key.
	File  string `json:"file,omitempty"`
	Route string `json:"route,omitempty"`
	View  string `json:"view,omitempty"`
	// Pointer is the JSON pointer of the offending value in the file.
	Pointer string `json:"pointer,omitempty"`
	// Offset is the first byte at which the two builds' files differ.
	Offset *int64 `json:"offset,omitempty"`
	// Message says what is wrong, for a person.
	Message string `json:"message"`
}

// String is the finding on one line.
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Kind)
	b.WriteString(": ")
	if f.Build != "" {
		b.WriteString(f.Build + ": ")
	}
	if f.File != "" {
		b.WriteString(f.File)
		if f.Route != "" {
			b.WriteString(" (" + f.Route)
			if f.View != "" && f.View != "standard" {
				b.WriteString(" ?view=" + f.View)
			}
			b.WriteString(")")
		}
		if f.Pointer != "" {
			b.WriteString(" at " + f.Pointer)
		}
		b.WriteString(": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// Report is the result of Compare.
type Report struct {
	First      string    `json:"first"`
	Second     string    `json:"second"`
	Conformant bool      `json:"conformant"`
	Findings   []Finding `json:"findings"`
}

// sortFindings puts findings in report order: by kind, then build, file,
// route, view, pointer and message.
func sortFindings(fs []Finding) {
	rank := func(k string) int { return slices.Index(kindOrder, k) }
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(rank(a.Kind), rank(b.Kind)),
			strings.Compare(a.Build, b.Build),
			strings.Compare(a.File, b.File),
			strings.Compare(a.Route, b.Route),
			strings.Compare(a.View, b.View),
			strings.Compare(a.Pointer, b.Pointer),
			strings.Compare(a.Message, b.Message),
		)
	})
}

// Output formats of Report.Write.
const (
	FormatText = "text"
	FormatJSON = "json"
)

// Write writes the report in format: text for people, one finding a line,
// made safe for a terminal, or json, the Report with stable field names.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case FormatJSON:
		out := *r
		if out.Findings == nil {
			out.Findings = []Finding{}
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case FormatText:
	default:
		return fmt.Errorf("unknown format %q: text or json", format)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "conformance %s <-> %s\n", terminal.Safe(r.First), terminal.Safe(r.Second))
	if r.Conformant {
		b.WriteString("conformant: the two builds are the same, byte for byte\n")
	} else {
		for _, f := range r.Findings {
			b.WriteString(terminal.Safe(f.String())) // paths and keys come from the builds
			b.WriteByte('\n')
		}
		n := len(r.Findings)
		b.WriteString(strconv.Itoa(n))
		if n == 1 {
			b.WriteString(" finding\n")
		} else {
			b.WriteString(" findings\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
