package netlify

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/gencatalog"
)

// TestLayoutConstantSize lays out generated catalogs of 10 and 10,000
// tools: _headers and _redirects have the same number of lines, since
// every tool is routed and headed by one placeholder rule per view, not
// rules of its own. Netlify documents thousands of rules as past what a
// deploy handles well.
func TestLayoutConstantSize(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a catalog of 10,000 tools: not in -short mode")
	}
	lines := func(tools int) (headers, redirects int) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "catalog")
		if err := gencatalog.Write(dir, gencatalog.Options{Tools: tools, Servers: 2, NoTenants: true}); err != nil {
			t.Fatal(err)
		}
		b := buildtest.Compile(t, dir)
		if got := b.Sites[0].Tools; got != tools {
			t.Fatalf("the generated site has %d tools, want %d", got, tools)
		}
		l, err := Layout(b.Sites[0])
		if err != nil {
			t.Fatal(err)
		}
		if l.NotFound == nil {
			t.Fatalf("no %s for a site of %d tools", NotFoundFile, tools)
		}
		return bytes.Count(l.Headers, []byte("\n")), bytes.Count(l.Redirects, []byte("\n"))
	}
	smallH, smallR := lines(10)
	largeH, largeR := lines(10_000)
	t.Logf("%s: %d lines at 10 tools, %d at 10,000; %s: %d and %d", HeadersFile, smallH, largeH, RedirectsFile, smallR, largeR)
	if largeH != smallH || largeR != smallR {
		t.Errorf("the rules grow with the tools: %s", fmt.Sprintf("%s %d → %d lines, %s %d → %d lines", HeadersFile, smallH, largeH, RedirectsFile, smallR, largeR))
	}
}
