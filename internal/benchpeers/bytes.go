package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"

	"github.com/signpost-dev/signpost/build/compress"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/build/tokens"
	"github.com/signpost-dev/signpost/internal/benchrun"
	"github.com/signpost-dev/signpost/internal/gencatalog"
	"github.com/signpost-dev/signpost/internal/s3test"
)

// wireGoal is the most of its identity size /tools may take on the wire
// for a client that accepts gzip and brotli.
const wireGoal = 0.15

// benchBytes counts, for /tools in both views, the tool catalogue and a
// tool document, the bytes a client that sends Accept-Encoding: gzip, br
// receives, against the document's own size, each body decoded and held to
// the document, on two layouts that signpost serve serves as their hosts
// would: the build for the S3 target, whose precompressed variants S3 and
// CloudFront send (brotli for this client), and the build for no host,
// which serve compresses in gzip at start (GitHub Pages and Netlify
// compress at their edge, which no local measure shows; a Cloudflare
// build has the S3 build's variants). Then the tokens (o200k_base) an
// agent reads from the AI catalog to a callable tool, through the compact
// list and through the standard one.
func benchBytes(ctx context.Context, c config, cat *catalog) ([]row, error) {
	if err := ensureBuilt(ctx, c, cat); err != nil {
		return nil, err
	}
	s3site := cat.site + "-s3"
	if _, err := benchrun.Timed(ctx, "", nil, c.signpost, "build", cat.dir, "--target", gencatalog.Target, "--out", s3site); err != nil {
		return nil, err
	}
	var rows []row
	for _, layout := range []struct{ host, dir string }{
		{"S3 + CloudFront (the build's variants)", s3site},
		{"signpost serve of a build for no host (gzip at start)", cat.site},
	} {
		r, err := wireRows(ctx, c, layout.host, layout.dir)
		rows = append(rows, r...)
		if err != nil {
			return rows, err
		}
	}
	site, err := servedSite(ctx, cat.site)
	if err != nil {
		return rows, err
	}
	doc := func(route, view string) *output.Document { return siteDocument(site, route, view) }
	counter, err := tokens.NewCounter()
	if err != nil {
		return rows, err
	}
	count := func(d *output.Document) (int, error) {
		if d == nil {
			return 0, nil
		}
		body, err := d.Body.Bytes()
		if err != nil {
			return 0, err
		}
		return counter.Count(body)
	}
	ai, err := count(doc(spec.RouteAICatalog, spec.ViewStandard))
	if err != nil {
		return rows, err
	}
	std, err := count(doc(spec.RouteTools, spec.ViewStandard))
	if err != nil {
		return rows, err
	}
	cpt, err := count(doc(spec.RouteTools, spec.ViewCompact))
	if err != nil {
		return rows, err
	}
	fmt.Printf("tokens to a callable tool: AI catalog %d, then /tools %d or /tools?view=compact %d\n", ai, std, cpt)
	rows = append(rows, row{
		measure:  "tokens from the AI catalog to a callable tool, through /tools?view=compact",
		signpost: fmt.Sprintf("%d tokens", ai+cpt),
		peer:     "through /tools", figure: fmt.Sprintf("%d tokens", ai+std),
		ratio: float64(ai+cpt) / float64(ai+std), ratioOf: "cost",
	})
	return rows, nil
}

// wireRows serves the built site in dir with signpost serve and counts the
// bytes on the wire of the large documents and a tool document, as host
// would send them.
func wireRows(ctx context.Context, c config, host, dir string) ([]row, error) {
	site, err := servedSite(ctx, dir)
	if err != nil {
		return nil, err
	}
	doc := func(route, view string) *output.Document { return siteDocument(site, route, view) }
	var tool *output.Document
	for i, d := range site.Documents {
		if _, ok := spec.ToolIDOf(d.Route.Route); ok && d.View == spec.ViewStandard {
			tool = &site.Documents[i]
			break
		}
	}
	port, err := s3test.FreePort()
	if err != nil {
		return nil, err
	}
	stop, err := startServer(exec.CommandContext(ctx, c.signpost, "serve", dir, "--tenant", servedTenant, "--addr", "127.0.0.1:"+port), port)
	if err != nil {
		return nil, err
	}
	defer stop()
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableCompression: true}}
	var rows []row
	for _, w := range []struct {
		name string
		d    *output.Document
	}{
		{spec.RouteTools, doc(spec.RouteTools, spec.ViewStandard)},
		{spec.RouteTools + "?view=compact", doc(spec.RouteTools, spec.ViewCompact)},
		{spec.RouteToolCatalogue, doc(spec.RouteToolCatalogue, spec.ViewStandard)},
		{"tool document", tool},
	} {
		if w.d == nil {
			return rows, fmt.Errorf("the %s site has no %s", servedTenant, w.name)
		}
		want, err := w.d.Body.Bytes()
		if err != nil {
			return rows, err
		}
		n, coding, err := onWire(ctx, client, "http://127.0.0.1:"+port+spec.Request(w.d.Route.Route, w.d.View), want)
		if err != nil {
			return rows, err
		}
		r := row{
			measure:  fmt.Sprintf("bytes on the wire, %s, %s, Accept-Encoding: gzip, br", host, w.name),
			signpost: fmt.Sprintf("%d bytes (%s)", n, coding),
			peer:     "identity", figure: fmt.Sprintf("%d bytes", w.d.Size),
			ratio: float64(n) / float64(w.d.Size), ratioOf: "of identity",
		}
		if w.name == spec.RouteTools {
			r.goal, r.met = fmt.Sprintf("<= %.2fx", wireGoal), r.ratio <= wireGoal
		}
		fmt.Printf("wire %-22s %9d of %9d bytes (%s), %s\n", w.name, n, w.d.Size, coding, host)
		rows = append(rows, r)
	}
	return rows, nil
}

// onWire GETs url with Accept-Encoding: gzip, br and returns the bytes of
// the body as sent and its coding, after holding the decoded body to want.
func onWire(ctx context.Context, client *http.Client, url string, want []byte) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Accept-Encoding", "gzip, br")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	coding := resp.Header.Get("Content-Encoding")
	decoded := body
	if coding != "" {
		if decoded, err = compress.Decode(coding, body, int64(len(want))); err != nil {
			return 0, "", fmt.Errorf("%s: %s body: %w", url, coding, err)
		}
	} else {
		coding = "identity"
	}
	if resp.StatusCode != http.StatusOK || !bytes.Equal(decoded, want) {
		return 0, "", fmt.Errorf("%s: status %d, %d bytes decoded; want 200 and the document's %d bytes", url, resp.StatusCode, len(decoded), len(want))
	}
	return len(body), coding, nil
}

// servedSite opens the build in dir and returns the site of the tenant the
// benchmark serves.
func servedSite(ctx context.Context, dir string) (*output.Site, error) {
	b, err := output.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return b.Site(servedTenant)
}

// siteDocument returns the document of site at route in view, nil when it
// has none.
func siteDocument(site *output.Site, route, view string) *output.Document {
	for i, d := range site.Documents {
		if d.Route.Route == route && d.View == view {
			return &site.Documents[i]
		}
	}
	return nil
}
