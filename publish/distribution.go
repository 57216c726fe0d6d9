package publish

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	cftypes "github.com/aws/aws-sdk-go-v2/service/cloudfront/types"
	"github.com/aws/smithy-go"
	"github.com/signpost-dev/signpost/build/content"
	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	cffunctions "github.com/signpost-dev/signpost/hosts/cloudfront"
)

// CloudFrontAPI is the few CloudFront calls publishing needs.
// *cloudfront.Client satisfies it.
type CloudFrontAPI interface {
	CreateInvalidation(ctx context.Context, params *cloudfront.CreateInvalidationInput, optFns ...func(*cloudfront.Options)) (*cloudfront.CreateInvalidationOutput, error)
	GetInvalidation(ctx context.Context, params *cloudfront.GetInvalidationInput, optFns ...func(*cloudfront.Options)) (*cloudfront.GetInvalidationOutput, error)
	GetFunction(ctx context.Context, params *cloudfront.GetFunctionInput, optFns ...func(*cloudfront.Options)) (*cloudfront.GetFunctionOutput, error)
	DescribeFunction(ctx context.Context, params *cloudfront.DescribeFunctionInput, optFns ...func(*cloudfront.Options)) (*cloudfront.DescribeFunctionOutput, error)
	CreateFunction(ctx context.Context, params *cloudfront.CreateFunctionInput, optFns ...func(*cloudfront.Options)) (*cloudfront.CreateFunctionOutput, error)
	UpdateFunction(ctx context.Context, params *cloudfront.UpdateFunctionInput, optFns ...func(*cloudfront.Options)) (*cloudfront.UpdateFunctionOutput, error)
	PublishFunction(ctx context.Context, params *cloudfront.PublishFunctionInput, optFns ...func(*cloudfront.Options)) (*cloudfront.PublishFunctionOutput, error)
}

// ErrorDocumentName is the object, under a site's prefix, that a
// distribution answers with when S3 has no object for a request: the
// viewer-request function sends every well-formed toolId to S3, and S3
// answers 403 for a key it does not hold. The distribution's custom error
// response turns that 403 into a 404 with this page (see
// templates/aws/cloudfront-s3.yaml).
const ErrorDocumentName = spec.ErrorDocumentKey

// ErrorDocument is the object at ErrorDocumentName: the JSON error that
// signpost serve gives for an unknown tool, in a form that fits every
// unknown key.
func ErrorDocument() output.Document {
	body := spec.NotFoundBody()
	return output.Document{
		Route: output.Route{Key: ErrorDocumentName, ContentType: spec.ContentTypeJSON, CacheControl: spec.ErrorCacheControl},
		Body:  content.New(body),
	}
}

// DefaultMaxInvalidationPaths is how many paths an invalidation lists
// before they are collapsed into wildcards. CloudFront allows 3,000 paths
// in progress per distribution and charges for paths past 1,000 a month;
// a wildcard counts as one path.
const DefaultMaxInvalidationPaths = 100

// invalidation is what a publish invalidates on the distribution in front
// of a site, in two parts, because a list must never be served from a
// cache once a document it names is deleted:
//
//   - Updated: the documents whose content or headers changed, the lists
//     among them, and what an earlier publish left pending. When the plan
//     deletes anything, these are invalidated, and the invalidation waited
//     for, before the deletes.
//   - Deleted: the documents the plan deletes, invalidated after them.
//
// A new document needs none: no cache holds it (an earlier 404 for its path
// is cached for the distribution's short error caching TTL only).
type invalidation struct {
	Updated, Deleted []string
}

// Paths returns every path of inv, sorted.
func (inv invalidation) Paths() []string {
	set := map[string]bool{}
	for _, q := range append(slices.Clone(inv.Updated), inv.Deleted...) {
		set[q] = true
	}
	return sortedSet(set)
}

