// Package target is where a site is published: a target of signpost.yaml
// (an S3 bucket, usually behind CloudFront, GitHub Pages, Cloudflare or
// Netlify) as its file declares it (File), decoded and held to the rules
// its schema leaves to code (Decode, CheckS3, GateProblem).
package target

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/output"
	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/schemas"
)

// Target is one place the site is published: an S3 bucket, usually behind
// a CloudFront distribution, GitHub Pages, Cloudflare or Netlify.
type Target struct {
	S3          *S3
	CloudFront  *CloudFront
	GitHubPages bool
	Cloudflare  *Cloudflare
	// Netlify lays each site out for a Netlify site of its own.
	Netlify bool
}

// Cloudflare is a Worker with static assets per site; Name, when
// set, names the Worker (NAME-TENANT with tenants).
type Cloudflare struct{ Name string }

// S3 is a bucket of S3 or S3-compatible storage.
type S3 struct {
	Bucket, Region, Prefix string
	// Endpoint is set for S3-compatible storage, which is then addressed
	// path-style.
	Endpoint string
}

// SitePrefix is the key prefix of the site s in the bucket: the target's
// prefix, and below it the site's folder (tenants/ID) when the catalog has
// tenants, so that one bucket can hold every tenant's site.
func (t *S3) SitePrefix(s *output.Site) string { return t.TenantPrefix(s.Tenant) }

// TenantPrefix is SitePrefix for the site of tenant ("" without tenants),
// known before the site is built.
func (t *S3) TenantPrefix(tenant string) string {
	if tenant == "" {
		return t.Prefix
	}
	return path.Join(t.Prefix, output.SiteDir(tenant))
}

// CloudFront is the CloudFront in front of a bucket: one
// distribution per site.
type CloudFront struct {
	// Distributions maps a site's tenant ("" for the one site of a catalog
	// without tenants) to the distribution that serves it.
	Distributions map[string]Distribution
}

// Distribution is the CloudFront distribution in front of one site.
type Distribution struct {
	ID string
	// FunctionName, when set, is the stem of the site's two function names
	// (FunctionName-viewer-request, FunctionName-viewer-response), whose
	// code publish keeps up to date.
	FunctionName string
	// KeyValueStoreARN, when set, is the CloudFront KeyValueStore that
	// publish associates with the viewer-request function (never the
	// viewer-response one); empty means that function has none. It is
	// set only with FunctionName.
	KeyValueStoreARN string
}

// File is a publish target as signpost.yaml writes it under targets:,
// decoded once; a host is declared when its member is there.
type File struct {
	S3 *struct {
		Bucket   string `json:"bucket"`
		Region   string `json:"region"`
		Prefix   string `json:"prefix"`
		Endpoint string `json:"endpoint"`
	} `json:"s3"`
	CloudFront  *CloudFrontFile `json:"cloudfront"`
	GitHubPages *struct{}       `json:"githubPages"`
	Cloudflare  *struct {
		Name string `json:"name"`
	} `json:"cloudflare"`
	Netlify *struct{} `json:"netlify"`
}

// CloudFrontFile is a target's cloudfront: one distribution, or one per
// tenant.
type CloudFrontFile struct {
	DistributionID   *string                     `json:"distributionId"`
	FunctionName     *string                     `json:"functionName"`
	KeyValueStoreARN *string                     `json:"keyValueStoreArn"`
	Tenants          map[string]DistributionFile `json:"tenants"`
}

// distribution is the one distribution of a catalog without tenants.
func (c *CloudFrontFile) distribution() Distribution {
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return Distribution{ID: deref(c.DistributionID), FunctionName: deref(c.FunctionName), KeyValueStoreARN: deref(c.KeyValueStoreARN)}
}

// DistributionFile is a tenant's distribution.
type DistributionFile struct {
	DistributionID   string `json:"distributionId"`
	FunctionName     string `json:"functionName"`
	KeyValueStoreARN string `json:"keyValueStoreArn"`
}

