package templates

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// awsTemplatePath is the CloudFormation example, relative to this package.
const awsTemplatePath = "aws/cloudfront-s3.yaml"

// awsNodeTimeout bounds each node process that checks a function.
const awsNodeTimeout = 30 * time.Second

// awsAccount is the account id the evaluated template runs in.
const awsAccount = "123456789012"

// awsCase is one way of deploying the template.
type awsCase struct {
	name   string
	params map[string]string
	// what the site looks like
	bucket, keyPrefix, functionPrefix string
	ownsBucket                        bool
	shared                            []string // SharedBucketDistributionArns
	alias, cert                       string
	gitHub                            string // the OIDC subject, or ""
	attachTo                          string
	bucketRegion                      string // the region in the origin's domain of a shared bucket
	gated                             bool   // GatedSite=true: the store of the tenant's keys
}

// awsCases covers a catalog without tenants, both kinds of tenant stack and
// a gated tenant's.
func awsCases() []awsCase {
	return []awsCase{{
		name: "no tenants",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "example",
			"AliasDomainName": "discovery.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/example",
		},
		bucket:         "example-discovery",
		functionPrefix: "example",
		ownsBucket:     true,
		alias:          "discovery.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/example",
	}, {
		name: "tenant owning the bucket",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "acme", "SitePrefix": "catalogs/tenants/acme",
			"SharedBucketDistributionArns": "arn:aws:cloudfront::123456789012:distribution/E1,arn:aws:cloudfront::123456789012:distribution/E2",
			"AliasDomainName":              "acme.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/abc",
			"GitHubRepository": "example/catalog", "PriceClass": "PriceClass_All",
		},
		bucket:         "example-discovery",
		keyPrefix:      "catalogs/tenants/acme/",
		functionPrefix: "acme",
		ownsBucket:     true,
		shared:         []string{"arn:aws:cloudfront::123456789012:distribution/E1", "arn:aws:cloudfront::123456789012:distribution/E2"},
		alias:          "acme.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/abc",
		gitHub:         "repo:example/catalog:ref:refs/heads/main",
	}, {
		name: "tenant sharing the bucket",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "globex", "SitePrefix": "tenants/globex",
			"CreateBucket": "false", "AttachToRole": "signpost-ci",
			"AliasDomainName": "globex.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/globex",
		},
		bucket:         "example-discovery",
		keyPrefix:      "tenants/globex/",
		functionPrefix: "globex",
		attachTo:       "signpost-ci",
		bucketRegion:   "us-east-1",
		alias:          "globex.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/globex",
	}, {
		name: "tenant sharing a bucket in another region",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "initech", "SitePrefix": "tenants/initech",
			"CreateBucket": "false", "BucketRegion": "eu-west-1",
			"AliasDomainName": "initech.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/initech",
		},
		bucket:         "example-discovery",
		keyPrefix:      "tenants/initech/",
		functionPrefix: "initech",
		bucketRegion:   "eu-west-1",
		alias:          "initech.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/initech",
	}, {
		name: "gated tenant with its own role",
		params: map[string]string{
			"BucketName": "example-discovery", "FunctionNamePrefix": "hooli", "SitePrefix": "tenants/hooli",
			"CreateBucket": "false", "GatedSite": "true", "GitHubRepository": "example/catalog", "GitHubBranch": "release",
			"AliasDomainName": "hooli.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/hooli",
		},
		bucket:         "example-discovery",
		keyPrefix:      "tenants/hooli/",
		functionPrefix: "hooli",
		bucketRegion:   "us-east-1",
		alias:          "hooli.example.com",
		cert:           "arn:aws:acm:us-east-1:123456789012:certificate/hooli",
		gitHub:         "repo:example/catalog:ref:refs/heads/release",
		gated:          true,
	}}
}

// renderCase evaluates the template for c.
func renderCase(t *testing.T, tpl *cfnTemplate, c awsCase) *cfnStack {
	t.Helper()
	env, err := newCFNEnv(tpl, c.params)
	if err != nil {
		t.Fatal(err)
	}
	st, failed, err := env.render()
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) > 0 {
		t.Fatalf("rules failed: %v", failed)
	}
	return st
}

