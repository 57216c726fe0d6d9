package publish

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/signpost-dev/signpost/build/target"
	"github.com/signpost-dev/signpost/check"
	"github.com/signpost-dev/signpost/hosts/cloudfront"
	"github.com/signpost-dev/signpost/internal/buildtest"
	"github.com/signpost-dev/signpost/internal/checktest"
	"github.com/signpost-dev/signpost/internal/gencatalog"
)

// TestEdgeLargeCatalog builds a catalog of 1,000 servers and 10,000 tools
// for an S3 target, publishes it to the bucket and checks it through the
// emulated edge: the functions fit CloudFront's 10 KB, whatever the number
// of documents, and every rule passes.
func TestEdgeLargeCatalog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "catalog")
	if err := gencatalog.Write(dir, gencatalog.Options{Tools: 10_000, Servers: 1_000, NoTenants: true}); err != nil {
		t.Fatal(err)
	}
	b := buildtest.Compile(t, dir)
	// As publish.Run publishes it: the viewer-request function asks for
	// the variants of the lists and catalogs.
	if err := b.Precompress(t.Context()); err != nil {
		t.Fatal(err)
	}
	s := b.Sites[0]
	cards := 0
	for _, d := range s.Documents {
		if filepath.Ext(d.Route.Route) == ".json" && d.ContentType != "application/json" {
			cards++
		}
	}
	if s.Tools < 10_000 || cards < 2_000 {
		t.Fatalf("the generated site has %d tools and %d cards, want 10,000 and 2,000", s.Tools, cards)
	}
	req, resp, err := cloudfront.Functions(s, &target.S3{Bucket: "b"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(req) > cloudfront.MaxSize || len(resp) > cloudfront.MaxSize {
		t.Fatalf("functions of %d and %d bytes, more than %d", len(req), len(resp), cloudfront.MaxSize)
	}
	t.Logf("%d documents; viewer-request %d bytes, viewer-response %d bytes", len(s.Documents), len(req), len(resp))

	api, bucket := newBucket(t)
	start := time.Now()
	publish(t, api, bucket, "", append(s.Documents, ErrorDocument()), applyOptions{})
	t.Logf("published %d objects in %v", len(s.Documents)+1, time.Since(start).Round(time.Millisecond))

	edge := newEdge(t, bucket, "", s, true, nil)
	client := checktest.Serve(t, edge)
	start = time.Now()
	// The lists of 10,000 tools are larger than check reads by default.
	// Every request runs both functions under node, so the check reads the
	// catalogs, the lists and 600 documents, not all 22,000, and warns
	// that it did.
	r, err := check.Run(t.Context(), edgeTestBase, check.Options{Client: client, MaxBodyBytes: 64 << 20, MaxDocuments: 600})
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.DeleteFunc(checktest.Bad(r), func(rule string) bool { return rule == "limits.documents" })
	if len(bad) > 0 || r.Failed() {
		t.Errorf("rules not met through the edge: %v\n%s", bad, checktest.Problems(r))
	}
	t.Logf("checked in %v", time.Since(start).Round(time.Millisecond))
}