// Decode reads a schema-valid publish target and applies the rules
// the schema leaves to code.
func Decode(f File, tenants []string) (Target, string) {
	var t Target
	t.GitHubPages = f.GitHubPages != nil
	if f.Cloudflare != nil {
		t.Cloudflare = &Cloudflare{Name: f.Cloudflare.Name}
	}
	t.Netlify = f.Netlify != nil
	if s3 := f.S3; s3 != nil {
		t.S3 = &S3{Bucket: s3.Bucket, Region: s3.Region, Prefix: s3.Prefix, Endpoint: s3.Endpoint}
	}
	if f.CloudFront != nil {
		var msg string
		t.CloudFront, msg = decodeCloudFront(f.CloudFront, tenants)
		if msg != "" {
			return t, msg
		}
	}
	var s3Problems []Problem
	if t.S3 != nil {
		s3Problems = t.S3.problems()
		if len(s3Problems) > 0 && s3Problems[0].Field == "prefix" {
			return t, "s3.prefix " + s3Problems[0].Message
		}
	}
	hosts := 0
	for _, on := range []bool{t.S3 != nil, t.GitHubPages, t.Cloudflare != nil, t.Netlify} {
		if on {
			hosts++
		}
	}
	switch {
	case hosts > 1:
		return t, "choose one of s3, githubPages, cloudflare or netlify: declare a target for each host to publish to several"
	case t.CloudFront != nil && t.S3 == nil:
		return t, "cloudfront fronts an S3 bucket: add s3"
	case hosts == 0:
		return t, "needs s3, githubPages, cloudflare or netlify"
	case len(s3Problems) > 0:
		return t, s3Problems[0].Message
	}
	return t, ""
}

// prefixProblem explains why prefix cannot be a target's key prefix, or
// returns "": a segment "." or ".." would put the site outside it, and a
// reserved name (see spec.ReservedPrefix) would mix it with publish's own
// objects.
func prefixProblem(prefix string) string {
	for _, seg := range strings.Split(prefix, "/") {
		switch {
		case seg == "." || seg == "..":
			return `must not have "." or ".." segments: the site's objects would land outside the prefix`
		case spec.IsReservedName(seg):
			return spec.ReservedProblem
		}
	}
	return ""
}

// decodeCloudFront reads a schema-valid cloudfront section: one
// distribution for a catalog without tenants, one per tenant otherwise.
func decodeCloudFront(cf *CloudFrontFile, tenants []string) (*CloudFront, string) {
	t := &CloudFront{Distributions: map[string]Distribution{}}
	per, hasTenants := cf.Tenants, cf.Tenants != nil
	hasID, hasFunction, hasStore := cf.DistributionID != nil, cf.FunctionName != nil, cf.KeyValueStoreARN != nil
	switch {
	case len(tenants) == 0 && hasTenants:
		return t, "cloudfront lists tenants, but the catalog declares none: name the one distribution with distributionId"
	case len(tenants) == 0 && !hasID:
		return t, "cloudfront needs the distributionId of the distribution in front of the bucket"
	case len(tenants) == 0:
		d := cf.distribution()
		t.Distributions[""] = d
		return t, storeProblem(d, "cloudfront")
	case hasID || hasFunction || hasStore:
		return t, fmt.Sprintf("the catalog has tenants, and each tenant's site needs its own distribution: write cloudfront: {tenants: {%s: {distributionId: ...}, ...}} instead of distributionId, functionName and keyValueStoreArn", tenants[0])
	}
	var missing []string
	for _, id := range tenants {
		d, ok := per[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		t.Distributions[id] = Distribution{ID: d.DistributionID, FunctionName: d.FunctionName, KeyValueStoreARN: d.KeyValueStoreARN}
	}
	if len(missing) > 0 {
		return t, "cloudfront.tenants has no distribution for " + english.Some(missing, 5) + ": every tenant's site needs its own"
	}
	for _, id := range slices.Sorted(maps.Keys(per)) {
		if !slices.Contains(tenants, id) {
			return t, fmt.Sprintf("cloudfront.tenants names %s, which is not a tenant of the catalog", id)
		}
	}
	for _, id := range tenants {
		if msg := storeProblem(t.Distributions[id], "cloudfront.tenants."+id); msg != "" {
			return t, msg
		}
	}
	names := map[string]string{}
	for _, id := range tenants {
		if fn := t.Distributions[id].FunctionName; fn != "" {
			if other, dup := names[fn]; dup {
				return t, fmt.Sprintf("tenants %s and %s share the functionName %s, but their sites need different functions: give each its own", other, id, fn)
			}
			names[fn] = id
		}
	}
	return t, ""
}

// storeProblem explains why the distribution d, at the path at of the
// cloudfront section, cannot have its key value store, or returns "": the
// store is associated with a function publish manages, so it needs the
// functions' name.
func storeProblem(d Distribution, at string) string {
	if d.KeyValueStoreARN != "" && d.FunctionName == "" {
		return at + ".keyValueStoreArn is associated with the viewer-request function that publish keeps up to date: add functionName beside it, or remove keyValueStoreArn"
	}
	return ""
}

// Problem is a field of an S3 target that cannot be used, and why.
type Problem struct {
	Field   string // bucket, region, prefix or endpoint
	Message string
}

// CheckS3 applies to t the rules signpost.yaml's s3 targets follow
// (the config schema's patterns, then the prefix and endpoint rules), so
// that a target assembled elsewhere, as publish does from overrides, is held
// to them too. It returns the problems by field, in field order.
func CheckS3(t S3) ([]Problem, error) {
	valid, err := schemas.NewValidator()
	if err != nil {
		return nil, err
	}
	s3 := map[string]any{}
	for k, v := range map[string]string{"bucket": t.Bucket, "region": t.Region, "prefix": t.Prefix, "endpoint": t.Endpoint} {
		if v != "" {
			s3[k] = v
		}
	}
	config := map[string]any{
		"site":    map[string]any{"origin": "https://example.com", "publisher": "example.com"},
		"targets": map[string]any{"t": map[string]any{"s3": s3}},
	}
	var out []Problem
	for _, v := range valid.Validate("config", config) {
		field, ok := strings.CutPrefix(v.Pointer, "/targets/t/s3/")
		if !ok {
			field = "bucket" // a required field is missing from s3 itself
		}
		out = append(out, Problem{field, v.Message})
	}
	if len(out) == 0 {
		out = t.problems()
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return strings.Compare(a.Field, b.Field) })
	return out, nil
}

