package build

import (
	"fmt"
	"slices"
	"strings"

	"github.com/signpost-dev/signpost/build/spec"
	"github.com/signpost-dev/signpost/internal/english"
	"github.com/signpost-dev/signpost/schemas"
)

// decodeTarget reads a schema-valid publish target and applies the rules
// the schema leaves to code.
func decodeTarget(f targetFile, tenants []string) (Target, string) {
	var t Target
	t.GitHubPages = f.GitHubPages != nil
	if f.Cloudflare != nil {
		t.Cloudflare = &CloudflareTarget{Name: f.Cloudflare.Name}
	}
	t.Netlify = f.Netlify != nil
	if s3 := f.S3; s3 != nil {
		t.S3 = &S3Target{Bucket: s3.Bucket, Region: s3.Region, Prefix: s3.Prefix, Endpoint: s3.Endpoint}
	}
	if f.CloudFront != nil {
		var msg string
		t.CloudFront, msg = decodeCloudFront(f.CloudFront, tenants)
		if msg != "" {
			return t, msg
		}
	}
	var s3Problems []TargetProblem
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
func decodeCloudFront(cf *cloudFrontFile, tenants []string) (*CloudFrontTarget, string) {
	t := &CloudFrontTarget{Distributions: map[string]Distribution{}}
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
	for _, id := range sortedKeys(per) {
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

// TargetProblem is a field of an S3 target that cannot be used, and why.
type TargetProblem struct {
	Field   string // bucket, region, prefix or endpoint
	Message string
}

// CheckS3Target applies to t the rules signpost.yaml's s3 targets follow
// (the config schema's patterns, then the prefix and endpoint rules), so
// that a target assembled elsewhere, as publish does from overrides, is held
// to them too. It returns the problems by field, in field order.
func CheckS3Target(t S3Target) ([]TargetProblem, error) {
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
	var out []TargetProblem
	for _, v := range valid.Validate("config", config) {
		field, ok := strings.CutPrefix(v.Pointer, "/targets/t/s3/")
		if !ok {
			field = "bucket" // a required field is missing from s3 itself
		}
		out = append(out, TargetProblem{field, v.Message})
	}
	if len(out) == 0 {
		out = t.problems()
	}
	slices.SortStableFunc(out, func(a, b TargetProblem) int { return strings.Compare(a.Field, b.Field) })
	return out, nil
}

// problems applies the rules of an S3 target that its schema leaves to
// code: the prefix stays inside itself and out of publish's names, and an
// endpoint is a usable base URL. The prefix's problem comes first.
func (t *S3Target) problems() []TargetProblem {
	var out []TargetProblem
	if msg := prefixProblem(t.Prefix); msg != "" {
		out = append(out, TargetProblem{"prefix", fmt.Sprintf("%q %s", t.Prefix, msg)})
	}
	if t.Endpoint != "" {
		if _, err := spec.ParseEndpoint(t.Endpoint); err != nil {
			out = append(out, TargetProblem{"endpoint", err.Error()})
		}
	}
	return out
}

// gateProblem explains why target t cannot publish the site of tenant,
// whose site is gated, or returns "". Only a distribution whose
// viewer-request function publish keeps current, with the key value store
// that function reads the keys from, can gate a site: GitHub Pages cannot,
// and a bucket alone would leave the tenant's site to whatever serves it.
func gateProblem(t Target, tenant string) string {
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