// invalidationPaths returns the invalidation of the distribution in front
// of the site of plan p, plus pending, the paths an earlier publish did not
// get to invalidate.
//
// Each document gives two paths, as CloudFront advises for functions that
// rewrite the URI: its logical route (/tools/get_forecast), and the path of
// its object (/tools/get_forecast.json, under the prefix), which is what the
// cache holds since the viewer-request function rewrites the URI before the
// cache lookup. The query string is dropped by the function, so one path
// covers both views of a route.
//
// With more than max paths in a part (DefaultMaxInvalidationPaths when
// max <= 0), its paths are collapsed into a wildcard per folder ("/tools/*";
// the lists at the top of the site stay themselves), and if that is still
// too many, into "/*". Each part is sorted and has no duplicates.
func invalidationPaths(p *ObjectPlan, pending []string, max int) invalidation {
	if max <= 0 {
		max = DefaultMaxInvalidationPaths
	}
	updated, deleted := map[string]bool{}, map[string]bool{}
	add := func(set map[string]bool, route, key string) {
		if route != "" {
			set[invalidationEscape(cffunctions.Path("", route))] = true
		}
		set[invalidationEscape(cffunctions.Path("", key))] = true
	}
	for _, u := range p.Uploads {
		if u.Reason != ReasonNew {
			add(updated, u.Doc.Route.Route, u.Key)
		}
	}
	for _, q := range pending {
		updated[q] = true
	}
	for _, key := range p.Deletes {
		add(deleted, p.deletedRoutes[key], key)
	}
	siteRoot := strings.TrimSuffix(cffunctions.Path(p.Prefix, ""), "/")
	return invalidation{Updated: collapsePaths(updated, siteRoot, max), Deleted: collapsePaths(deleted, siteRoot, max)}
}

// collapsePaths returns the paths of set, or, when there are more than max,
// a wildcard for each folder, or "/*".
func collapsePaths(set map[string]bool, siteRoot string, max int) []string {
	paths := sortedSet(set)
	if len(paths) <= max {
		return paths
	}
	folders := map[string]bool{}
	for _, q := range paths {
		dir := path.Dir(q)
		switch {
		case q == "/*" || strings.HasSuffix(q, "/*"):
			folders[q] = true // already a wildcard
		case dir == "/" || dir == siteRoot:
			folders[q] = true // a file at the top of the site stays itself
		default:
			folders[dir+"/*"] = true
		}
	}
	if len(folders) <= max {
		return sortedSet(folders)
	}
	return []string{"/*"}
}

func sortedSet(set map[string]bool) []string {
	return slices.Sorted(maps.Keys(set))
}

// invalidationEscape escapes "*", which an invalidation path reads as a
// wildcard, so that a key with a "*" in it invalidates only itself.
func invalidationEscape(p string) string {
	return strings.ReplaceAll(p, "*", "%2A")
}

// invalidate asks the distribution to drop paths from its caches and
// returns the invalidation's id. It does nothing for no paths.
func invalidate(ctx context.Context, api CloudFrontAPI, distributionID string, paths []string) (string, error) {
	if len(paths) == 0 {
		return "", nil
	}
	// The caller reference must be new for every invalidation: CloudFront
	// takes a repeated one for a retry of the first and does nothing.
	var ref [16]byte
	if _, err := rand.Read(ref[:]); err != nil {
		return "", fmt.Errorf("invalidate %s: %w", distributionID, err)
	}
	out, err := api.CreateInvalidation(ctx, &cloudfront.CreateInvalidationInput{
		DistributionId: aws.String(distributionID),
		InvalidationBatch: &cftypes.InvalidationBatch{
			CallerReference: aws.String("signpost-" + hex.EncodeToString(ref[:])),
			Paths:           &cftypes.Paths{Quantity: aws.Int32(int32(len(paths))), Items: paths},
		},
	})
	if err != nil {
		return "", fmt.Errorf("invalidate %d paths on distribution %s: %w", len(paths), distributionID, err)
	}
	if out.Invalidation == nil {
		return "", nil
	}
	return aws.ToString(out.Invalidation.Id), nil
}

// waitInvalidation polls the invalidation id of the distribution until
// CloudFront reports it Completed, or ctx ends: at once, then after a
// tenth of interval, doubling the pause up to interval.
func waitInvalidation(ctx context.Context, api CloudFrontAPI, distributionID, id string, interval time.Duration) error {
	pause := max(interval/10, time.Millisecond)
	for {
		out, err := api.GetInvalidation(ctx, &cloudfront.GetInvalidationInput{DistributionId: aws.String(distributionID), Id: aws.String(id)})
		if err != nil && ctx.Err() != nil {
			return waitTimedOut(distributionID, id, ctx.Err())
		}
		if err != nil {
			return fmt.Errorf("wait for invalidation %s on distribution %s: %w", id, distributionID, err)
		}
		if out.Invalidation != nil && aws.ToString(out.Invalidation.Status) == "Completed" {
			return nil
		}
		t := time.NewTimer(pause)
		pause = min(2*pause, interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return waitTimedOut(distributionID, id, ctx.Err())
		case <-t.C:
		}
	}
}

