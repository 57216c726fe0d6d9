package publish

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"golang.org/x/sync/errgroup"

	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
)

// S3API is the few S3 calls publishing needs. *s3.Client satisfies it;
// tests wrap it to count calls and to make them fail.
type S3API interface {
	ListObjectsV2(ctx context.Context, params *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
	PutObject(ctx context.Context, params *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	DeleteObjects(ctx context.Context, params *s3.DeleteObjectsInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectsOutput, error)
	DeleteObject(ctx context.Context, params *s3.DeleteObjectInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	GetObject(ctx context.Context, params *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	GetBucketCors(ctx context.Context, params *s3.GetBucketCorsInput, optFns ...func(*s3.Options)) (*s3.GetBucketCorsOutput, error)
	PutBucketCors(ctx context.Context, params *s3.PutBucketCorsInput, optFns ...func(*s3.Options)) (*s3.PutBucketCorsOutput, error)
}

// ManifestName is the object, under the prefix, that records the headers of
// every published document, so that a change of headers alone is seen
// without reading every object back.
const ManifestName = spec.ManifestKey

// Reasons for an upload.
const (
	ReasonNew            = "new"
	ReasonContentChanged = "content changed"
	ReasonHeadersChanged = "headers changed"
)

// maxDeleteBatch is the most keys one DeleteObjects call accepts.
const maxDeleteBatch = 1000

// Upload is one document to put, at object key Key.
type Upload struct {
	Key    string          `json:"key"`
	Reason string          `json:"reason"`
	Doc    output.Document `json:"-"`
	// MD5 is the hex MD5 of the document's body, the ETag the object
	// gets: computed once, to compare with the listing and to send as the
	// PUT's Content-MD5. Empty, the PUT computes it.
	MD5 string `json:"-"`
}

// routeView names a document of a site: its route and view.
type routeView struct{ route, view string }

// The steps of an apply, in their order: the documents that name no
// other, the variants the bucket does not have yet, then the lists and
// catalogs, level by level (spec.IndexLevel), from stepFirstList.
const (
	stepDocuments = iota
	stepNewVariants
	stepFirstList
)

// step is the step of an apply that uploads u. A document goes up after
// every document it names (spec.IndexLevel). A variant the bucket does not
// have yet goes up after the documents and before the first list, so
// before the hook that may publish the functions that lead clients to it:
// otherwise a bucket published without variants would answer the lists'
// routes with 404 to every client that accepts gzip or brotli, from the
// functions' change to the lists' upload. But a new variant of a document
// that names lists (a discovery catalog, the registry's), which changes
// in this publish too, goes up with its document: before, it could name a
// list or a version not yet there. Every other variant goes up with its
// document, so that the two change together.
func (p *ObjectPlan) step(u Upload) int {
	if u.Doc.Encoding != "" && u.Reason == ReasonNew &&
		!(spec.IndexLevel(u.Doc.Route.Route) > 1 && p.uploading[routeView{u.Doc.Route.Route, u.Doc.View}]) {
		return stepNewVariants
	}
	if l := spec.IndexLevel(u.Doc.Route.Route); l > 0 {
		return stepFirstList + l - 1
	}
	return stepDocuments
}

// ObjectPlan is what publishing a site to a bucket would change in its
// objects.
type ObjectPlan struct {
	Bucket, Prefix string
	// Uploads holds the documents first, then the variants the bucket does
	// not have, then the lists and catalogs (route /tools and the
	// .well-known catalogs) level by level: the order of ObjectPlan.step, each
	// step sorted by key.
	Uploads []Upload
	// Deletes holds the object keys under the prefix that the site does
	// not have, sorted.
	Deletes []string
	// Unchanged counts the documents already in the bucket as built.
	Unchanged int

	manifest        []byte            // the manifest of the site
	meta            map[string]string // the manifest's metadata: the inputs and objects digests, or none
	metaChanged     bool              // meta differs from the bucket's manifest's
	manifestChanged bool              // the bucket's manifest is missing or differs, or its metadata
	manifestETag    string            // the bucket's manifest's ETag, "" when missing
	deletedRoutes   map[string]string // key of a delete → its route, as the old manifest has it
	// keptEntries are the old manifest's entries of the deletes: when the
	// deletes are refused, the manifest keeps them, since the objects stay.
	keptEntries map[string]manifestEntry
	entries     map[string]manifestEntry
	own         map[string]string  // signpost's own objects under the prefix (key → ETag)
	uploading   map[routeView]bool // the documents (not variants) of Uploads
}

// ownObjectPrefix starts the names of the objects signpost keeps beside a
// site's documents (the manifest, pending invalidations). A plan never
// deletes them.
const ownObjectPrefix = ".signpost-"

func isOwnObject(key, prefix string) bool {
	name, ok := strings.CutPrefix(key, prefix)
	return ok && strings.HasPrefix(name, ownObjectPrefix) && !strings.Contains(name, "/")
}

// manifestEntry is what the manifest records of one document.
type manifestEntry struct {
	// Route is the document's route, so that what a later publish deletes
	// can be invalidated by route too.
	Route        string `json:"route,omitempty"`
	SHA256       string `json:"sha256"`
	ContentType  string `json:"contentType"`
	CacheControl string `json:"cacheControl"`
	// ContentEncoding is the coding of a precompressed variant.
	ContentEncoding string `json:"contentEncoding,omitempty"`
}

// normalizePrefix makes a non-empty prefix end with exactly one "/".
func normalizePrefix(prefix string) string {
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		return ""
	}
	return prefix + "/"
}

// md5Hex returns the hex MD5 of b.
func md5Hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// bodyMD5 is md5Hex of a document's body, read as it is held.
func bodyMD5(b io.WriterTo) (string, error) {
	h := md5.New()
	if _, err := b.WriteTo(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// objects returns docs with each variant of each as an object of its own,
// with its Content-Encoding (output.Document.Objects); docs itself when
// none has variants.
func objects(docs []output.Document) []output.Document {
	n := 0
	for i := range docs {
		n += len(docs[i].Variants)
	}
	if n == 0 {
		return docs
	}
	out := make([]output.Document, 0, len(docs)+n)
	for i := range docs {
		if len(docs[i].Variants) == 0 {
			out = append(out, docs[i])
			continue
		}
		out = append(out, docs[i].Objects()...)
	}
	return out
}

// planS3 compares the documents of one site with the objects under prefix
// in bucket: one read of the manifest for headers and a listing for keys and
// ETags (the MD5 of a body put in one part). It changes nothing.
func planS3(ctx context.Context, api S3API, bucket, prefix string, docs []output.Document) (*ObjectPlan, error) {
	remote, err := listSite(ctx, api, bucket, normalizePrefix(prefix), rangeKeys, nil)
	if err != nil {
		return nil, err
	}
	return planListed(bucket, prefix, docs, remote, "")
}

// planListed is planS3 given the listing of prefix.
func planListed(bucket, prefix string, docs []output.Document, site *remoteSite, inputs string) (*ObjectPlan, error) {
	prefix = normalizePrefix(prefix)
	docs = objects(docs)

	entries := make(map[string]manifestEntry, len(docs))
	for i := range docs {
		d := &docs[i]
		entries[d.Route.Key] = manifestEntry{Route: d.Route.Route, SHA256: d.SHA256, ContentType: d.ContentType, CacheControl: d.CacheControl, ContentEncoding: d.Encoding}
	}
	manifest, err := json.Marshal(entries) // map keys are sorted: deterministic
	if err != nil {
		return nil, err
	}
	manifest = append(manifest, '\n')

	p := &ObjectPlan{Bucket: bucket, Prefix: prefix, manifest: manifest, own: map[string]string{}, entries: entries}
	etags := make(map[string]string, len(docs)) // key → MD5 of the body, the ETag it gets
	inOrder := content.NewSequence(len(docs))   // the documents, read in the order the build holds them
	for i := range docs {
		if etags[prefix+docs[i].Route.Key], err = bodyMD5(inOrder.Of(docs[i].Body)); err != nil {
			return nil, fmt.Errorf("%s: %w", docs[i].Route.Key, err)
		}
	}
	if inputs != "" {
		p.meta = map[string]string{metaInputs: inputs, metaObjects: objectsDigest(etags)}
	}
	remote := site.objects
	old := map[string]manifestEntry{}
	if etag := site.manifestETag; etag != "" {
		p.manifestETag = etag
		p.metaChanged = p.meta != nil && !maps.Equal(p.meta, site.meta)
		p.manifestChanged = etag != md5Hex(manifest) || p.metaChanged
		old = site.manifest
	} else {
		p.manifestChanged = true
	}

	seen := make(map[string]bool, len(docs))
	for i := range docs {
		d := docs[i]
		key := prefix + d.Route.Key
		seen[key] = true
		reason := ""
		etag, ok := remote[key]
		switch {
		case !ok:
			reason = ReasonNew
		case etag != etags[key]:
			reason = ReasonContentChanged
		default:
			e, ok := old[d.Route.Key]
			if !ok || e.ContentType != d.ContentType || e.CacheControl != d.CacheControl || e.ContentEncoding != d.Encoding {
				reason = ReasonHeadersChanged
			}
		}
		if reason == "" {
			p.Unchanged++
			continue
		}
		p.Uploads = append(p.Uploads, Upload{Key: key, Reason: reason, Doc: d, MD5: etags[key]})
	}
	p.uploading = map[routeView]bool{}
	for _, u := range p.Uploads {
		if u.Doc.Encoding == "" {
			p.uploading[routeView{u.Doc.Route.Route, u.Doc.View}] = true
		}
	}
	slices.SortFunc(p.Uploads, func(a, b Upload) int {
		return cmp.Or(cmp.Compare(p.step(a), p.step(b)), strings.Compare(a.Key, b.Key))
	})
	for key, etag := range remote {
		if seen[key] {
			continue
		}
		if isOwnObject(key, prefix) {
			p.own[key] = etag
			continue
		}
		p.Deletes = append(p.Deletes, key)
		if e, ok := old[strings.TrimPrefix(key, prefix)]; ok {
			if p.keptEntries == nil {
				p.keptEntries = map[string]manifestEntry{}
			}
			p.keptEntries[strings.TrimPrefix(key, prefix)] = e
			if e.Route != "" {
				if p.deletedRoutes == nil {
					p.deletedRoutes = map[string]string{}
				}
				p.deletedRoutes[key] = e.Route
			}
		}
	}
	slices.Sort(p.Deletes)
	return p, nil
}

// manifestKeeping returns the manifest with the entries kept besides the
// documents', and whether it, or its metadata, differs from the bucket's.
func (p *ObjectPlan) manifestKeeping(kept map[string]manifestEntry) ([]byte, bool) {
	all := make(map[string]manifestEntry, len(p.entries)+len(kept))
	maps.Copy(all, kept)
	maps.Copy(all, p.entries)
	m, _ := json.Marshal(all) // map keys are sorted: deterministic
	m = append(m, '\n')
	return m, md5Hex(m) != p.manifestETag || p.metaChanged
}

// manifestObject is the manifest object of the site with body, and the
// plan's metadata.
func (p *ObjectPlan) manifestObject(body []byte) object {
	return object{key: p.Prefix + ManifestName, body: body, contentType: spec.ContentTypeJSON, cacheControl: "no-cache", meta: p.meta}
}

// readManifest reads the manifest at key, and its metadata (names in
// lower case); an unreadable one is empty, so that every document is
// compared again.
func readManifest(ctx context.Context, api S3API, bucket, key string) (*remoteManifest, error) {
	out, err := api.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return &remoteManifest{manifest: map[string]manifestEntry{}}, nil
		}
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	rm := &remoteManifest{manifestETag: strings.Trim(aws.ToString(out.ETag), `"`), manifest: map[string]manifestEntry{}}
	if m, err := unmarshalManifest(data); err == nil {
		rm.manifest = m
		rm.meta = make(map[string]string, len(out.Metadata))
		for k, v := range out.Metadata {
			rm.meta[strings.ToLower(k)] = v
		}
	}
	return rm, nil
}

// remoteManifest is a site's manifest as one read of it found it. A plan
// compares its objects with these entries, and the lock's check holds the
// bucket to this ETag: one read, so that a manifest another publish wrote
// between the read and the listing makes the plan stale instead of mixing
// two manifests.
type remoteManifest struct {
	// manifest is the bucket's manifest, keyed by the documents' keys
	// under the prefix; empty when there is none or it is unreadable.
	manifest map[string]manifestEntry
	// meta is the manifest's metadata, names in lower case.
	meta map[string]string
	// manifestETag is the ETag (without quotes) of the bytes read, "" when
	// there was none.
	manifestETag string
}

func isNotFound(err error) bool {
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		}
	}
	return false
}

// applyOptions tunes Apply.
type applyOptions struct {
	// MaxDeletes bounds the deletes: when it is >= 0 and the plan has more
	// deletes, none is made. A negative value allows any number. The zero
	// value allows none.
	MaxDeletes int
	// Concurrency is the number of uploads in flight; DefaultConcurrency
	// when <= 0.
	Concurrency int
	// Progress, when set, is called after each upload and each delete batch
	// with the work done and the total, never concurrently.
	Progress func(done, total int)
	// BeforeLists, when set, runs once the documents and the variants the
	// bucket did not have are uploaded, and before any list or catalog is:
	// the moment to switch the routing of a distribution to the new
	// documents. Its error stops Apply.
	BeforeLists func(ctx context.Context) error
	// BeforeDeletes, when set, runs after the manifest is uploaded and
	// before the first delete, when there are deletes to make: the moment to
	// drop the old lists from a distribution's caches, so that none is
	// served naming a deleted document. Its error stops Apply.
	BeforeDeletes func(ctx context.Context) error
}

// Applied is what Apply did.
type Applied struct {
	Uploaded int `json:"uploaded"`
	Deleted  int `json:"deleted"`
	// DeletesRefused is set when the plan had more deletes than
	// applyOptions.MaxDeletes and none was made.
	DeletesRefused bool `json:"deletesRefused"`
	// Bytes is the size of the documents uploaded.
	Bytes int64 `json:"bytes"`
}

// Apply carries out the plan: every document upload completes, then every
// upload of a variant the bucket did not have, then every list and catalog
// upload, then the manifest, then the deletes, in the steps of ObjectPlan.step:
// no list or catalog ever names a document that is not in the bucket, and
// a function a publish brings leads to no variant that is not there but a
// catalog's that changes in the same publish, until the catalog's level.
func (p *ObjectPlan) apply(ctx context.Context, api S3API, opts applyOptions) (*Applied, error) {
	conc := opts.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	res := &Applied{}
	deletes := p.Deletes
	if opts.MaxDeletes >= 0 && len(deletes) > opts.MaxDeletes {
		res.DeletesRefused = true
		deletes = nil
	}
	total := len(p.Uploads) + len(deletes)
	var mu sync.Mutex
	done := 0
	step := func(n int, bytes int64, uploaded, deleted int) {
		mu.Lock()
		defer mu.Unlock()
		done += n
		res.Bytes += bytes
		res.Uploaded += uploaded
		res.Deleted += deleted
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}

	// Each step is uploaded whole before the next starts (see
	// ObjectPlan.step), and the hook runs before the first list. p.Uploads is
	// in step order, so each step keeps its key order.
	b := s3Bucket{api, p.Bucket}
	steps := make([][]Upload, stepFirstList+spec.MaxIndexLevel)
	for _, u := range p.Uploads {
		steps[p.step(u)] = append(steps[p.step(u)], u)
	}
	for i, group := range steps {
		if i == stepFirstList && opts.BeforeLists != nil {
			if err := opts.BeforeLists(ctx); err != nil {
				return res, err
			}
		}
		err := each(ctx, conc, group, func(ctx context.Context, u Upload) error {
			body, err := u.Doc.Body.Bytes()
			if err != nil {
				return fmt.Errorf("upload %s: %w", u.Key, err)
			}
			if err := b.put(ctx, object{key: u.Key, body: body, md5: u.MD5, contentType: u.Doc.ContentType, cacheControl: u.Doc.CacheControl, contentEncoding: u.Doc.Encoding}); err != nil {
				return err
			}
			step(1, u.Doc.Body.Len(), 1, 0)
			return nil
		})
		if err != nil {
			return res, err
		}
	}

	manifest, changed := p.manifest, p.manifestChanged
	keeping := len(p.keptEntries) > 0 && (res.DeletesRefused || len(deletes) > 0)
	if keeping {
		// Until the objects are deleted, their entries stay, and with
		// them their routes: a publish that stops before the deletes
		// leaves them to the next one, which invalidates them by route.
		manifest, changed = p.manifestKeeping(p.keptEntries)
	}
	if changed {
		if err := b.put(ctx, p.manifestObject(manifest)); err != nil {
			return res, err
		}
	}

	if len(deletes) > 0 && opts.BeforeDeletes != nil {
		if err := opts.BeforeDeletes(ctx); err != nil {
			return res, err
		}
	}
	for start := 0; start < len(deletes); start += maxDeleteBatch {
		batch := deletes[start:min(start+maxDeleteBatch, len(deletes))]
		ids := make([]types.ObjectIdentifier, len(batch))
		for i, k := range batch {
			ids[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		out, err := api.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(p.Bucket),
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return res, fmt.Errorf("publish %s: delete: %w", batch[0], err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return res, fmt.Errorf("publish %s: delete: %s: %s", aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
		}
		step(len(batch), 0, 0, len(batch))
	}
	if keeping && len(deletes) > 0 {
		if err := b.put(ctx, p.manifestObject(p.manifest)); err != nil {
			return res, err
		}
	}
	return res, nil
}

// each calls f on every item, n at a time, and returns the first error,
// after which no call starts. It runs n workers, not a goroutine per item:
// an SDK call is deep, and each new goroutine would grow its stack again.
func each[T any](ctx context.Context, n int, items []T, f func(context.Context, T) error) error {
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range min(max(n, 1), len(items)) {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(items) {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				if err := f(gctx, items[i]); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// s3Bucket is an S3 bucket and the client that reaches it.
type s3Bucket struct {
	api  S3API
	name string
}

// object is one object to put, with its headers.
type object struct {
	key  string
	body []byte
	// md5 is the hex MD5 of body; computed when it is not one (empty).
	md5                       string
	contentType, cacheControl string
	// contentEncoding is the Content-Encoding of a precompressed variant.
	contentEncoding string
	// meta is the object's user metadata.
	meta map[string]string
}

// put uploads o with its headers and its MD5, and no ACL.
func (b s3Bucket) put(ctx context.Context, o object) error {
	raw, err := hex.DecodeString(o.md5)
	if err != nil || len(raw) != md5.Size {
		s := md5.Sum(o.body)
		raw = s[:]
	}
	in := &s3.PutObjectInput{
		Bucket:        aws.String(b.name),
		Key:           aws.String(o.key),
		Body:          bytes.NewReader(o.body),
		ContentLength: aws.Int64(int64(len(o.body))),
		ContentType:   aws.String(o.contentType),
		CacheControl:  aws.String(o.cacheControl),
		ContentMD5:    aws.String(base64.StdEncoding.EncodeToString(raw)),
		Metadata:      o.meta,
	}
	if o.contentEncoding != "" {
		// S3 answers with it, and CloudFront compresses nothing that has
		// one.
		in.ContentEncoding = aws.String(o.contentEncoding)
	}
	_, err = b.api.PutObject(ctx, in)
	if err != nil {
		return fmt.Errorf("publish %s: %w", o.key, err)
	}
	return nil
}

// bucketCORS is the bucket's CORS rule: any origin may GET and HEAD.
func bucketCORS() []types.CORSRule {
	return []types.CORSRule{{
		AllowedOrigins: []string{"*"},
		AllowedMethods: []string{"GET", "HEAD"},
		AllowedHeaders: []string{"Content-Type", "If-None-Match"},
		ExposeHeaders:  []string{"ETag"},
		MaxAgeSeconds:  aws.Int32(86400),
	}}
}

// setCORS gives the bucket the CORS rule of bucketCORS, unless it has
// exactly that rule already: a republish that changes nothing makes no
// write. A rule that cannot be read (none yet, or no permission to read it)
// is written.
func (b s3Bucket) setCORS(ctx context.Context) error {
	if got, err := b.api.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: aws.String(b.name)}); err == nil && sameCORS(got.CORSRules, bucketCORS()) {
		return nil
	} else if ctx.Err() != nil {
		return ctx.Err()
	}
	_, err := b.api.PutBucketCors(ctx, &s3.PutBucketCorsInput{
		Bucket:            aws.String(b.name),
		CORSConfiguration: &types.CORSConfiguration{CORSRules: bucketCORS()},
	})
	if err != nil {
		return fmt.Errorf("set CORS of bucket %s: %w", b.name, err)
	}
	return nil
}

// sameCORS reports whether two CORS configurations allow the same: the
// same rules in the same order, each with the same origins, methods,
// headers and max age, whatever the order within a list.
func sameCORS(a, b []types.CORSRule) bool {
	if len(a) != len(b) {
		return false
	}
	same := func(x, y []string) bool {
		x, y = slices.Clone(x), slices.Clone(y)
		slices.Sort(x)
		slices.Sort(y)
		return slices.Equal(x, y)
	}
	for i := range a {
		x, y := a[i], b[i]
		if !same(x.AllowedOrigins, y.AllowedOrigins) || !same(x.AllowedMethods, y.AllowedMethods) ||
			!same(x.AllowedHeaders, y.AllowedHeaders) || !same(x.ExposeHeaders, y.ExposeHeaders) ||
			aws.ToInt32(x.MaxAgeSeconds) != aws.ToInt32(y.MaxAgeSeconds) {
			return false
		}
	}
	return true
}

// NewS3Client makes a client with the default credential chain, whose
// calls are bounded by limits. With an endpoint (S3-compatible storage), it
// addresses buckets path-style.
func NewS3Client(ctx context.Context, region, endpoint string, limits Limits) (*s3.Client, error) {
	opts := limits.loadOptions()
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.UsePathStyle = true
		}
	}), nil
}