// problems applies the rules of an S3 target that its schema leaves to
// code: the prefix stays inside itself and out of publish's names, and an
// endpoint is a usable base URL. The prefix's problem comes first.
func (t *S3) problems() []Problem {
	var out []Problem
	if msg := prefixProblem(t.Prefix); msg != "" {
		out = append(out, Problem{"prefix", fmt.Sprintf("%q %s", t.Prefix, msg)})
	}
	if t.Endpoint != "" {
		if _, err := spec.ParseEndpoint(t.Endpoint); err != nil {
			out = append(out, Problem{"endpoint", err.Error()})
		}
	}
	return out
}

// GateProblem explains why target t cannot publish the site of tenant,
// whose site is gated, or returns "". Only a distribution whose
// viewer-request function publish keeps current, with the key value store
// that function reads the keys from, can gate a site: GitHub Pages cannot,
// and a bucket alone would leave the tenant's site to whatever serves it.
func GateProblem(t Target, tenant string) string {
	switch {
	case t.GitHubPages:
		return "tenant " + tenant + " is gated (gate: token), and GitHub Pages serves every file to anyone: publish the tenant to an S3 target behind CloudFront, or drop the gate"
	case t.Cloudflare != nil:
		return "tenant " + tenant + " is gated (gate: token), and the Cloudflare Worker signpost writes serves every document to anyone: publish the tenant to an S3 target behind CloudFront, or drop the gate"
	case t.Netlify:
		return "tenant " + tenant + " is gated (gate: token), and a Netlify site of static files serves every file to anyone: publish the tenant to an S3 target behind CloudFront, or drop the gate"
	case t.CloudFront == nil:
		return "tenant " + tenant + " is gated (gate: token): the target needs the CloudFront distribution whose viewer-request function checks the tokens: add cloudfront with the tenant's distributionId, functionName and keyValueStoreArn"
	}
	d := t.CloudFront.Distributions[tenant]
	if d.FunctionName == "" || d.KeyValueStoreARN == "" {
		return "tenant " + tenant + " is gated (gate: token): its distribution needs functionName, so that publish keeps its gate current, and keyValueStoreArn, the store its viewer-request function reads the keys from"
	}
	return ""
}