func waitTimedOut(distributionID, id string, err error) error {
	return &InvalidationTimeoutError{DistributionID: distributionID, ID: id, Err: err}
}

// The actions a FunctionPlan can take.
const (
	FunctionCreate    = "create"
	FunctionUpdate    = "update"
	FunctionUnchanged = "unchanged"
)

// FunctionPlan is what publishing does to one CloudFront Function.
type FunctionPlan struct {
	Name string `json:"name"`
	// Action is FunctionCreate (missing), FunctionUpdate (the live code,
	// or the live key value store association, differs from the build's)
	// or FunctionUnchanged.
	Action string `json:"action"`
	// KeyValueStoreARN is the key value store the function is associated
	// with once the plan is carried out: the distribution's
	// (target.Distribution.KeyValueStoreARN) for the viewer-request
	// function, "" (none) for the viewer-response one.
	KeyValueStoreARN string `json:"keyValueStoreArn,omitempty"`
	// LiveKeyValueStoreARNs are the key value stores the LIVE stage of the
	// function is associated with now: none for a function never
	// published, at most one otherwise.
	LiveKeyValueStoreARNs []string `json:"liveKeyValueStoreArns,omitempty"`
	Code                  []byte   `json:"-"`
}

// stores returns the key value store ARNs p associates the function with.
func (p FunctionPlan) stores() []string {
	if p.KeyValueStoreARN == "" {
		return nil
	}
	return []string{p.KeyValueStoreARN}
}

// KeyValueStoreChange says how carrying out p changes the function's key
// value store association, for a person: "associate key value store ARN"
// (with "in place of OLD" when it replaces one), "remove key value store
// association OLD", or "" when the association stays as it is.
func (p FunctionPlan) KeyValueStoreChange() string {
	live := strings.Join(p.LiveKeyValueStoreARNs, ", ")
	switch {
	case p.Action == FunctionUnchanged || slices.Equal(p.LiveKeyValueStoreARNs, p.stores()):
		return ""
	case p.KeyValueStoreARN == "":
		return "remove key value store association " + live
	case live != "":
		return "associate key value store " + p.KeyValueStoreARN + " in place of " + live
	}
	return "associate key value store " + p.KeyValueStoreARN
}

// functionNames gives the names of the viewer-request and viewer-response
// functions of stem.
func functionNames(stem string) (viewerRequest, viewerResponse string) {
	return stem + "-viewer-request", stem + "-viewer-response"
}

// planFunction compares the live code of the function name with code, and
// the key value store its LIVE stage is associated with with store ("" for
// none). It changes nothing.
func planFunction(ctx context.Context, api CloudFrontAPI, name string, code []byte, store string) (FunctionPlan, error) {
	p := FunctionPlan{Name: name, Code: code, KeyValueStoreARN: store}
	out, err := api.GetFunction(ctx, &cloudfront.GetFunctionInput{Name: aws.String(name), Stage: cftypes.FunctionStageLive})
	switch {
	case isNoSuchFunction(err):
		// Never published, or not there at all: a function created but
		// not published (an earlier publish that failed half-way, or
		// infrastructure without auto-publish) is updated, not created.
		_, derr := api.DescribeFunction(ctx, &cloudfront.DescribeFunctionInput{Name: aws.String(name), Stage: cftypes.FunctionStageDevelopment})
		switch {
		case derr == nil:
			p.Action = FunctionUpdate
		case isNoSuchFunction(derr):
			p.Action = FunctionCreate
		default:
			return p, fmt.Errorf("read CloudFront function %s: %w", name, derr)
		}
		return p, nil
	case err != nil:
		return p, fmt.Errorf("read CloudFront function %s: %w", name, err)
	}
	// GetFunction gives the code alone; the LIVE stage's configuration,
	// its key value store association among it, takes DescribeFunction.
	desc, err := api.DescribeFunction(ctx, &cloudfront.DescribeFunctionInput{Name: aws.String(name), Stage: cftypes.FunctionStageLive})
	if err != nil {
		return p, fmt.Errorf("read CloudFront function %s: %w", name, err)
	}
	p.LiveKeyValueStoreARNs = storeARNs(desc.FunctionSummary)
	if bytes.Equal(out.FunctionCode, code) && slices.Equal(p.LiveKeyValueStoreARNs, p.stores()) {
		p.Action = FunctionUnchanged
	} else {
		p.Action = FunctionUpdate
	}
	return p, nil
}

