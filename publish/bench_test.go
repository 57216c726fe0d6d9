package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// newDoc makes a document the way build does: its key is the route
// without its slash, except for the tool catalog.
func newDoc(route, key string, body []byte) output.Document {
	sum := sha256.Sum256(body)
	return output.Document{
		Route: output.Route{
			Route:        route,
			View:         spec.ViewStandard,
			Key:          key,
			ContentType:  spec.ContentTypeJSON,
			CacheControl: spec.CacheControl,
			ETag:         `"` + hex.EncodeToString(sum[:16]) + `"`,
			SHA256:       hex.EncodeToString(sum[:]),
			Size:         int64(len(body)),
		},
		Body: content.New(body),
	}
}

// generateSite makes a site of n tools of about 1.5 KB each and their
// list. rev changes the description of tool 0, so that two revisions differ
// in one tool document and the list.
func generateSite(n, rev int) []output.Document {
	docs := make([]output.Document, 0, n+1)
	var list bytes.Buffer
	list.WriteByte('[')
	filler := strings.Repeat("Returns the requested records, paged, newest first. ", 23)
	for i := range n {
		id := fmt.Sprintf("tool_%05d", i)
		desc := filler
		if i == 0 {
			desc = fmt.Sprintf("Revision %d. %s", rev, filler)
		}
		body := fmt.Appendf(nil, `{"toolId":%q,"description":%q,"source":"host-extension","safetyTier":"read","replayPolicy":"idempotent","egress":"internal","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object","properties":{"page":{"type":"integer","minimum":1},"query":{"type":"string","maxLength":200}}}}`, id, desc)
		if i > 0 {
			list.WriteByte(',')
		}
		list.Write(body)
		docs = append(docs, newDoc("/tools/"+id, "tools/"+id+".json", append(body, '\n')))
	}
	list.WriteString("]\n")
	docs = append(docs, newDoc("/tools", "tools.json", list.Bytes()))
	return docs
}

func BenchmarkPublish10k(b *testing.B) {
	const n = 10000
	site := generateSite(n, 0)
	ctx := context.Background()
	run := func(b *testing.B, api *counting, bucket string, docs []output.Document) {
		b.Helper()
		p, err := planS3(ctx, api, bucket, "site", docs)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.apply(ctx, api, applyOptions{MaxDeletes: -1}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("first", func(b *testing.B) {
		puts := 0
		for b.Loop() {
			b.StopTimer()
			client, bucket := newBucket(b)
			api := &counting{S3API: client}
			b.StartTimer()
			run(b, api, bucket, site)
			puts += api.count("PutObject")
		}
		b.ReportMetric(float64(puts)/float64(b.N), "puts/op")
	})
	client, bucket := newBucket(b)
	run(b, &counting{S3API: client}, bucket, site)
	b.Run("noop", func(b *testing.B) {
		puts := 0
		for b.Loop() {
			api := &counting{S3API: client}
			run(b, api, bucket, site)
			puts += api.count("PutObject")
		}
		b.ReportMetric(float64(puts)/float64(b.N), "puts/op")
	})
	// The bucket alternates between two revisions that differ in one tool.
	// i lives outside the sub-benchmark, which the testing package may call
	// more than once: each call continues from the bucket's state.
	revs := [2][]output.Document{generateSite(n, 1), site}
	i := 0
	b.Run("one-tool", func(b *testing.B) {
		puts := 0
		for b.Loop() {
			api := &counting{S3API: client}
			run(b, api, bucket, revs[i%2])
			puts += api.count("PutObject")
			i++
		}
		b.ReportMetric(float64(puts)/float64(b.N), "puts/op")
	})
}

// BenchmarkManifest decodes the manifest of a site of 20,000 documents, as
// a republish reads it before it lists the bucket.
func BenchmarkManifest(b *testing.B) {
	m := map[string]manifestEntry{}
	for i := range 20000 {
		m[fmt.Sprintf("tools/tool_%05d.json", i)] = manifestEntry{Route: fmt.Sprintf("/tools/tool_%05d", i), SHA256: strings.Repeat("a", 64), ContentType: "application/json", CacheControl: "public, max-age=300"}
	}
	data, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := unmarshalManifest(data); err != nil {
			b.Fatal(err)
		}
	}
}
