package check_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/internal/memtest"
)

// hostileSite serves a tool list of n tools whose documents are each about
// size bytes, an input schema of many properties, and, when over is not
// "", one tool whose document is larger than check's default limit.
func hostileSite(n, size int, over string) http.Handler {
	var props strings.Builder
	for i := 0; props.Len() < size; i++ {
		if i > 0 {
			props.WriteByte(',')
		}
		fmt.Fprintf(&props, `"p%07d":{"type":"string","description":"A property of a document that is far too large."}`, i)
	}
	big := props.String()
	huge := strings.Repeat(`"padding",`, 9<<20/10) + `"end"`
	var list strings.Builder
	list.WriteString("[")
	for i := range n {
		if i > 0 {
			list.WriteByte(',')
		}
		fmt.Fprintf(&list, `{"toolId":"t%03d","title":"T","description":"D","source":"host-extension","safetyTier":"pure","replayPolicy":"deterministic","egress":"none","inputSchema":{"type":"object"}}`, i)
	}
	list.WriteString("]")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", spec.ContentTypeJSON)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		id, isTool := strings.CutPrefix(r.URL.Path, "/tools/")
		switch {
		case r.URL.Path == spec.RouteTools:
			w.Write([]byte(list.String()))
		case isTool && id == over:
			fmt.Fprintf(w, `{"toolId":%q,"examples":[%s]}`, id, huge)
		case isTool && len(id) == 4 && id[0] == 't':
			fmt.Fprintf(w, `{"toolId":%q,"inputSchema":{"type":"object","properties":{%s}}}`, id, big)
		default:
			http.NotFound(w, r)
		}
	})
}

// TestHostileOrigin checks an origin whose tool documents are many and
// large: the check completes, each document is checked, and the one over
// the size limit is a finding.
func TestHostileOrigin(t *testing.T) {
	const n = 30
	r := runOn(t, hostileSite(n, 2<<20, "t007"), "http://127.0.0.1", check.Options{})
	items, tooBig := map[string]check.Result{}, false
	for _, f := range r.Findings {
		switch f.Rule {
		case "tools.item":
			items[f.URL] = f.Result
		case "limits.body-size":
			tooBig = tooBig || f.Result == check.ResultFail && strings.HasSuffix(f.URL, "/tools/t007")
		}
	}
	for i := range n {
		u := fmt.Sprintf("http://127.0.0.1/tools/t%03d", i)
		want := check.ResultFail // the document is not its list entry
		if i == 7 {
			want = check.ResultSkip
		}
		if items[u] != want {
			t.Errorf("tools.item %s: %q, want %q", u, items[u], want)
		}
	}
	if !tooBig {
		t.Errorf("no limits.body-size failure for the document over the limit\n%s", checktest.Problems(r))
	}

	// A budget of three documents: the kept lists and at most two in flight.
	const maxBody = 3 << 20
	opts := check.Options{Client: checktest.Serve(t, hostileSite(n, 2<<20, "")), MaxBodyBytes: maxBody, MaxHeldBytes: 3 * maxBody, Concurrency: 8}
	r, held, err := check.RunHeld(context.Background(), "http://127.0.0.1", opts)
	if err != nil {
		t.Fatal(err)
	}
	if held > opts.MaxHeldBytes {
		t.Errorf("held %d bytes of bodies at once, over the budget of %d", held, opts.MaxHeldBytes)
	}
	// The first stage's 11 (catalogs, lists, tool catalogue, unknown tool,
	// the registry's probe, list and unknown server, which answer 404), the
	// tools and the unknown view.
	if r.Documents != 11+n+1 {
		t.Errorf("%d documents fetched, want %d", r.Documents, 11+n+1)
	}
}

// BenchmarkCheckHostileOrigin checks an origin serving 50 tool documents of
// 7 MB each, and reports the peak of the live heap.
func BenchmarkCheckHostileOrigin(b *testing.B) {
	site := hostileSite(50, 7<<20, "")
	client := checktest.Serve(b, site)
	var peak uint64
	for b.Loop() {
		peak = max(peak, memtest.PeakHeap(func() {
			if _, err := check.Run(context.Background(), "http://127.0.0.1", check.Options{Client: client}); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// TestHostileCardURLs checks a site whose catalogs name cards at URLs a
// client cannot use as they are (an IPv6 zone, a literal of a non-public
// address): the check reports them and never panics.
func TestHostileCardURLs(t *testing.T) {
	for _, card := range []string{"https://[fe80::1%25eth0]/card.json", "https://[fe80::1%25eth0]:8443/card.json", "http://[::1%25lo]/x", "https://100.100.100.200/latest/meta-data"} {
		site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			switch r.URL.Path {
			case spec.RouteMCPCatalog:
				w.Header().Set("Content-Type", spec.ContentTypeJSON)
				fmt.Fprintf(w, `{"servers":[{"name":"x","url":%q,"mediaType":"application/mcp-server-card+json"}]}`, card)
			case spec.RouteAICatalog:
				w.Header().Set("Content-Type", "application/ai-catalog+json")
				fmt.Fprintf(w, `{"specVersion":"1.0","host":{"displayName":"x"},"entries":[{"identifier":"urn:air:x:mcp:x","displayName":"x","url":%q,"type":"application/mcp-server-card+json"}]}`, card)
			default:
				http.NotFound(w, r)
			}
		})
		r := runOn(t, site, "https://example.com", check.Options{})
		if r == nil || !r.Failed() {
			t.Errorf("%s: a site naming it passed", card)
		}
	}
}
