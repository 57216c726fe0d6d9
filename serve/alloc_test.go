package serve

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/fastpath"
)

// reusedWriter is a ResponseWriter whose header map is emptied, not
// replaced, between requests, as the server's own is per request: what
// AllocsPerRun counts is then the handler's.
type reusedWriter struct {
	hdr    http.Header
	status int
	n      int
}

func (w *reusedWriter) Header() http.Header         { return w.hdr }
func (w *reusedWriter) WriteHeader(status int)      { w.status = status }
func (w *reusedWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// The hot path, a document answered from memory, allocates nothing in the
// handler: not for the headers, the view, gzip or a revalidation.
func TestServeAllocatesNothing(t *testing.T) {
	if !fastpath.Enabled {
		t.Skip("built with signpost_reference: the view is read with url.ParseQuery, which allocates a map per request")
	}
	_, site := exampleServer(t)
	h, err := NewHandler(t.Context(), site, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tool string
	for _, d := range site.Documents {
		if _, ok := spec.ToolSegment(d.Route.Route); ok {
			tool = d.Route.Route
			break
		}
	}
	etag := h.docs[docKey{tool, "standard"}].route.ETag
	for _, c := range []struct {
		name, target string
		header       http.Header
		status       int
	}{
		{"tool document", tool, nil, 200},
		{"list", "/tools", nil, 200},
		{"compact list", "/tools?view=compact", nil, 200},
		{"gzip", "/tools", http.Header{"Accept-Encoding": {"gzip, deflate, br"}}, 200},
		{"revalidation", tool, http.Header{"If-None-Match": {etag}}, 304},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.ParseRequestURI(c.target)
			if err != nil {
				t.Fatal(err)
			}
			r := &http.Request{Method: http.MethodGet, URL: u, Header: c.header}
			if r.Header == nil {
				r.Header = http.Header{}
			}
			w := &reusedWriter{hdr: http.Header{}}
			allocs := testing.AllocsPerRun(200, func() {
				clear(w.hdr)
				w.status = 0
				h.ServeHTTP(w, r)
			})
			if w.status != c.status {
				t.Fatalf("status %d, want %d", w.status, c.status)
			}
			if allocs != 0 {
				t.Errorf("%v allocations per request, want 0", allocs)
			}
		})
	}
}

// queryValue reads the view as url.Values.Get of url.ParseQuery would.
func TestQueryValueIsParseQuery(t *testing.T) {
	for _, raw := range []string{
		"", "view=compact", "view=standard&view=compact", "a=1&view=compact", "view", "view=",
		"vi%65w=compact", "view=comp%61ct", "view=compact;x=1", "x=1;y&view=compact", "view=%zz&view=compact",
		"%zz=1&view=compact", "&&view=compact&", "view=a+b", "vi+ew=compact", "VIEW=compact",
	} {
		q, _ := url.ParseQuery(raw)
		if got, want := scanQuery(raw, "view"), q.Get("view"); got != want {
			t.Errorf("scanQuery(%q) = %q, ParseQuery says %q", raw, got, want)
		}
	}
}