func TestAWSTemplateBucket(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			_, hasBucket := st.Resources["Bucket"]
			_, hasPolicy := st.Resources["BucketPolicy"]
			if hasBucket != c.ownsBucket || hasPolicy != c.ownsBucket {
				t.Fatalf("Bucket %v, BucketPolicy %v: want both %v", hasBucket, hasPolicy, c.ownsBucket)
			}
			for name, r := range st.Resources {
				if hasKey(r, "AccessControl") {
					t.Errorf("resource %s sets an ACL (AccessControl): signpost never sends one and ACLs are disabled", name)
				}
			}
			if !c.ownsBucket {
				return
			}
			b := st.resource(t, "Bucket", "AWS::S3::Bucket")
			if got := b["BucketName"]; got != c.bucket {
				t.Errorf("BucketName %v, want %s", got, c.bucket)
			}
			wantBlock := map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true}
			if diff := cmp.Diff(wantBlock, b["PublicAccessBlockConfiguration"]); diff != "" {
				t.Errorf("PublicAccessBlockConfiguration (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{map[string]any{"ObjectOwnership": "BucketOwnerEnforced"}}, dig(b, "OwnershipControls", "Rules")); diff != "" {
				t.Errorf("OwnershipControls (-want +got):\n%s", diff)
			}
			if got := dig(b, "BucketEncryption", "ServerSideEncryptionConfiguration", 0, "ServerSideEncryptionByDefault", "SSEAlgorithm"); got != "AES256" {
				t.Errorf("SSEAlgorithm %v, want AES256 (SSE-S3)", got)
			}

			p := st.resource(t, "BucketPolicy", "AWS::S3::BucketPolicy")
			if got := placeholderTarget(t, p["Bucket"], ""); got != "Bucket" {
				t.Errorf("BucketPolicy is on %s, want Bucket", got)
			}
			distArn := "arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}"
			type grant struct {
				Resource   string
				SourceArns []string
			}
			var grants []grant
			for i, s := range list(t, p, "PolicyDocument", "Statement") {
				if dig(s, "Effect") != "Allow" {
					continue
				}
				if diff := cmp.Diff(map[string]any{"Service": "cloudfront.amazonaws.com"}, dig(s, "Principal")); diff != "" {
					t.Errorf("statement %d: Principal (-want +got):\n%s", i, diff)
				}
				if got := asStrings(dig(s, "Action")); !slices.Equal(got, []string{"s3:GetObject"}) {
					t.Errorf("statement %d: Action %v, want s3:GetObject only (no s3:ListBucket, so a missing key is a 403)", i, got)
				}
				if conds, _ := dig(s, "Condition").(map[string]any); len(conds) != 1 {
					t.Errorf("statement %d: Condition %v, want StringEquals AWS:SourceArn only", i, dig(s, "Condition"))
				}
				grants = append(grants, grant{
					Resource:   fmt.Sprint(dig(s, "Resource")),
					SourceArns: asStrings(dig(s, "Condition", "StringEquals", "AWS:SourceArn")),
				})
			}
			want := []grant{{Resource: "arn:aws:s3:::" + c.bucket + "/" + c.keyPrefix + "*", SourceArns: []string{distArn}}}
			if c.shared != nil {
				want = append(want, grant{Resource: "arn:aws:s3:::" + c.bucket + "/*", SourceArns: c.shared})
			}
			if diff := cmp.Diff(want, grants); diff != "" {
				t.Errorf("bucket policy grants (-want +got):\n%s", diff)
			}
		})
	}
}

// hasKey reports whether a mapping anywhere in v has the key.
func hasKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == key || hasKey(e, key) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasKey(e, key) {
				return true
			}
		}
	}
	return false
}

