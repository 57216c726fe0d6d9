package templates

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// awsKeyValueStoreType is the CloudFormation type of a KeyValueStore.
const awsKeyValueStoreType = "AWS::CloudFront::KeyValueStore"

// awsKeyWrites are the IAM actions that change the keys in a
// KeyValueStore, or the store itself: an operator's job, never CI's.
var awsKeyWrites = []string{
	"cloudfront-keyvaluestore:PutKey",
	"cloudfront-keyvaluestore:UpdateKeys",
	"cloudfront-keyvaluestore:DeleteKey",
	"cloudfront:CreateKeyValueStore",
	"cloudfront:UpdateKeyValueStore",
	"cloudfront:DeleteKeyValueStore",
}

// TestAWSTemplateGatedSite checks the store of a gated site's keys: there
// only with GatedSite=true, exactly one, named after the functions, with
// its ARN as an output, and associated with no function by the template
// (signpost publish owns the association).
func TestAWSTemplateGatedSite(t *testing.T) {
	tpl := loadCFNTemplate(t)

	p := yamlGet(tpl.params, "GatedSite")
	if p == nil {
		t.Fatal("no parameter GatedSite")
	}
	var allowed []string
	for _, v := range yamlGet(p, "AllowedValues").Content {
		allowed = append(allowed, v.Value)
	}
	if !slices.Equal(allowed, []string{"false", "true"}) {
		t.Errorf("GatedSite AllowedValues %v, want [false true]", allowed)
	}
	if d := yamlGet(p, "Default"); d == nil || d.Value != "false" {
		t.Errorf("GatedSite Default %v, want \"false\"", d)
	}

	// No association anywhere in the template, under any condition.
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Value == "KeyValueStoreAssociations" || k.Value == "KeyValueStoreARN" {
					t.Errorf("line %d: %s: signpost publish associates the store; the template must not", k.Line, k.Value)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(tpl.root)

	gated := false
	for _, c := range awsCases() {
		gated = gated || c.gated
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			var stores []string
			for name, r := range st.Resources {
				if r["Type"] == awsKeyValueStoreType {
					stores = append(stores, name)
				}
			}
			out, hasOut := st.Outputs["KeyValueStoreArn"]
			if !c.gated {
				if len(stores) > 0 || hasOut {
					t.Errorf("stores %v, KeyValueStoreArn output %v: want neither without GatedSite", stores, out)
				}
				return
			}
			if len(stores) != 1 {
				t.Fatalf("stores %v, want exactly one", stores)
			}
			s := st.resource(t, stores[0], awsKeyValueStoreType)
			name := fmt.Sprint(s["Name"])
			if want := c.functionPrefix + "-keys"; name != want {
				t.Errorf("store Name %q, want %q", name, want)
			}
			comment, _ := s["Comment"].(string)
			if comment == "" || len(comment) > 128 {
				t.Errorf("store Comment %q: want one that says what the store holds, at most 128 characters", comment)
			}
			if _, ok := s["ImportSource"]; ok {
				t.Errorf("store ImportSource %v: the stack never holds the keys", s["ImportSource"])
			}
			if got := placeholderTarget(t, out, "Arn"); got != stores[0] {
				t.Errorf("KeyValueStoreArn output names %s, want the store %s", got, stores[0])
			}
			for name, r := range st.Resources {
				if hasKey(r, "KeyValueStoreAssociations") {
					t.Errorf("resource %s associates a key value store", name)
				}
			}
		})
	}
	if !gated {
		t.Error("no case deploys a gated site")
	}

	// The store's name fits CloudFront's for the longest FunctionNamePrefix.
	env, err := newCFNEnv(tpl, map[string]string{
		"BucketName": "example-discovery", "FunctionNamePrefix": strings.Repeat("a", 48), "GatedSite": "true",
		"AliasDomainName": "discovery.example.com", "CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/example",
	})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := env.render()
	if err != nil {
		t.Fatal(err)
	}
	if name := fmt.Sprint(st.resource(t, "Store", awsKeyValueStoreType)["Name"]); !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`).MatchString(name) {
		t.Errorf("store Name %q: CloudFront takes [a-zA-Z0-9-_]{1,64}", name)
	}
}

// TestAWSTemplateNoKeyWrites checks that nothing the stack grants, the CI
// policy and role among it, lets anyone write a store's keys, with or
// without the gate, even through a wildcard.
func TestAWSTemplateNoKeyWrites(t *testing.T) {
	tpl := loadCFNTemplate(t)
	for _, c := range awsCases() {
		t.Run(c.name, func(t *testing.T) {
			st := renderCase(t, tpl, c)
			var actions []string
			var collect func(v any)
			collect = func(v any) {
				switch x := v.(type) {
				case map[string]any:
					for k, e := range x {
						if k == "Action" || k == "NotAction" {
							if k == "NotAction" {
								t.Errorf("a NotAction statement (%v) grants everything else", e)
							}
							actions = append(actions, asStrings(e)...)
							continue
						}
						collect(e)
					}
				case []any:
					for _, e := range x {
						collect(e)
					}
				}
			}
			for name, r := range st.Resources {
				if strings.HasPrefix(fmt.Sprint(r["Type"]), "AWS::IAM::") {
					collect(r["Properties"])
				} else if hasKey(r, "PolicyDocument") && name != "BucketPolicy" {
					t.Errorf("resource %s holds a policy this test does not read", name)
				}
			}
			if len(actions) == 0 {
				t.Fatal("no IAM actions found in the stack")
			}
			for _, a := range actions {
				for _, w := range awsKeyWrites {
					if iamActionMatches(a, w) {
						t.Errorf("the stack grants %s, which allows %s: keys are the operator's to put", a, w)
					}
				}
			}

			// The CI role has only the publish policy, nothing inline.
			if role, ok := st.Resources["CiRole"]; ok {
				if diff := cmp.Diff([]any{"{Ref:CiPublishPolicy}"}, dig(role, "Properties", "ManagedPolicyArns")); diff != "" {
					t.Errorf("CiRole policies (-want +got):\n%s", diff)
				}
				if p := dig(role, "Properties", "Policies"); p != nil {
					t.Errorf("CiRole inline policies %v", p)
				}
			}
		})
	}
}

// iamActionMatches reports whether the IAM action pattern (with * and ?,
// case-insensitive, as IAM compares them) matches the action.
func iamActionMatches(pattern, action string) bool {
	ok, err := path.Match(strings.ToLower(pattern), strings.ToLower(action))
	return err == nil && ok
}

func TestIAMActionMatches(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    bool
	}{
		{"cloudfront-keyvaluestore:PutKey", true},
		{"CloudFront-KeyValueStore:putkey", true},
		{"cloudfront-keyvaluestore:*", true},
		{"cloudfront-keyvaluestore:Put*", true},
		{"*", true},
		{"cloudfront-keyvaluestore:GetKey", false},
		{"cloudfront:*Key", false},
		{"cloudfront:UpdateFunction", false},
	} {
		if got := iamActionMatches(c.pattern, "cloudfront-keyvaluestore:PutKey"); got != c.want {
			t.Errorf("%s matches cloudfront-keyvaluestore:PutKey: %v, want %v", c.pattern, got, c.want)
		}
	}
}