// storeARNs returns the ARNs of the key value stores fs names in its
// configuration, nil for none.
func storeARNs(fs *cftypes.FunctionSummary) []string {
	if fs == nil || fs.FunctionConfig == nil || fs.FunctionConfig.KeyValueStoreAssociations == nil {
		return nil
	}
	var out []string
	for _, a := range fs.FunctionConfig.KeyValueStoreAssociations.Items {
		if arn := aws.ToString(a.KeyValueStoreARN); arn != "" {
			out = append(out, arn)
		}
	}
	return out
}

// functionComment labels the functions signpost manages.
const functionComment = "Generated by signpost; updated by signpost publish"

// functionConfig is the configuration p gives its function. An update
// replaces the whole configuration, so leaving out the key value store
// association is what removes one.
func functionConfig(p FunctionPlan) *cftypes.FunctionConfig {
	cfg := &cftypes.FunctionConfig{Comment: aws.String(functionComment), Runtime: cftypes.FunctionRuntimeCloudfrontJs20}
	if p.KeyValueStoreARN != "" {
		cfg.KeyValueStoreAssociations = &cftypes.KeyValueStoreAssociations{
			Quantity: aws.Int32(1),
			Items:    []cftypes.KeyValueStoreAssociation{{KeyValueStoreARN: aws.String(p.KeyValueStoreARN)}},
		}
	}
	return cfg
}

// applyFunction carries out p: it creates the function or updates its
// code and configuration, then publishes it to the LIVE stage, which the
// distribution runs.
func applyFunction(ctx context.Context, api CloudFrontAPI, p FunctionPlan) error {
	cfg := functionConfig(p)
	var etag *string
	switch p.Action {
	case FunctionUnchanged:
		return nil
	case FunctionCreate:
		out, err := api.CreateFunction(ctx, &cloudfront.CreateFunctionInput{Name: aws.String(p.Name), FunctionCode: p.Code, FunctionConfig: cfg})
		if err != nil {
			return fmt.Errorf("create CloudFront function %s: %w", p.Name, err)
		}
		etag = out.ETag
	case FunctionUpdate:
		// The update must name the version of the DEVELOPMENT stage it
		// replaces, so that two publishes never overwrite each other.
		desc, err := api.DescribeFunction(ctx, &cloudfront.DescribeFunctionInput{Name: aws.String(p.Name), Stage: cftypes.FunctionStageDevelopment})
		if err != nil {
			return fmt.Errorf("describe CloudFront function %s: %w", p.Name, err)
		}
		out, err := api.UpdateFunction(ctx, &cloudfront.UpdateFunctionInput{Name: aws.String(p.Name), IfMatch: desc.ETag, FunctionCode: p.Code, FunctionConfig: cfg})
		if err != nil {
			return fmt.Errorf("update CloudFront function %s: %w", p.Name, err)
		}
		etag = out.ETag
	default:
		return fmt.Errorf("CloudFront function %s: unknown action %q", p.Name, p.Action)
	}
	if aws.ToString(etag) == "" {
		// Some responses carry the version under another header name.
		desc, err := api.DescribeFunction(ctx, &cloudfront.DescribeFunctionInput{Name: aws.String(p.Name), Stage: cftypes.FunctionStageDevelopment})
		if err != nil {
			return fmt.Errorf("describe CloudFront function %s: %w", p.Name, err)
		}
		etag = desc.ETag
	}
	if _, err := api.PublishFunction(ctx, &cloudfront.PublishFunctionInput{Name: aws.String(p.Name), IfMatch: etag}); err != nil {
		return fmt.Errorf("publish CloudFront function %s: %w", p.Name, err)
	}
	return nil
}

func isNoSuchFunction(err error) bool {
	if err == nil {
		return false
	}
	var nsf *cftypes.NoSuchFunctionExists
	if errors.As(err, &nsf) {
		return true
	}
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "NoSuchFunctionExists"
}

// NewCloudFrontClient makes a client with the default credential chain,
// whose calls are bounded by limits.
func NewCloudFrontClient(ctx context.Context, limits Limits) (*cloudfront.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx, append(limits.loadOptions(), config.WithRegion("us-east-1"))...)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	return cloudfront.NewFromConfig(cfg), nil
}