func TestAWSTemplateDistribution(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			d := dig(st.resource(t, "Distribution", "AWS::CloudFront::Distribution"), "DistributionConfig")
			priceClass := c.params["PriceClass"]
			if priceClass == "" {
				priceClass = "PriceClass_100" // the default
			}
			for _, f := range []struct {
				path []any
				want any
			}{
				{[]any{"Enabled"}, true},
				{[]any{"HttpVersion"}, "http2and3"},
				{[]any{"PriceClass"}, priceClass},
				{[]any{"DefaultCacheBehavior", "ViewerProtocolPolicy"}, "redirect-to-https"},
				{[]any{"DefaultCacheBehavior", "AllowedMethods"}, []any{"GET", "HEAD", "OPTIONS", "PUT", "POST", "PATCH", "DELETE"}},
				{[]any{"DefaultCacheBehavior", "CachedMethods"}, []any{"GET", "HEAD"}},
				{[]any{"DefaultCacheBehavior", "Compress"}, true},
			} {
				if diff := cmp.Diff(f.want, dig(d, f.path...)); diff != "" {
					t.Errorf("%v (-want +got):\n%s", f.path, diff)
				}
			}

			// The origin: the bucket through the origin access control, and no
			// origin path, since the function writes the prefix itself.
			origins, _ := dig(d, "Origins").([]any)
			if len(origins) != 1 {
				t.Fatalf("Origins %v, want one", dig(d, "Origins"))
			}
			o := origins[0]
			if got := dig(d, "DefaultCacheBehavior", "TargetOriginId"); got != dig(o, "Id") {
				t.Errorf("TargetOriginId %v, want the origin %v", got, dig(o, "Id"))
			}
			if p := dig(o, "OriginPath"); p != nil && p != "" {
				t.Errorf("OriginPath %v: the function's keys already hold the prefix", p)
			}
			wantDomain := "{GetAtt:Bucket.RegionalDomainName}"
			if !c.ownsBucket {
				wantDomain = c.bucket + ".s3." + c.bucketRegion + ".amazonaws.com"
			}
			if got := dig(o, "DomainName"); got != wantDomain {
				t.Errorf("origin DomainName %v, want %s", got, wantDomain)
			}
			if got := dig(o, "S3OriginConfig", "OriginAccessIdentity"); got != "" {
				t.Errorf("OriginAccessIdentity %#v, want \"\" (the origin access control is used)", got)
			}
			oac := st.resource(t, placeholderTarget(t, dig(o, "OriginAccessControlId"), "Id"), "AWS::CloudFront::OriginAccessControl")
			wantOAC := map[string]any{"OriginAccessControlOriginType": "s3", "SigningBehavior": "always", "SigningProtocol": "sigv4"}
			for k, v := range wantOAC {
				if got := dig(oac, "OriginAccessControlConfig", k); got != v {
					t.Errorf("origin access control %s %v, want %v", k, got, v)
				}
			}

			// The MCP registry's paths: the default behavior's settings
			// and functions, but their own response headers policy.
			var patterns []any
			for _, b := range list(t, d, "CacheBehaviors") {
				patterns = append(patterns, dig(b, "PathPattern"))
				for _, k := range []string{"TargetOriginId", "ViewerProtocolPolicy", "AllowedMethods", "CachedMethods", "Compress", "CachePolicyId", "FunctionAssociations"} {
					if diff := cmp.Diff(dig(d, "DefaultCacheBehavior", k), dig(b, k)); diff != "" {
						t.Errorf("behavior %v: %s differs from the default behavior's (-default +behavior):\n%s", dig(b, "PathPattern"), k, diff)
					}
				}
				if dig(b, "ResponseHeadersPolicyId") == dig(d, "DefaultCacheBehavior", "ResponseHeadersPolicyId") {
					t.Errorf("behavior %v has the default behavior's response headers policy", dig(b, "PathPattern"))
				}
			}
			if diff := cmp.Diff([]any{"/v0.1/servers", "/v0.1/servers/*"}, patterns); diff != "" {
				t.Errorf("CacheBehaviors' path patterns (-want +got):\n%s", diff)
			}

			// The functions, by event.
			assoc := map[string]string{}
			for _, a := range list(t, d, "DefaultCacheBehavior", "FunctionAssociations") {
				assoc[fmt.Sprint(dig(a, "EventType"))] = placeholderTarget(t, dig(a, "FunctionARN"), "FunctionARN")
			}
			if got := slices.Sorted(maps.Keys(assoc)); !slices.Equal(got, []string{"viewer-request", "viewer-response"}) {
				t.Fatalf("function associations for %v, want viewer-request and viewer-response", got)
			}
			for event, name := range assoc {
				f := st.resource(t, name, "AWS::CloudFront::Function")
				want := map[string]any{"Name": c.functionPrefix + "-" + event, "AutoPublish": true, "Runtime": "cloudfront-js-2.0"}
				got := map[string]any{"Name": f["Name"], "AutoPublish": f["AutoPublish"], "Runtime": dig(f, "FunctionConfig", "Runtime")}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s function %s (-want +got):\n%s", event, name, diff)
				}
			}

			// The cache key is the path.
			cp := st.resource(t, placeholderTarget(t, dig(d, "DefaultCacheBehavior", "CachePolicyId"), ""), "AWS::CloudFront::CachePolicy")
			wantKey := map[string]any{
				"EnableAcceptEncodingGzip":   true,
				"EnableAcceptEncodingBrotli": true,
				"QueryStringsConfig":         map[string]any{"QueryStringBehavior": "none"},
				"HeadersConfig":              map[string]any{"HeaderBehavior": "none"},
				"CookiesConfig":              map[string]any{"CookieBehavior": "none"},
			}
			if diff := cmp.Diff(wantKey, dig(cp, "CachePolicyConfig", "ParametersInCacheKeyAndForwardedToOrigin")); diff != "" {
				t.Errorf("cache key (-want +got):\n%s", diff)
			}
			if got := dig(cp, "CachePolicyConfig", "MinTTL"); got != 0 {
				t.Errorf("MinTTL %v, want 0 so that each object's Cache-Control is honoured", got)
			}

			// S3's 403 for a missing key, and any 404, become the site's JSON 404.
			page := "/" + c.keyPrefix + ".signpost-404.json"
			wantErrors := []any{
				map[string]any{"ErrorCode": 403, "ResponseCode": 404, "ResponsePagePath": page, "ErrorCachingMinTTL": 10},
				map[string]any{"ErrorCode": 404, "ResponseCode": 404, "ResponsePagePath": page, "ErrorCachingMinTTL": 10},
			}
			if diff := cmp.Diff(wantErrors, dig(d, "CustomErrorResponses")); diff != "" {
				t.Errorf("CustomErrorResponses (-want +got):\n%s", diff)
			}
			if got := st.Outputs["ErrorPagePath"]; got != page {
				t.Errorf("ErrorPagePath output %v, want %s", got, page)
			}

			// The host name, its certificate and TLS 1.2 or later
			// (TestAWSTemplateTLS has the rest).
			want := map[string]any{"AcmCertificateArn": c.cert, "SslSupportMethod": "sni-only", "MinimumProtocolVersion": "TLSv1.2_2021"}
			if diff := cmp.Diff(want, dig(d, "ViewerCertificate")); diff != "" {
				t.Errorf("ViewerCertificate (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{c.alias}, dig(d, "Aliases")); diff != "" {
				t.Errorf("Aliases (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateCORS checks that every response gets the CORS headers from
// the response headers policy, as custom headers (CorsConfig would answer
// only requests that carry Origin), with the values the viewer-response
// function sets: the site's on the default cache behavior, the MCP
// registry's on the behaviors of its paths.
func TestAWSTemplateCORS(t *testing.T) {
	tpl := loadCFNTemplate(t)
	st := renderCase(t, tpl, awsCases()[0])
	d := dig(st.resource(t, "Distribution", "AWS::CloudFront::Distribution"), "DistributionConfig")
	policyHeaders := func(what string, ref any) map[string]string {
		rhp := st.resource(t, placeholderTarget(t, ref, ""), "AWS::CloudFront::ResponseHeadersPolicy")
		cfg := dig(rhp, "ResponseHeadersPolicyConfig")
		if dig(cfg, "CorsConfig") != nil {
			t.Errorf("%s: CorsConfig is set: it answers only requests with Origin; use custom headers", what)
		}
		got := map[string]string{}
		for _, h := range list(t, cfg, "CustomHeadersConfig", "Items") {
			if dig(h, "Override") != true {
				t.Errorf("%s: custom header %v: Override is not true", what, dig(h, "Header"))
			}
			got[strings.ToLower(fmt.Sprint(dig(h, "Header")))] = fmt.Sprint(dig(h, "Value"))
		}
		return got
	}
	got := policyHeaders("default", dig(d, "DefaultCacheBehavior", "ResponseHeadersPolicyId"))
	want := map[string]string{
		"access-control-allow-origin":   "*",
		"access-control-allow-methods":  "GET, HEAD, OPTIONS",
		"access-control-allow-headers":  "Authorization, Content-Type, If-None-Match",
		"access-control-expose-headers": "ETag",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("custom headers (-want +got):\n%s", diff)
	}
	wantRegistry := map[string]string{
		"access-control-allow-origin":   "*",
		"access-control-allow-methods":  "GET, OPTIONS",
		"access-control-allow-headers":  "Authorization, Content-Type",
		"access-control-expose-headers": "ETag",
	}
	var gotRegistry map[string]string
	for _, b := range list(t, d, "CacheBehaviors") {
		h := policyHeaders(fmt.Sprint(dig(b, "PathPattern")), dig(b, "ResponseHeadersPolicyId"))
		if diff := cmp.Diff(wantRegistry, h); diff != "" {
			t.Errorf("%v: custom headers (-want +got):\n%s", dig(b, "PathPattern"), diff)
		}
		gotRegistry = h
	}

	// The viewer-response function sets the same headers, where it runs.
	js, err := CloudFront.ReadFile("cloudfront/viewer-response.js.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []struct {
		name   string
		policy map[string]string
	}{{"CORS", got}, {"REGISTRY_CORS", gotRegistry}} {
		block := regexp.MustCompile(`(?s)\nvar ` + set.name + ` = \{(.*?)\};`).FindSubmatch(js)
		if block == nil {
			t.Errorf("viewer-response.js.tmpl has no var %s", set.name)
			continue
		}
		fn := map[string]string{}
		for _, m := range regexp.MustCompile(`'(access-control-[a-z-]+)': '([^']*)'`).FindAllSubmatch(block[1], -1) {
			fn[string(m[1])] = string(m[2])
		}
		if diff := cmp.Diff(fn, set.policy); diff != "" {
			t.Errorf("policy headers differ from %s of viewer-response.js.tmpl (-function +policy):\n%s", set.name, diff)
		}
	}
}

// TestAWSTemplatePublishPolicy checks the CI policy: what signpost publish
// needs for the site, on the site's resources only.
func TestAWSTemplatePublishPolicy(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			p := st.resource(t, "CiPublishPolicy", "AWS::IAM::ManagedPolicy")
			bucketArn := "arn:aws:s3:::" + c.bucket
			fnArn := "arn:aws:cloudfront::" + awsAccount + ":function/" + c.functionPrefix
			fns := []string{fnArn + "-viewer-request", fnArn + "-viewer-response"}
			want := map[string][]string{
				"s3:ListBucket":                 {bucketArn},
				"s3:GetObject":                  {bucketArn + "/" + c.keyPrefix + "*"},
				"s3:PutObject":                  {bucketArn + "/" + c.keyPrefix + "*"},
				"s3:DeleteObject":               {bucketArn + "/" + c.keyPrefix + "*"},
				"s3:GetBucketCORS":              {bucketArn},
				"s3:PutBucketCORS":              {bucketArn},
				"cloudfront:CreateInvalidation": {"arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}"},
				"cloudfront:GetInvalidation":    {"arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}"},
				"cloudfront:DescribeFunction":   fns,
				"cloudfront:GetFunction":        fns,
				"cloudfront:CreateFunction":     fns,
				"cloudfront:UpdateFunction":     fns,
				"cloudfront:PublishFunction":    fns,
			}
			got := map[string][]string{}
			for _, s := range list(t, p, "PolicyDocument", "Statement") {
				if dig(s, "Effect") != "Allow" {
					t.Errorf("statement %v: not an Allow", dig(s, "Sid"))
				}
				for _, a := range asStrings(dig(s, "Action")) {
					got[a] = append(got[a], asStrings(dig(s, "Resource"))...)
				}
				if slices.Contains(asStrings(dig(s, "Action")), "s3:ListBucket") {
					var wantCond any
					if c.keyPrefix != "" {
						wantCond = map[string]any{"StringLike": map[string]any{"s3:prefix": c.keyPrefix + "*"}}
					}
					if diff := cmp.Diff(wantCond, dig(s, "Condition")); diff != "" {
						t.Errorf("s3:ListBucket condition (-want +got):\n%s", diff)
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("actions -> resources (-want +got):\n%s", diff)
			}
			var wantRoles any
			if c.attachTo != "" {
				wantRoles = []any{c.attachTo}
			}
			if diff := cmp.Diff(wantRoles, p["Roles"]); diff != "" {
				t.Errorf("Roles (-want +got):\n%s", diff)
			}

			role, ok := st.Resources["CiRole"]
			if ok != (c.gitHub != "") {
				t.Fatalf("CiRole created: %v, want %v", ok, c.gitHub != "")
			}
			if !ok {
				return
			}
			trust := dig(role, "Properties", "AssumeRolePolicyDocument", "Statement", 0)
			wantTrust := map[string]any{
				"Effect":    "Allow",
				"Principal": map[string]any{"Federated": "arn:aws:iam::" + awsAccount + ":oidc-provider/token.actions.githubusercontent.com"},
				"Action":    "sts:AssumeRoleWithWebIdentity",
				"Condition": map[string]any{"StringEquals": map[string]any{
					"token.actions.githubusercontent.com:aud": "sts.amazonaws.com",
					"token.actions.githubusercontent.com:sub": c.gitHub,
				}},
			}
			if diff := cmp.Diff(wantTrust, trust); diff != "" {
				t.Errorf("CiRole trust (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{"{Ref:CiPublishPolicy}"}, dig(role, "Properties", "ManagedPolicyArns")); diff != "" {
				t.Errorf("CiRole policies (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateOutputs checks the outputs a team copies into
// signpost.yaml and its CI.
func TestAWSTemplateOutputs(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			want := map[string]any{
				"DistributionId":             "{Ref:Distribution}",
				"DistributionDomainName":     "{GetAtt:Distribution.DomainName}",
				"DistributionArn":            "arn:aws:cloudfront::" + awsAccount + ":distribution/{Ref:Distribution}",
				"BucketName":                 c.bucket,
				"ErrorPagePath":              "/" + c.keyPrefix + ".signpost-404.json",
				"FunctionNamePrefix":         c.functionPrefix,
				"ViewerRequestFunctionName":  c.functionPrefix + "-viewer-request",
				"ViewerResponseFunctionName": c.functionPrefix + "-viewer-response",
				"CiPublishPolicyArn":         "{Ref:CiPublishPolicy}",
			}
			if c.gitHub != "" {
				want["CiRoleArn"] = "{GetAtt:CiRole.Arn}"
				want["CiRoleName"] = "{Ref:CiRole}"
			}
			if c.gated {
				want["KeyValueStoreArn"] = "{GetAtt:Store.Arn}"
			}
			if diff := cmp.Diff(want, st.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateParameters checks the parameters against what signpost
// accepts, and the rules that refuse inconsistent ones.
func TestAWSTemplateParameters(t *testing.T) {
	tpl := loadCFNTemplate(t)

	// FunctionNamePrefix is the target's cloudfront functionName.
	schema, err := os.ReadFile(filepath.Join("..", "schemas", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs struct {
			Distribution struct {
				Properties struct {
					FunctionName struct{ Pattern string } `json:"functionName"`
				}
			}
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	if got, want := yamlGet(yamlGet(tpl.params, "FunctionNamePrefix"), "AllowedPattern").Value, s.Defs.Distribution.Properties.FunctionName.Pattern; got != want {
		t.Errorf("FunctionNamePrefix AllowedPattern %q, want functionName's pattern %q", got, want)
	}

	base := map[string]string{
		"BucketName": "example-discovery", "FunctionNamePrefix": "example",
		"AliasDomainName": "discovery.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/example",
	}
	without := func(name string) map[string]string {
		m := maps.Clone(base)
		delete(m, name)
		return m
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name    string
		params  map[string]string
		invalid bool     // a parameter is refused
		rules   []string // failed rules
	}{
		{name: "minimal", params: base},
		{name: "sharing without the bucket", params: with("CreateBucket", "false", "SharedBucketDistributionArns", "arn:aws:cloudfront::123456789012:distribution/E1"), rules: []string{"SharingNeedsBucketOwner"}},
		{name: "prefix with slashes around", params: with("SitePrefix", "/tenants/acme/"), invalid: true},
		{name: "prefix with a wildcard", params: with("SitePrefix", "tenants/*"), invalid: true},
		{name: "function name too long", params: with("FunctionNamePrefix", strings.Repeat("a", 49)), invalid: true},
		{name: "no function name", params: without("FunctionNamePrefix"), invalid: true},
		{name: "repository without owner", params: with("GitHubRepository", "catalog"), invalid: true},
		{name: "shared ARNs with a space", params: with("SharedBucketDistributionArns", "arn:aws:cloudfront::123456789012:distribution/E1, arn:aws:cloudfront::123456789012:distribution/E2"), invalid: true},
		{name: "bucket region with a space", params: with("CreateBucket", "false", "BucketRegion", "eu west"), invalid: true},
		{name: "gated", params: with("GatedSite", "true")},
		{name: "gated, not a boolean", params: with("GatedSite", "yes"), invalid: true},
		{name: "gated, in upper case", params: with("GatedSite", "TRUE"), invalid: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, err := newCFNEnv(tpl, c.params)
			if (err != nil) != c.invalid {
				t.Fatalf("parameters refused: %v, want refused %v", err, c.invalid)
			}
			if err != nil {
				return
			}
			_, failed, err := env.render()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.rules, failed); diff != "" {
				t.Errorf("failed rules (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAWSTemplateReferences checks every Ref, GetAtt, Sub variable and
// condition name against what the template declares, and that a resource
// that exists only under a condition is used only where that condition
// holds. Rules and Conditions may refer to parameters only.
func TestAWSTemplateReferences(t *testing.T) {
	tpl := loadCFNTemplate(t)
	params := map[string]bool{}
	for _, k := range yamlKeys(tpl.params) {
		params[k] = true
	}
	conds := map[string]bool{}
	for _, k := range yamlKeys(tpl.conds) {
		conds[k] = true
	}
	resCond := map[string]string{} // resource -> its condition, or ""
	for _, k := range yamlKeys(tpl.resources) {
		if params[k] {
			t.Errorf("%s is both a parameter and a resource", k)
		}
		resCond[k] = ""
		if c := yamlGet(yamlGet(tpl.resources, k), "Condition"); c != nil {
			resCond[k] = c.Value
		}
	}
	isPseudo := func(name string) bool { return strings.HasPrefix(name, "AWS::") }

	// check reports an unknown or unguarded reference to name from where.
	check := func(where, name string, paramsOnly bool, guards []string, line int) {
		switch {
		case params[name] || isPseudo(name):
		case paramsOnly:
			t.Errorf("%s (line %d): %s is not a parameter", where, line, name)
		default:
			c, ok := resCond[name]
			if !ok {
				t.Errorf("%s (line %d): no parameter or resource %s", where, line, name)
			} else if c != "" && !slices.Contains(guards, c) {
				t.Errorf("%s (line %d): %s exists only if %s, which does not hold here", where, line, name, c)
			}
		}
	}
	checkCond := func(where, name string, line int) {
		if !conds[name] {
			t.Errorf("%s (line %d): no condition %s", where, line, name)
		}
	}
	var walk func(where string, n *yaml.Node, paramsOnly bool, guards []string, locals []string)
	walk = func(where string, n *yaml.Node, paramsOnly bool, guards []string, locals []string) {
		name, arg, ok := cfnFunc(n)
		if !ok {
			for i, c := range n.Content {
				if n.Kind == yaml.MappingNode && i%2 == 0 {
					continue
				}
				walk(where, c, paramsOnly, guards, locals)
			}
			return
		}
		switch name {
		case "Ref":
			check(where, arg.Value, paramsOnly, guards, n.Line)
			return
		case "Condition":
			checkCond(where, arg.Value, n.Line)
			return
		case "Fn::GetAtt":
			target := arg.Value
			if arg.Kind == yaml.SequenceNode && len(arg.Content) > 0 {
				target = arg.Content[0].Value
			}
			res, _, _ := strings.Cut(target, ".")
			if _, ok := resCond[res]; !ok {
				t.Errorf("%s (line %d): Fn::GetAtt %s: no such resource", where, n.Line, target)
				return
			}
			check(where, res, paramsOnly, guards, n.Line)
			return
		case "Fn::Sub":
			str := arg
			if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
				str = arg.Content[0]
				locals = append(slices.Clone(locals), yamlKeys(arg.Content[1])...)
				walk(where, arg.Content[1], paramsOnly, guards, nil)
			}
			for _, m := range regexp.MustCompile(`\$\{([^!}][^}]*)\}`).FindAllStringSubmatch(str.Value, -1) {
				v, _, _ := strings.Cut(m[1], ".")
				if isPseudo(m[1]) {
					v = m[1]
				}
				if !slices.Contains(locals, v) {
					check(where, v, paramsOnly, guards, n.Line)
				}
			}
			return
		case "Fn::If":
			if arg.Kind != yaml.SequenceNode || len(arg.Content) != 3 {
				t.Errorf("%s (line %d): Fn::If takes [condition, then, else]", where, n.Line)
				return
			}
			checkCond(where, arg.Content[0].Value, n.Line)
			walk(where, arg.Content[1], paramsOnly, append(slices.Clone(guards), arg.Content[0].Value), locals)
			walk(where, arg.Content[2], paramsOnly, guards, locals)
			return
		}
		walk(where, arg, paramsOnly, guards, locals)
	}

	for _, k := range yamlKeys(tpl.rules) {
		walk("rule "+k, yamlGet(tpl.rules, k), true, nil, nil)
	}
	for _, k := range yamlKeys(tpl.conds) {
		walk("condition "+k, yamlGet(tpl.conds, k), true, nil, nil)
	}
	for _, section := range []struct {
		kind string
		n    *yaml.Node
	}{{"resource", tpl.resources}, {"output", tpl.out}} {
		for _, k := range yamlKeys(section.n) {
			v := yamlGet(section.n, k)
			var guards []string
			if c := yamlGet(v, "Condition"); c != nil {
				checkCond(section.kind+" "+k, c.Value, c.Line)
				guards = []string{c.Value}
			}
			for _, prop := range []string{"Properties", "Value"} {
				if p := yamlGet(v, prop); p != nil {
					walk(section.kind+" "+k, p, false, guards, nil)
				}
			}
		}
	}
}

// TestAWSTemplatePlaceholderFunctions runs the placeholder code of both
// functions under node: it must parse, the viewer-request one must answer
// 503 with a JSON error that says to run signpost publish, and the
// viewer-response one must leave the response alone.
func TestAWSTemplatePlaceholderFunctions(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node is needed to check the placeholder functions: %v", err)
		}
		t.Skipf("node not found, placeholder functions not checked: %v", err)
	}
	tpl := loadCFNTemplate(t)
	st := renderCase(t, tpl, awsCases()[0])
	request := map[string]any{"method": "GET", "uri": "/tools", "querystring": map[string]any{}, "headers": map[string]any{}}
	response := map[string]any{"statusCode": 200, "statusDescription": "OK", "headers": map[string]any{"etag": map[string]any{"value": `"x"`}}}
	for _, c := range []struct {
		resource string
		event    map[string]any
		want     func(t *testing.T, out map[string]any)
	}{{
		resource: "ViewerRequestFunction",
		event:    map[string]any{"version": "1.0", "context": map[string]any{"eventType": "viewer-request"}, "request": request},
		want: func(t *testing.T, out map[string]any) {
			if out["statusCode"] != 503.0 {
				t.Errorf("statusCode %v, want 503", out["statusCode"])
			}
			if got := dig(out, "headers", "content-type", "value"); got != "application/json" {
				t.Errorf("content-type %v, want application/json", got)
			}
			var body struct {
				Error struct {
					Status  int
					Message string
				}
			}
			if err := json.Unmarshal([]byte(fmt.Sprint(dig(out, "body", "data"))), &body); err != nil {
				t.Fatalf("body: %v", err)
			}
			if body.Error.Status != 503 || !strings.Contains(body.Error.Message, "run signpost publish") {
				t.Errorf("body %+v: want status 503 and a message that says to run signpost publish", body.Error)
			}
		},
	}, {
		resource: "ViewerResponseFunction",
		event:    map[string]any{"version": "1.0", "context": map[string]any{"eventType": "viewer-response"}, "request": request, "response": response},
		want: func(t *testing.T, out map[string]any) {
			want := map[string]any{"statusCode": 200.0, "statusDescription": "OK", "headers": map[string]any{"etag": map[string]any{"value": `"x"`}}}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		},
	}} {
		t.Run(c.resource, func(t *testing.T) {
			code := fmt.Sprint(st.resource(t, c.resource, "AWS::CloudFront::Function")["FunctionCode"])
			if len(code) > 10*1024 {
				t.Errorf("code is %d bytes; CloudFront takes at most 10 KB", len(code))
			}
			dir := t.TempDir()
			src := filepath.Join(dir, "fn.js")
			if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			event, err := json.Marshal(c.event)
			if err != nil {
				t.Fatal(err)
			}
			harness := filepath.Join(dir, "run.js")
			run := code + "\nconsole.log(JSON.stringify(handler(" + string(event) + ")));\n"
			if err := os.WriteFile(harness, []byte(run), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), awsNodeTimeout)
			defer cancel()
			if out, err := exec.CommandContext(ctx, node, "--check", src).CombinedOutput(); err != nil {
				t.Fatalf("node --check: %v\n%s", err, out)
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, node, harness)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("node: %v\n%s", err, stderr.String())
			}
			var out map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("handler output %q: %v", stdout.String(), err)
			}
			c.want(t, out)
		})
	}
}
