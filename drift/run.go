package drift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build"
	"github.com/signpost-dev/signpost/build/recorded"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/live"
)

// Format is the version of the layout of a Report in JSON. It grows only
// when a field changes meaning or goes away.
const Format = 1

// The statuses of a Server.
const (
	StatusOK          = "ok"
	StatusDrift       = "drift"
	StatusUnreachable = "unreachable"
	StatusSkipped     = "skipped"
)

// Report is what every server compared answered. Its JSON form is
// stable (see Format); lists are sorted and never null.
type Report struct {
	Format  int      `json:"format"`
	Servers []Server `json:"servers"`
}

// Server is one declared server compared with its endpoint.
type Server struct {
	Name string `json:"name"`
	// Endpoint is the URL read, without credentials.
	Endpoint string `json:"endpoint"`
	Status   string `json:"status"`
	// Reason says why a server is unreachable or skipped.
	Reason string `json:"reason,omitempty"`
	// Declared and Live count the tools on each side.
	Declared int      `json:"declared"`
	Live     int      `json:"live"`
	Changes  []Change `json:"changes"`
}

// Options are the servers to compare and how to read them.
type Options struct {
	// Servers limits the comparison to these servers; empty is every
	// server whose declaration names a Streamable HTTP remote. A name
	// that is not such a server is an error.
	Servers []string
	// Header is sent to the endpoint read; with a header, Servers must
	// name exactly one server, so that a token goes to the server it is
	// for and nowhere else.
	Header http.Header
	// Live bounds each read (deadline, pages, addresses).
	Live live.Options
}

// Run compares each declared server of cat that names a Streamable HTTP
// remote (or those of opts.Servers) with what its endpoint answers now,
// one server after the other. A server that cannot be read is reported
// unreachable, not an error; the error is for bad options, cancellation
// and a catalog whose tools' schemas cannot be read back from where Load
// held them.
func Run(ctx context.Context, cat *build.Catalog, opts Options) (*Report, error) {
	var servers []*build.Server
	for _, s := range cat.Servers {
		if endpointOf(s) != nil && (len(opts.Servers) == 0 || slices.Contains(opts.Servers, s.Name)) {
			servers = append(servers, s)
		}
	}
	for _, name := range opts.Servers {
		if !slices.ContainsFunc(servers, func(s *build.Server) bool { return s.Name == name }) {
			return nil, fmt.Errorf("server %s: the catalog declares no server of that name with a remote endpoint", name)
		}
	}
	if len(opts.Header) > 0 && len(servers) != 1 {
		return nil, errors.New("headers go to one server: name it, so that its token is sent nowhere else")
	}
	r := &Report{Format: Format, Servers: []Server{}}
	for _, s := range servers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		declared, err := declaredTools(cat, s.Name)
		if err != nil {
			return nil, err
		}
		r.Servers = append(r.Servers, compareServer(ctx, s, declared, opts))
	}
	return r, nil
}

// endpointOf is the remote a server is read at: its first remote of
// type streamable-http, or else its first remote, which then is skipped;
// nil for a server without remotes.
func endpointOf(s *build.Server) *struct{ url, typ string } {
	var first *struct{ url, typ string }
	for _, r := range s.Endpoints {
		if r == nil {
			continue
		}
		u, _ := r.URL.String()
		t, _ := r.Type.String()
		e := &struct{ url, typ string }{u, t}
		if t == "streamable-http" {
			return e
		}
		if first == nil {
			first = e
		}
	}
	return first
}

