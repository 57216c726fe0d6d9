package templates_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/signpost-dev/signpost/publish"
)

// iamActionOf names the IAM action each call of publish's S3API needs;
// a CloudFrontAPI call needs the action of its own name.
var iamActionOf = map[string]string{
	"ListObjectsV2": "s3:ListBucket",
	"GetObject":     "s3:GetObject",
	"PutObject":     "s3:PutObject",
	"DeleteObjects": "s3:DeleteObject",
	"DeleteObject":  "s3:DeleteObject",
	"GetBucketCors": "s3:GetBucketCORS",
	"PutBucketCors": "s3:PutBucketCORS",
}

// TestPublishPolicyCoversEveryCall checks that the IAM policy of the
// CloudFormation example allows every call signpost publish can make, as
// the interfaces S3API and CloudFrontAPI list them, and nothing else: a
// call added to publish without its permission would fail in production
// only.
func TestPublishPolicyCoversEveryCall(t *testing.T) {
	var want []string
	for _, api := range []reflect.Type{reflect.TypeFor[publish.S3API](), reflect.TypeFor[publish.CloudFrontAPI]()} {
		for i := range api.NumMethod() {
			name := api.Method(i).Name
			action, ok := iamActionOf[name]
			if !ok && api == reflect.TypeFor[publish.CloudFrontAPI]() {
				action, ok = "cloudfront:"+name, true
			}
			if !ok {
				t.Fatalf("no IAM action known for %s.%s: add it to iamActionOf", api.Name(), name)
			}
			want = append(want, action)
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)

	data, err := os.ReadFile("aws/cloudfront-s3.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	policy := find(find(find(find(doc.Content[0], "Resources"), "CiPublishPolicy"), "Properties"), "PolicyDocument")
	statements := find(policy, "Statement")
	if statements == nil {
		t.Fatal("no CiPublishPolicy statements in the template")
	}
	var got []string
	for _, st := range statements.Content {
		if a := find(st, "Action"); a != nil {
			if a.Kind == yaml.ScalarNode {
				got = append(got, a.Value)
			}
			for _, v := range a.Content {
				got = append(got, v.Value)
			}
		}
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if !slices.Equal(got, want) {
		t.Errorf("the publish policy allows\n  %s\nbut publish calls need\n  %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

// find returns the value of key in mapping m, or nil.
func find(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