// compareServer reads one server and compares its tools with declared.
func compareServer(ctx context.Context, s *build.Server, declared []Tool, opts Options) Server {
	e := endpointOf(s)
	ep := live.Endpoint{URL: e.url, Header: opts.Header}
	out := Server{Name: s.Name, Endpoint: ep.Label(), Declared: len(declared), Changes: []Change{}}
	switch {
	case e.typ != "streamable-http":
		out.Status, out.Reason = StatusSkipped, "its remote is "+e.typ+": only streamable-http endpoints are read"
		return out
	case strings.Contains(e.url, "{"):
		out.Status, out.Reason = StatusSkipped, "its URL has {variables}, which only a client of the server fills in"
		return out
	}
	l, err := live.List(ctx, ep, opts.Live)
	if err != nil {
		out.Status, out.Reason = StatusUnreachable, err.Error()
		var le *live.Error
		if errors.As(err, &le) {
			out.Reason = le.Err.Error()
		}
		return out
	}
	tools, err := liveTools(l)
	if err != nil {
		out.Status, out.Reason = StatusUnreachable, err.Error()
		return out
	}
	out.Live = len(tools)
	out.Changes = append(out.Changes, Compare(declared, tools)...)
	out.Status = StatusOK
	if len(out.Changes) > 0 {
		out.Status = StatusDrift
	}
	return out
}

// declaredTools are the catalog's tools of server that name an MCP tool,
// as the server would list them: the input schema without the arguments
// the catalogue reserves.
func declaredTools(cat *build.Catalog, server string) ([]Tool, error) {
	var out []Tool
	for _, t := range cat.Tools {
		if t.Server != server || t.Source != spec.SourceMCP || t.Name == "" {
			continue
		}
		w, err := t.WithSchemas()
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.ToolID, err)
		}
		t := w
		var reserved []string
		if t.Reserved.IdempotencyKey != "" && !t.Reserved.KeyDeclared {
			reserved = append(reserved, t.Reserved.IdempotencyKey)
		}
		if t.Reserved.Confirmation != "" {
			reserved = append(reserved, t.Reserved.Confirmation)
		}
		out = append(out, Tool{Name: t.Name, Description: t.Description, InputSchema: withoutArguments(t.InputSchema, reserved),
			OutputSchema: t.OutputSchema, Annotations: t.ServerAnnotations})
	}
	return out, nil
}

// withoutArguments is an input schema without the properties names, in
// properties and required; the schema as it is when it is not an object.
func withoutArguments(schema json.RawMessage, names []string) json.RawMessage {
	if len(names) == 0 {
		return schema
	}
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil || m == nil {
		return schema
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, n := range names {
			delete(props, n)
		}
	}
	if req, ok := m["required"].([]any); ok {
		req = slices.DeleteFunc(req, func(v any) bool { s, _ := v.(string); return slices.Contains(names, s) })
		if len(req) == 0 {
			delete(m, "required")
		} else {
			m["required"] = req
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return schema
	}
	return b
}

// liveTools are the tools of a listing as the catalog reads a recording
// of them (recorded.Tools and recorded.Schema, as an mcp: import does): a
// schema without a type gets "type": "object", an absent input schema is
// {"type": "object"}, descriptions are trimmed.
func liveTools(l *live.Listing) ([]Tool, error) {
	data, err := l.Recording()
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("read the listing: %w", err)
	}
	rts, msg := recorded.Tools(v)
	if msg != "" {
		return nil, errors.New(msg)
	}
	var out []Tool
	for _, rt := range rts {
		t := Tool{Name: rt.Name, Description: strings.TrimSpace(rt.Description)}
		in, kind := recorded.Schema(rt.Object, "inputSchema")
		if kind == recorded.Absent {
			in = map[string]any{"type": "object"}
		}
		t.InputSchema, _ = json.Marshal(in)
		if o, kind := recorded.Schema(rt.Object, "outputSchema"); kind != recorded.Absent && kind != recorded.NotObject {
			t.OutputSchema, _ = json.Marshal(o)
		}
		if a, ok := rt.Object["annotations"]; ok {
			t.Annotations, _ = json.Marshal(a)
		}
		out = append(out, t)
	}
	return out, nil
}

// Drifted reports whether a server's tools differ from the declared ones.
func (r *Report) Drifted() bool {
	return slices.ContainsFunc(r.Servers, func(s Server) bool { return s.Status == StatusDrift })
}

// Unreachable reports whether a server could not be read.
func (r *Report) Unreachable() bool {
	return slices.ContainsFunc(r.Servers, func(s Server) bool { return s.Status == StatusUnreachable })
}
